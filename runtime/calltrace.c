/*
 * calltrace.c - function entry/exit tracing runtime for `calltrace`.
 *
 * Compile this file into your program together with your own sources, all of
 * them built with -finstrument-functions.  GCC (and clang) then call
 * __cyg_profile_func_enter()/__cyg_profile_func_exit() around every function,
 * and this runtime records each call as an event (entry or exit, function
 * address, nanosecond timestamp, thread id) into a trace file that
 * `calltrace` analyses afterwards.  It replaces the classic "pvtrace"
 * instrument.c (one fprintf per event, file never closed), and is much faster:
 * events go to a per-thread buffer and are written out in large blocks.
 *
 * Build (GCC 12 / glibc 2.36 was used for testing):
 *
 *     gcc -g -finstrument-functions app.c calltrace.c -o app
 *
 * No extra library is needed on glibc >= 2.34 (pthread and dl_iterate_phdr
 * live in libc).  On older glibc add -pthread (or -lpthread); -ldl is never
 * needed.  Passing -pthread / -lpthread anyway is harmless:
 *
 *     gcc -g -finstrument-functions app.c calltrace.c -o app -lpthread
 *
 * g++ also compiles this file (as C or C++).  Link it exactly once, into the
 * executable, not into shared libraries.  Keep -g so that calltrace can map
 * addresses to function names.  Both PIE (the default) and -no-pie work.
 *
 * Run:
 *
 *     CALLTRACE_OUT=trace.bin CALLTRACE_FORMAT=binary ./app
 *
 * Environment variables (read once, when tracing starts):
 *
 *   CALLTRACE_OUT     output file; default "trace.txt" in the current
 *                     directory.  The file is created or truncated.  "%p" in
 *                     the name is replaced by the process id (use it for
 *                     programs that fork or exec other traced programs; a
 *                     forked child then writes its own file).  "%%" is "%".
 *   CALLTRACE_FORMAT  "text" (default) or "binary".  Anything else prints a
 *                     warning on stderr and falls back to text.
 *
 * Timestamps are nanoseconds of CLOCK_MONOTONIC since tracing started (the
 * first of: this runtime's constructor, the first traced call), so time 0 is
 * about program start, and all threads share the clock.  The thread id is the
 * Linux tid (gettid), i.e. equal to the pid for the main thread.  "base" is the
 * run-time address of the executable's lowest PT_LOAD segment (the load
 * address of a PIE, usually 0x400000 for -no-pie): subtract it from an event
 * address (and add the lowest PT_LOAD p_vaddr) to get a link-time address.
 *
 * TEXT format (CALLTRACE_FORMAT=text), one line per event:
 *
 *     # calltrace 1 text
 *     # base 0x55d4c3a2b000 /abs/path/to/exe
 *     E0x55d4c3a2c1c9 1234 4242
 *     X0x55d4c3a2c1c9 1890 4242
 *
 *   "E" (entry) or "X" (exit), the function address as 0x + lowercase hex
 *   without padding, the timestamp in ns, the tid.  Lines of different threads
 *   interleave in blocks; a line is never split.
 *
 * BINARY format (CALLTRACE_FORMAT=binary), all integers little-endian:
 *
 *   header: "CALLTRC\0" (8 bytes), u16 version = 1, u16 flags (bit 0 = events
 *           carry timestamps; always set), u32 reserved = 0, u64 base,
 *           u32 path_len, path (path_len bytes, no NUL)
 *   blocks: u8 'B' (0x42), u64 tid, u32 nevents, u32 nbytes, then nbytes of
 *           payload holding nevents events.  prev_addr = prev_time = 0 at the
 *           start of every block; per event:
 *             varint v = (zigzag(addr - prev_addr) << 1) | kind   (0 = entry,
 *                        1 = exit; zigzag(d) = (d << 1) ^ (d >> 63), 64 bit)
 *             varint time - prev_time
 *           varint = LEB128 unsigned.  Each block is decodable on its own;
 *           blocks of one thread appear in order.
 *
 *   The full specification is in docs/binary-format.md.
 *
 * Behaviour and limitations:
 *   - Each thread buffers 32768 events and writes them with write(2) under a
 *     global lock when the buffer is full, when the thread exits, and at
 *     process exit (a late destructor flushes every thread).  Events that
 *     arrive after that final flush (later destructors, other threads still
 *     running) are written through immediately.  The file descriptor is left
 *     open for them; the kernel closes it at exit.  No data is held in stdio.
 *   - Events still buffered are lost if the process ends without running
 *     destructors: _exit(), abort(), a fatal signal, or execve().  Call
 *     calltrace_flush() (declare it as `void calltrace_flush(void);`) before
 *     such a point if you need those events.
 *   - fork(): the child continues with its own tid; it starts inside the
 *     functions that called fork(), so its trace has exits without entries.
 *     Without "%p" in CALLTRACE_OUT parent and child append to the same file
 *     (blocks never overlap); with "%p" the child writes a file of its own.
 *   - An instrumented signal handler that interrupts the tracer itself (a
 *     window of a few ns per event) has its events dropped, both entries and
 *     exits, so nesting stays balanced; a count is printed to stderr at exit.
 *   - Functions in shared libraries (including dlopen'ed ones) that were built
 *     with -finstrument-functions are recorded with their absolute addresses,
 *     but the trace only describes the executable's mapping, so they cannot be
 *     symbolized.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CT_NOINST __attribute__((no_instrument_function))
#define CT_HOOK __attribute__((no_instrument_function, visibility("default")))
#define CT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CT_BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#define CT_EVENTS 32768u              /* events buffered per thread */
#define CT_OUT_BYTES (256u * 1024u)   /* per-thread encode buffer */
#define CT_GOUT_BYTES (64u * 1024u)   /* shared encode buffer, under ct_lock */
#define CT_TEXT_MAX 64u               /* longest text line */
#define CT_BIN_EVENT_MAX 20u          /* two 10-byte varints */
#define CT_BIN_BLOCK_HDR 17u          /* 'B', tid, nevents, nbytes */
#define CT_TIME_MASK 0x7fffffffffffffffull
#define CT_PATH_MAX 4096

