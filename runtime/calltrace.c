/*
 * calltrace.c - function entry/exit tracing runtime for `calltrace`.
 *
 * Compile this file into your program together with your own sources, all of
 * them built with -finstrument-functions.  GCC (and clang) then call
 * __cyg_profile_func_enter()/__cyg_profile_func_exit() around every function;
 * this runtime records each call as events (entry/exit, function address,
 * nanosecond timestamp, thread id) in a trace file that `calltrace` analyses.
 * It replaces the classic "pvtrace" instrument.c (one fprintf per event, file
 * never closed): events go to per-thread buffers and are written in blocks,
 * and every event is flushed at exit.
 *
 * Build:
 *
 *     gcc -g -finstrument-functions app.c calltrace.c -o app
 *
 * No extra library is needed with glibc >= 2.34 (threads and dl_iterate_phdr
 * are in libc; tested with GCC 12 / glibc 2.36).  With older glibc add
 * -pthread.  -ldl is never needed; -lpthread is harmless.  g++ compiles this
 * file too (as C or C++), and -std=c99 ... gnu11, -O0 ... -O3, PIE (default)
 * and -no-pie, -static all work; so does clang, at every -O and with
 * _FORTIFY_SOURCE.  Link it once, into the executable.  (If a
 * shared library carries it too, the copy that the program's calls of the
 * hooks reach records, normally the executable's; the other stays idle.)
 * Keep -g so that calltrace can name the functions.
 *
 * Run:
 *
 *     ./app                                        # writes trace.txt
 *     CALLTRACE_FORMAT=binary CALLTRACE_OUT=app.trace ./app
 *
 * Environment (read once, when tracing starts):
 *
 *   CALLTRACE_OUT     output file, default "trace.txt" in the current
 *                     directory; created or truncated.  "%p" is replaced by
 *                     the process id; "%%" is a "%".  Traced processes never
 *                     share a file: without "%p", a forked child, a traced
 *                     program started by a traced process that would open
 *                     the same file, and a program whose file another live
 *                     traced process writes (./a | ./b) write NAME.<pid>.EXT
 *                     instead (trace.1234.txt).  For the second the runtime
 *                     sets CALLTRACE_OUT_TAKEN to the absolute path of its
 *                     file; for the third each process holds a flock() on
 *                     its regular file (see ct_claim).  And a program whose
 *                     file holds the text trace of a process whose traced
 *                     parent still runs (a sibling started with its own
 *                     environment: posix_spawn(..., envp)) leaves it, and
 *                     writes NAME.<pid>.EXT, saying so on stderr (ct_sibling,
 *                     "# process PID PPID").  Refused (tracing disabled,
 *                     with a message): a file mapped into the process (a
 *                     library, the program), and a name that does not fit
 *                     in PATH_MAX bytes.
 *   CALLTRACE_FORMAT  "text" (default) or "binary" (about 10x smaller and
 *                     faster).  Anything else: warning on stderr, text.
 *   CALLTRACE_LOSSY   "1": when the trace is a pipe or FIFO whose reader
 *                     falls behind (calltrace live), drop events instead of
 *                     making the program wait; each gap is noted in the
 *                     trace ("# dropped N" / record 'D') and the total on
 *                     stderr at exit.  (The pipe is enlarged to 1 MiB if
 *                     allowed; events go out in writes of at most PIPE_BUF
 *                     bytes, which the pipe takes whole or not at all.
 *                     Only the rare mapping and name records still wait.)
 *   CALLTRACE_WRITER  "0": no writer thread; each thread encodes and writes its
 *                     own events (see Behaviour).  For programs that must stay
 *                     single-threaded.
 *   CALLTRACE_CLOCK   "auto" (default), "monotonic" (always call
 *                     clock_gettime; slower, see Timestamps) or "none" (no
 *                     timestamps, binary format only: the cheapest; trees
 *                     then count calls).
 *   CALLTRACE_WAITS   "keep": leave in a thread's event times the time the
 *                     runtime made it wait (see Timestamps).
 *
 * Timestamps are nanoseconds since tracing started (the first of: this
 * file's constructor, the first traced call), on the CLOCK_MONOTONIC
 * timeline, the same clock for all threads, never decreasing within a thread.
 * On x86-64, when the CPU has an invariant TSC and the kernel itself uses the
 * TSC as its clocksource, an event reads only the TSC (rdtsc); the ticks are
 * converted to ns when the buffer is written, by interpolating between a
 * (TSC, CLOCK_MONOTONIC) pair taken at start and one taken at that moment,
 * which keeps them within a fraction of a microsecond of clock_gettime.
 * Elsewhere each event calls clock_gettime(CLOCK_MONOTONIC).
 *
 * The time a thread spends in the runtime's check-ins (every 4096 events:
 * waiting for the writer to make room in its ring, or writing the ring
 * itself without a writer) is taken out of the thread's later event times,
 * so that it does not land in the self time of whichever function was
 * running then (a trivial leaf would show milliseconds).  A thread's times
 * are then the program's own time; threads drift apart by what each
 * waited.  CALLTRACE_WAITS=keep leaves the waits in (times on one
 * timeline for all threads).
 *
 * Thread ids are Linux tids (gettid; the main thread's tid is the pid).
 * "base" is the run-time address of the executable's lowest PT_LOAD segment
 * (the load address of a PIE; usually 0x400000 with -no-pie): an event address
 * minus base plus that segment's p_vaddr is the address in the ELF file.
 *
 * TEXT format, one line per event:
 *
 *     # calltrace 1 text
 *     # base 0x55d4c3a2b000 /abs/path/to/exe
 *     # process 4242 4200
 *     # map 0x55d4c3a2c000 0x55d4c3a2f785 0x1000 40ed27dc...fdba /abs/path/to/exe
 *     E0x55d4c3a2c1c9 1234 4242
 *     X0x55d4c3a2c1c9 1890 4242
 *
 *   "E" (entry) or "X" (exit), the function address as 0x + lowercase hex
 *   without leading zeros, the timestamp in ns, the tid.  Lines of different
 *   threads come in interleaved runs; a line is never split.
 *   "# process PID PPID": the writing process and its parent.
 *   "# map START END OFFSET BUILD_ID PATH" describes one executable mapping
 *   (PT_LOAD with PF_X) of a loaded object: run-time start and end, file
 *   offset, GNU build-id in hex ("-" if none) and the path (the rest of the
 *   line; in the path of `# base` and `# map` lines a backslash is written
 *   `\\`, a newline `\n` and a carriage return `\r`; binary records carry
 *   the path's bytes as they are).  All objects are written at start; objects loaded later (dlopen)
 *   when one of their functions is first entered, before its events.  An
 *   object loaded where one the program's dlclose() unloaded was gets its
 *   own lines, after every event of the old one (see dlclose below).
 *
 * BINARY format (CALLTRACE_FORMAT=binary): specified in docs/binary-format.md
 *   (header, records, event encoding, thread buffers); this file is its
 *   writer and src/ingest/binary.rs its reader.
 *
 * Behaviour and limitations:
 *   - Each thread stores its events in a ring of 32768 (about 800 KiB of memory
 *     per thread, reused after the thread exits); a traced thread does nothing
 *     else per event.  A writer thread, started with tracing (once libc is set
 *     up; it blocks all signals), encodes and writes the rings.  Each thread
 *     checks in every 4096 events; while check-ins come the writer polls for
 *     them without sleeping (up to 16 times the last gap, 100 to 320 us,
 *     when they come fast, else 100 us), so a traced thread makes no system call to wake it
 *     and no sleep's wake-up latency makes it wait.  Then it sleeps, 50 us
 *     at first and longer the less it finds (at most 50 ms, so a slow
 *     program's events reach a reader soon).  A thread whose ring is full
 *     writes it itself if the writer is not writing just then; else it polls
 *     for up to 200 us for the room the writer makes, then waits for the
 *     writer and writes what is left.  Both poll only while the traced
 *     threads are fewer than the CPUs the process may run on and no poll
 *     lately lost its CPU to other programs; else they sleep at once.  On a machine with a free core the encoding
 *     thus costs the traced program little time; the polling shows as CPU
 *     time of the writer.  Into a regular file the writer writes 256 KiB at
 *     a time (or 32768 events of a thread; ct_stage_drain), and a thread's
 *     ring room comes back only once its events are written.  Without the
 *     writer (CALLTRACE_WRITER=0, or no thread could be started) each thread
 *     writes its own ring when it is nearly full.  A thread keeps its ring
 *     until it is gone, not just until its exit destructor (signal handlers
 *     that run while it exits record at the cost of any event); the writer
 *     (else the next new thread) then writes the rest and reuses the ring.
 *     At process exit a late destructor writes every
 *     ring and the writer's staged blocks, and events after that (later
 *     destructors, threads still running) are written through immediately.
 *     The descriptor therefore stays open until the kernel closes it; no
 *     data is left in a user-space buffer at exit.
 *   - Binary traces keep each thread's buffer in the trace file (a shared
 *     mapping), so recorded events survive any end of the process: _exit(),
 *     abort(), a fatal signal, SIGKILL.  Text traces keep buffers in memory:
 *     the program's own calls of _exit(), _Exit() and abort() write them
 *     first (this file defines those, weak, around libc's), but a fatal
 *     signal, SIGKILL, libc's internal aborts (a failed assert()) or
 *     execve() lose them.  Call calltrace_flush() (declare
 *     `void calltrace_flush(void);`) first if you need them.
 *   - fork(): the child traces on with its own tid, in its own file (see
 *     CALLTRACE_OUT).  Its trace begins with entries (timed at the fork) of
 *     the functions that called fork() (the innermost 4096), so its calls
 *     hang under the right callers.
 *   - longjmp() skips the exits of the frames it abandons (C++ exceptions are
 *     fine: exits are recorded during unwinding).
 *   - Interpreters record their own methods through calltrace.h
 *     (`calltrace runtime --header`): ct_method_register(), ct_enter(),
 *     ct_exit(), ct_thread_name(), ct_thread_end(); binary format only (text
 *     traces get `# method` lines that calltrace does not use yet).
 *   - Calls that the runtime itself makes into the program (libc's setenv()
 *     and pthread_create() call a malloc() or free() that the program
 *     defines) are never recorded.
 *   - Instrumented signal handlers are traced.  Their events are kept in order
 *     even when the signal interrupts the tracer itself, except beyond 1024
 *     events per interrupted event, or for a handler interrupting another one
 *     inside the tracer: those calls are dropped as whole entry/exit pairs and
 *     counted on stderr at exit.  A handler that siglongjmp()s out while it
 *     interrupted the tracer stops the tracing of that thread.
 *   - Functions in shared libraries (also dlopen'ed ones) built with
 *     -finstrument-functions are recorded with their absolute addresses; the
 *     map records say which object (and build-id) holds them.
 *   - Messages go to descriptor 2 only while it is the stderr the process
 *     started with (device and inode); once the program has closed it or put
 *     another file there, they are not written at all.
 *   - The descriptor is moved to >= 1000; if the program closes it anyway
 *     (daemons closing all descriptors), tracing stops with a message rather
 *     than write into a file the program opened later.
 *
 * Source: `calltrace runtime` prints this file, put together from the parts
 * the files of runtime/linux/ and runtime/common.h in calltrace's sources (common.h is
 * shared with `calltrace runtime --freestanding`); change those parts, not
 * this file.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

/* clang instruments the inline functions of system headers too, where gcc
 * does not: gnu_dev_major() of <sys/sysmacros.h> at -O1 and up, the
 * _FORTIFY_SOURCE wrappers of memcpy(), memmove() and memset() (clang
 * names them memcpy.inline ...).  Inlined into the runtime they called the
 * hooks from inside it: nested events, dropped before a thread had a
 * buffer (a clang -O2 build said "events dropped (nested signal handlers
 * interrupted the tracer): 4" where no signal ran) and recorded after.  So
 * everything the headers define is no_instrument_function here. */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((no_instrument_function)), apply_to = function)
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#if defined(__clang__)
#pragma clang attribute pop
#endif

