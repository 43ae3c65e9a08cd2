/* ------------------------------------------------------------------ */
/* Options and the buffer                                               */

#define CALLTRACE_MODE_STOP 0
#define CALLTRACE_MODE_RING 1

#ifndef CALLTRACE_EVENTS
#define CALLTRACE_EVENTS 4096
#endif
#ifndef CALLTRACE_MODE
#define CALLTRACE_MODE CALLTRACE_MODE_STOP
#endif
#ifndef CALLTRACE_TASKS
#define CALLTRACE_TASKS 16
#endif
#ifndef CALLTRACE_TASK_NAME
#define CALLTRACE_TASK_NAME 16
#endif
#ifndef CALLTRACE_CLOCK_HZ
#define CALLTRACE_CLOCK_HZ 0
#endif

#if CALLTRACE_EVENTS < 2 || CALLTRACE_EVENTS > 0x7fffffff
#error "CALLTRACE_EVENTS must be at least 2 (a context-switch record and its event)"
#endif
#if CALLTRACE_MODE != CALLTRACE_MODE_STOP && CALLTRACE_MODE != CALLTRACE_MODE_RING
#error "CALLTRACE_MODE must be CALLTRACE_MODE_STOP or CALLTRACE_MODE_RING"
#endif
#if CALLTRACE_TASKS < 1 || CALLTRACE_TASKS > 0x7ffe
#error "CALLTRACE_TASKS must be 1 to 32766"
#endif
#if CALLTRACE_TASK_NAME < 2 || CALLTRACE_TASK_NAME > 4096
#error "CALLTRACE_TASK_NAME must be 2 to 4096"
#endif
#if defined(CALLTRACE_LOCK) != defined(CALLTRACE_UNLOCK)
#error "define both CALLTRACE_LOCK() and CALLTRACE_UNLOCK(key), or neither"
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the calltrace buffer format is little-endian only"
#endif

/* What CALLTRACE_CLOCK(), CALLTRACE_LOCK() ... use, declared (at file scope). */
#ifdef CALLTRACE_DECLARE
CALLTRACE_DECLARE
#endif

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define CT_CORTEX_M 1
#else
#define CT_CORTEX_M 0
#endif
#if CT_CORTEX_M && (defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || \
                    defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__))
#define CT_HAVE_DWT 1 /* a DWT with (maybe) CYCCNT: ARMv7-M, ARMv8-M mainline */
#else
#define CT_HAVE_DWT 0
#endif

/* Header fields (docs/binary-format.md, "The freestanding buffer format"). */
#define CT_FW_VERSION 1u
#define CT_CLOCK_USER 0u    /* CALLTRACE_CLOCK() */
#define CT_CLOCK_CYCLES 1u  /* DWT CYCCNT, mcycle */
#define CT_CLOCK_SYSTICK 2u /* SysTick extended by its wraps */
#define CT_CLOCK_NONE 3u    /* the event's sequence number */
#define CT_FLAG_ON 1u       /* recording */
#define CT_FLAG_TASKS_FULL 2u
#define CT_FLAG_WRAPPED 4u  /* slot order starts at write_index */
#define CT_CTX_OTHER 0x7ffeu /* tasks past the table */
#define CT_CTX_MAIN 0x7fffu  /* thread mode before any task switch */
#define CT_CTX_EXCEPTION 0x8000u
/* A context-switch record's first word: all ones but type 0xE. */
#define CT_SWITCH_WORD (~(uintptr_t)0xf | (uintptr_t)0xe)

#if defined(CALLTRACE_CLOCK)
#define CT_CLOCK_FIRST CT_CLOCK_USER
#elif defined(CALLTRACE_UNTIMED)
#define CT_CLOCK_FIRST CT_CLOCK_NONE
#elif CT_HAVE_DWT || defined(__riscv)
#define CT_CLOCK_FIRST CT_CLOCK_CYCLES /* until the first event tries it */
#elif CT_CORTEX_M
#define CT_CLOCK_FIRST CT_CLOCK_SYSTICK
#else
#define CT_CLOCK_FIRST CT_CLOCK_NONE
#endif

struct calltrace_header {
    char magic[8];
    uint16_t version;
    uint16_t header_size;
    uint8_t pointer_size;
    uint8_t event_size;
    uint8_t mode;
    uint8_t clock;
    uint32_t clock_hz;
    uint32_t capacity;
    uint32_t count;
    uint32_t write_index;
    uint32_t dropped;
    uint16_t task_capacity;
    uint16_t task_name_size;
    uint16_t tasks_used;
    uint16_t context;
    uint32_t flags;
    uint32_t buffer_address;
    uint8_t reserved[12];
};

/* One event slot: 8 bytes on a 32-bit target.  word0 is the function's
 * address with the kind in bit 0 (or a special record), word1 the clock's
 * low 32 bits (or a special record's argument). */
struct calltrace_event {
    uintptr_t word0;
    uint32_t word1;
#if __SIZEOF_POINTER__ == 8
    uint32_t zero;
#endif
};

struct calltrace_task {
    const void *task;
    char name[CALLTRACE_TASK_NAME];
};

struct calltrace_buffer {
    struct calltrace_header header;
    struct calltrace_task tasks[CALLTRACE_TASKS];
    struct calltrace_event events[CALLTRACE_EVENTS] __attribute__((aligned(8)));
};