/* One recorded event, as stored in the per-thread buffer. */
struct ct_ev {
    uint64_t addr;
    uint64_t tk; /* bit 63: kind (1 = exit); bits 0..62: CLOCK_MONOTONIC ns */
};

/* Per-thread state.  The owning thread appends events and advances `len`
 * without locking.  Other threads only read events [flushed, len) while
 * holding ct_lock (final flush, calltrace_flush), record how far they got in
 * `flushed`, and may set `limit` to 0 to make the owner flush on its next
 * event. */
struct ct_thread {
    uint32_t len;     /* committed events (written by owner, release) */
    uint32_t limit;   /* owner flushes when len >= limit */
    struct ct_ev *ev; /* CT_EVENTS entries */
    uint32_t flushed; /* events [0, flushed) already written; under ct_lock */
    uint32_t tidlen;
    uint64_t tid;
    unsigned char *out; /* CT_OUT_BYTES, used by the owner only */
    struct ct_thread *next, *prev;
    char tidtxt[24]; /* " <tid>\n" */
};

/* Per-thread TLS: one struct so a shared-library build needs one lookup. */
struct ct_tls {
    struct ct_thread *self;
    uint64_t tid;
    int busy; /* inside the runtime: a nested event is dropped */
    int dead; /* thread-exit destructor ran: write events through */
};

static __thread struct ct_tls ct_t __attribute__((tls_model("initial-exec")));

static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;
static int ct_state;            /* 0 not started, 1 tracing, -1 disabled */
static int ct_final;            /* final flush done: write events through */
static int ct_fd = -1;
static int ct_binary;
static int ct_path_has_pid;
static int ct_write_error;
static uint64_t ct_t0;
static uint64_t ct_base;
static uint64_t ct_dropped;
static uint32_t ct_exe_len;
static pthread_key_t ct_key;
static struct ct_thread *ct_threads; /* live threads, under ct_lock */
static struct ct_thread *ct_free;    /* reusable states, under ct_lock */
static char ct_exe[CT_PATH_MAX];
static char ct_path_tmpl[CT_PATH_MAX];
static unsigned char ct_gout[CT_GOUT_BYTES];

