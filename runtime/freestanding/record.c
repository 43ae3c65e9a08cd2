/* ------------------------------------------------------------------ */
/* Clock                                                                */

/* Every clock runs with interrupts masked (inside a record): its state
 * needs no other protection. */
static uint32_t ct_seq; /* CT_CLOCK_NONE: events recorded */

#if !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
static uint8_t ct_clock_ready;
#endif

#if (CT_HAVE_DWT || defined(__riscv)) && !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
/* Whether a counter read by `read` changes within a short busy loop (a
 * few hundred cycles on any core). */
static CT_NOINST int ct_advances(uint32_t (*read)(void))
{
    volatile uint32_t spin;
    uint32_t first = read();
    for (spin = 0; spin < 64; spin++)
        ;
    return read() != first;
}
#endif

#if CT_CORTEX_M && !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
#define CT_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))
#define CT_SYST_CSR CT_REG(0xe000e010u) /* SysTick control and status */
#define CT_SYST_RVR CT_REG(0xe000e014u) /* reload value */
#define CT_SYST_CVR CT_REG(0xe000e018u) /* current value (counts down) */
static uint32_t ct_systick_time; /* SysTick ticks so far, mod 2^32 */
static uint32_t ct_systick_last; /* CVR at the last read */

static CT_NOINST uint32_t ct_systick_cvr(void)
{
    return CT_SYST_CVR & 0xffffffu;
}

/* Start SysTick counting the processor clock with the longest period, no
 * interrupt, unless someone (an RTOS's tick) already runs it. */
static CT_NOINST void ct_systick_start(void)
{
    uint32_t spin;
    if (!(CT_SYST_CSR & 1u)) {
        CT_SYST_RVR = 0xffffffu;
        CT_SYST_CVR = 0;
        CT_SYST_CSR = 5u; /* ENABLE | CLKSOURCE (processor clock) */
        /* A core loads the reload value at the next tick; QEMU only when
         * it next looks at its timers, reading 0 until then (a whole short
         * run can pass in between): wait for it, boundedly. */
        for (spin = 0; spin < 1000000u && ct_systick_cvr() == 0; spin++)
            ;
    }
    ct_systick_last = ct_systick_cvr();
}

/* Ticks since the last read added to the total: a counter below its last
 * value counted down; above it, it wrapped (once, as far as anyone can tell). */
static CT_NOINST uint32_t ct_systick_now(void)
{
    uint32_t now = ct_systick_cvr(), last = ct_systick_last;
    uint32_t period = (CT_SYST_RVR & 0xffffffu) + 1u;
    ct_systick_time += now <= last ? last - now : last + period - now;
    ct_systick_last = now;
    return ct_systick_time;
}
#endif

#if CT_HAVE_DWT && !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
#define CT_DEMCR CT_REG(0xe000edfcu)    /* debug exception and monitor control */
#define CT_DWT_CTRL CT_REG(0xe0001000u)
#define CT_DWT_CYCCNT CT_REG(0xe0001004u)

static CT_NOINST uint32_t ct_cyccnt(void)
{
    return CT_DWT_CYCCNT;
}

/* Enable the DWT cycle counter; whether it counts. */
static CT_NOINST int ct_cyccnt_start(void)
{
    CT_DEMCR |= 1u << 24; /* TRCENA */
    if (CT_DWT_CTRL & (1u << 25)) /* NOCYCCNT */
        return 0;
    CT_DWT_CTRL |= 1u; /* CYCCNTENA */
    return ct_advances(ct_cyccnt);
}
#endif

#if defined(__riscv) && !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
static CT_NOINST uint32_t ct_mcycle(void)
{
    uintptr_t c;
    __asm__ volatile(".insn i 0x73, 2, %0, x0, -1280" : "=r"(c)); /* csrr %0, mcycle (0xb00) */
    return (uint32_t)c;
}
#endif