#if defined(__x86_64__) && defined(__SIZEOF_INT128__)
#define CT_HAVE_TSC 1
__extension__ typedef unsigned __int128 ct_u128;
#else
#define CT_HAVE_TSC 0
#endif

/* ------------------------------------------------------------------ */
/* Shared by both runtimes                                              */

/* What the Linux runtime and the freestanding runtime have in common:
 * how the hooks are declared and kept out of the instrumentation, and what
 * an event's kind is.  Both printed runtimes (`calltrace runtime`,
 * `calltrace runtime --freestanding`) carry this part verbatim, so the two
 * cannot disagree on it.  It needs only <stddef.h> and <stdint.h>. */
#include <stddef.h>
#include <stdint.h>

/* The runtime's own functions are never instrumented (a hook calling an
 * instrumented function would recurse). */
#define CT_NOINST __attribute__((no_instrument_function))
#define CT_HOOK __attribute__((no_instrument_function, visibility("default")))
#define CT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Orders memory accesses against a signal or interrupt handler on this
 * core (a compiler barrier, no instruction). */
#define CT_BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* An event's kind: the function was entered or left. */
#define CT_ENTRY 0u
#define CT_EXIT 1u
/* The kind in the top bit of a 64-bit word (the Linux runtime's events). */
#define CT_KIND_TOP(kind) ((uint64_t)(kind) << 63)
/* The kind in the low bit of a function address (the freestanding
 * runtime's events): the address's own low bit (Thumb) is dropped, as code
 * is at least 2-byte aligned. */
#define CT_KIND_LOW(fn, kind) (((uintptr_t)(fn) & ~(uintptr_t)1) | (uintptr_t)(kind))

#ifdef __cplusplus
extern "C" {
#endif
/* The hooks that -finstrument-functions calls around every function. */
CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site);
CT_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site);
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define CT_EVENTS 131072u             /* events buffered per thread: a ring, a power of 2 */
#define CT_STEP 4096u                 /* the owner checks in with the writer every CT_STEP events */
#define CT_WOUT_BYTES (512u * 1024u)  /* the writer thread's encode buffer: blocks staged */
#define CT_STAGE_BYTES (256u * 1024u) /* ... and written once they are this many bytes */
#define CT_STAGE_EVENTS 32768u        /* ... or a thread has this many events in them */
#define CT_BLOCK_EVENTS 32768u        /* most events in a block (a reader's seq is 16 bits) */
#define CT_WAKE_MS 50                 /* the writer writes what is buffered at least this often */
#define CT_SPIN_US 100u               /* the writer polls check-ins this long before sleeping, */
#define CT_FAST_GAP_US 20u            /* ... or, while they come within this many microseconds */
#define CT_FAST_GAPS 16u              /* of each other, this many times the last gap */
#define CT_WAIT_SPIN_US 200u          /* an owner whose ring is full polls the busy writer this long */
#define CT_PREEMPT_US 200u            /* a poll that lost its CPU this long: the CPUs are not free */
#define CT_CROWDED_MS 100u            /* ... so nobody polls for this long */
#define CT_HDR 4096u                  /* struct ct_thread, then the events */
#define CT_GOUT_BYTES (256u * 1024u)  /* shared encode buffer, under ct_lock */
#define CT_SIDE 4096u                 /* events of signal handlers, see ct_record_nested; a power of 2 */
#define CT_ROOM (CT_EVENTS - CT_STEP - CT_SIDE) /* a check-in leaves at most this many events
                                               * unwritten: room for CT_STEP, and a side
                                               * buffer drained past the limit */
#define CT_STACK 4096u                /* open frames remembered for fork(); a power of 2 */
#define CT_RESERVE_FIRST (CT_STACK + CT_STEP + CT_SIDE) /* ring slots a new buffer's file
                                               * blocks are reserved for (ct_reserve) */
