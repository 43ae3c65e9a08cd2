/* A host program (x86-64, LP64) built with -finstrument-functions and the
 * freestanding runtime, with a counting clock: each scenario makes a known
 * sequence of calls and dumps calltrace_buffer through calltrace_dump into
 * a file.  It prints "fn NAME ADDRESS" for every instrumented function, then
 * what the API returned.  Usage: host SCENARIO OUT [OUT2] */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

#define NOINST __attribute__((no_instrument_function))
#define CALLED __attribute__((noinline, noipa))

void calltrace_start(void);
void calltrace_stop(void);
void calltrace_clear(void);
void calltrace_task_switch(const void *task, const char *name);
size_t calltrace_dump(void (*write)(const void *data, size_t len, void *ctx), void *ctx);
int calltrace_dump_semihosting(const char *path);
extern struct calltrace_buffer calltrace_buffer;

/* The clock of -DCALLTRACE_CLOCK=host_clock(): steps of 7 from just below
 * 2^32, so that times wrap in every scenario. */
uint32_t host_clock(void) NOINST;
static uint32_t now = 0xffffff00u;
uint32_t host_clock(void)
{
    return now += 7;
}

static volatile int sink;
CALLED void leaf(int x) { sink += x; }
CALLED void inner(int x) { leaf(x); }
CALLED void outer(int x) { int i; for (i = 0; i < 3; i++) inner(x + i); }
CALLED void f(void) { sink++; }
CALLED void g(void) { sink += 2; }
CALLED void h(void) { sink += 3; }
CALLED void ring_b(int x) { sink += x; }
CALLED void ring_a(int x) { ring_b(x); }
CALLED void byte_out(const unsigned char *p) { sink += *p; }
CALLED void switch_and_call(void)
{
    calltrace_task_switch((void *)0x1000, "late");
    g();
}

/* The "irq" build's interrupts: SIGALRM, masked around each record
 * (CALLTRACE_LOCK/UNLOCK), its handler exception 15 (CALLTRACE_EXCEPTION). */
static volatile sig_atomic_t in_handler, ticks;
uintptr_t host_lock(void) NOINST;
void host_unlock(uintptr_t was_masked) NOINST;
unsigned host_exception(void) NOINST;
uintptr_t host_lock(void)
{
    sigset_t alarm, old;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, &old);
    return (uintptr_t)sigismember(&old, SIGALRM);
}
void host_unlock(uintptr_t was_masked)
{
    sigset_t alarm;
    if (was_masked)
        return;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &alarm, NULL);
}
unsigned host_exception(void)
{
    return in_handler ? 15u : 0u;
}
CALLED void tick(void) { leaf(1); }
NOINST static void on_alarm(int sig)
{
    (void)sig;
    in_handler = 1;
    tick();
    in_handler = 0;
    ticks++;
}

/* The "nmi" build's clock, a word a fault can be made to read: its handler
 * runs in the middle of a record, as an NMI would (no lock holds it off),
 * and calls instrumented code, which must record nothing. */
volatile uint32_t *host_clock_word;
static void *clock_page;
static volatile sig_atomic_t faults;
CALLED void nmi_work(void) { sink++; }
NOINST static void on_fault(int sig)
{
    (void)sig;
    mprotect(clock_page, 4096, PROT_READ | PROT_WRITE);
    nmi_work();
    faults++;
}

/* The write callback, instrumented itself (through byte_out): a dump must
 * record none of it. */
CALLED void write_file(const void *data, size_t len, void *ctx)
{
    byte_out((const unsigned char *)data);
    fwrite(data, 1, len, (FILE *)ctx);
}

NOINST static void dump(const char *path)
{
    FILE *out = fopen(path, "wb");
    size_t n;
    if (!out) {
        perror(path);
        exit(1);
    }
    n = calltrace_dump(write_file, out);
    if (fclose(out) != 0)
        exit(1);
    printf("dump %zu\n", n);
}