#if !defined(CALLTRACE_CLOCK) && !defined(CALLTRACE_UNTIMED)
/* Pick the clock, once, at the first event; the header says which. */
static CT_NOINST void ct_clock_start(void)
{
    uint8_t clock = CT_CLOCK_NONE;
#if CT_HAVE_DWT
    if (ct_cyccnt_start())
        clock = CT_CLOCK_CYCLES;
#elif defined(__riscv)
    if (ct_advances(ct_mcycle))
        clock = CT_CLOCK_CYCLES;
#endif
#if CT_CORTEX_M
    if (clock == CT_CLOCK_NONE) {
        ct_systick_start();
        clock = CT_CLOCK_SYSTICK;
    }
#endif
    CT_H.clock = clock;
    ct_clock_ready = 1;
}
#endif

/* The time of an event now: the low 32 bits of the header's clock. */
static inline CT_NOINST __attribute__((always_inline)) uint32_t ct_time(void)
{
#if defined(CALLTRACE_CLOCK)
    return (uint32_t)(CALLTRACE_CLOCK());
#elif defined(CALLTRACE_UNTIMED)
    return ct_seq;
#else
    if (CT_UNLIKELY(!ct_clock_ready))
        ct_clock_start();
#if CT_HAVE_DWT
    if (CT_H.clock == CT_CLOCK_CYCLES)
        return ct_cyccnt();
#elif defined(__riscv)
    if (CT_H.clock == CT_CLOCK_CYCLES)
        return ct_mcycle();
#endif
#if CT_CORTEX_M
    if (CT_H.clock == CT_CLOCK_SYSTICK)
        return ct_systick_now();
#endif
    return ct_seq;
#endif
}

/* ------------------------------------------------------------------ */
/* Recording                                                            */

/* Store one slot at write_index and advance it; interrupts masked. */
static inline CT_NOINST __attribute__((always_inline)) void ct_put(uintptr_t word0,
                                                                   uint32_t word1)
{
    uint32_t i = CT_H.write_index;
    calltrace_buffer.events[i].word0 = word0;
    calltrace_buffer.events[i].word1 = word1;
    if (++i == CALLTRACE_EVENTS) {
        /* A ring goes round and reads from write_index on; a stop buffer
         * is full (count = capacity), and reads from slot 0 on. */
        i = 0;
#if CALLTRACE_MODE == CALLTRACE_MODE_RING
        CT_H.flags |= CT_FLAG_WRAPPED;
#endif
    }
    CT_H.write_index = i;
    if (CT_H.count != 0xffffffffu)
        CT_H.count++;
}

/* Record a function event of context ctx, after a context-switch record if
 * the last slot was another context's; interrupts masked. */
static CT_NOINST void ct_store(uintptr_t word0, uint16_t ctx)
{
    uint32_t need = ctx == CT_H.context ? 1u : 2u;
#if CALLTRACE_MODE == CALLTRACE_MODE_STOP
    if (CALLTRACE_EVENTS - CT_H.count < need) {
        CT_H.dropped = CT_H.dropped > 0xffffffffu - need ? 0xffffffffu : CT_H.dropped + need;
        return;
    }
#endif
    if (need == 2u) {
        ct_put(CT_SWITCH_WORD, (uint32_t)CT_H.context << 16 | ctx);
        CT_H.context = ctx;
    }
    ct_put(word0, ct_time());
    ct_seq++;
}

static CT_NOINST void ct_record(void *fn, unsigned kind)
{
    uintptr_t key;
    if (!(CT_H.flags & CT_FLAG_ON))
        return; /* (read again below, with interrupts masked) */
    key = CT_LOCK();
    if ((CT_H.flags & CT_FLAG_ON) && !ct_busy && !ct_paused) {
        ct_busy = 1;
        ct_store(CT_KIND_LOW(fn, kind), ct_context());
        ct_busy = 0;
    }
    CT_UNLOCK(key);
}

CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, CT_ENTRY);
}

CT_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, CT_EXIT);
}