#define CT_RESERVE_MORE 16384u        /* ... and how many more at a time */
#define CT_TEXT_MAX 80u               /* longest text line (62), + store slack */
#define CT_BIN_EVENT_MAX 20u          /* two 10-byte varints */
#define CT_REC_HDR 28u                /* sync, checksum, tag, tid, nevents, nbytes */
#define CT_TAG_BLOCK 0x42u            /* 'B': events of one thread */
#define CT_TAG_MAP 0x4du              /* 'M': an executable mapping */
#define CT_TAG_METHOD 0x4eu           /* 'N': a method of ct_method_register */
#define CT_TAG_THREAD 0x54u           /* 'T': a thread name */
#define CT_TAG_RAW 0x52u              /* 'R': a thread's buffer, mapped from the file */
#define CT_TAG_DROPPED 0x44u          /* 'D': events dropped (CALLTRACE_LOSSY) */
#define CT_RAW_PARAMS 48u             /* region offset, tsc0, t0, mult, timed, ring size */
#define CT_METHOD_BASE 0x3f00000000000000ull /* event address of method 0 */
#define CT_VERSION 2u                 /* binary format version */
#define CT_TIME_MASK 0x7fffffffffffffffull
#define CT_PATH_MAX PATH_MAX       /* a path's bytes with its NUL (4096 on Linux) */

/* One recorded event, as stored in the per-thread buffer.  Untimed
 * (CALLTRACE_CLOCK=none), a ring slot is only the first word, with the kind
 * in bit 63 of the address (ct_put): half the bytes to store and to read
 * back, the events' largest cost on a call-heavy program. */
struct ct_ev {
    uint64_t addr;
    uint64_t tk; /* bit 63: kind (1 = exit); bits 0..62: raw clock (TSC or ns) */
};

/* Per-thread state, followed (at offset CT_HDR) by a ring of CT_EVENTS
 * events, the side buffer and the open frames.  `len` and `flushed` count events since the
 * thread started (wrapping at 2^32); event k is at ring index
 * k % CT_EVENTS.  The owning thread appends events and advances `len`
 * without locking; it never gets more than CT_EVENTS ahead of `flushed`.
 * Whoever writes events (the writer thread, or any thread at a flush) holds
 * ct_lock, encodes events [flushed, len) and advances `flushed`.  The owner
 * checks in (ct_checkpoint) when `len` reaches `limit`; other threads set
 * `limit` to `len` to make it check in on its next event. */
struct ct_thread {
    /* The owner's line: `len` changes with every event.  (len, flushed and
     * tid sit at offsets 0, 8 and 16: docs/binary-format.md, 'R'.) */
    uint32_t len;       /* committed events (written by owner, release) */
    uint32_t limit;     /* owner checks in when len reaches limit */
    uint32_t flushed;   /* events before this are written; ct_lock (release) */
    uint32_t tidlen;
    uint64_t tid;
    uint32_t side_len;  /* events put in the side buffer (a ring), ever */
    uint32_t side_open; /* side entries recorded whose exit is pending */
    uint32_t side_skip; /* side entries dropped whose exit is pending */
    int side_busy;      /* side buffer being written (by a handler) */
    uint64_t mult;      /* at offset 40: the TSC-to-ns factor the last block
                         * was written with, so that a reader of the ring
                         * after a crash converts its events alike */
    /* `len` as of the owner's last check-in, on a line of its own: the
     * writer polls this while events flow, so that the owner's line does
     * not move between the two cores at every poll. */
    uint32_t pub __attribute__((aligned(64)));
    int cpu;            /* the CPU it checked in on (-1: unknown) */
    uint32_t side_head; /* side events moved to the ring, ever (owner) */
    /* The writer's line (ct_lock). */
    uint64_t last_time __attribute__((aligned(64))); /* last timestamp written (ns) */
    uint32_t wflushed;  /* events encoded: written, or staged (ct_stage) */
    uint32_t depth;     /* frames open after event `flushed` (CT_STACKP, a
                         * ring of the innermost), followed by the writer */
    struct ct_thread *next, *prev;
    char tidtxt[32];    /* " <tid>\n" */
    /* The buffer's place in the trace file (owner; ct_reserve). */
    uint64_t file_off;  /* the region's offset in the file (0: in memory) */
    uint32_t reserved;  /* ring slots whose file blocks are reserved */
    int exiting;        /* its thread is exiting: reaped once gone (ct_reap) */
};

/* The 'R' region's layout (docs/binary-format.md): mult at offset 40.  (An
 * array of negative size otherwise; C and C++ alike.) */
typedef char ct_mult_at_40[__builtin_offsetof(struct ct_thread, mult) == 40 ? 1 : -1];

#define CT_EVP(t) ((struct ct_ev *)((char *)(t) + CT_HDR))
#define CT_EV8P(t) ((uint64_t *)((char *)(t) + CT_HDR)) /* the ring, untimed */
#define CT_SIDE_OFF (CT_HDR + (size_t)CT_EVENTS * sizeof(struct ct_ev))
#define CT_SIDEP(t) ((struct ct_ev *)((char *)(t) + CT_SIDE_OFF))
#define CT_SIDE_PENDING(t) ((t)->side_len - (t)->side_head) /* events of signal handlers waiting */
#define CT_STACKP(t) ((uint64_t *)(CT_SIDEP(t) + CT_SIDE))
#define CT_MAP_BYTES                                                                     \
    (CT_SIDE_OFF + (size_t)CT_SIDE * sizeof(struct ct_ev) + (size_t)CT_STACK * sizeof(uint64_t))

/* Per-thread TLS: one struct so a shared-library build needs one lookup. */
struct ct_tls {
    struct ct_thread *self;
    uint64_t tid;
    uint64_t last; /* last timestamp written, once the buffer is gone */
    /* gate == 0: the fast path may record.  One load tells it that the
     * thread is not inside the runtime (the low byte counts how deep it is:
     * events then go to the side buffer), has a ring and a fast clock
     * (CT_GATE_SLOW clear), and has no events of signal handlers waiting in
     * the side buffer (CT_GATE_SIDE clear).  Changed by single
     * read-modify-write instructions, so a signal handler on this thread
     * never sees half an update. */
    uint32_t gate;
    int dead;      /* thread-exit destructor ran: write events through */
    uint64_t lo;   /* last known code range [lo, lo + span) an entry hit */
    uint64_t span;
    int tsc;       /* a copy of ct_use_tsc (thread-local: a global's cache
                    * line may be shared with data other threads write) */
    uint64_t waited; /* raw clock this thread spent in check-ins, taken out
                      * of its event times (CALLTRACE_WAITS) */
    int quiet;       /* every signal blocked (the writer thread) */
    int own;         /* the runtime calls out (ct_own_begin): events are its own */
};

#define CT_GATE_BUSY 0xffu
#define CT_GATE_SLOW 0x100u
#define CT_GATE_SIDE 0x10000u
static __thread struct ct_tls ct_t __attribute__((tls_model("initial-exec"))) = {
    NULL, 0, 0, CT_GATE_SLOW, 0, 0, 0, 0, 0, 0, 0};

extern char **environ;

