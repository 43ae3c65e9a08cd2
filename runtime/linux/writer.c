/* ------------------------------------------------------------------ */
/* The writer thread                                                    */

/* Encoding and writing happen on a writer thread, so that a traced thread
 * only stores events into its ring: it checks in every CT_STEP events,
 * wakes the writer once its ring is half full, and waits only when the ring
 * is full (the writer is behind: the disk, or a pipe's reader).  Without a
 * writer (CALLTRACE_WRITER=0, or it could not be started) a thread writes
 * its own ring when it is nearly full, as does every thread after the final
 * flush at exit.  Lock order: ct_lock and ct_wm are never held together,
 * except by the fork handlers (ct_lock, then ct_wm). */
static pthread_mutex_t ct_wm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ct_wcond = PTHREAD_COND_INITIALIZER; /* wakes the writer; ct_wm */
static int ct_writer_on;   /* a writer thread runs in this process */
static int ct_writer_off;  /* CALLTRACE_WRITER=0 */
static int ct_w_pending;   /* an owner asked the writer to write */
static int ct_w_sleeping;  /* the writer waits on ct_wcond */

/* Wake the writer if it sleeps. */
static CT_NOINST void ct_wake(void)
{
    __atomic_store_n(&ct_w_pending, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ct_w_sleeping, __ATOMIC_SEQ_CST)) {
        pthread_mutex_lock(&ct_wm);
        pthread_cond_signal(&ct_wcond);
        pthread_mutex_unlock(&ct_wm);
    }
}

/* Sleep for the writer: `us` microseconds, or until an owner wakes it. */
static CT_NOINST void ct_writer_sleep(long us)
{
    struct timespec ts;
    pthread_mutex_lock(&ct_wm);
    __atomic_store_n(&ct_w_sleeping, 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&ct_w_pending, __ATOMIC_SEQ_CST)) {
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += us / 1000000;
        ts.tv_nsec += (us % 1000000) * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&ct_wcond, &ct_wm, &ts);
    }
    __atomic_store_n(&ct_w_sleeping, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&ct_w_pending, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&ct_wm);
}

/* Until when (CLOCK_MONOTONIC ns) polling is off: a polling thread lost
 * its CPU, so the CPUs are shared with other work. */
static uint64_t ct_crowded_until;

/* Poll until done(arg) or for `us` microseconds; returns whether done.
 * It stops early when stuck(arg) says that the thread it waits for needs
 * this CPU.  A poll that finds it lost its CPU for a while (other programs
 * keep the CPUs busy) stops, and turns polling off for CT_CROWDED_MS: the
 * thread it waits for may be waiting for this very CPU. */
