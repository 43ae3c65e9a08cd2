/* ------------------------------------------------------------------ */
/* Clock                                                                */

static CT_NOINST uint64_t ct_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The raw clock: the TSC if usable, else CLOCK_MONOTONIC ns. */
static inline CT_NOINST __attribute__((always_inline)) uint64_t ct_now(void)
{
    if (ct_untimed)
        return 0;
#if CT_HAVE_TSC
    if (CT_LIKELY(ct_use_tsc))
        return __builtin_ia32_rdtsc();
#endif
    return ct_mono();
}

/* Raw event time: the raw clock less what this thread waited in check-ins. */
static inline CT_NOINST __attribute__((always_inline)) uint64_t ct_clock(void)
{
    return ct_now() - ct_t.waited;
}

#if CT_HAVE_TSC
/* A (TSC, CLOCK_MONOTONIC) pair taken as close together as possible. */
static CT_NOINST void ct_tsc_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    int i;
    *tsc = *ns = 0;
    for (i = 0; i < 4; i++) {
        uint64_t a = __builtin_ia32_rdtsc();
        uint64_t n = ct_mono();
        uint64_t b = __builtin_ia32_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
}

/* cpuid(leaf): eax if want_eax, else edx.  (Not <cpuid.h>: its inline
 * helpers would be instrumented.) */
static CT_NOINST unsigned ct_cpuid(unsigned leaf, int want_eax)
{
    unsigned a, b, c, d;
    __asm__ __volatile__("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "0"(leaf), "2"(0u));
    (void)b;
    (void)c;
    return want_eax ? a : d;
}

/* Use the TSC only where the kernel itself bases CLOCK_MONOTONIC on it
 * (so it is synchronized across CPUs) and it runs at a constant rate. */
static CT_NOINST int ct_tsc_usable(void)
{
    char buf[16];
    ssize_t n;
    int fd;
    if (ct_cpuid(0x80000000u, 1) < 0x80000007u || !(ct_cpuid(0x80000007u, 0) & (1u << 8)))
        return 0; /* no invariant TSC */
    fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
              O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof buf);
    close(fd);
    return n >= 4 && buf[0] == 't' && buf[1] == 's' && buf[2] == 'c' && buf[3] == '\n';
}
#endif

/* Conversion factor from TSC ticks to ns (32.32 fixed point), from the
 * start-up pair and a fresh pair: interpolating between two exact points
 * keeps every converted time within about one clock read of
 * CLOCK_MONOTONIC.  0 when timestamps are already in ns. */
static CT_NOINST uint64_t ct_mult(void)
{
#if CT_HAVE_TSC
    if (ct_use_tsc) {
        uint64_t tsc = 0, ns = 0;
        for (;;) {
            ct_tsc_pair(&tsc, &ns);
            if (tsc > ct_tsc0 + 20000 && ns > ct_t0)
                break; /* only right after start: wait a few microseconds */
        }
        return (uint64_t)(((ct_u128)(ns - ct_t0) << 32) / (tsc - ct_tsc0));
    }
#endif
    return 0;
}

/* Raw event time -> ns since start. */
static inline CT_NOINST uint64_t ct_to_ns(uint64_t raw, uint64_t mult)
{
#if CT_HAVE_TSC
    if (mult)
        return raw > ct_tsc0 ? (uint64_t)(((ct_u128)(raw - ct_tsc0) * mult) >> 32) : 0;
#endif
    (void)mult;
    return raw > ct_t0 ? raw - ct_t0 : 0;
}

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

/* The stderr found at start-up (ct_err_note): messages go to descriptor 2
 * only while it is still that file.  A program that closed it and opened a
 * data file there must not find "calltrace: ..." in its data. */
static int ct_err_state; /* 0: not looked yet; 1: known; -1: none at start-up */
static dev_t ct_err_dev;
static ino_t ct_err_ino;

static CT_NOINST void ct_err_note(void)
{
    struct stat st;
    if (ct_err_state)
        return;
    if (fstat(2, &st) == 0) {
        ct_err_dev = st.st_dev;
        ct_err_ino = st.st_ino;
        ct_err_state = 1;
    } else {
        ct_err_state = -1;
    }
}