/* ct_lock guards the thread list, the free list, the encode buffers (ct_gout,
 * ct_wout) and every write to the trace file.
 *
 * The rule: ct_lock is never held across a cancellation point while the
 * thread can be cancelled; cancellation is disabled while it is held.
 * Holding it the runtime calls write(), pwrite(), open(), read(), poll()
 * (all cancellation points), and a program may cancel any of its threads
 * (pthread_cancel(): thread pools, servers shutting down) or let them be
 * cancelled anywhere (PTHREAD_CANCEL_ASYNCHRONOUS).  A thread cancelled
 * there left the runtime with the lock held, and every other thread (the
 * next new thread, the writer, the final flush) waited for it for ever.  So
 * the lock is taken only through ct_lock_take(), which first disables
 * cancellation and makes it deferred (glibc's handler of a cancellation
 * signal already sent looks at the type alone), and given back through
 * ct_lock_give(), which restores both after unlocking: a cancellation
 * requested meanwhile then acts at the program's next cancellation point,
 * or at once if the thread had asynchronous cancellation on.  Work that
 * spans more than one critical section, or takes ct_wm, or calls a
 * cancellation point outside the lock, runs inside ct_cancel_off() and
 * ct_cancel_on() as a whole (ct_thread_new, ct_checkpoint, ct_msg ...), so
 * that no thread leaves the runtime half-way.  (pthread_exit() called by
 * the program unwinds only its own frames: the hooks have returned by then.
 * Exits of the frames it or a cancellation unwinds are never recorded; the
 * reader closes them, counted as repairs.  A signal handler that leaves by
 * pthread_exit() or siglongjmp() while it interrupted the runtime is not
 * covered: see "Instrumented signal handlers" above.) */
static pthread_mutex_t ct_lock = PTHREAD_MUTEX_INITIALIZER;

/* A thread's cancellation state and type, saved while the runtime runs
 * without them (ct_cancel_off); on the caller's stack, so that a signal
 * handler that enters the runtime meanwhile saves and restores its own. */
struct ct_nocancel {
    int state, type;
};

static CT_NOINST void ct_cancel_off(struct ct_nocancel *nc)
{
    /* The type first: a cancellation arriving between the two calls then
     * waits, and one before them finds nothing taken yet. */
    if (pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &nc->type) != 0)
        nc->type = PTHREAD_CANCEL_DEFERRED;
    if (pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &nc->state) != 0)
        nc->state = PTHREAD_CANCEL_DISABLE;
}

/* Restore what ct_cancel_off saved.  A pending cancellation with the type
 * asynchronous acts here, with nothing of the runtime's held. */
static CT_NOINST void ct_cancel_on(const struct ct_nocancel *nc)
{
    int ignored;
    pthread_setcancelstate(nc->state, &ignored);
    pthread_setcanceltype(nc->type, &ignored);
}

/* Take ct_lock with cancellation off (see the rule above). */
static CT_NOINST void ct_lock_take(struct ct_nocancel *nc)
{
    ct_cancel_off(nc);
    pthread_mutex_lock(&ct_lock);
}

static CT_NOINST void ct_lock_give(const struct ct_nocancel *nc)
{
    pthread_mutex_unlock(&ct_lock);
    ct_cancel_on(nc);
}

static int ct_state;            /* 0 not started, 1 tracing, -1 disabled */
static int ct_final;            /* final flush done: write events through */
static int ct_fd = -1;
static int ct_binary;
static int ct_path_has_pid;
static pid_t ct_pid;            /* this process (a vfork child differs) */
static int ct_own_name;         /* another process of this run has the file: add .<pid> */
static int ct_write_error;
static int ct_lossy;            /* CALLTRACE_LOSSY=1: drop events rather than wait */
static int ct_pipe_cap;         /* lossy, and the trace is a pipe of this capacity */
static int ct_fifo;             /* the trace is a pipe or FIFO: a reader may leave */
static int ct_chardev;          /* the trace is a device (/dev/null): every process shares it */
static int ct_staging;          /* the writer stages blocks (a regular file, not lossy) */
static unsigned char ct_wout[CT_WOUT_BYTES]; /* the stage (ct_stage_drain); ct_lock */
static size_t ct_wout_len;      /* bytes staged; ct_lock */
static CT_NOINST void ct_stage_drain(void);
static CT_NOINST void ct_reap(void);
static uint64_t ct_lost;        /* events dropped so far; ct_lock */
static uint64_t ct_lost_pending; /* ... not yet reported in the trace; ct_lock */
static dev_t ct_fd_dev;         /* identity of the trace file, to notice */
static ino_t ct_fd_ino;         /* if the program closed and reused ct_fd */
static uint64_t ct_t0;          /* CLOCK_MONOTONIC ns at start */
static int ct_untimed;          /* CALLTRACE_CLOCK=none: events carry no time */
static int ct_keep_waits;       /* CALLTRACE_WAITS=keep */
static int ct_fast;             /* the fast path may record (TSC or untimed) */
#if CT_HAVE_TSC
static int ct_use_tsc;          /* event times are TSC ticks */
static uint64_t ct_tsc0;        /* TSC at start */
#endif
static uint64_t ct_base;
static uint64_t ct_dropped;
static uint32_t ct_exe_len;
static pthread_key_t ct_key;
static struct ct_thread *ct_threads; /* live threads, under ct_lock */
static uint32_t ct_nthreads;         /* how many: written under ct_lock */
static uint32_t ct_ncpu = 1;         /* CPUs this process may run on */
static struct ct_thread *ct_free;    /* reusable states, under ct_lock */
static char ct_exe[CT_PATH_MAX];

/* Bytes of a ring slot: 16, or 8 untimed (the address and the kind). */
static inline CT_NOINST size_t ct_slot(void)
{
    return ct_untimed ? sizeof(uint64_t) : sizeof(struct ct_ev);
}

/* Executable mappings already written to the trace: append-only, entries
 * are filled before ct_nmaps publishes them (so lookups need no lock). */
#define CT_MAPS_MAX 1024u
struct ct_map {
    uint64_t start, end;
};
static struct ct_map ct_maps[CT_MAPS_MAX];
static uint32_t ct_nmaps;
static char ct_path_tmpl[CT_PATH_MAX];
static int ct_name_long; /* CALLTRACE_OUT does not fit in ct_path_tmpl */
static unsigned char ct_gout[CT_GOUT_BYTES];

static const char ct_dig2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";
static const char ct_hexdig[] = "0123456789abcdef";

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

/* ------------------------------------------------------------------ */
/* Encoding                                                             */

/* Checksum of a record (docs/binary-format.md): a multiply-xor hash over
 * little-endian 8-byte words, the last one zero-padded. */
static CT_NOINST uint32_t ct_checksum(const unsigned char *p, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8); /* x86-64 and the other little-endian targets */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        size_t i;
        for (i = 0; i < n; i++)
            w |= (uint64_t)p[i] << (8 * i);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return (uint32_t)(h ^ (h >> 29));
}

/* Bytes 9-11 of the block record about to be encoded at rec: with `from`
 * the thread's event count at its first event (a ring's), flag 1 and that
 * count's low 16 bits, so that a reader can tell whether a block whose
 * writing the process did not live to note holds events of the ring
 * (docs/binary-format.md); else 0.  Set before ct_encode (text ignores it). */
static CT_NOINST void ct_block_seq(unsigned char *rec, int ring, uint32_t from)
{
    rec[9] = ring ? 1 : 0;
    rec[10] = ring ? (unsigned char)from : 0;
    rec[11] = ring ? (unsigned char)(from >> 8) : 0;
}

/* Fill in the header of the binary record at rec whose payload (nbytes,
 * at rec + CT_REC_HDR) is already there. */
static CT_NOINST void ct_record_header(unsigned char *rec, unsigned tag, uint64_t tid,
                                       uint32_t nevents, uint32_t nbytes)
{
    rec[0] = 'C';
    rec[1] = 'T';
    rec[2] = 'R';
    rec[3] = 0x1a;
    rec[8] = (unsigned char)tag;
    if (tag != CT_TAG_BLOCK) /* a block's bytes 9-11: ct_block_seq */
        rec[9] = rec[10] = rec[11] = 0;
    ct_le(rec + 12, tid, 8);
    ct_le(rec + 20, nevents, 4);
    ct_le(rec + 24, nbytes, 4);
    ct_le(rec + 4, ct_checksum(rec + 8, (size_t)CT_REC_HDR - 8 + nbytes), 4);
}

