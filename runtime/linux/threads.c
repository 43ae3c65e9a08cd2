/* ------------------------------------------------------------------ */
/* The output file, start-up and thread buffers                         */

/* Open the output file and write the header.  ct_lock held (or the only
 * thread).  Returns 0 on success. */
static CT_NOINST int ct_open_output(void)
{
    char name[CT_PATH_MAX];
    unsigned char *p = ct_gout;
    uint32_t i;
    int fd;

    if (ct_out_name(name, sizeof name) != 0) {
        ct_msg("CALLTRACE_OUT names a file longer than PATH_MAX, tracing disabled: ", ct_path_tmpl);
        return -1;
    }
    {
        /* A FIFO is opened for writing only, waiting for its reader: open
         * read-write, the program would be a reader of its own trace, and
         * would wait forever for room once the real reader left. */
        struct stat st;
        if (stat(name, &st) == 0 && S_ISFIFO(st.st_mode)) {
            do
                fd = open(name, O_WRONLY | O_CLOEXEC);
            while (fd < 0 && errno == EINTR);
        } else {
            fd = -1;
        }
    }
    /* Read-write: binary traces map the thread buffers from the file.  Not
     * O_TRUNC: the file may be another live process's trace (ct_claim). */
    if (fd < 0)
        fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EACCES) /* write-only: buffers in memory then */
        fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        ct_msg("cannot open trace file, tracing disabled: ", name);
        return -1;
    }
    {
        /* Keep out of the way of programs that dup2() onto low descriptors. */
        struct stat st;
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
        if (hi < 0)
            hi = fcntl(fd, F_DUPFD_CLOEXEC, 100);
        if (hi >= 0) {
            close(fd);
            fd = hi;
        }
        if (fstat(fd, &st) != 0) {
            close(fd);
            ct_msg("cannot stat trace file, tracing disabled: ", name);
            return -1;
        }
        if (S_ISREG(st.st_mode) && ct_mapped(st.st_dev, st.st_ino)) {
            close(fd);
            ct_msg("the trace file is mapped into the process (a library or the program?), "
                   "tracing disabled: ",
                   name);
            return -1;
        }
        if (S_ISREG(st.st_mode)) { /* not FIFOs, /dev/null, terminals */
            uint64_t writer = 0;
            int claim = ct_claim(fd, &writer);
            if (claim != 0)
                close(fd);
            if (claim > 0 && !ct_own_name && !ct_path_has_pid) {
                int r;
                ct_own_name = 1; /* as a forked child: NAME.<pid>.EXT */
                r = ct_open_output();
                if (r == 0 && claim == 2)
                    ct_said_sibling(name, writer);
                return r;
            }
            if (claim > 0) {
                ct_msg("another process writes the trace file, tracing disabled: ", name);
                return -1;
            }
            if (claim < 0) {
                ct_msg("cannot truncate trace file, tracing disabled: ", name);
                return -1;
            }
        }
        ct_fd_dev = st.st_dev;
        ct_fd_ino = st.st_ino;
        ct_fifo = S_ISFIFO(st.st_mode);
        ct_chardev = S_ISCHR(st.st_mode);
        ct_staging = S_ISREG(st.st_mode) && !ct_lossy;
    }
    ct_fd = fd;
    if (ct_lossy) { /* a pipe whose reader is behind: drop, do not wait */
        int cap = fcntl(fd, F_SETPIPE_SZ, 1 << 20); /* more room before events drop */
        if (cap < 0)
            cap = fcntl(fd, F_GETPIPE_SZ);
        ct_pipe_cap = cap > 0 ? cap : 0;
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    if (ct_binary) {
        static const unsigned char magic[8] = {'C', 'A', 'L', 'L', 'T', 'R', 'C', 0};
        for (i = 0; i < 8; i++)
            *p++ = magic[i];
        ct_le(p, CT_VERSION, 2);
        ct_le(p + 2, ct_untimed ? 0 : 1, 2); /* flags: events carry timestamps */
        ct_le(p + 4, 0, 4); /* reserved */
        ct_le(p + 8, ct_base, 8);
        ct_le(p + 16, ct_exe_len, 4);
        p += 20;
        for (i = 0; i < ct_exe_len; i++)
            *p++ = (unsigned char)ct_exe[i];
    } else {
        static const char l1[] = "# calltrace 1 text\n# base 0x";
        for (i = 0; l1[i]; i++)
            *p++ = (unsigned char)l1[i];
        p = ct_hex(p, ct_base);
        *p++ = ' ';
        p = ct_text_path(p, ct_exe, ct_exe_len);
        *p++ = '\n';
        p = ct_process_line(p);
    }
    ct_write_all(ct_gout, (size_t)(p - ct_gout));
    return 0;
}

