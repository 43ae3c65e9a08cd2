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