/* The trace's note of `n` dropped events: `# dropped N` or record 'D'. */
static CT_NOINST size_t ct_dropped_marker(unsigned char *m, uint64_t n)
{
    unsigned char *p = m;
    size_t i;
    if (ct_binary) {
        ct_le(m + CT_REC_HDR, n, 8);
        ct_record_header(m, CT_TAG_DROPPED, 0, 0, 8);
        return CT_REC_HDR + 8;
    }
    for (i = 0; "# dropped "[i]; i++)
        *p++ = (unsigned char)"# dropped "[i];
    p = ct_dec(p, n);
    *p++ = '\n';
    return (size_t)(p - m);
}

/* Write `count` encoded events; under CALLTRACE_LOSSY=1 drop them (and
 * count them, reported in the trace before the next events written) when
 * the descriptor is not writable.  ct_lock held. */
static CT_NOINST void ct_write_events(const unsigned char *buf, size_t n, uint64_t count)
{
    if (ct_lossy && ct_lost_pending) {
        unsigned char m[64];
        if (ct_write_buf(m, ct_dropped_marker(m, ct_lost_pending), 1)) {
            ct_lost += count;
            ct_lost_pending += count;
            return;
        }
        ct_lost_pending = 0;
    }
    if (ct_write_buf(buf, n, ct_lossy)) {
        ct_lost += count;
        ct_lost_pending += count;
    }
}

/* An exit that is not of the innermost open frame (longjmp skipped some
 * exits): pop down to the nearest frame of its function, if any. */
static CT_NOINST __attribute__((noinline)) void ct_pop_slow(struct ct_thread *t, uint64_t addr)
{
    const uint64_t *stack = CT_STACKP(t);
    uint32_t d = t->depth, n = d < CT_STACK ? d : CT_STACK, k;
    for (k = 1; k <= n; k++) {
        if (stack[(d - k) & (CT_STACK - 1)] == addr) {
            t->depth = d - k;
            return;
        }
    }
}

/* Follow the open frames through one event being written (frames open
 * before it: d, the innermost in stack), for a forked child to start its
 * trace with them: an entry pushes, an exit pops its frame.  Done off the
 * traced thread's path, as the events are encoded; entries and exits
 * alternate unpredictably, so the usual case has no branch on the kind.
 * Returns the new depth.  ct_lock held. */
static inline CT_NOINST __attribute__((always_inline)) uint32_t
ct_frame(struct ct_thread *t, uint64_t *stack, uint32_t d, uint64_t addr, uint32_t exit)
{
    uint32_t slot = d & (CT_STACK - 1);
    if (CT_UNLIKELY(exit && (d == 0 || stack[(d - 1) & (CT_STACK - 1)] != addr))) {
        t->depth = d;
        ct_pop_slow(t, addr);
        return t->depth;
    }
    stack[slot] = exit ? stack[slot] : addr;
    return d + 1 - 2 * exit;
}

/* Encode events ev[0..n) into out (capacity cap), as many as fit.  Returns
 * the number of bytes produced and stores the number of events consumed in
 * *used.  Binary: one complete block.  Text: complete lines.  *last is the
 * thread's previous timestamp (times are clamped so they never decrease)
 * and is updated.  It also follows ft's open frames (ct_frame) in the same
 * pass, unless ft is NULL. */
static CT_NOINST size_t ct_encode(const void *events, uint32_t n, uint64_t tid,
                                  const char *tidtxt, uint32_t tidlen, uint64_t mult,
                                  uint64_t *last, unsigned char *out, size_t cap, uint32_t *used,
                                  struct ct_thread *ft)
{
    const struct ct_ev *ev = (const struct ct_ev *)events;
    const uint64_t *ev8 = (const uint64_t *)events; /* untimed: 8-byte slots */
    uint32_t i = 0;
    uint64_t prev_time = *last, none[1];
    uint64_t *stack = ft ? CT_STACKP(ft) : none;
    uint32_t depth = ft ? ft->depth : 0;
    unsigned char *p = out;

    if (ct_binary) {
        const unsigned char *lim = out + cap - CT_BIN_EVENT_MAX;
        uint64_t prev_addr = 0, block_time = 0;
        p += CT_REC_HDR;
        if (ct_untimed) { /* the same without times, in a loop of its own */
            for (; i < n && p <= lim; i++) {
                uint64_t addr = ev8[i] & CT_TIME_MASK, d = addr - prev_addr;
                uint64_t zz = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
                uint32_t exit = (uint32_t)(ev8[i] >> 63);
                __builtin_prefetch(&ev8[i + 128]);
                p = ct_varint(p, (zz << 1) | exit);
                prev_addr = addr;
                if (ft)
                    depth = ct_frame(ft, stack, depth, addr, exit);
            }
        }
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk, addr = ev[i].addr;
            /* The events are in the recording thread's cache: ask ahead */
            __builtin_prefetch(&ev[i + 64]);
            uint64_t tm = ct_to_ns(tk & CT_TIME_MASK, mult);
            uint64_t d = addr - prev_addr;
            uint64_t zz = (d << 1) ^ (uint64_t)((int64_t)d >> 63);
            if (tm < prev_time)
                tm = prev_time;
            p = ct_varint(p, (zz << 1) | (tk >> 63));
            if (!ct_untimed)
                p = ct_varint(p, tm - block_time);
            prev_addr = addr;
            prev_time = block_time = tm;
            if (ft)
                depth = ct_frame(ft, stack, depth, addr, (uint32_t)(tk >> 63));
        }
        if (i == 0) {
            *used = 0;
            return 0;
        }
        ct_record_header(out, CT_TAG_BLOCK, tid, i, (uint32_t)(p - out - CT_REC_HDR));
    } else {
        /* Text is most of the writer's work: an address's hex digits come
         * from a small cache; a timestamp is its digits above the last 4,
         * which change every 10 us and are kept, then the last 4 from a
         * table (ct_dig4).  (The last 8 split into digits in the lanes of a
         * word took 2 ns a line more: a chain of multiplications.) */
        const unsigned char *lim = out + cap - CT_TEXT_MAX;
        struct ct_hexc {
            uint64_t addr;
            uint32_t len;           /* of txt: "0x", the hex digits, a space */
            unsigned char txt[20];
        } hc[64];
        unsigned char tid[16] = {0}; /* tidtxt, here: no reload after each store */
        unsigned char hitxt[24];
        uint32_t hilen = 0;
        uint64_t hival = 0;
        memset(hc, 0, sizeof hc);
        memset(hitxt, 0, sizeof hitxt);
        memcpy(tid, tidtxt, tidlen < 16 ? tidlen : 16);
        for (; i < n && p <= lim; i++) {
            uint64_t tk = ev[i].tk, addr = ev[i].addr;
            uint64_t tm = ct_to_ns(tk & CT_TIME_MASK, mult), hi;
            uint32_t lo, k;
            struct ct_hexc *h = &hc[(addr ^ (addr >> 6)) & 63];
            __builtin_prefetch(&ev[i + 64]);
            if (tm < prev_time)
                tm = prev_time;
            prev_time = tm;
            if (CT_UNLIKELY(h->addr != addr || h->len == 0)) {
                unsigned char *e;
                h->addr = addr;
                h->txt[0] = '0';
                h->txt[1] = 'x';
                e = ct_hex(h->txt + 2, addr);
                *e++ = ' ';
                h->len = (uint32_t)(e - h->txt);
            }
            p[0] = (tk >> 63) ? 'X' : 'E';
            memcpy(p + 1, h->txt, 20); /* fixed size; len of them count */
            p += 1 + h->len;
            hi = tm / 10000u;
            lo = (uint32_t)(tm - hi * 10000u);
            if (CT_LIKELY(hi != 0)) {
                if (CT_UNLIKELY(hi != hival || hilen == 0)) {
                    hival = hi;
                    hilen = (uint32_t)(ct_dec(hitxt, hi) - hitxt);
                }
                memcpy(p, hitxt, 16); /* fixed size; at most 16 digits count */
                p += hilen;
                memcpy(p, &ct_dig4[lo], 4);
                p += 4;
            } else { /* below 10 us: no leading zeros */
                p = ct_dec(p, lo);
            }
            if (CT_LIKELY(tidlen <= 16)) {
                memcpy(p, tid, 16); /* fixed size */
            } else {
                for (k = 0; k < tidlen; k++)
                    p[k] = (unsigned char)tidtxt[k];
            }
            p += tidlen;
            if (ft)
                depth = ct_frame(ft, stack, depth, addr, (uint32_t)(tk >> 63));
        }
    }
    if (ft)
        ft->depth = depth;
    *last = prev_time;
    *used = i;
    return (size_t)(p - out);
}

