/* ------------------------------------------------------------------ */
/* Recording                                                            */

/* Whether the owner must check in after committing event count n. */
static inline CT_NOINST __attribute__((always_inline)) int ct_due(const struct ct_thread *t,
                                                                  uint32_t n)
{
    return (int32_t)(n - __atomic_load_n(&t->limit, __ATOMIC_RELAXED)) >= 0;
}

/* Store event i (its count since the thread started) in t's ring slot. */
static inline CT_NOINST __attribute__((always_inline)) void ct_put(struct ct_thread *t, uint32_t i,
                                                                    uint64_t addr, uint64_t tk)
{
    if (ct_untimed) {
        CT_EV8P(t)[i & (CT_EVENTS - 1)] = addr | (tk & ~CT_TIME_MASK);
    } else {
        struct ct_ev *e = CT_EVP(t) + (i & (CT_EVENTS - 1));
        e->addr = addr;
        e->tk = tk;
    }
}

/* Free the buffers of exited threads (ct_thread_exit) whose threads are
 * gone: first the events that signal handlers left in the side buffer
 * (no later event of theirs moved them to the ring), then the ring.  A
 * thread is gone when tgkill() no longer finds its tid; a main thread that
 * called pthread_exit() stays until the process ends (the final flush
 * writes it).  ct_lock held. */
static CT_NOINST void ct_reap(void)
{
    struct ct_thread *t, *next;
    for (t = ct_threads; t; t = next) {
        next = t->next;
        if (!__atomic_load_n(&t->exiting, __ATOMIC_ACQUIRE) ||
            syscall(SYS_tgkill, (long)ct_pid, (long)t->tid, 0L) == 0 || errno != ESRCH)
            continue;
        ct_flush_locked(t);
        while (CT_SIDE_PENDING(t)) {
            const struct ct_ev *e = CT_SIDEP(t) + (t->side_head & (CT_SIDE - 1));
            ct_put(t, t->len, e->addr, e->tk);
            t->side_head++;
            t->len++;
        }
        ct_flush_locked(t);
        ct_unlink(t);
        t->next = ct_free;
        ct_free = t;
    }
}

/* Append one event to the thread's ring; check in when due.  Called with
 * the thread inside the runtime. */
static inline CT_NOINST __attribute__((always_inline)) void ct_push(struct ct_thread *t,
                                                                    uint64_t addr, uint64_t tk)
{
    uint32_t i = t->len;
    ct_put(t, i, addr, tk);
    __atomic_store_n(&t->len, i + 1, __ATOMIC_RELEASE);
    if (CT_UNLIKELY(ct_due(t, i + 1)))
        ct_checkpoint(t);
}

/* Move events recorded by signal handlers into the buffer (inside the runtime).
 * They go just before the event being recorded, i.e. right after the event
 * whose recording the signal interrupted; ct_encode clamps their times.
 * A handler may run during the move and add events: the side buffer is a
 * ring that handlers append to and this takes from, so none is lost; at
 * most CT_SIDE are moved at once (every check-in leaves room for them,
 * CT_ROOM), then the thread checks in if it is due. */
static CT_NOINST __attribute__((noinline)) void ct_drain_side(struct ct_thread *t)
{
    const struct ct_ev *side = CT_SIDEP(t);
    const volatile uint32_t *tail = &t->side_len;
    uint32_t h = t->side_head, len = t->len, k = 0;
    for (;;) {
        ct_t.gate &= ~CT_GATE_SIDE; /* before reading the tail: a handler sets it again */
        CT_BARRIER();
        while (h != *tail && k < CT_SIDE) {
            const struct ct_ev *e = side + (h & (CT_SIDE - 1));
            ct_put(t, len + k, e->addr, e->tk);
            h++;
            k++;
        }
        CT_BARRIER();
        t->side_head = h;
        CT_BARRIER();
        if (h == *tail)
            break;
        if (k >= CT_SIDE) {
            ct_t.gate |= CT_GATE_SIDE; /* the rest with the next event */
            break;
        }
    }
    __atomic_store_n(&t->len, len + k, __ATOMIC_RELEASE);
    if (ct_due(t, len + k))
        ct_checkpoint(t);
}

