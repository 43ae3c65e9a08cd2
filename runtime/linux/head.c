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