/* The stage: ct_wout, ct_wout_len.  The writer thread used to write each block as it encoded it:
 * a write() per check-in, a few kilobytes each, and ext4 zeroes the rest of
 * every new page that a write starts or ends inside.  On zstd the traced
 * thread then waited for a writer that spent more time in write() than in
 * encoding.  So the writer encodes its blocks one after another into ct_wout
 * and writes them together, once they reach CT_STAGE_BYTES or hold
 * CT_STAGE_EVENTS events of one thread, and before it sleeps.  A thread's
 * `flushed` (the room in its ring, and where a reader of a killed process's
 * ring starts) only moves once its blocks are written; `wflushed` says how
 * far they are encoded.  Whoever writes anything else writes the stage
 * first, so that the file keeps the order in which blocks were encoded.
 * All of it under ct_lock.
 *
 * ct_stage_drain writes the staged blocks and gives their threads the room. */
static CT_NOINST void ct_stage_drain(void)
{
    struct ct_thread *t;
    if (!ct_wout_len)
        return;
    /* (a failed write stops tracing: the events are lost either way) */
    (void)ct_write_buf(ct_wout, ct_wout_len, 0);
    ct_wout_len = 0;
    for (t = ct_threads; t; t = t->next)
        if (t->flushed != t->wflushed)
            __atomic_store_n(&t->flushed, t->wflushed, __ATOMIC_SEQ_CST);
}

/* Write events [wflushed, to) of t, encoded in out (capacity cap), or into
 * the stage when out is ct_wout, and follow its open frames.  ct_lock held. */
static CT_NOINST void ct_flush_upto(struct ct_thread *t, uint32_t to, unsigned char *out,
                                    size_t cap)
{
    const unsigned char *ring = (const unsigned char *)CT_EVP(t);
    size_t slot = ct_slot();
    int stage = out == ct_wout && ct_staging;
    uint32_t from = t->wflushed;
    uint64_t mult = from != to ? ct_mult() : 0;
    if (mult)
        __atomic_store_n(&t->mult, mult, __ATOMIC_RELAXED);
    if (!stage)
        ct_stage_drain(); /* blocks staged before come first in the file */
    /* Lossy: a pipe writes up to PIPE_BUF bytes whole or not at all, so no
     * write is ever partial (a partial one must wait for its rest, and the
     * reader may not read until the program ends). */
    if (ct_lossy && ct_pipe_cap > 0 && cap > (size_t)PIPE_BUF)
        cap = (size_t)PIPE_BUF;
    while (from != to) {
        uint32_t at = from & (CT_EVENTS - 1), n = to - from, used;
        uint32_t most = CT_BLOCK_EVENTS;
        unsigned char *o = out;
        size_t nb, c = cap;
        if (n > CT_EVENTS - at)
            n = CT_EVENTS - at; /* up to the end of the ring, then on from its start */
        /* A block, and a thread's staged blocks, hold at most 2^15 events:
         * the events both in the file and in the ring of a process killed
         * before `flushed` moved must be fewer than 2^16 (a reader tells
         * them apart by the blocks' 16-bit seq). */
        if (stage) {
            /* (below CT_STAGE_EVENTS: the stage is written once they are) */
            most = CT_STAGE_EVENTS - (from - t->flushed);
            o = ct_wout + ct_wout_len;
            c = sizeof ct_wout - ct_wout_len;
        }
        if (n > most)
            n = most;
        ct_block_seq(o, 1, from);
        nb = ct_encode(ring + at * slot, n, t->tid, t->tidtxt, t->tidlen, mult, &t->last_time, o, c,
                       &used, t);
        if (used == 0) /* cannot happen: the buffer holds many events */
            break;
        from += used;
        if (stage) {
            ct_wout_len += nb;
            __atomic_store_n(&t->wflushed, from, __ATOMIC_RELEASE);
            if (ct_wout_len >= CT_STAGE_BYTES || from - t->flushed >= CT_STAGE_EVENTS)
                ct_stage_drain();
        } else {
            ct_write_events(o, nb, used);
            __atomic_store_n(&t->flushed, from, __ATOMIC_SEQ_CST);
            __atomic_store_n(&t->wflushed, from, __ATOMIC_RELEASE);
        }
    }
}

static CT_NOINST void ct_flush_into(struct ct_thread *t, unsigned char *out, size_t cap)
{
    ct_flush_upto(t, __atomic_load_n(&t->len, __ATOMIC_ACQUIRE), out, cap);
}

/* Write events [flushed, len) of t using the shared buffer.  ct_lock held. */
static CT_NOINST void ct_flush_locked(struct ct_thread *t)
{
    ct_flush_into(t, ct_gout, sizeof ct_gout);
}

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

/* The GNU build-id of a loaded object (from its PT_NOTE segments), or 0. */
static CT_NOINST uint32_t ct_build_id(const struct dl_phdr_info *info, const unsigned char **id)
{
    int i;
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const unsigned char *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t name = (nh->n_namesz + 3u) & ~3u, desc = (nh->n_descsz + 3u) & ~3u;
            const unsigned char *d = p + sizeof(ElfW(Nhdr)) + name;
            if (d + nh->n_descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(p + sizeof(ElfW(Nhdr)), "GNU", 4) == 0 && nh->n_descsz <= 255) {
                *id = d;
                return nh->n_descsz;
            }
            p = d + desc;
        }
    }
    return 0;
}

/* A path in a text line at p (`# base`, `# map`): `\` as `\\`, newline as
 * `\n`, carriage return as `\r`, so that the line stays one line and the
 * reader gets the path back whole.  Returns the new end (at most 2 * len
 * bytes).  Binary records carry the bytes as they are. */
static CT_NOINST unsigned char *ct_text_path(unsigned char *p, const char *path, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        char c = path[i];
        if (c == '\\' || c == '\n' || c == '\r') {
            *p++ = '\\';
            c = c == '\n' ? 'n' : c == '\r' ? 'r' : c;
        }
        *p++ = (unsigned char)c;
    }
    return p;
}

/* One mapping as a trace record in ct_gout at p; returns the new end.
 * Text: `# map 0xSTART 0xEND 0xOFFSET BUILD_ID|- PATH`.  Binary: record 'M'
 * (docs/binary-format.md). */
static CT_NOINST unsigned char *ct_map_record(unsigned char *p, uint64_t start, uint64_t end,
                                              uint64_t off, const unsigned char *id,
                                              uint32_t idlen, const char *path, size_t plen)
{
    size_t i;
    if (ct_binary) {
        unsigned char *rec = p;
        p += CT_REC_HDR;
        ct_le(p, start, 8);
        ct_le(p + 8, end, 8);
        ct_le(p + 16, off, 8);
        p[24] = (unsigned char)idlen;
        p += 25;
        for (i = 0; i < idlen; i++)
            *p++ = id[i];
        for (i = 0; i < plen; i++)
            *p++ = (unsigned char)path[i];
        ct_record_header(rec, CT_TAG_MAP, 0, 0, (uint32_t)(p - rec - CT_REC_HDR));
    } else {
        static const char l1[] = "# map 0x";
        for (i = 0; l1[i]; i++)
            *p++ = (unsigned char)l1[i];
        p = ct_hex(p, start);
        *p++ = ' ';
        *p++ = '0';
        *p++ = 'x';
        p = ct_hex(p, end);
        *p++ = ' ';
        *p++ = '0';
        *p++ = 'x';
        p = ct_hex(p, off);
        *p++ = ' ';
        if (idlen == 0)
            *p++ = '-';
        for (i = 0; i < idlen; i++) {
            *p++ = (unsigned char)ct_hexdig[id[i] >> 4];
            *p++ = (unsigned char)ct_hexdig[id[i] & 15];
        }
        *p++ = ' ';
        p = ct_text_path(p, path, plen);
        *p++ = '\n';
    }
    return p;
}