/* An event arrived while this thread was inside the runtime: a signal
 * handler interrupted it (or the runtime called instrumented code).  Record
 * it in the side buffer.  Handler calls nest (LIFO) inside the interrupted
 * window, so an entry is only kept if there is room for its exit and for the
 * exits of all open entries, and an exit is dropped iff its entry was:
 * the trace stays balanced even if the side buffer fills up. */
static CT_NOINST __attribute__((noinline)) void ct_record_nested(void *fn, uint64_t kind)
{
    struct ct_thread *t = ct_t.self;
    struct ct_ev *side;
    uint32_t used;
    int keep;
    if (!t || t->side_busy) { /* nested twice, or no buffer yet */
        __atomic_fetch_add(&ct_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    t->side_busy = 1;
    CT_BARRIER();
    used = CT_SIDE_PENDING(t);
    if (kind == CT_ENTRY) {
        keep = t->side_skip == 0 && CT_SIDE - used > t->side_open + 1;
        if (keep)
            t->side_open++;
        else
            t->side_skip++;
    } else if (t->side_skip) {
        t->side_skip--;
        keep = 0;
    } else {
        keep = used < CT_SIDE; /* room was reserved by the entry */
        if (t->side_open)
            t->side_open--;
    }
    if (keep) {
        side = CT_SIDEP(t) + (t->side_len & (CT_SIDE - 1));
        side->addr = (uint64_t)(uintptr_t)fn;
        side->tk = ct_clock() | CT_KIND_TOP(kind);
        t->side_len++;
        ct_t.gate |= CT_GATE_SIDE; /* the fast path drains them first */
    } else {
        __atomic_fetch_add(&ct_dropped, 1, __ATOMIC_RELAXED);
    }
    CT_BARRIER();
    t->side_busy = 0;
}

static CT_NOINST __attribute__((noinline)) void ct_record_slow(void *fn, uint64_t kind, int code)
{
    struct ct_thread *t;
    if (ct_t.own)
        return; /* the runtime's own call (ct_own_begin) */
    if (ct_t.gate & CT_GATE_BUSY) {
        ct_record_nested(fn, kind);
        return;
    }
    if (ct_state < 0)
        return;
    ct_t.gate++;
    CT_BARRIER();
    if (ct_init()) {
        if (ct_t.tid == 0)
            ct_t.tid = ct_gettid();
        t = ct_t.self;
        if (!t && !ct_t.dead) {
            t = ct_thread_new();
            ct_t.self = t;
            ct_fast_path(t);
            if (!t)
                ct_t.dead = 1;
        }
        if (code && kind == CT_ENTRY && (uint64_t)(uintptr_t)fn - ct_t.lo >= ct_t.span)
            ct_map_miss((uint64_t)(uintptr_t)fn);
        if (t) {
            if (CT_SIDE_PENDING(t))
                ct_drain_side(t);
            ct_push(t, (uint64_t)(uintptr_t)fn, ct_clock() | CT_KIND_TOP(kind));
        } else if (!ct_write_error) { /* (stopped: nothing to write to) */
            ct_write_one((uint64_t)(uintptr_t)fn, ct_clock() | CT_KIND_TOP(kind));
        }
    }
    CT_BARRIER();
    ct_t.gate--;
}

/* Check in and leave the runtime (a tail call of the fast path). */
static CT_NOINST __attribute__((noinline)) void ct_flush_full(struct ct_thread *t)
{
    ct_checkpoint(t);
    CT_BARRIER();
    ct_t.gate--;
}

/* The per-event fast path: a clock read and a few stores.  Everything
 * unusual (first event of a thread, nested event, pending side events,
 * clock_gettime clock) goes to ct_record_slow, so that this compiles to a
 * leaf function with tail calls only. */
static inline CT_NOINST __attribute__((always_inline)) void ct_record(void *fn, uint64_t kind,
                                                                       int code)
{
    struct ct_thread *t;
    uint32_t i;
    /* An entry outside the last code range goes the slow way, which writes
     * the mapping of code loaded since (dlopen) while it is still loaded. */
    if (CT_UNLIKELY(ct_t.gate || (code && kind == CT_ENTRY &&
                                  (uint64_t)(uintptr_t)fn - ct_t.lo >= ct_t.span))) {
        ct_record_slow(fn, kind, code);
        return;
    }
    ct_t.gate = 1; /* busy; the other gates are 0, as just read */
    CT_BARRIER();
    /* Read only now: a signal handler that ran before the gate was set may
     * have given this thread its buffer (the gate was then open for it). */
    t = ct_t.self;
    i = t->len;
    /* The fast path runs with a TSC clock, or untimed (8-byte slots). */
#if CT_HAVE_TSC
    if (CT_LIKELY(ct_t.tsc)) {
        struct ct_ev *e = CT_EVP(t) + (i & (CT_EVENTS - 1));
        e->addr = (uint64_t)(uintptr_t)fn;
        e->tk = (__builtin_ia32_rdtsc() - ct_t.waited) | CT_KIND_TOP(kind);
    } else
#endif
        CT_EV8P(t)[i & (CT_EVENTS - 1)] = (uint64_t)(uintptr_t)fn | CT_KIND_TOP(kind);
    __atomic_store_n(&t->len, i + 1, __ATOMIC_RELEASE);
    if (CT_UNLIKELY(ct_due(t, i + 1))) {
        ct_flush_full(t);
        return;
    }
    CT_BARRIER();
    ct_t.gate--; /* not busy (one instruction: a signal may have set a gate) */
}

CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, CT_ENTRY, 1);
}

