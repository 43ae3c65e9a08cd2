/* async_cancel - threads that turn asynchronous cancellation on and then
 * call instrumented functions in a busy loop (9000 calls, then they wait),
 * cancelled at once or after up to 180 us: the cancellation lands
 * anywhere, inside the runtime too (a new thread's start, which may write
 * the events of threads that exited before; check-ins).
 *
 * Build (from the repository root):
 *   gcc -g -O0 -finstrument-functions -pthread testdata/cancel/async_cancel.c runtime/calltrace.c -o async_cancel
 *
 * EXPECTED CALLS: spin x24 (thread roots), cleanup x24 (a cleanup handler
 * of each spin, run by the cancellation), main x1, after x1; leaf and mid
 * as many times as the threads got round to.  Prints "cancelled 24". */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 24

volatile unsigned long sink;

unsigned long leaf(unsigned long x)
{
    return x * 2654435761u + 1;
}

unsigned long mid(unsigned long x)
{
    return leaf(x) ^ leaf(x >> 3);
}

void cleanup(void *arg)
{
    (void)arg;
    sink++;
}

void *spin(void *arg)
{
    unsigned long x = (unsigned long)arg;
    int old;
    pthread_cleanup_push(cleanup, 0);
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
    for (int i = 0; i < 3000; i++) {
        x = mid(x);
        sink = x;
    }
    for (;;)
        pause(); /* (a bounded trace; still cancelled at once) */
    pthread_cleanup_pop(0);
    return 0;
}

int after(void)
{
    return 1;
}

int main(void)
{
    int cancelled = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_t t;
        void *r;
        pthread_create(&t, 0, spin, (void *)(unsigned long)i);
        if (i % 4)
            usleep(60 * (i % 4));
        pthread_cancel(t);
        pthread_join(t, &r);
        cancelled += r == PTHREAD_CANCELED;
    }
    printf("cancelled %d\n", cancelled);
    return after() - 1;
}