static CT_NOINST void ct_msg(const char *a, const char *b)
{
    char buf[512];
    size_t n = 0;
    const char *parts[3];
    struct stat st;
    struct ct_nocancel nc;
    int i;
    ct_err_note();
    if (ct_err_state < 0 || fstat(2, &st) != 0 || st.st_dev != ct_err_dev ||
        st.st_ino != ct_err_ino)
        return;
    parts[0] = "calltrace: ";
    parts[1] = a;
    parts[2] = b;
    for (i = 0; i < 3; i++) {
        const char *s = parts[i];
        while (s && *s && n < sizeof buf - 1)
            buf[n++] = *s++;
    }
    buf[n++] = '\n';
    ct_cancel_off(&nc); /* (write() is a cancellation point) */
    if (write(2, buf, n) < 0) {
        /* nothing sensible to do */
    }
    ct_cancel_on(&nc);
}

static const uint64_t ct_pow10[20] = {1ull,
                                      10ull,
                                      100ull,
                                      1000ull,
                                      10000ull,
                                      100000ull,
                                      1000000ull,
                                      10000000ull,
                                      100000000ull,
                                      1000000000ull,
                                      10000000000ull,
                                      100000000000ull,
                                      1000000000000ull,
                                      10000000000000ull,
                                      100000000000000ull,
                                      1000000000000000ull,
                                      10000000000000000ull,
                                      100000000000000000ull,
                                      1000000000000000000ull,
                                      10000000000000000000ull};

/* Number of decimal digits of v. */
static inline CT_NOINST unsigned ct_ndec(uint64_t v)
{
    unsigned t = ((unsigned)(64 - __builtin_clzll(v | 1)) * 1233u) >> 12; /* ~log10 */
    return t + ((v | 1) >= ct_pow10[t]);
}

static inline CT_NOINST unsigned char *ct_dec(unsigned char *p, uint64_t v)
{
    unsigned n = ct_ndec(v);
    unsigned char *q = p + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = (unsigned char)ct_dig2[2 * r];
        q[1] = (unsigned char)ct_dig2[2 * r + 1];
    }
    if (v >= 10) {
        q[-2] = (unsigned char)ct_dig2[2 * v];
        q[-1] = (unsigned char)ct_dig2[2 * v + 1];
    } else {
        q[-1] = (unsigned char)('0' + v);
    }
    return p + n;
}

static inline CT_NOINST unsigned char *ct_hex(unsigned char *p, uint64_t v)
{
    int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
    unsigned char *q = p + n;
    while (q - p >= 2) {
        q -= 2;
        q[0] = (unsigned char)ct_hexdig[(v >> 4) & 15];
        q[1] = (unsigned char)ct_hexdig[v & 15];
        v >>= 8;
    }
    if (q > p)
        p[0] = (unsigned char)ct_hexdig[v & 15];
    return p + n;
}

/* "0000" to "9999" as 4-byte words (little-endian): a timestamp's last
 * four digits in text traces (ct_encode).  Filled once, in text mode. */
static uint32_t ct_dig4[10000];

static CT_NOINST void ct_dig4_init(void)
{
    uint32_t i;
    for (i = 0; i < 10000; i++)
        ct_dig4[i] = (uint32_t)('0' + i / 1000) | (uint32_t)('0' + i / 100 % 10) << 8 |
                     (uint32_t)('0' + i / 10 % 10) << 16 | (uint32_t)('0' + i % 10) << 24;
}

/* LEB128 unsigned.  (A branch-free 8-byte-store variant measured slower on
 * real traces: most values are 1-3 bytes and the loop predicts well.) */