/* This copy's own entry hook, whatever the dynamic linker binds (ct_owner). */
static void ct_enter_here(void *this_fn, void *call_site)
    __attribute__((alias("__cyg_profile_func_enter"), no_instrument_function));

CT_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, CT_EXIT, 1);
}

/* ------------------------------------------------------------------ */
/* Interpreter API (calltrace.h)                                        */

static uint32_t ct_nmethods;

/* Write a record (binary) or a comment line (text) naming something:
 * tag, the id in the event-count field, line, then two strings. */
static CT_NOINST void ct_write_named(unsigned tag, uint64_t tid, uint32_t id, uint32_t line,
                                     const char *a, const char *b)
{
    unsigned char *p = ct_gout, *rec = ct_gout;
    size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0, i;
    if (la > 16384)
        la = 16384;
    if (lb > 16384)
        lb = 16384;
    if (ct_binary) {
        p += CT_REC_HDR;
        ct_le(p, line, 4);
        ct_le(p + 4, la, 4);
        p += 8;
        for (i = 0; i < la; i++)
            *p++ = (unsigned char)a[i];
        for (i = 0; i < lb; i++)
            *p++ = (unsigned char)b[i];
        ct_record_header(rec, tag, tid, id, (uint32_t)(p - rec - CT_REC_HDR));
    } else {
        static const char mth[] = "# method ", thr[] = "# thread ";
        const char *w = tag == CT_TAG_METHOD ? mth : thr;
        for (i = 0; w[i]; i++)
            *p++ = (unsigned char)w[i];
        p = ct_dec(p, tag == CT_TAG_METHOD ? id : tid);
        *p++ = ' ';
        if (tag == CT_TAG_METHOD) {
            p = ct_dec(p, line);
            *p++ = ' ';
        }
        for (i = 0; i < la; i++)
            *p++ = a[i] == '\n' || a[i] == '\t' ? '?' : (unsigned char)a[i];
        if (tag == CT_TAG_METHOD) {
            *p++ = '\t';
            for (i = 0; i < lb; i++)
                *p++ = b[i] == '\n' ? '?' : (unsigned char)b[i];
        }
        *p++ = '\n';
    }
    ct_write_all(ct_gout, (size_t)(p - ct_gout));
}

CT_HOOK uint32_t ct_method_register(const char *name, const char *file, int line)
{
    uint32_t id;
    struct ct_nocancel nc;
    ct_t.gate++;
    CT_BARRIER();
    ct_init();
    ct_lock_take(&nc);
    id = ct_nmethods++;
    if (ct_fd >= 0)
        ct_write_named(CT_TAG_METHOD, 0, id, line > 0 ? (uint32_t)line : 0, name, file);
    ct_lock_give(&nc);
    CT_BARRIER();
    ct_t.gate--;
    return id;
}