/* Tell the traced programs this process starts which file it writes (see
 * CALLTRACE_OUT).  Not before libc has set up the environment: setenv()
 * would then replace the program's whole environment. */
static CT_NOINST void ct_export_taken(void)
{
    static int done;
    char abs[CT_PATH_MAX];
    sigset_t old;
    if (done || !environ || ct_path_has_pid || ct_own_name || ct_fd < 0 || ct_chardev)
        return;
    done = 1;
    ct_abs_name(abs, sizeof abs);
    if (abs[0]) {
        ct_own_begin(&old);
        setenv("CALLTRACE_OUT_TAKEN", abs, 1);
        ct_own_end(&old);
    }
}

static CT_NOINST void ct_thread_exit(void *arg);
static CT_NOINST void ct_thread_release(struct ct_thread *t);
static CT_NOINST void ct_atfork_prepare(void);
static CT_NOINST void ct_atfork_parent(void);
static CT_NOINST void ct_atfork_child(void);

/* How many CPUs this process may run on (its affinity mask). */
static CT_NOINST uint32_t ct_cpus(void)
{
    cpu_set_t set;
    long n;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
    n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site);
static void ct_enter_here(void *this_fn, void *call_site);

/* Whether this copy of the runtime records the process's events.  The
 * runtime linked into a shared library as well as the executable makes two
 * copies, each with its own state; the program's calls of the hooks (the
 * library's too) all go to the definition that the dynamic linker finds
 * first, normally the executable's.  The other copy must then stay out of
 * the way: it used to start first (a library's constructors run before the
 * executable's), take trace.txt and write only its header there, while
 * every event went to the owner's trace.<pid>.txt.  In a shared library
 * (-fPIC) the address of the hook comes from the dynamic linker, so it is
 * this copy's own only if this copy is the one the program calls. */
static CT_NOINST int ct_owner(void)
{
    void (*volatile hook)(void *, void *) = __cyg_profile_func_enter;
    return hook == ct_enter_here;
}

/* Start tracing once: returns nonzero if tracing is on. */
static CT_NOINST int ct_init(void)
{
    int s = __atomic_load_n(&ct_state, __ATOMIC_ACQUIRE);
    int did_init = 0;
    struct ct_nocancel nc, outer;
    if (CT_LIKELY(s != 0))
        return s > 0;

    if (!ct_owner()) { /* another copy of the runtime records: say nothing */
        __atomic_store_n(&ct_state, -1, __ATOMIC_RELEASE);
        return 0;
    }
    ct_err_note(); /* the stderr messages may go to */
    ct_cancel_off(&outer); /* (ct_writer_start below, once) */
    ct_lock_take(&nc);
    if (ct_state == 0) {
        const char *fmt = ct_getenv("CALLTRACE_FORMAT");
        const char *out = ct_getenv("CALLTRACE_OUT");
        const char *clk = ct_getenv("CALLTRACE_CLOCK");
        const char *lossy = ct_getenv("CALLTRACE_LOSSY");
        const char *writer = ct_getenv("CALLTRACE_WRITER");
        const char *waits = ct_getenv("CALLTRACE_WAITS");
        uint64_t base = 0;
        ssize_t n;
        size_t i;

        if (fmt && fmt[0] && strcmp(fmt, "text") != 0) {
            if (strcmp(fmt, "binary") == 0)
                ct_binary = 1;
            else
                ct_msg("unknown CALLTRACE_FORMAT (expected text or binary), using text: ", fmt);
        }
        if (!ct_binary)
            ct_dig4_init();
        ct_lossy = lossy && lossy[0] == '1';
        ct_writer_off = writer && writer[0] == '0';
        if (waits && waits[0] && strcmp(waits, "keep") == 0)
            ct_keep_waits = 1;
        else if (waits && waits[0])
            ct_msg("unknown CALLTRACE_WAITS (expected keep), taking waits out: ", waits);
        ct_ncpu = ct_cpus();
        if (!out || !out[0])
            out = "trace.txt";
        for (i = 0; out[i] && i < sizeof ct_path_tmpl - 1; i++) {
            ct_path_tmpl[i] = out[i];
            if (out[i] == '%' && out[i + 1] == 'p')
                ct_path_has_pid = 1;
            if (out[i] == '%' && out[i + 1] == '%' && i + 1 < sizeof ct_path_tmpl - 1) {
                i++; /* `%%` is a `%`: `%%p` names no process */
                ct_path_tmpl[i] = out[i];
            }
        }
        ct_path_tmpl[i] = 0;
        ct_name_long = out[i] != 0; /* refused by ct_out_name, never cut short */
        if (!ct_path_has_pid) {
            /* A program run by a traced process of the same run (which set
             * CALLTRACE_OUT_TAKEN) must not truncate that process's trace. */
            const char *taken = ct_getenv("CALLTRACE_OUT_TAKEN");
            char abs[CT_PATH_MAX];
            ct_abs_name(abs, sizeof abs);
            if (taken && strcmp(taken, abs) == 0)
                ct_own_name = 1;
        }

        if (clk && strcmp(clk, "none") == 0) {
            if (ct_binary) {
                ct_untimed = 1;
                ct_fast = 1;
            } else {
                ct_msg("CALLTRACE_CLOCK=none needs CALLTRACE_FORMAT=binary ",
                       "(text lines always carry a time), using auto");
            }
        } else if (clk && clk[0] && strcmp(clk, "auto") != 0 && strcmp(clk, "monotonic") != 0) {
            ct_msg("unknown CALLTRACE_CLOCK (expected auto, monotonic or none), using auto: ",
                   clk);
        }
#if CT_HAVE_TSC
        if (!ct_untimed && !(clk && strcmp(clk, "monotonic") == 0) && ct_tsc_usable()) {
            ct_tsc_pair(&ct_tsc0, &ct_t0);
            ct_use_tsc = 1;
            ct_fast = 1;
        } else {
            ct_t0 = ct_mono();
        }
#else
        ct_t0 = ct_mono();
#endif

        dl_iterate_phdr(ct_phdr_cb, &base);
        ct_base = base;
        n = readlink("/proc/self/exe", ct_exe, sizeof ct_exe);
        ct_exe_len = (n > 0 && (size_t)n < sizeof ct_exe) ? (uint32_t)n : 0;

        ct_pid = getpid();
        if (ct_open_output() == 0 && pthread_key_create(&ct_key, ct_thread_exit) == 0) {
            ct_export_taken();
            ct_scan_maps();
            did_init = 1;
            __atomic_store_n(&ct_state, 1, __ATOMIC_RELEASE);
        } else {
            __atomic_store_n(&ct_state, -1, __ATOMIC_RELEASE);
        }
    }
    ct_lock_give(&nc);
    if (did_init) { /* outside ct_lock: the fork handlers take it */
        pthread_atfork(ct_atfork_prepare, ct_atfork_parent, ct_atfork_child);
        ct_writer_start(); /* not yet if libc is not set up (.preinit_array) */
    }
    ct_cancel_on(&outer);
    return __atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) > 0;
}