_Static_assert(sizeof(struct calltrace_header) == 64, "the header is 64 bytes");
_Static_assert(offsetof(struct calltrace_buffer, tasks) == 64, "the task table follows the header");
_Static_assert(sizeof(struct calltrace_event) == 2 * sizeof(void *), "8-byte events on 32-bit");
_Static_assert(sizeof(struct calltrace_task) ==
                   (sizeof(void *) + CALLTRACE_TASK_NAME + sizeof(void *) - 1) / sizeof(void *) *
                       sizeof(void *),
               "task entries are round_up(P + name, P) bytes");
_Static_assert(offsetof(struct calltrace_buffer, events) % 8 == 0, "events start 8-aligned");
_Static_assert(offsetof(struct calltrace_buffer, events) < 65536, "header_size is 16 bits");

#if __SIZEOF_POINTER__ == 4
#define CT_ADDRESS_FIRST ((uint32_t)(uintptr_t)&calltrace_buffer)
#else
#define CT_ADDRESS_FIRST 0u /* (not a link-time constant: set by a dump) */
#endif

/* Recording is on from reset: the header is in .data, no init call. */
extern struct calltrace_buffer calltrace_buffer;
__attribute__((used)) struct calltrace_buffer calltrace_buffer = {
    .header =
        {
            .magic = {'C', 'A', 'L', 'L', 'T', 'R', 'F', 0},
            .version = CT_FW_VERSION,
            .header_size = offsetof(struct calltrace_buffer, events),
            .pointer_size = sizeof(void *),
            .event_size = sizeof(struct calltrace_event),
            .mode = CALLTRACE_MODE,
            .clock = CT_CLOCK_FIRST,
            .clock_hz = CALLTRACE_CLOCK_HZ,
            .capacity = CALLTRACE_EVENTS,
            .count = 0,
            .write_index = 0,
            .dropped = 0,
            .task_capacity = CALLTRACE_TASKS,
            .task_name_size = CALLTRACE_TASK_NAME,
            .tasks_used = 0,
            .context = CT_CTX_MAIN,
            .flags = CT_FLAG_ON,
            .buffer_address = CT_ADDRESS_FIRST,
            .reserved = {0},
        },
};

#define CT_H calltrace_buffer.header

static uint16_t ct_task = CT_CTX_MAIN; /* the current task's context */
/* Inside a record: a hook called from it (an NMI, which masking does not
 * hold off) returns.  Volatile: the compiler sees no reader of the store
 * that sets it, as it cannot see an interrupt. */
static volatile uint8_t ct_busy;
static uint8_t ct_paused;              /* dumps under way: nothing is recorded */

/* ------------------------------------------------------------------ */
/* Interrupt masking, exception number                                  */

#if defined(CALLTRACE_LOCK)
#define CT_LOCK() ((uintptr_t)(CALLTRACE_LOCK()))
#define CT_UNLOCK(key) CALLTRACE_UNLOCK(key)
#elif CT_CORTEX_M
static inline CT_NOINST __attribute__((always_inline)) uintptr_t ct_lock(void)
{
    uint32_t primask;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
    return primask;
}
static inline CT_NOINST __attribute__((always_inline)) void ct_unlock(uintptr_t primask)
{
    __asm__ volatile("msr primask, %0" : : "r"((uint32_t)primask) : "memory");
}
#define CT_LOCK() ct_lock()
#define CT_UNLOCK(key) ct_unlock(key)
#elif defined(__riscv)
/* CSR instructions as .insn: an assembler that wants Zicsr named in -march
 * (binutils 2.38 on) refuses their mnemonics under -march=rv32imac. */
static inline CT_NOINST __attribute__((always_inline)) uintptr_t ct_lock(void)
{
    uintptr_t mstatus;
    /* csrrci %0, mstatus, 8 */
    __asm__ volatile(".insn i 0x73, 7, %0, x8, 0x300" : "=r"(mstatus) : : "memory");
    return mstatus & 8u; /* MIE */
}
static inline CT_NOINST __attribute__((always_inline)) void ct_unlock(uintptr_t mie)
{
    /* csrs mstatus, %0 */
    __asm__ volatile(".insn i 0x73, 2, x0, %0, 0x300" : : "r"(mie) : "memory");
}
#define CT_LOCK() ct_lock()
#define CT_UNLOCK(key) ct_unlock(key)
#else
#define CT_LOCK() ((uintptr_t)0) /* no interrupts known here: define CALLTRACE_LOCK */
#define CT_UNLOCK(key) ((void)(key))
#endif

/* The context of the code calling a hook now. */
static inline CT_NOINST __attribute__((always_inline)) uint16_t ct_context(void)
{
    uint32_t exception;
#if defined(CALLTRACE_EXCEPTION)
    exception = (uint32_t)(CALLTRACE_EXCEPTION());
#elif CT_CORTEX_M
    __asm__ volatile("mrs %0, ipsr" : "=r"(exception));
    exception &= 0x1ffu;
#else
    exception = 0;
#endif
    if (exception)
        return (uint16_t)(CT_CTX_EXCEPTION | (exception & 0x7fffu));
    return ct_task;
}