/* dl_iterate_phdr callback: write the executable mappings not yet known.
 * The first object is the main program (its empty name becomes the
 * /proc/self/exe target); other nameless objects are skipped. */
static CT_NOINST int ct_maps_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    int *first = (int *)data;
    const char *path = info->dlpi_name;
    static char real[CT_PATH_MAX]; /* ct_lock held */
    const unsigned char *id = NULL;
    uint32_t idlen = 0;
    int i, have_id = 0;
    (void)size;
    if (*first) {
        *first = 0;
        if (!path || !path[0])
            path = ct_exe;
    }
    if (!path || !path[0])
        return 0;
    if (path[0] != '/' && strchr(path, '/') && realpath(path, real))
        path = real; /* dlopen("./lib.so"): make it absolute */
    for (i = 0; i < (int)info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t start, end;
        uint32_t k, n = ct_nmaps;
        size_t plen = strlen(path);
        unsigned char *p;
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        start = (uint64_t)info->dlpi_addr + ph->p_vaddr;
        end = start + ph->p_memsz;
        for (k = 0; k < n && (ct_maps[k].start != start || ct_maps[k].end != end); k++)
            ;
        if (k < n || n >= CT_MAPS_MAX)
            continue;
        if (!have_id) {
            idlen = ct_build_id(info, &id);
            have_id = 1;
        }
        if (plen > CT_GOUT_BYTES / 2 - 600) /* (escaped, twice as long at most) */
            plen = CT_GOUT_BYTES / 2 - 600;
        p = ct_map_record(ct_gout, start, end, ph->p_offset, id, idlen, path, plen);
        ct_write_all(ct_gout, (size_t)(p - ct_gout));
        ct_maps[n].start = start;
        ct_maps[n].end = end;
        __atomic_store_n(&ct_nmaps, n + 1, __ATOMIC_RELEASE);
    }
    return 0;
}

/* Write the mappings of objects loaded since the last scan.  ct_lock held. */
static CT_NOINST void ct_scan_maps(void)
{
    int first = 1;
    sigset_t old;
    ct_own_begin(&old); /* (realpath()) */
    dl_iterate_phdr(ct_maps_cb, &first);
    ct_own_end(&old);
}

/* The known mapping holding addr, as [*lo, *lo + *span); 0 if none. */
static CT_NOINST int ct_map_find(uint64_t addr, uint64_t *lo, uint64_t *span)
{
    uint32_t n = __atomic_load_n(&ct_nmaps, __ATOMIC_ACQUIRE), k;
    for (k = 0; k < n; k++) {
        if (addr - ct_maps[k].start < ct_maps[k].end - ct_maps[k].start) {
            *lo = ct_maps[k].start;
            *span = ct_maps[k].end - ct_maps[k].start;
            return 1;
        }
    }
    return 0;
}

/* An entry outside the thread's last code range (inside the runtime): find its
 * mapping; if none is known, an object was loaded since the last scan
 * (dlopen): scan again, which writes the new mappings.  An address that no
 * object holds (generated code) becomes its own one-byte range, so that it
 * costs one scan only while it keeps being called. */
static CT_NOINST __attribute__((noinline)) void ct_map_miss(uint64_t addr)
{
    struct ct_nocancel nc;
    if (ct_map_find(addr, &ct_t.lo, &ct_t.span))
        return;
    ct_lock_take(&nc);
    ct_scan_maps();
    ct_lock_give(&nc);
    if (!ct_map_find(addr, &ct_t.lo, &ct_t.span)) {
        ct_t.lo = addr;
        ct_t.span = 1;
    }
}

/* getenv() that also works before libc has set up the environment (the
 * first event may come from .preinit_array, which runs before libc's own
 * initialisation in a dynamically linked program): then the variables are
 * read from /proc/self/environ.  Called under ct_lock. */
static CT_NOINST const char *ct_getenv(const char *name)
{
    static char *env;
    static size_t env_len;
    size_t k, len = strlen(name);
    if (environ)
        return getenv(name);
    if (!env) {
        size_t cap = (size_t)1 << 24; /* touched pages only */
        int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
        void *m = fd < 0 ? MAP_FAILED
                         : mmap(NULL, cap, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED) {
            ssize_t n;
            env = (char *)m;
            while (env_len < cap - 1 && (n = read(fd, env + env_len, cap - 1 - env_len)) > 0)
                env_len += (size_t)n;
            env[env_len] = 0;
        }
        if (fd >= 0)
            close(fd);
        if (!env)
            return NULL;
    }
    for (k = 0; k < env_len; k += strlen(env + k) + 1)
        if (strncmp(env + k, name, len) == 0 && env[k + len] == '=')
            return env + k + len + 1;
    return NULL;
}

/* Build the output file name from the template, expanding %p and %%.
 * Returns -1 when the name does not fit in cap bytes with its NUL (never a
 * shorter name: that could be another, existing file). */
static CT_NOINST int ct_out_name(char *dst, size_t cap)
{
    const char *s = ct_path_tmpl;
    unsigned char num[24];
    size_t n = 0, plen = (size_t)(ct_dec(num + 1, (uint64_t)getpid()) - num) - 1;
    num[0] = '.';
    if (ct_name_long)
        return -1;
    while (*s) {
        if (s[0] == '%' && s[1] == 'p') {
            if (n + plen >= cap)
                return -1;
            memcpy(dst + n, num + 1, plen);
            n += plen;
            s += 2;
            continue;
        }
        if (n + 1 >= cap)
            return -1;
        if (s[0] == '%' && s[1] == '%')
            s++;
        dst[n++] = *s++;
    }
    dst[n] = 0;
    if (ct_own_name && !ct_path_has_pid) {
        /* NAME.EXT -> NAME.<pid>.EXT (NAME -> NAME.<pid>) */
        size_t len = plen + 1, dot = n, i;
        if (n + len >= cap)
            return -1;
        for (i = n; i > 0 && dst[i - 1] != '/'; i--)
            if (dst[i - 1] == '.' && dot == n)
                dot = i - 1;
        if (dot == i) /* a leading dot (".trace") is not an extension */
            dot = n;
        memmove(dst + dot + len, dst + dot, n - dot + 1);
        memcpy(dst + dot, num, len);
    }
    return 0;
}

/* The absolute form of the output name, for CALLTRACE_OUT_TAKEN; empty
 * when it does not fit. */
static CT_NOINST void ct_abs_name(char *dst, size_t cap)
{
    char name[CT_PATH_MAX];
    size_t n = 0, len;
    dst[0] = 0;
    if (ct_out_name(name, sizeof name) != 0)
        return;
    if (name[0] != '/') {
        if (!getcwd(dst, cap - 1)) {
            dst[0] = 0;
            return;
        }
        n = strlen(dst);
        dst[n++] = '/';
    }
    len = strlen(name);
    if (n + len >= cap) {
        dst[0] = 0;
        return;
    }
    memcpy(dst + n, name, len + 1);
}

/* Whether line l (n bytes) of /proc/self/maps maps the file (maj:min, ino):
 * `START-END PERMS OFFSET MAJ:MIN INODE PATH`. */