CT_HOOK void ct_enter(uint32_t id)
{
    ct_record((void *)(uintptr_t)(CT_METHOD_BASE + id), CT_ENTRY, 0);
}

CT_HOOK void ct_exit(uint32_t id)
{
    ct_record((void *)(uintptr_t)(CT_METHOD_BASE + id), CT_EXIT, 0);
}

CT_HOOK void ct_thread_name(const char *name)
{
    struct ct_nocancel nc;
    ct_t.gate++;
    CT_BARRIER();
    if (ct_init()) {
        if (ct_t.tid == 0)
            ct_t.tid = ct_gettid();
        ct_lock_take(&nc);
        ct_write_named(CT_TAG_THREAD, ct_t.tid, 0, 0, name, NULL);
        ct_lock_give(&nc);
    }
    CT_BARRIER();
    ct_t.gate--;
}

CT_HOOK void ct_thread_end(void)
{
    struct ct_thread *t = ct_t.self;
    if (!t)
        return;
    pthread_setspecific(ct_key, NULL);
    ct_thread_release(t);
    ct_t.dead = 0; /* a later event gets a new buffer */
}

/* Optional public API: write out everything buffered by every thread now
 * (for example before execve() or abort()). */
CT_HOOK void calltrace_flush(void)
{
    struct ct_thread *t;
    struct ct_nocancel nc;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0)
        return;
    ct_t.gate++;
    CT_BARRIER();
    if (ct_t.self && CT_SIDE_PENDING(ct_t.self))
        ct_drain_side(ct_t.self);
    ct_lock_take(&nc);
    ct_stage_drain();
    for (t = ct_threads; t; t = t->next)
        ct_flush_locked(t);
    ct_lock_give(&nc);
    CT_BARRIER();
    ct_t.gate--;
}

/* dlclose(): an object it unloads frees its addresses, and the next object
 * loaded may get them (uftrace's s-dlopen: libfoo.so where libabc's code
 * was).  No entry then leaves the thread's last code range, so nothing
 * would notice: this wrapper, after libc's dlclose(), checks the loader's
 * count of unloaded objects (dlpi_subs), drops the mappings no longer
 * loaded from ct_maps (so that an entry there misses and writes the new
 * object's mappings), writes every event recorded so far (those of the old
 * object must come before the new mappings in the file: readers use the
 * mappings in force at each event) and makes this thread's next entry
 * look its mapping up.  Other threads' last code range is not reset: one
 * that last ran in the unloaded object and next enters the new one at the
 * same place without a call elsewhere in between keeps the old names.
 * Calls of dlclose() from libraries do not come here (the executable's
 * symbol is not exported to them).  Weak, with libc's found through
 * dlsym(RTLD_NEXT): a static link without a dynamic dlsym() leaves objects
 * loaded (which keeps their addresses, and their names, apart). */
#pragma weak dlsym
typedef int (*ct_dlclose_fn)(void *);
static unsigned char ct_maps_live[CT_MAPS_MAX]; /* ct_lock */

static CT_NOINST int ct_subs_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(uint64_t *)data = (uint64_t)info->dlpi_subs;
    return 1;
}

/* Marks in ct_maps_live the known mappings still loaded.  ct_lock held. */
static CT_NOINST int ct_live_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    uint32_t n = *(uint32_t *)data, k;
    int i;
    (void)size;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t start = (uint64_t)info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        for (k = 0; k < n; k++)
            if (ct_maps[k].start == start && ct_maps[k].end == start + ph->p_memsz)
                ct_maps_live[k] = 1;
    }
    return 0;
}

/* Forget the mappings of unloaded objects and write what is buffered, when
 * objects were unloaded since the last look.  ct_lock held. */
