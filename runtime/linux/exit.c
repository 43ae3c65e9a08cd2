/* ------------------------------------------------------------------ */
/* Thread exit, process exit, fork                                      */

/* Give up t for good, its thread going on without a buffer (ct_thread_end):
 * write its events, including those of signal handlers that run meanwhile,
 * and put it on the free list. */
static CT_NOINST void ct_thread_release(struct ct_thread *t)
{
    sigset_t all, old;
    struct ct_nocancel nc, outer;
    ct_t.gate++;
    CT_BARRIER();
    ct_cancel_off(&outer); /* (the buffer is in no list for a moment) */
    sigfillset(&all);
    /* Signal handlers that run while the ring is written leave their events
     * in the side buffer: write those too, until a write finds none.  The
     * buffer then goes away with signals held, for a few instructions, so
     * that a handler after that writes its events through (dead). */
    for (;;) {
        if (CT_SIDE_PENDING(t))
            ct_drain_side(t);
        ct_lock_take(&nc);
        ct_flush_locked(t);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        if (!CT_SIDE_PENDING(t))
            break;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        ct_lock_give(&nc);
    }
    ct_unlink(t);
    t->next = ct_free;
    ct_free = t;
    ct_t.last = t->last_time;
    ct_lock_give(&nc);
    ct_t.self = NULL;
    ct_t.gate |= CT_GATE_SLOW;
    ct_t.dead = 1; /* later events of this thread are written through */
    CT_BARRIER();
    ct_t.gate--;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    ct_cancel_on(&outer);
}

/* The thread-exit destructor: keep the thread's buffer until the thread is
 * gone (without a writer thread, write its events so far).  The thread
 * still runs after this (glibc's exit path, the program's later key
 * destructors) and signal handlers may run on it all the while: their events go into the ring at
 * the cost of any event.  (They used to be written through, several system
 * calls each; a handler of a 20 us timer then took longer than the period,
 * and the thread never finished exiting while its trace grew without end.)
 * The writer, a new thread, or the final flush writes the rest and frees
 * the buffer once the thread is gone (ct_reap). */
static CT_NOINST void ct_thread_exit(void *arg)
{
    struct ct_thread *t = (struct ct_thread *)arg;
    struct ct_nocancel nc;
    ct_t.gate++;
    CT_BARRIER();
    if (CT_SIDE_PENDING(t))
        ct_drain_side(t);
    ct_lock_take(&nc);
    if (!__atomic_load_n(&ct_writer_on, __ATOMIC_ACQUIRE))
        ct_flush_locked(t); /* (else the writer does, outside this thread's time) */
    __atomic_store_n(&t->exiting, 1, __ATOMIC_RELEASE);
    ct_lock_give(&nc);
    CT_BARRIER();
    ct_t.gate--;
}

__attribute__((constructor(101))) static CT_NOINST void ct_ctor(void)
{
    struct ct_nocancel nc;
    ct_t.gate++;
    CT_BARRIER();
    if (ct_init()) {
        ct_lock_take(&nc);
        ct_export_taken(); /* if tracing started before the environment existed */
        ct_lock_give(&nc);
        ct_writer_start();
    }
    CT_BARRIER();
    ct_t.gate--;
}