static const char ct_hexdig[] = "0123456789abcdef";
static const char ct_dig2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

static inline CT_NOINST uint64_t ct_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static CT_NOINST void ct_msg(const char *a, const char *b)
{
    char buf[512];
    size_t n = 0;
    const char *parts[3];
    int i;
    parts[0] = "calltrace: ";
    parts[1] = a;
    parts[2] = b;
    for (i = 0; i < 3; i++) {
        const char *s = parts[i];
        while (s && *s && n < sizeof buf - 1)
            buf[n++] = *s++;
    }
    buf[n++] = '\n';
    if (write(2, buf, n) < 0) {
        /* nothing sensible to do */
    }
}

static inline CT_NOINST unsigned char *ct_dec(unsigned char *p, uint64_t v)
{
    unsigned char tmp[20];
    unsigned char *q = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        q[0] = (unsigned char)ct_dig2[2 * r];
        q[1] = (unsigned char)ct_dig2[2 * r + 1];
    }
    if (v >= 10) {
        q -= 2;
        q[0] = (unsigned char)ct_dig2[2 * v];
        q[1] = (unsigned char)ct_dig2[2 * v + 1];
    } else {
        *--q = (unsigned char)('0' + v);
    }
    while (q < tmp + sizeof tmp)
        *p++ = *q++;
    return p;
}

static inline CT_NOINST unsigned char *ct_hex(unsigned char *p, uint64_t v)
{
    int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
    unsigned char *q = p + n;
    do {
        *--q = (unsigned char)ct_hexdig[v & 15];
        v >>= 4;
    } while (q > p);
    return p + n;
}

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

/* Write everything; call with ct_lock held (or single-threaded). */
static CT_NOINST void ct_write_all(const unsigned char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(ct_fd, buf, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (!ct_write_error) {
                ct_write_error = 1;
                ct_msg("write to trace file failed: ", strerror(errno));
            }
            return;
        }
        buf += w;
        n -= (size_t)w;
    }
}

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Encode events ev[0..n) into out (capacity cap), as many as fit.  Returns
 * the number of bytes produced and stores the number of events consumed in
 * *used.  Binary: one complete block.  Text: complete lines. */
static CT_NOINST size_t ct_encode(const struct ct_ev *ev, uint32_t n, uint64_t tid,
                                  const char *tidtxt, uint32_t tidlen,
                                  unsigned char *out, size_t cap, uint32_t *used)
{
    const uint64_t t0 = ct_t0;
    uint32_t i = 0;
    unsigned char *p = out;

    if (ct_binary) {
        const unsigned char *lim = out + cap - CT_BIN_EVENT_MAX;
        uint64_t prev_addr = 0, prev_time = 0;
        p += CT_BIN_BLOCK_HDR;
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk, addr = ev[i].addr;
            uint64_t tm = tk & CT_TIME_MASK;
            uint64_t d = addr - prev_addr;
            uint64_t zz = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
            tm = tm > t0 ? tm - t0 : 0;
            if (tm < prev_time)
                tm = prev_time;
            p = ct_varint(p, (zz << 1) | (tk >> 63));
            p = ct_varint(p, tm - prev_time);
            prev_addr = addr;
            prev_time = tm;
        }
        if (i == 0) {
            *used = 0;
            return 0;
        }
        out[0] = 0x42;
        ct_le(out + 1, tid, 8);
        ct_le(out + 9, i, 4);
        ct_le(out + 13, (uint64_t)(p - out - CT_BIN_BLOCK_HDR), 4);
    } else {
        const unsigned char *lim = out + cap - CT_TEXT_MAX;
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk;
            uint64_t tm = tk & CT_TIME_MASK;
            uint32_t k;
            tm = tm > t0 ? tm - t0 : 0;
            *p++ = (tk >> 63) ? 'X' : 'E';
            *p++ = '0';
            *p++ = 'x';
            p = ct_hex(p, ev[i].addr);
            *p++ = ' ';
            p = ct_dec(p, tm);
            for (k = 0; k < tidlen; k++)
                p[k] = (unsigned char)tidtxt[k];
            p += tidlen;
        }
    }
    *used = i;
    return (size_t)(p - out);
}