static CT_NOINST int ct_maps_unloaded(void)
{
    static uint64_t subs_seen;
    uint64_t subs = 0;
    uint32_t n = ct_nmaps, k;
    struct ct_thread *t;
    dl_iterate_phdr(ct_subs_cb, &subs);
    if (subs == subs_seen)
        return 0;
    subs_seen = subs;
    memset(ct_maps_live, 0, n);
    dl_iterate_phdr(ct_live_cb, &n);
    /* The reader of a lock-free ct_map_find sees the old start or the end:
     * the whole range or an empty one, never a wrong one. */
    for (k = 0; k < n; k++)
        if (!ct_maps_live[k] && ct_maps[k].start != ct_maps[k].end)
            __atomic_store_n(&ct_maps[k].start, ct_maps[k].end, __ATOMIC_RELAXED);
    ct_stage_drain();
    for (t = ct_threads; t; t = t->next)
        ct_flush_locked(t);
    return 1;
}

#if defined(__cplusplus) && __cplusplus >= 201103L
#define CT_NOEXCEPT noexcept(true)
#elif defined(__cplusplus)
#define CT_NOEXCEPT throw()
#else
#define CT_NOEXCEPT
#endif

__attribute__((weak)) CT_HOOK int dlclose(void *handle) CT_NOEXCEPT
{
    static ct_dlclose_fn real;
    struct ct_nocancel nc;
    int r;
    if (!real && dlsym)
        real = (ct_dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
    if (!real)
        return 0; /* (static: the object stays loaded) */
    r = real(handle);
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0)
        return r;
    ct_t.gate++;
    CT_BARRIER();
    if (ct_t.self && CT_SIDE_PENDING(ct_t.self))
        ct_drain_side(ct_t.self);
    ct_lock_take(&nc);
    if (ct_fd >= 0 && ct_maps_unloaded())
        ct_t.span = 0; /* this thread's next entry looks its mapping up */
    ct_lock_give(&nc);
    CT_BARRIER();
    ct_t.gate--;
    return r;
}

/* Write what is buffered before the process ends without destructors.
 * Skipped in a vfork() child (it shares the parent's memory and must not
 * write the parent's buffers), inside the runtime (a signal handler), and
 * when another thread holds the lock (it may have been interrupted). */
static CT_NOINST void ct_flush_before_death(void)
{
    struct ct_thread *t;
    struct timespec until;
    struct ct_nocancel nc;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0 || (ct_t.gate & CT_GATE_BUSY) || getpid() != ct_pid)
        return;
    ct_t.gate++;
    CT_BARRIER();
    ct_cancel_off(&nc); /* (ct_lock is taken below without ct_lock_take) */
    if (ct_t.self && CT_SIDE_PENDING(ct_t.self))
        ct_drain_side(ct_t.self);
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1; /* the writer thread may hold the lock for a while */
    if (pthread_mutex_timedlock(&ct_lock, &until) == 0) {
        ct_reap();
        ct_stage_drain();
        for (t = ct_threads; t; t = t->next)
            ct_flush_locked(t);
        pthread_mutex_unlock(&ct_lock);
        /* Events of signal handlers that ran meanwhile. */
        if (ct_t.self && CT_SIDE_PENDING(ct_t.self)) {
            ct_drain_side(ct_t.self);
            if (pthread_mutex_timedlock(&ct_lock, &until) == 0) {
                ct_flush_locked(ct_t.self);
                pthread_mutex_unlock(&ct_lock);
            }
        }
    }
    ct_cancel_on(&nc);
    CT_BARRIER();
    ct_t.gate--;
}

/* _exit(), _Exit() and abort() called by the program skip the destructors
 * that write the buffers: these versions write them first.  Weak, so that a
 * static link with libc's own copies still works (then nothing is written). */
__attribute__((weak, noreturn)) CT_HOOK void _exit(int status)
{
    ct_flush_before_death();
    for (;;)
        syscall(SYS_exit_group, status);
}

__attribute__((weak, noreturn)) CT_HOOK void _Exit(int status)
{
    ct_flush_before_death();
    for (;;)
        syscall(SYS_exit_group, status);
}

__attribute__((weak, noreturn)) CT_HOOK void abort(void)
{
    sigset_t set;
    ct_flush_before_death();
    /* What abort() does: SIGABRT; if a handler returns, again without it. */
    sigemptyset(&set);
    sigaddset(&set, SIGABRT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(SIGABRT);
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
    for (;;)
        syscall(SYS_exit_group, 127);
}