static inline CT_NOINST unsigned char *ct_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static inline CT_NOINST void ct_le(unsigned char *p, uint64_t v, int n)
{
    int i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static CT_NOINST uint32_t ct_tidtxt(char *dst, uint64_t tid)
{
    unsigned char *p = (unsigned char *)dst;
    *p++ = ' ';
    p = ct_dec(p, tid);
    *p++ = '\n';
    return (uint32_t)(p - (unsigned char *)dst);
}

/* The runtime calls into libc that may call the program's own instrumented
 * functions: setenv() calls the program's realloc() and malloc(), and
 * pthread_create() its free(), when the program defines them (a forked
 * child showed 16 calls of free() under main that main never made).  Those
 * calls are the runtime's and never recorded (ct_record_slow).  Signals are
 * held meanwhile, so that no handler's events are taken for them. */
static CT_NOINST void ct_own_begin(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
    ct_t.own++;
}

static CT_NOINST void ct_own_end(const sigset_t *old)
{
    ct_t.own--;
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The signals the runtime's own writes can raise, which would kill the
 * program: SIGPIPE (the reader of a pipe or FIFO left: calltrace live quit;
 * also in the middle of a write, though the write returns the bytes it
 * wrote before) and SIGXFSZ (the file size limit, `ulimit -f`).  They are
 * blocked around the write, and one that it raised is taken back, so the
 * write fails with EPIPE or EFBIG and the program goes on untraced. */
struct ct_sigs {
    sigset_t set, old, had;
};

static CT_NOINST void ct_sigs_hold(struct ct_sigs *s)
{
    sigemptyset(&s->set);
    sigaddset(&s->set, SIGPIPE);
    sigaddset(&s->set, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &s->set, &s->old);
    if (sigpending(&s->had) != 0)
        sigemptyset(&s->had);
}

static CT_NOINST void ct_sigs_release(struct ct_sigs *s)
{
    static const int sigs[2] = {SIGPIPE, SIGXFSZ};
    sigset_t now;
    int e = errno, k;
    if (sigpending(&now) == 0)
        for (k = 0; k < 2; k++)
            if (sigismember(&now, sigs[k]) && !sigismember(&s->had, sigs[k])) {
                sigset_t one;
                struct timespec zero = {0, 0};
                sigemptyset(&one);
                sigaddset(&one, sigs[k]);
                while (sigtimedwait(&one, NULL, &zero) < 0 && errno == EINTR)
                    ;
            }
    pthread_sigmask(SIG_SETMASK, &s->old, NULL);
    errno = e;
}

/* write() with the signals it may raise held (ct_sigs).  The writer thread
 * blocks them all already: four system calls a write less on the thread
 * that text traces wait for. */
static CT_NOINST ssize_t ct_write_quiet(const unsigned char *buf, size_t n)
{
    struct ct_sigs s;
    ssize_t w;
    if (ct_t.quiet)
        return write(ct_fd, buf, n);
    ct_sigs_hold(&s);
    w = write(ct_fd, buf, n);
    ct_sigs_release(&s);
    return w;
}

/* Whether ct_fd is still the trace file: a program that closes all
 * descriptors and opens files of its own could get its number, and trace
 * data must never go into someone else's file. */
static CT_NOINST int ct_fd_ours(void)
{
    struct stat st;
    return fstat(ct_fd, &st) == 0 && st.st_dev == ct_fd_dev && st.st_ino == ct_fd_ino;
}

/* Write everything; call with ct_lock held (or single-threaded).  With
 * may_drop (CALLTRACE_LOSSY=1) nothing is written when the descriptor is
 * not writable now (a pipe whose reader fell behind): returns 1.  Lossy
 * writes are at most PIPE_BUF bytes, which a pipe takes whole or not at
 * all; a longer write that is cut short waits for its rest, so records and
 * lines stay whole. */
static CT_NOINST int ct_write_buf(const unsigned char *buf, size_t n, int may_drop)
{
    int first = 1;
    if (ct_wout_len && buf != ct_wout)
        ct_stage_drain(); /* the blocks staged before this come first */
    if (ct_write_error)
        return 0;
    if (!ct_fd_ours()) {
        ct_write_error = 1;
        ct_msg("the trace file descriptor was closed by the program; ",
               "tracing stopped, later events are lost");
        return 0;
    }
    while (n > 0) {
        ssize_t w = ct_write_quiet(buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pfd;
                if (first && may_drop)
                    return 1;
                pfd.fd = ct_fd;
                pfd.events = POLLOUT;
                pfd.revents = 0;
                poll(&pfd, 1, -1);
                continue;
            }
            ct_write_error = 1;
            if (errno == EPIPE)
                ct_msg("the trace's reader has gone (calltrace live quit?): ",
                       "tracing stopped, the program goes on");
            else
                ct_msg("write to trace file failed, tracing stopped: ", strerror(errno));
            return 0;
        }
        first = 0;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

static CT_NOINST void ct_write_all(const unsigned char *buf, size_t n)
{
    (void)ct_write_buf(buf, n, 0);
}