/* Write events [flushed, len) of t using the shared buffer.  ct_lock held. */
static CT_NOINST void ct_flush_locked(struct ct_thread *t)
{
    uint32_t from = t->flushed;
    uint32_t to = __atomic_load_n(&t->len, __ATOMIC_ACQUIRE);
    while (from < to) {
        uint32_t used;
        size_t nb = ct_encode(t->ev + from, to - from, t->tid, t->tidtxt, t->tidlen,
                              ct_gout, sizeof ct_gout, &used);
        if (used == 0)
            break;
        ct_write_all(ct_gout, nb);
        from += used;
    }
    if (to > t->flushed)
        t->flushed = to;
}

/* Owner flush: called by the owning thread when len reaches limit. */
static CT_NOINST void ct_flush_own(struct ct_thread *t)
{
    uint32_t n = t->len;
    uint32_t pos = 0;

    if (__atomic_load_n(&ct_final, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&ct_lock);
        ct_flush_locked(t);
        __atomic_store_n(&t->len, 0, __ATOMIC_RELEASE);
        t->flushed = 0;
        pthread_mutex_unlock(&ct_lock);
        return;
    }
    /* Encode outside the lock (threads encode in parallel), write under it.
     * If someone else flushed part of the buffer meanwhile (t->flushed moved
     * past pos), skip what they wrote. */
    for (;;) {
        uint32_t used = 0;
        size_t nb = 0;
        if (pos < n)
            nb = ct_encode(t->ev + pos, n - pos, t->tid, t->tidtxt, t->tidlen, t->out,
                           CT_OUT_BYTES, &used);
        pthread_mutex_lock(&ct_lock);
        if (t->flushed > pos) {
            pos = t->flushed;
        } else if (used > 0) {
            ct_write_all(t->out, nb);
            pos += used;
            t->flushed = pos;
        }
        if (pos >= n || used == 0) {
            __atomic_store_n(&t->len, 0, __ATOMIC_RELEASE);
            t->flushed = 0;
            pthread_mutex_unlock(&ct_lock);
            return;
        }
        pthread_mutex_unlock(&ct_lock);
    }
}

/* Write one event immediately (thread without a buffer). */
static CT_NOINST void ct_write_one(uint64_t addr, uint64_t tk)
{
    struct ct_ev e;
    char tidtxt[24];
    unsigned char buf[128];
    uint32_t tidlen, used;
    size_t nb;
    e.addr = addr;
    e.tk = tk;
    tidlen = ct_tidtxt(tidtxt, ct_t.tid);
    nb = ct_encode(&e, 1, ct_t.tid, tidtxt, tidlen, buf, sizeof buf, &used);
    pthread_mutex_lock(&ct_lock);
    ct_write_all(buf, nb);
    pthread_mutex_unlock(&ct_lock);
}

/* ------------------------------------------------------------------ */
/* Start-up                                                             */

static CT_NOINST int ct_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    uint64_t lo = UINT64_MAX;
    int i;
    (void)size;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (uint64_t)info->dlpi_phdr[i].p_vaddr < lo)
            lo = (uint64_t)info->dlpi_phdr[i].p_vaddr;
    }
    if (lo != UINT64_MAX)
        *(uint64_t *)data = (uint64_t)info->dlpi_addr + lo;
    return 1; /* the first object is the main program: stop */
}

/* Build the output file name from the template, expanding %p and %%. */
static CT_NOINST void ct_out_name(char *dst, size_t cap)
{
    const char *s = ct_path_tmpl;
    size_t n = 0;
    while (*s && n + 24 < cap) {
        if (s[0] == '%' && s[1] == 'p') {
            unsigned char num[24];
            unsigned char *e = ct_dec(num, (uint64_t)getpid());
            unsigned char *q = num;
            while (q < e)
                dst[n++] = (char)*q++;
            s += 2;
        } else if (s[0] == '%' && s[1] == '%') {
            dst[n++] = '%';
            s += 2;
        } else {
            dst[n++] = *s++;
        }
    }
    dst[n] = 0;
}

