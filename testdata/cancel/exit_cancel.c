/* exit_cancel - threads that end inside instrumented code: 50 end with
 * pthread_exit() from 21 frames deep, 50 are cancelled (deferred) while
 * they wait in pause().  The traced program hung here: a thread cancelled
 * inside the runtime left it with its lock held.
 *
 * Build (from the repository root):
 *   gcc -g -O0 -finstrument-functions -pthread testdata/cancel/exit_cancel.c runtime/calltrace.c -o exit_cancel
 *
 * EXPECTED CALLS: a x50 (thread roots), inner x1050 (50 x 21), b x50
 * (thread roots), blocked x50, main x1, after x1.  The exits of the frames
 * that pthread_exit() and cancellation unwind are never called. */
#include <pthread.h>
#include <unistd.h>

int inner(int n)
{
    if (n == 0)
        pthread_exit((void *)7);
    return inner(n - 1);
}

int blocked(void)
{
    for (;;)
        pause();
    return 0;
}

void *a(void *x)
{
    (void)x;
    inner(20);
    return 0;
}

void *b(void *x)
{
    (void)x;
    blocked();
    return 0;
}

int after(void)
{
    return 1;
}

int main(void)
{
    pthread_t t;
    void *r;
    for (int i = 0; i < 50; i++) {
        pthread_create(&t, 0, a, 0);
        pthread_join(t, &r);
    }
    for (int i = 0; i < 50; i++) {
        pthread_create(&t, 0, b, 0);
        usleep(100);
        pthread_cancel(t);
        pthread_join(t, &r);
    }
    return after() - 1;
}
