/* ------------------------------------------------------------------ */
/* Tasks                                                                */

/* Whether a table entry's name is `name` as the table keeps it (its first
 * CALLTRACE_TASK_NAME - 1 bytes). */
static CT_NOINST int ct_same_name(const char *kept, const char *name)
{
    size_t i;
    for (i = 0; i < CALLTRACE_TASK_NAME - 1; i++) {
        char c = name ? name[i] : 0;
        if (kept[i] != c)
            return 0;
        if (c == 0)
            return 1;
    }
    return 1;
}

/* Copy a name into an entry, truncated and NUL-padded, byte by byte through
 * a volatile pointer: a plain loop the compiler turns into memcpy/memset,
 * which a freestanding build may not have. */
static CT_NOINST void ct_copy_name(char *dst, const char *name)
{
    volatile char *d = dst;
    size_t i = 0;
    if (name)
        for (; i < CALLTRACE_TASK_NAME - 1 && name[i]; i++)
            d[i] = name[i];
    for (; i < CALLTRACE_TASK_NAME; i++)
        d[i] = 0;
}

/* The context of task (pointer, name): its entry, a new one, or "other
 * tasks" when the table is full.  Interrupts masked. */
static CT_NOINST uint16_t ct_task_context(const void *task, const char *name)
{
    struct calltrace_task *t = calltrace_buffer.tasks;
    uint16_t i, used = CT_H.tasks_used;
    if (ct_task < used && t[ct_task].task == task && ct_same_name(t[ct_task].name, name))
        return ct_task;
    for (i = 0; i < used; i++)
        if (t[i].task == task && ct_same_name(t[i].name, name))
            return i;
    if (used == CALLTRACE_TASKS) {
        CT_H.flags |= CT_FLAG_TASKS_FULL;
        return CT_CTX_OTHER;
    }
    t[used].task = task;
    ct_copy_name(t[used].name, name);
    CT_H.tasks_used = (uint16_t)(used + 1);
    return used;
}

CT_HOOK void calltrace_task_switch(const void *task, const char *name)
{
    uintptr_t key = CT_LOCK();
    ct_task = ct_task_context(task, name);
    CT_UNLOCK(key);
}

/* ------------------------------------------------------------------ */
/* Control                                                              */

CT_HOOK void calltrace_start(void)
{
    uintptr_t key = CT_LOCK();
    CT_H.flags |= CT_FLAG_ON;
    CT_UNLOCK(key);
}

CT_HOOK void calltrace_stop(void)
{
    uintptr_t key = CT_LOCK();
    CT_H.flags &= ~CT_FLAG_ON;
    CT_UNLOCK(key);
}

/* Empty the buffer.  The task table and the current context stay: the
 * first event of another context still gets its context-switch record. */
CT_HOOK void calltrace_clear(void)
{
    uintptr_t key = CT_LOCK();
    CT_H.count = 0;
    CT_H.write_index = 0;
    CT_H.dropped = 0;
    CT_H.flags &= ~CT_FLAG_WRAPPED;
    CT_UNLOCK(key);
}

/* ------------------------------------------------------------------ */
/* Dumps                                                                */

/* Pause recording for a dump (its write function may be instrumented, and
 * its events would change the bytes being written); fill in the address. */
static CT_NOINST void ct_dump_begin(void)
{
    uintptr_t key = CT_LOCK();
    ct_paused++;
    CT_H.buffer_address = (uint32_t)(uintptr_t)&calltrace_buffer;
    CT_UNLOCK(key);
}

static CT_NOINST void ct_dump_end(void)
{
    uintptr_t key = CT_LOCK();
    ct_paused--;
    CT_UNLOCK(key);
}

CT_HOOK size_t calltrace_dump(void (*write)(const void *data, size_t len, void *ctx), void *ctx)
{
    if (!write)
        return 0;
    ct_dump_begin();
    write(&calltrace_buffer, sizeof calltrace_buffer, ctx);
    ct_dump_end();
    return sizeof calltrace_buffer;
}

/* Semihosting: operation op with its parameter block, answered by the
 * debugger (or QEMU) that catches the breakpoint. */
#define CT_SYS_OPEN 0x01
#define CT_SYS_CLOSE 0x02
#define CT_SYS_WRITE 0x05
#define CT_OPEN_WB 5 /* fopen() mode "wb" */

#if CT_CORTEX_M || defined(__riscv) || defined(__arm__) || defined(__aarch64__)
#define CT_HAVE_SEMIHOSTING 1
static CT_NOINST __attribute__((noinline)) intptr_t ct_semihost(uintptr_t op, uintptr_t *args)
{
#if CT_CORTEX_M || defined(__arm__)
    register uintptr_t r0 __asm__("r0") = op;
    register uintptr_t *r1 __asm__("r1") = args;
#if CT_CORTEX_M
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#elif defined(__thumb__)
    __asm__ volatile("svc 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
    __asm__ volatile("svc 0x123456" : "+r"(r0) : "r"(r1) : "memory");
#endif
    return (intptr_t)r0;
#elif defined(__aarch64__)
    register uintptr_t x0 __asm__("x0") = op;
    register uintptr_t *x1 __asm__("x1") = args;
    __asm__ volatile("hlt 0xf000" : "+r"(x0) : "r"(x1) : "memory");
    return (intptr_t)x0;
#else
    /* The RISC-V sequence: three uncompressed instructions in one page
     * (aligned before compressed instructions are turned off: the padding
     * may need a 2-byte one). */
    register uintptr_t a0 __asm__("a0") = op;
    register uintptr_t *a1 __asm__("a1") = args;
    __asm__ volatile(".option push\n\t"
                     ".balign 16\n\t"
                     ".option norvc\n\t"
                     "slli x0, x0, 0x1f\n\t"
                     "ebreak\n\t"
                     "srai x0, x0, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return (intptr_t)a0;
#endif
}
#else
#define CT_HAVE_SEMIHOSTING 0
#endif

CT_HOOK int calltrace_dump_semihosting(const char *path)
{
#if CT_HAVE_SEMIHOSTING
    uintptr_t args[3];
    intptr_t fd;
    size_t len = 0;
    int failed;
    if (!path)
        return -1;
    while (((const volatile char *)path)[len])
        len++;
    ct_dump_begin();
    args[0] = (uintptr_t)path;
    args[1] = CT_OPEN_WB;
    args[2] = len;
    fd = ct_semihost(CT_SYS_OPEN, args);
    failed = fd == -1;
    if (!failed) {
        args[0] = (uintptr_t)fd;
        args[1] = (uintptr_t)&calltrace_buffer;
        args[2] = sizeof calltrace_buffer;
        failed = ct_semihost(CT_SYS_WRITE, args) != 0; /* bytes not written */
        args[0] = (uintptr_t)fd;
        failed |= ct_semihost(CT_SYS_CLOSE, args) != 0;
    }
    ct_dump_end();
    return failed ? -1 : 0;
#else
    (void)path;
    return -1; /* no semihosting on this target */
#endif
}