/* Open the output file and write the header.  ct_lock held (or the only
 * thread).  Returns 0 on success. */
static CT_NOINST int ct_open_output(void)
{
    char name[CT_PATH_MAX];
    unsigned char *p = ct_gout;
    int fd;

    ct_out_name(name, sizeof name);
    fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        ct_msg("cannot open trace file, tracing disabled: ", name);
        return -1;
    }
    ct_fd = fd;
    if (ct_binary) {
        static const unsigned char magic[8] = {'C', 'A', 'L', 'L', 'T', 'R', 'C', 0};
        uint32_t i;
        for (i = 0; i < 8; i++)
            *p++ = magic[i];
        ct_le(p, 1, 2); /* version */
        p += 2;
        ct_le(p, 1, 2); /* flags: timestamps */
        p += 2;
        ct_le(p, 0, 4); /* reserved */
        p += 4;
        ct_le(p, ct_base, 8);
        p += 8;
        ct_le(p, ct_exe_len, 4);
        p += 4;
        for (i = 0; i < ct_exe_len; i++)
            *p++ = (unsigned char)ct_exe[i];
    } else {
        static const char l1[] = "# calltrace 1 text\n# base 0x";
        uint32_t i;
        for (i = 0; l1[i]; i++)
            *p++ = (unsigned char)l1[i];
        p = ct_hex(p, ct_base);
        *p++ = ' ';
        for (i = 0; i < ct_exe_len; i++)
            *p++ = (unsigned char)ct_exe[i];
        *p++ = '\n';
    }
    ct_write_all(ct_gout, (size_t)(p - ct_gout));
    return 0;
}

static CT_NOINST void ct_thread_exit(void *arg);
static CT_NOINST void ct_atfork_prepare(void);
static CT_NOINST void ct_atfork_parent(void);
static CT_NOINST void ct_atfork_child(void);