NOINST static void names(void)
{
#define NAME(fn) printf("fn %s %#lx\n", #fn, (unsigned long)(uintptr_t)fn)
    NAME(leaf); NAME(inner); NAME(outer); NAME(f); NAME(g); NAME(h);
    NAME(ring_a); NAME(ring_b); NAME(byte_out); NAME(switch_and_call); NAME(write_file);
    NAME(tick); NAME(nmi_work);
    printf("buffer %#lx\n", (unsigned long)(uintptr_t)&calltrace_buffer);
}

/* Calls of known counts: outer 10, inner 30, leaf 30. */
NOINST static void calls(void)
{
    int i;
    for (i = 0; i < 10; i++)
        outer(i);
}

/* 10^5 + 7 calls of ring_a, each calling ring_b. */
NOINST static void many(void)
{
    int i;
    for (i = 0; i < 100007; i++)
        ring_a(i);
}

/* Task switches; names freed or overwritten after each switch. */
NOINST static void tasks(void)
{
    char *name = strdup("sensor");
    static char buf[32];
    f();
    calltrace_task_switch((void *)0x100, name);
    memset(name, 'X', 6);
    free(name);
    g();
    g();
    strcpy(buf, "ui");
    calltrace_task_switch((void *)0x200, buf);
    strcpy(buf, "overwritten");
    h();
    name = strdup("sensor");
    calltrace_task_switch((void *)0x100, name); /* the same task again */
    free(name);
    g();
    calltrace_task_switch((void *)0x100, "renamed"); /* a new task at that pointer */
    f();
    calltrace_task_switch((void *)0x300, "a-very-long-task-name");
    h();
    calltrace_task_switch((void *)0x400, "one-too-many"); /* CALLTRACE_TASKS=4 */
    g();
}

/* Calls of outer while SIGALRM interrupts them every 200 us, until 20
 * ticks or 3000 calls. */
NOINST static void irq(void)
{
    struct itimerval every = {{0, 200}, {0, 200}}, off = {{0, 0}, {0, 0}};
    int i;
    signal(SIGALRM, on_alarm);
    setitimer(ITIMER_REAL, &every, NULL);
    for (i = 0; i < 3000 && ticks < 20; i++)
        outer(i);
    setitimer(ITIMER_REAL, &off, NULL);
    printf("outers %d\nticks %d\n", i, (int)ticks);
}

/* f twice, then g's entry reads the clock from a page made unreadable:
 * the fault's handler calls nmi_work mid-record. */
NOINST static void nmi(void)
{
    clock_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (clock_page == MAP_FAILED)
        exit(1);
    host_clock_word = clock_page;
    *host_clock_word = 0xffffff00u;
    signal(SIGSEGV, on_fault);
    f();
    f();
    mprotect(clock_page, 4096, PROT_NONE);
    g();
    f();
    printf("faults %d\n", (int)faults);
}

/* Fill a stop buffer of 1024 to one free slot, then need two. */
NOINST static void edge(void)
{
    int i;
    for (i = 0; i < 511; i++)
        f();
    switch_and_call();
}

NOINST static void control(void)
{
    f();
    f();
    calltrace_clear();
    g();
    g();
    g();
    calltrace_stop();
    h();
    h();
    calltrace_start();
    f();
}

int main(int argc, char **argv) NOINST;
int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    names();
    if (!strcmp(argv[1], "calls"))
        calls();
    else if (!strcmp(argv[1], "many"))
        many();
    else if (!strcmp(argv[1], "tasks"))
        tasks();
    else if (!strcmp(argv[1], "edge"))
        edge();
    else if (!strcmp(argv[1], "control"))
        control();
    else if (!strcmp(argv[1], "irq"))
        irq();
    else if (!strcmp(argv[1], "nmi"))
        nmi();
    else
        return 2;
    dump(argv[2]);
    if (argc > 3) { /* recording goes on after a dump */
        f();
        dump(argv[3]);
    }
    printf("semihosting %d\n", calltrace_dump_semihosting("none.bin"));
    return 0;
}