/* Runs after the program's other destructors (priority 101 runs last). */
__attribute__((destructor(101))) static CT_NOINST void ct_dtor(void)
{
    struct ct_thread *t;
    struct ct_nocancel nc, outer;
    uint64_t dropped;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0)
        return;
    ct_t.gate++;
    CT_BARRIER();
    ct_cancel_off(&outer); /* (ct_wm below) */
    if (ct_t.self && CT_SIDE_PENDING(ct_t.self))
        ct_drain_side(ct_t.self);
    ct_lock_take(&nc);
    __atomic_store_n(&ct_final, 1, __ATOMIC_RELEASE);
    ct_reap(); /* (their side buffers: no event of theirs moves them now) */
    ct_stage_drain();
    for (t = ct_threads; t; t = t->next) {
        ct_flush_locked(t);
        __atomic_store_n(&t->limit, __atomic_load_n(&t->len, __ATOMIC_ACQUIRE), __ATOMIC_SEQ_CST);
    }
    if (ct_lost_pending) { /* never wait at exit: stderr has the total */
        unsigned char m[64];
        (void)ct_write_buf(m, ct_dropped_marker(m, ct_lost_pending), 1);
        ct_lost_pending = 0;
    }
    if (ct_lost) {
        unsigned char num[24];
        *ct_dec(num, ct_lost) = 0;
        ct_msg("events dropped because the trace's reader fell behind (CALLTRACE_LOSSY=1): ",
               (char *)num);
    }
    dropped = __atomic_load_n(&ct_dropped, __ATOMIC_RELAXED);
    if (dropped) {
        unsigned char num[24];
        *ct_dec(num, dropped) = 0;
        ct_msg("events dropped (nested signal handlers interrupted the tracer): ", (char *)num);
    }
    ct_lock_give(&nc);
    /* Events of signal handlers that ran during the final flush: every
     * event is written through now. */
    if (ct_t.self && CT_SIDE_PENDING(ct_t.self))
        ct_drain_side(ct_t.self);
    /* The writer stops. */
    pthread_mutex_lock(&ct_wm);
    pthread_cond_broadcast(&ct_wcond);
    pthread_mutex_unlock(&ct_wm);
    ct_cancel_on(&outer);
    CT_BARRIER();
    ct_t.gate--;
}

/* What a forked child needs of its parent's thread states, copied before
 * fork() with ct_lock held: in a binary trace the states are shared
 * mappings of the parent's file, which the parent goes on changing after
 * fork() returns (threads exit and their states move to ct_free, the writer
 * writes the forking thread's later events), so a child that read them
 * afterwards followed links into unmapped states or started from frames
 * the parent had left. */
static struct ct_thread ct_fork_self;        /* the forking thread's state (header) */
static uint64_t ct_fork_stack[CT_STACK];     /* ... and its open frames */
static struct ct_thread **ct_fork_states;    /* every state, to unmap (NULL: none) */
static size_t ct_fork_nstates, ct_fork_bytes;