static CT_NOINST int ct_maps_line_is(const char *l, size_t n, unsigned long maj,
                                     unsigned long min, uint64_t ino)
{
    unsigned long ma = 0, mi = 0;
    uint64_t in = 0;
    size_t i = 0;
    int f;
    for (f = 0; f < 3; f++) {
        while (i < n && l[i] != ' ')
            i++;
        while (i < n && l[i] == ' ')
            i++;
    }
    for (; i < n && l[i] != ':'; i++)
        ma = ma * 16 + (unsigned long)(l[i] <= '9' ? l[i] - '0' : (l[i] | 32) - 'a' + 10);
    for (i++; i < n && l[i] != ' '; i++)
        mi = mi * 16 + (unsigned long)(l[i] <= '9' ? l[i] - '0' : (l[i] | 32) - 'a' + 10);
    for (i++; i < n && l[i] >= '0' && l[i] <= '9'; i++)
        in = in * 10 + (uint64_t)(l[i] - '0');
    return in != 0 && in == ino && ma == maj && mi == min;
}

/* major(dev) and minor(dev), Linux's encoding (glibc's and musl's), without
 * the inline functions of <sys/sysmacros.h> (see the includes). */
static CT_NOINST unsigned long ct_major(dev_t dev)
{
    uint64_t d = (uint64_t)dev;
    return (unsigned long)(((d >> 32) & 0xfffff000u) | ((d >> 8) & 0xfffu));
}

static CT_NOINST unsigned long ct_minor(dev_t dev)
{
    uint64_t d = (uint64_t)dev;
    return (unsigned long)(((d >> 12) & 0xffffff00u) | (d & 0xffu));
}

/* Whether the file (dev, ino) is mapped into this process: the program, a
 * library, a file it mmap()ed.  Emptying such a file kills the process
 * (SIGBUS); writing into it corrupts it.  0 when /proc cannot tell. */
static CT_NOINST int ct_mapped(dev_t dev, ino_t ino)
{
    static char buf[8192]; /* ct_lock held */
    unsigned long maj = ct_major(dev), min = ct_minor(dev);
    size_t len = 0, start;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = 0, skip = 0;
    char *nl;
    if (fd < 0)
        return 0;
    while (!found) {
        ssize_t r = read(fd, buf + len, sizeof buf - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r > 0)
            len += (size_t)r;
        for (start = 0; (nl = (char *)memchr(buf + start, '\n', len - start)) != NULL;
             start = (size_t)(nl - buf) + 1, skip = 0)
            if (!skip && ct_maps_line_is(buf + start, (size_t)(nl - buf) - start, maj, min, ino))
                found = 1;
        if (r <= 0) {
            found |= !skip && start < len && ct_maps_line_is(buf + start, len - start, maj, min, ino);
            break;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        if (len == sizeof buf) { /* a line longer than buf: its fields came first */
            found |= !skip && ct_maps_line_is(buf, len, maj, min, ino);
            skip = 1;
            len = 0;
        }
    }
    close(fd);
    return found;
}

/* "# process PID PPID": which process wrote a text trace, and its parent
 * (see ct_sibling). */
static CT_NOINST unsigned char *ct_process_line(unsigned char *p)
{
    static const char l[] = "# process ";
    size_t i;
    for (i = 0; l[i]; i++)
        *p++ = (unsigned char)l[i];
    p = ct_dec(p, (uint64_t)getpid());
    *p++ = ' ';
    p = ct_dec(p, (uint64_t)getppid());
    *p++ = '\n';
    return p;
}

/* Whether process pid is traced: a calltrace trace is open among the
 * descriptors the runtime moves its own to (ct_open_output).  Only regular
 * files are opened (opening a pipe's /proc link would make a reader). */
static CT_NOINST int ct_traced(uint64_t pid)
{
    static const int fds[] = {1000, 1001, 1002, 1003, 100, 101, 102, 103};
    size_t k;
    for (k = 0; k < sizeof fds / sizeof fds[0]; k++) {
        char path[64], head[18];
        unsigned char *p = (unsigned char *)path;
        struct stat st;
        ssize_t n;
        int fd;
        memcpy(p, "/proc/", 6);
        p = ct_dec(p + 6, pid);
        memcpy(p, "/fd/", 4);
        p = ct_dec(p + 4, (uint64_t)fds[k]);
        *p = 0;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0)
            continue;
        n = pread(fd, head, sizeof head, 0);
        close(fd);
        if ((n == (ssize_t)sizeof head && memcmp(head, "# calltrace 1 text", sizeof head) == 0) ||
            (n >= 8 && memcmp(head, "CALLTRC", 8) == 0))
            return 1;
    }
    return 0;
}

/* Whether the text trace in fd (whose flock this process holds: its writer
 * has ended) belongs to a process tree that still runs: its writer's parent
 * is alive and traced itself.  That writer was started by a traced process
 * that does not write this file, with an environment of its own
 * (posix_spawn() with its own envp, without CALLTRACE_OUT_TAKEN), and a
 * sibling started after it must not destroy its trace.  A run from a shell
 * (not traced) is overwritten by the next run as always.  Sets *writer. */
static CT_NOINST int ct_sibling(int fd, uint64_t *writer)
{
    char buf[CT_PATH_MAX + 256];
    const char *at;
    uint64_t parent = 0;
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    at = strstr(buf, "\n# process ");
    if (!at)
        return 0;
    at += 11;
    for (*writer = 0; *at >= '0' && *at <= '9'; at++)
        *writer = *writer * 10 + (uint64_t)(*at - '0');
    if (*at++ != ' ')
        return 0;
    for (; *at >= '0' && *at <= '9'; at++)
        parent = parent * 10 + (uint64_t)(*at - '0');
    if (parent <= 1 || parent == (uint64_t)getpid() || (kill((pid_t)parent, 0) != 0 && errno == ESRCH))
        return 0;
    return ct_traced(parent);
}

/* Take a regular trace file for this process: an exclusive flock() on its
 * open file, then empty it.  Another traced process that writes the file
 * (started at the same time with the same name: ./a | ./b) holds the lock,
 * and must not lose its trace.  The kernel drops the lock with the last
 * descriptor of the open file, so at the latest when the process dies: a
 * killed run leaves no stale lock, and its file is reused.  (A forked child
 * closing its inherited copy does not drop the parent's lock.)  Where
 * flock() is not supported (ENOLCK, EOPNOTSUPP on some network filesystems)
 * the file is taken as before.  Returns 0 when the file is ours, 1 when
 * another process holds it, 2 when it is the trace of a process whose
 * traced parent still runs (ct_sibling, *writer), -1 when it cannot be
 * emptied. */
static CT_NOINST int ct_claim(int fd, uint64_t *writer)
{
    struct stat st;
    int r;
    do
        r = flock(fd, LOCK_EX | LOCK_NB);
    while (r != 0 && errno == EINTR);
    if (r != 0 && errno == EWOULDBLOCK)
        return 1;
    if (!ct_own_name && !ct_path_has_pid && ct_sibling(fd, writer))
        return 2;
    /* Only a file with something in it is emptied: ext4 writes back on
     * close every page of a file that was truncated to 0 (auto_da_alloc),
     * which made a 2.3 GB text trace's run 60% slower. */
    if (fstat(fd, &st) == 0 && st.st_size == 0)
        return 0;
    return ftruncate(fd, 0) == 0 ? 0 : -1;
}

/* Say that `taken`, the trace of a sibling (ct_sibling), is left alone. */
static CT_NOINST void ct_said_sibling(const char *taken, uint64_t writer)
{
    char mine[CT_PATH_MAX], msg[CT_PATH_MAX + 128];
    unsigned char *p = (unsigned char *)msg;
    size_t i;
    static const char a[] = " holds the trace of process ";
    static const char b[] = ", whose parent still runs; this process writes ";
    ct_out_name(mine, sizeof mine);
    for (i = 0; taken[i] && i < CT_PATH_MAX / 2; i++)
        *p++ = (unsigned char)taken[i];
    memcpy(p, a, sizeof a - 1);
    p = ct_dec(p + sizeof a - 1, writer);
    memcpy(p, b, sizeof b - 1);
    p += sizeof b - 1;
    *p = 0;
    ct_msg(msg, mine);
}

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