static CT_NOINST int ct_poll(int (*done)(const void *), int (*stuck)(const void *),
                             const void *arg, uint32_t us)
{
    uint64_t last = ct_mono(), until = last + us * 1000ull;
    for (;;) {
        uint64_t now;
        int k;
        for (k = 0; k < 64; k++) {
            if (done(arg))
                return 1;
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
        now = ct_mono();
        if (now - last >= CT_PREEMPT_US * 1000ull) {
            __atomic_store_n(&ct_crowded_until, now + CT_CROWDED_MS * 1000000ull,
                             __ATOMIC_RELAXED);
            return done(arg);
        }
        if (now >= until || stuck(arg))
            return done(arg);
        last = now;
    }
}

/* Whether polling instead of sleeping takes no CPU from anyone: every
 * traced thread and the writer can have a CPU of their own, and no poll
 * lost its CPU lately.  With more threads than CPUs, or other programs
 * busy on them, a polling thread would take turns from the very thread it
 * waits for, so both sleep as they did before polling. */
static CT_NOINST int ct_may_poll(void)
{
    uint64_t until = __atomic_load_n(&ct_crowded_until, __ATOMIC_RELAXED);
    return __atomic_load_n(&ct_nthreads, __ATOMIC_RELAXED) < ct_ncpu &&
           (until == 0 || ct_mono() >= until);
}

/* Whether some thread has checked in events that are not written yet, or
 * the final flush began.  Reads only the lines that owners write at
 * check-ins (pub), never the line they write at every event. */
static CT_NOINST int ct_writer_due(const void *unused)
{
    struct ct_thread *t;
    (void)unused;
    if (__atomic_load_n(&ct_final, __ATOMIC_ACQUIRE))
        return 1;
    for (t = __atomic_load_n(&ct_threads, __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
        if ((int32_t)(__atomic_load_n(&t->pub, __ATOMIC_ACQUIRE) -
                      __atomic_load_n(&t->wflushed, __ATOMIC_ACQUIRE)) > 0)
            return 1; /* (a flush by calltrace_flush() may be ahead of pub) */
    return 0;
}

/* The CPU the writer last polled on (-1: unknown). */
static int ct_w_cpu = -1;

/* Whether the writer should stop polling: a traced thread last checked in
 * on the writer's CPU, so it may be waiting for the CPU that the writer
 * polls on while the other CPUs are busy. */
static CT_NOINST int ct_writer_stuck(const void *unused)
{
    struct ct_thread *t;
    int me = sched_getcpu();
    (void)unused;
    __atomic_store_n(&ct_w_cpu, me, __ATOMIC_RELAXED);
    if (me < 0)
        return 0;
    for (t = __atomic_load_n(&ct_threads, __ATOMIC_ACQUIRE); t;
         t = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE))
        if (__atomic_load_n(&t->cpu, __ATOMIC_RELAXED) == me)
            return 1;
    return 0;
}

/* Whether an owner waiting for room should stop polling: the writer last
 * polled on this CPU, so it may be waiting for it. */
static CT_NOINST int ct_owner_stuck(const void *unused)
{
    int w = __atomic_load_n(&ct_w_cpu, __ATOMIC_RELAXED);
    (void)unused;
    return w >= 0 && w == sched_getcpu();
}

/* While events flow, wait for the next check-in without sleeping, for up
 * to `us` microseconds.  Returns 1 if one came.  (The list is walked
 * without ct_lock: a state is only ever moved to ct_free, never unmapped,
 * so its pub and wflushed stay readable.) */
static CT_NOINST int ct_writer_spin(uint32_t us)
{
    return ct_poll(ct_writer_due, ct_writer_stuck, NULL, us);
}

/* One pass over the threads: write their events up to their last check-in
 * (fast) or all of them.  Returns the most events one thread had. */
static CT_NOINST uint32_t ct_writer_pass(int fast)
{
    struct ct_thread *t;
    struct ct_nocancel nc;
    uint32_t most = 0;
    ct_lock_take(&nc);
    if (!fast)
        ct_reap();
    for (t = ct_threads; t; t = t->next) {
        uint32_t to = fast ? __atomic_load_n(&t->pub, __ATOMIC_ACQUIRE)
                           : __atomic_load_n(&t->len, __ATOMIC_ACQUIRE);
        uint32_t n = to - t->wflushed;
        if ((int32_t)n <= 0) /* calltrace_flush() wrote past the check-in */
            continue;
        if (n > most)
            most = n;
        ct_flush_upto(t, to, ct_wout, sizeof ct_wout);
    }
    if (!fast)
        ct_stage_drain(); /* (before the writer sleeps) */
    ct_lock_give(&nc);
    return most;
}

/* The writer.  While owners check in (every CT_STEP events) it polls their
 * check-ins without sleeping and writes what they publish: the traced
 * threads then never make a system call to wake it, and their per-event
 * line never moves to this core.  When check-ins stop for CT_SPIN_US it
 * writes everything recorded and sleeps, 50 us at first and longer (up to
 * CT_WAKE_MS) the less it finds; an owner whose ring fills up wakes it. */
static CT_NOINST void *ct_writer_main(void *arg)
{
    long nap = 1000;
    int unused;
    (void)arg;
    ct_t.gate++; /* this thread runs no traced code; be safe anyway */
    ct_t.own = 1; /* (what it calls is the runtime's: never recorded) */
    ct_t.quiet = 1; /* started with every signal blocked (ct_writer_start) */
    /* Nobody can name this thread to cancel it; and it waits on ct_wcond
     * (a cancellation point) holding ct_wm. */
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &unused);
    for (;;) {
        uint32_t most;
        if (nap)
            ct_writer_sleep(nap);
        if (__atomic_load_n(&ct_final, __ATOMIC_ACQUIRE))
            break; /* the final flush wrote everything; threads write through */
        if (ct_may_poll() && ct_writer_pass(1) >= CT_STEP) {
            uint32_t window = CT_SPIN_US;
            nap = 0;
            for (;;) {
                uint64_t since = ct_mono(), gap;
                if (!ct_may_poll() || !ct_writer_spin(window) ||
                    __atomic_load_n(&ct_final, __ATOMIC_ACQUIRE))
                    break;
                /* check-ins come fast: the ring would fill before a sleeping
                 * writer ran again, so wait longer for the next one (but
                 * not much longer than they take to come: an owner that
                 * lost its CPU may need the writer's) */
                gap = ct_mono() - since;
                window = gap < CT_FAST_GAP_US * 1000ull && gap * CT_FAST_GAPS / 1000 > CT_SPIN_US
                             ? (uint32_t)(gap * CT_FAST_GAPS / 1000)
                             : CT_SPIN_US;
                (void)ct_writer_pass(1);
            }
            if (__atomic_load_n(&ct_final, __ATOMIC_ACQUIRE))
                break;
        }
        most = ct_writer_pass(0);
        if (most >= CT_EVENTS / 8)
            nap = 0; /* events flow fast: write on at once */
        else if (most >= CT_EVENTS / 64)
            nap = 50;
        else if (most > 0)
            nap = nap < 1000 ? nap * 2 + 50 : 1000;
        else
            nap = nap < CT_WAKE_MS * 1000L ? nap * 2 + 50 : CT_WAKE_MS * 1000L;
    }
    return NULL;
}

/* Start the writer thread (once per process; never before libc is set up).
 * It blocks every signal, so that the program's signals go to its own
 * threads. */
static CT_NOINST void ct_writer_start(void)
{
    pthread_t th;
    pthread_attr_t attr;
    sigset_t all, old;
    static int starting;
    if (ct_writer_off || __atomic_load_n(&ct_writer_on, __ATOMIC_ACQUIRE) || !environ ||
        __atomic_load_n(&ct_final, __ATOMIC_ACQUIRE) ||
        __atomic_exchange_n(&starting, 1, __ATOMIC_ACQ_REL))
        return;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    ct_t.own++; /* (pthread_create() frees cached stacks' memory: ct_own_begin) */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    if (pthread_create(&th, &attr, ct_writer_main, NULL) == 0)
        __atomic_store_n(&ct_writer_on, 1, __ATOMIC_RELEASE);
    pthread_attr_destroy(&attr);
    ct_t.own--;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    __atomic_store_n(&starting, 0, __ATOMIC_RELEASE);
}

/* Whether t's ring lacks room for CT_STEP more events (and CT_SIDE). */
static CT_NOINST int ct_full(const struct ct_thread *t)
{
    return t->len - __atomic_load_n(&t->flushed, __ATOMIC_SEQ_CST) > CT_ROOM &&
           !__atomic_load_n(&ct_final, __ATOMIC_SEQ_CST);
}

static CT_NOINST int ct_has_room(const void *t)
{
    return !ct_full((const struct ct_thread *)t);
}

/* Write t's own ring, if it is still full (ct_lock held). */
static CT_NOINST void ct_help_locked(struct ct_thread *t)
{
    if (ct_full(t))
        ct_flush_locked(t);
}

/* Make room in t's ring for CT_STEP events: the writer is behind.  If it
 * is not writing just now (ct_lock is free), the owner writes its ring
 * itself rather than wait for it: the writer may be waiting for a CPU,
 * perhaps this one, while other programs keep the others busy, and a
 * thread that waited for it (polling, or asleep until it ran) made the
 * traced program several times slower on a loaded machine.  If the writer
 * is writing, the owner polls for the room it makes (a sleeping thread
 * can take a millisecond to run again in a virtual machine, and this
 * ring fills in well under that), then waits for the lock and writes
 * what is left itself. */
static CT_NOINST void ct_wait_room(struct ct_thread *t)
{
    struct ct_nocancel nc;
    ct_cancel_off(&nc);
    if (pthread_mutex_trylock(&ct_lock) != 0) {
        if (ct_may_poll() && ct_poll(ct_has_room, ct_owner_stuck, t, CT_WAIT_SPIN_US)) {
            ct_cancel_on(&nc);
            return;
        }
        pthread_mutex_lock(&ct_lock);
    }
    ct_help_locked(t);
    ct_lock_give(&nc);
}

/* Reserve the trace file's blocks for the ring slots that t's next
 * check-in may see filled, with a check-in to spare (len: its events so
 * far).  A buffer in the file is reserved as its thread comes to fill it,
 * so that a thread that makes few calls takes few blocks of the disk (64
 * threads of 200 calls each took 154 MB when each buffer was reserved
 * whole), and its mapping is never touched where the file system could not
 * back it (a page that a full disk cannot back kills the program with
 * SIGBUS).  If the disk is full, tracing stops, as it does when a write
 * fails, and this thread records no more events: the slots it may still
 * fill before then are reserved.  Called by the owner at check-ins. */
static CT_NOINST __attribute__((noinline)) void ct_reserve(struct ct_thread *t, uint32_t len)
{
    uint64_t want = (uint64_t)len + 2 * CT_STEP + CT_SIDE, to, slot;
    struct ct_sigs sigs;
    struct ct_nocancel nc;
    int err = 0;
    if (want <= t->reserved)
        return;
    slot = ct_slot();
    to = (uint64_t)t->reserved + CT_RESERVE_MORE;
    if (to < want)
        to = want;
    if (to > CT_EVENTS)
        to = CT_EVENTS;
    if (ct_write_error)
        err = EIO;
    else if (!ct_fd_ours())
        err = EBADF;
    if (!err) {
        ct_sigs_hold(&sigs);
        err = posix_fallocate(ct_fd, (off_t)(t->file_off + CT_HDR + t->reserved * slot),
                              (off_t)((to - t->reserved) * slot));
        ct_sigs_release(&sigs);
    }
    if (!err) {
        t->reserved = (uint32_t)to;
        return;
    }
    ct_lock_take(&nc);
    if (!ct_write_error) {
        ct_write_error = 1;
        ct_msg("no room for the trace file's event buffers, tracing stopped: ", strerror(err));
    }
    ct_lock_give(&nc);
    ct_t.self = NULL; /* later events: ct_record_slow, which drops them */
    ct_t.dead = 1;
    ct_t.gate |= CT_GATE_SLOW;
}

/* ct_checkpoint's work. */
static CT_NOINST void ct_check_in(struct ct_thread *t)
{
    uint32_t len = t->len;
    int final = __atomic_load_n(&ct_final, __ATOMIC_SEQ_CST);
    struct ct_nocancel nc;
    if (CT_UNLIKELY(t->reserved < CT_EVENTS))
        ct_reserve(t, len);
    __atomic_store_n(&t->pub, len, __ATOMIC_RELEASE);
    __atomic_store_n(&t->cpu, sched_getcpu(), __ATOMIC_RELAXED);
    if (CT_SIDE_PENDING(t)) /* never leave signal handlers' events behind */
        ct_t.gate |= CT_GATE_SIDE;
    if (final || !__atomic_load_n(&ct_writer_on, __ATOMIC_ACQUIRE)) {
        if (final || len - t->flushed > CT_ROOM) {
            ct_lock_take(&nc);
            ct_flush_locked(t);
            ct_lock_give(&nc);
        }
    } else {
        uint32_t used = len - __atomic_load_n(&t->flushed, __ATOMIC_ACQUIRE);
        if (used > CT_ROOM)
            ct_wait_room(t);
        else if (used >= CT_EVENTS / 4)
            ct_wake(); /* the writer sleeps longer than it should */
    }
    __atomic_store_n(&t->limit, final ? len : len + CT_STEP, __ATOMIC_SEQ_CST);
    /* The final flush may have set limit meanwhile: never undo that. */
    if (!final && __atomic_load_n(&ct_final, __ATOMIC_SEQ_CST))
        __atomic_store_n(&t->limit, len, __ATOMIC_SEQ_CST);
}

/* The owner checks in (len reached limit): make sure the next CT_STEP
 * events fit in the ring.  After the final flush every event is written
 * at once.  Cancellation waits meanwhile: the check-in takes ct_wm
 * (ct_wake) and ct_lock, and may reserve file blocks. */
static CT_NOINST __attribute__((noinline)) void ct_checkpoint(struct ct_thread *t)
{
    uint64_t start = ct_now();
    struct ct_nocancel nc;
    ct_cancel_off(&nc);
    ct_check_in(t);
    ct_cancel_on(&nc);
    /* Take the check-in's time out of this thread's later events. */
    if (!ct_keep_waits)
        ct_t.waited += ct_now() - start;
}

/* Write one event immediately (a thread without a buffer). */
static CT_NOINST void ct_write_one(uint64_t addr, uint64_t tk)
{
    struct ct_ev e = {addr, tk};
    uint64_t e8 = addr | (tk & ~CT_TIME_MASK); /* the untimed slot */
    char tidtxt[32];
    unsigned char buf[128];
    uint32_t tidlen, used;
    struct ct_nocancel nc;
    size_t nb;
    tidlen = ct_tidtxt(tidtxt, ct_t.tid);
    ct_block_seq(buf, 0, 0);
    nb = ct_encode(ct_untimed ? (const void *)&e8 : (const void *)&e, 1, ct_t.tid, tidtxt, tidlen,
                   ct_mult(), &ct_t.last, buf, sizeof buf, &used, NULL);
    ct_lock_take(&nc);
    ct_write_events(buf, nb, used);
    ct_lock_give(&nc);
}