static CT_NOINST void ct_fork_snapshot(void)
{
    struct ct_thread *t, *lists[2];
    size_t n = 0, k;
    void *m;
    lists[0] = ct_threads;
    lists[1] = ct_free;
    if (ct_t.self) {
        memcpy(&ct_fork_self, ct_t.self, sizeof ct_fork_self);
        memcpy(ct_fork_stack, CT_STACKP(ct_t.self), sizeof ct_fork_stack);
    }
    for (k = 0; k < 2; k++)
        for (t = lists[k]; t; t = t->next)
            n++;
    ct_fork_states = NULL;
    ct_fork_nstates = 0;
    ct_fork_bytes = (n + 1) * sizeof *ct_fork_states;
    m = mmap(NULL, ct_fork_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return;
    ct_fork_states = (struct ct_thread **)m;
    for (k = 0; k < 2; k++)
        for (t = lists[k]; t; t = t->next)
            ct_fork_states[ct_fork_nstates++] = t;
}

static CT_NOINST void ct_fork_snapshot_free(void)
{
    if (ct_fork_states)
        munmap(ct_fork_states, ct_fork_bytes);
    ct_fork_states = NULL;
    ct_fork_nstates = 0;
}

/* The forking thread's cancellation state, from prepare to parent or child
 * (ct_lock serializes forks). */
static struct ct_nocancel ct_fork_nc;

static CT_NOINST void ct_atfork_prepare(void)
{
    ct_t.gate++;
    CT_BARRIER();
    ct_lock_take(&ct_fork_nc);
    /* Write this thread's events, which brings its open frames up to date
     * for the child; and the stage, which the child must not write. */
    ct_stage_drain();
    if (ct_t.self)
        ct_flush_locked(ct_t.self);
    ct_fork_snapshot();
    pthread_mutex_lock(&ct_wm);
}

static CT_NOINST void ct_atfork_parent(void)
{
    ct_fork_snapshot_free();
    pthread_mutex_unlock(&ct_wm);
    ct_lock_give(&ct_fork_nc);
    CT_BARRIER();
    ct_t.gate--;
}

static CT_NOINST void ct_atfork_child(void)
{
    struct ct_thread *self = ct_t.self, *mine = NULL;
    size_t k;
    pthread_mutex_init(&ct_lock, NULL);
    pthread_mutex_init(&ct_wm, NULL);
    pthread_cond_init(&ct_wcond, NULL);
    ct_writer_on = ct_w_pending = ct_w_sleeping = 0; /* no writer here yet */
    ct_wout_len = 0; /* (written before fork()) */
    ct_w_cpu = -1;
    ct_crowded_until = 0;
    ct_t.tid = ct_gettid();
    ct_pid = getpid();
    if (!ct_chardev)
        ct_own_name = 1; /* never share the parent's file (a device, such as
                          * /dev/null, is not a file of /dev/null.<pid>) */
    {
        int old = ct_fd;
        if (ct_open_output() == 0) {
            close(old);
            __atomic_store_n(&ct_nmaps, 0, __ATOMIC_RELEASE);
            ct_scan_maps();
        } else {
            /* No file of its own ("tracing disabled" said why): never go
             * on writing into the parent's. */
            close(old);
            ct_fd = -1;
            __atomic_store_n(&ct_state, -1, __ATOMIC_RELEASE);
            self = NULL;
        }
        ct_write_error = 0;
    }
    if (self)
        mine = ct_region_new();
    if (mine) {
        /* Start with entries of the frames open at fork(), so that the
         * child's calls hang under the right callers. */
        uint32_t i, d = ct_fork_self.depth, n = d < CT_STACK ? d : CT_STACK;
        uint64_t now = ct_clock(), file_off = mine->file_off;
        uint32_t reserved = mine->reserved;
        memcpy(mine, &ct_fork_self, sizeof *mine);
        mine->file_off = file_off; /* (the child's own buffer) */
        mine->reserved = reserved;
        memcpy(CT_STACKP(mine), ct_fork_stack, sizeof ct_fork_stack);
        for (i = 0; i < n; i++)
            ct_put(mine, i, ct_fork_stack[(d - n + i) & (CT_STACK - 1)], now);
        mine->len = n;
        mine->pub = n;
        mine->flushed = mine->wflushed = 0;
        mine->limit = n + CT_STEP;
        mine->depth = d - n; /* writing the n entries pushes them again */
        mine->side_len = mine->side_head = 0;
        mine->tid = ct_t.tid;
        mine->tidlen = ct_tidtxt(mine->tidtxt, mine->tid);
        mine->next = mine->prev = NULL;
        pthread_setspecific(ct_key, mine);
    }
    /* The parent owns and writes every buffer this process inherited (in a
     * binary trace they are mappings of the parent's file): drop them, as
     * listed before fork() (the links inside them may have changed since). */
    for (k = 0; k < ct_fork_nstates; k++)
        munmap(ct_fork_states[k], CT_MAP_BYTES);
    ct_fork_snapshot_free();
    ct_free = NULL;
    ct_threads = mine;
    ct_nthreads = mine != NULL;
    ct_t.self = mine;
    ct_fast_path(mine);
    if (self && !mine)
        ct_t.dead = 1;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) > 0)
        ct_writer_start();
    ct_cancel_on(&ct_fork_nc); /* (the lock was made anew, not given back) */
    CT_BARRIER();
    ct_t.gate--;
}

#ifdef __cplusplus
}
#endif