static CT_NOINST uint64_t ct_gettid(void)
{
    return (uint64_t)syscall(SYS_gettid);
}

/* A new thread buffer.  Binary traces keep it in the trace file itself (a
 * shared mapping of an 'R' record), so that the kernel keeps the events
 * recorded so far whatever happens to the process (_exit, abort, SIGKILL);
 * the reader takes the buffer's unwritten events [flushed, len) from it.
 * Text traces use anonymous memory.  ct_lock held. */
static CT_NOINST struct ct_thread *ct_region_new(void)
{
    void *m;
    if (ct_binary && ct_fd >= 0 && !ct_write_error) {
        unsigned char rec[CT_REC_HDR + CT_RAW_PARAMS];
        uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
        off_t end = lseek(ct_fd, 0, SEEK_END);
        uint64_t at, data, mult = ct_mult();
        int grown, reserved;
        struct ct_sigs sigs;
        if (end >= 0) {
            at = (uint64_t)end;
            data = (at + sizeof rec + page - 1) / page * page;
            memset(rec, 0, sizeof rec);
            ct_le(rec + CT_REC_HDR, data - at - CT_REC_HDR, 8); /* region offset in payload */
#if CT_HAVE_TSC
            ct_le(rec + CT_REC_HDR + 8, ct_use_tsc ? ct_tsc0 : 0, 8);
#endif
            ct_le(rec + CT_REC_HDR + 16, ct_t0, 8);
            ct_le(rec + CT_REC_HDR + 24, mult, 8);
            ct_le(rec + CT_REC_HDR + 32, ct_untimed ? 2 : 1, 8); /* 2: 8-byte slots */
            ct_le(rec + CT_REC_HDR + 40, CT_EVENTS, 8); /* the events are a ring */
            /* The checksum of an 'R' record covers its header only. */
            rec[0] = 'C';
            rec[1] = 'T';
            rec[2] = 'R';
            rec[3] = 0x1a;
            rec[8] = CT_TAG_RAW;
            ct_le(rec + 24, data + CT_MAP_BYTES - at - CT_REC_HDR, 4);
            ct_le(rec + 4, ct_checksum(rec + 8, CT_REC_HDR - 8), 4);
            /* The region's blocks are reserved: a page of a shared mapping
             * that the file system cannot back (a full disk) kills the
             * program with SIGBUS when it is touched.  The ring's are
             * reserved as it fills (ct_reserve); the rest now. */
            ct_sigs_hold(&sigs);
            grown = ftruncate(ct_fd, (off_t)(data + CT_MAP_BYTES)) == 0;
            reserved =
                grown &&
                posix_fallocate(ct_fd, (off_t)data,
                                (off_t)(CT_HDR + (size_t)CT_RESERVE_FIRST * ct_slot())) == 0 &&
                posix_fallocate(ct_fd, (off_t)(data + CT_SIDE_OFF),
                                (off_t)(CT_MAP_BYTES - CT_SIDE_OFF)) == 0 &&
                pwrite(ct_fd, rec, sizeof rec, (off_t)at) == (ssize_t)sizeof rec;
            ct_sigs_release(&sigs);
            if (reserved) {
                m = mmap(NULL, CT_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, ct_fd,
                         (off_t)data);
                lseek(ct_fd, 0, SEEK_END);
                if (m != MAP_FAILED) {
                    ((struct ct_thread *)m)->file_off = data;
                    ((struct ct_thread *)m)->reserved = CT_RESERVE_FIRST;
                    return (struct ct_thread *)m;
                }
            }
            /* No room for the region in the file: cut it off again (ct_lock
             * is held, so no block follows it yet) and keep the buffer in
             * memory; the events are written as blocks, as they can be. */
            if (grown && ftruncate(ct_fd, (off_t)at) != 0)
                ct_msg("cannot truncate the trace file after a failed region: ", strerror(errno));
            lseek(ct_fd, 0, SEEK_END);
        }
    }
    m = mmap(NULL, CT_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    ((struct ct_thread *)m)->reserved = CT_EVENTS; /* memory: nothing to reserve */
    return (struct ct_thread *)m;
}

/* Let the fast path record this thread's events into t (or not, if NULL). */
static CT_NOINST void ct_fast_path(struct ct_thread *t)
{
    uint32_t g = ct_t.gate & CT_GATE_BUSY;
    if (!(t != NULL && ct_fast))
        g |= CT_GATE_SLOW;
    if (t != NULL && CT_SIDE_PENDING(t) != 0)
        g |= CT_GATE_SIDE;
    ct_t.gate = g;
#if CT_HAVE_TSC
    ct_t.tsc = ct_use_tsc;
#endif
}

/* Give the calling thread a buffer.  Returns NULL if out of memory.
 * Cancellation waits throughout: a buffer taken off the free list is in
 * no list until it is linked. */
static CT_NOINST struct ct_thread *ct_thread_new(void)
{
    struct ct_thread *t;
    struct ct_nocancel nc, outer;

    ct_cancel_off(&outer);
    ct_lock_take(&nc);
    ct_reap(); /* (without a writer nobody else frees exited threads' buffers) */
    t = ct_free;
    if (t)
        ct_free = t->next;
    else
        t = ct_region_new();
    ct_lock_give(&nc);
    if (!t) {
        ct_cancel_on(&outer);
        return NULL;
    }
    t->len = 0;
    t->pub = 0;
    t->cpu = -1;
    t->flushed = t->wflushed = 0;
    t->last_time = 0;
    t->side_len = t->side_head = t->side_open = t->side_skip = 0;
    t->side_busy = 0;
    t->exiting = 0;
    t->depth = 0;
    t->tid = ct_t.tid;
    t->tidlen = ct_tidtxt(t->tidtxt, t->tid);

    ct_lock_take(&nc);
    t->limit = __atomic_load_n(&ct_final, __ATOMIC_RELAXED) ? 0 : CT_STEP;
    t->prev = NULL;
    t->next = ct_threads;
    if (ct_threads)
        ct_threads->prev = t;
    ct_threads = t;
    __atomic_store_n(&ct_nthreads, ct_nthreads + 1, __ATOMIC_RELAXED);
    ct_lock_give(&nc);

    pthread_setspecific(ct_key, t); /* so that ct_thread_exit runs */
    ct_cancel_on(&outer);
    return t;
}

/* ct_lock held */
static CT_NOINST void ct_unlink(struct ct_thread *t)
{
    ct_stage_drain(); /* (a thread's last blocks are written before it leaves the list) */
    __atomic_store_n(&ct_nthreads, ct_nthreads - 1, __ATOMIC_RELAXED);
    if (t->prev)
        t->prev->next = t->next;
    else
        ct_threads = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->next = t->prev = NULL;
}