/* Start tracing once: returns nonzero if tracing is on. */
static CT_NOINST int ct_init(void)
{
    int s = __atomic_load_n(&ct_state, __ATOMIC_ACQUIRE);
    int did_init = 0;
    if (CT_LIKELY(s != 0))
        return s > 0;

    pthread_mutex_lock(&ct_lock);
    if (ct_state == 0) {
        const char *fmt = getenv("CALLTRACE_FORMAT");
        const char *out = getenv("CALLTRACE_OUT");
        uint64_t base = 0;
        ssize_t n;
        size_t i;

        ct_t0 = ct_now();
        if (fmt && fmt[0] && strcmp(fmt, "text") != 0) {
            if (strcmp(fmt, "binary") == 0)
                ct_binary = 1;
            else
                ct_msg("unknown CALLTRACE_FORMAT (expected text or binary), using text: ",
                       fmt);
        }
        if (!out || !out[0])
            out = "trace.txt";
        for (i = 0; out[i] && i < sizeof ct_path_tmpl - 1; i++) {
            ct_path_tmpl[i] = out[i];
            if (out[i] == '%' && out[i + 1] == 'p')
                ct_path_has_pid = 1;
        }
        ct_path_tmpl[i] = 0;

        dl_iterate_phdr(ct_phdr_cb, &base);
        ct_base = base;
        n = readlink("/proc/self/exe", ct_exe, sizeof ct_exe);
        ct_exe_len = (n > 0 && (size_t)n < sizeof ct_exe) ? (uint32_t)n : 0;
        for (i = 0; i < ct_exe_len; i++) /* keep the text header one line */
            if (ct_exe[i] == '\n')
                ct_exe[i] = '?';

        if (ct_open_output() == 0 && pthread_key_create(&ct_key, ct_thread_exit) == 0) {
            did_init = 1;
            __atomic_store_n(&ct_state, 1, __ATOMIC_RELEASE);
        } else {
            __atomic_store_n(&ct_state, -1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&ct_lock);
    if (did_init) /* outside ct_lock: the fork handlers take it */
        pthread_atfork(ct_atfork_prepare, ct_atfork_parent, ct_atfork_child);
    return __atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) > 0;
}

static CT_NOINST uint64_t ct_gettid(void)
{
    return (uint64_t)syscall(SYS_gettid);
}

/* Give the calling thread a buffer.  Returns NULL if out of memory. */
static CT_NOINST struct ct_thread *ct_thread_new(void)
{
    struct ct_thread *t;
    const size_t hdr = 4096;
    const size_t evbytes = (size_t)CT_EVENTS * sizeof(struct ct_ev);

    pthread_mutex_lock(&ct_lock);
    t = ct_free;
    if (t)
        ct_free = t->next;
    pthread_mutex_unlock(&ct_lock);
    if (!t) {
        void *m = mmap(NULL, hdr + evbytes + CT_OUT_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return NULL;
        t = (struct ct_thread *)m;
        t->ev = (struct ct_ev *)((char *)m + hdr);
        t->out = (unsigned char *)m + hdr + evbytes;
    }
    t->len = 0;
    t->flushed = 0;
    t->tid = ct_t.tid;
    t->tidlen = ct_tidtxt(t->tidtxt, t->tid);

    pthread_mutex_lock(&ct_lock);
    t->limit = __atomic_load_n(&ct_final, __ATOMIC_RELAXED) ? 0 : CT_EVENTS;
    t->prev = NULL;
    t->next = ct_threads;
    if (ct_threads)
        ct_threads->prev = t;
    ct_threads = t;
    pthread_mutex_unlock(&ct_lock);

    pthread_setspecific(ct_key, t); /* so ct_thread_exit runs at thread exit */
    return t;
}

/* ct_lock held */
static CT_NOINST void ct_unlink(struct ct_thread *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        ct_threads = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->next = t->prev = NULL;
}

/* ------------------------------------------------------------------ */
/* Recording                                                            */

static CT_NOINST __attribute__((noinline)) void ct_record_slow(void *fn, uint64_t kind)
{
    struct ct_thread *t;
    if (ct_t.busy) {
        /* a signal handler (or instrumented code called by the runtime) */
        __atomic_fetch_add(&ct_dropped, 1, __ATOMIC_RELAXED);
        return;
    }
    if (ct_state < 0)
        return;
    ct_t.busy = 1;
    CT_BARRIER();
    if (ct_init()) {
        if (ct_t.tid == 0)
            ct_t.tid = ct_gettid();
        t = ct_t.self;
        if (!t && !ct_t.dead) {
            t = ct_thread_new();
            ct_t.self = t;
            if (!t)
                ct_t.dead = 1;
        }
        if (t) {
            uint32_t i = t->len;
            t->ev[i].addr = (uint64_t)(uintptr_t)fn;
            t->ev[i].tk = ct_now() | (kind << 63);
            __atomic_store_n(&t->len, i + 1, __ATOMIC_RELEASE);
            if (i + 1 >= __atomic_load_n(&t->limit, __ATOMIC_RELAXED))
                ct_flush_own(t);
        } else {
            ct_write_one((uint64_t)(uintptr_t)fn, ct_now() | (kind << 63));
        }
    }
    CT_BARRIER();
    ct_t.busy = 0;
}

static inline CT_NOINST __attribute__((always_inline)) void ct_record(void *fn, uint64_t kind)
{
    struct ct_thread *t = ct_t.self;
    uint32_t i;
    if (CT_UNLIKELY(t == NULL || ct_t.busy)) {
        ct_record_slow(fn, kind);
        return;
    }
    ct_t.busy = 1;
    CT_BARRIER();
    i = t->len;
    t->ev[i].addr = (uint64_t)(uintptr_t)fn;
    t->ev[i].tk = ct_now() | (kind << 63);
    __atomic_store_n(&t->len, i + 1, __ATOMIC_RELEASE);
    if (CT_UNLIKELY(i + 1 >= __atomic_load_n(&t->limit, __ATOMIC_RELAXED)))
        ct_flush_own(t);
    CT_BARRIER();
    ct_t.busy = 0;
}

CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, 0);
}

CT_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)call_site;
    ct_record(this_fn, 1);
}

/* Write out everything buffered by every thread (optional public API). */
CT_HOOK void calltrace_flush(void)
{
    struct ct_thread *t;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0)
        return;
    ct_t.busy++;
    CT_BARRIER();
    pthread_mutex_lock(&ct_lock);
    for (t = ct_threads; t; t = t->next)
        ct_flush_locked(t);
    pthread_mutex_unlock(&ct_lock);
    CT_BARRIER();
    ct_t.busy--;
}

/* ------------------------------------------------------------------ */
/* Thread exit, process exit, fork                                      */

static CT_NOINST void ct_thread_exit(void *arg)
{
    struct ct_thread *t = (struct ct_thread *)arg;
    ct_t.busy++;
    CT_BARRIER();
    pthread_mutex_lock(&ct_lock);
    ct_flush_locked(t);
    ct_unlink(t);
    t->next = ct_free;
    ct_free = t;
    pthread_mutex_unlock(&ct_lock);
    ct_t.self = NULL;
    ct_t.dead = 1; /* later events of this thread are written through */
    CT_BARRIER();
    ct_t.busy--;
}

__attribute__((constructor(101))) static CT_NOINST void ct_ctor(void)
{
    ct_t.busy++;
    CT_BARRIER();
    ct_init();
    CT_BARRIER();
    ct_t.busy--;
}

/* Runs after the program's other destructors (priority 101 is the last). */
__attribute__((destructor(101))) static CT_NOINST void ct_dtor(void)
{
    struct ct_thread *t;
    uint64_t dropped;
    if (__atomic_load_n(&ct_state, __ATOMIC_ACQUIRE) <= 0)
        return;
    ct_t.busy++;
    CT_BARRIER();
    pthread_mutex_lock(&ct_lock);
    __atomic_store_n(&ct_final, 1, __ATOMIC_RELEASE);
    for (t = ct_threads; t; t = t->next) {
        ct_flush_locked(t);
        __atomic_store_n(&t->limit, 0, __ATOMIC_RELAXED);
    }
    dropped = __atomic_load_n(&ct_dropped, __ATOMIC_RELAXED);
    if (dropped) {
        unsigned char num[24];
        *ct_dec(num, dropped) = 0;
        ct_msg("events dropped (signal handler interrupted the tracer): ", (char *)num);
    }
    pthread_mutex_unlock(&ct_lock);
    CT_BARRIER();
    ct_t.busy--;
}

static CT_NOINST void ct_atfork_prepare(void)
{
    ct_t.busy++;
    CT_BARRIER();
    pthread_mutex_lock(&ct_lock);
}

static CT_NOINST void ct_atfork_parent(void)
{
    pthread_mutex_unlock(&ct_lock);
    CT_BARRIER();
    ct_t.busy--;
}

static CT_NOINST void ct_atfork_child(void)
{
    struct ct_thread *t, *next, *self = ct_t.self;
    pthread_mutex_init(&ct_lock, NULL);
    /* Other threads do not exist in the child; the parent still owns and
     * will write all buffered events, including this thread's. */
    for (t = ct_threads; t; t = next) {
        next = t->next;
        if (t != self) {
            t->next = ct_free;
            ct_free = t;
        }
    }
    ct_threads = NULL;
    ct_t.tid = ct_gettid();
    if (self) {
        self->len = 0;
        self->flushed = 0;
        self->tid = ct_t.tid;
        self->tidlen = ct_tidtxt(self->tidtxt, self->tid);
        self->next = self->prev = NULL;
        ct_threads = self;
    }
    if (ct_path_has_pid) {
        int old = ct_fd;
        if (ct_open_output() == 0)
            close(old);
        else
            ct_fd = old;
        ct_write_error = 0;
    }
    CT_BARRIER();
    ct_t.busy--;
}

#ifdef __cplusplus
}
#endif
