/* write_cancel - threads cancelled (deferred) while inside an instrumented
 * function that writes: write() and usleep() are cancellation points.
 * Each thread's first call is made while the main thread may already be
 * cancelling it (no delay before every fourth cancellation).
 *
 * Build (from the repository root):
 *   gcc -g -O0 -finstrument-functions -pthread testdata/cancel/write_cancel.c runtime/calltrace.c -o write_cancel
 *
 * EXPECTED CALLS: chatty x40 (thread roots), cleanup x40 (a cleanup
 * handler of each chatty, run by the cancellation), main x1, after x1;
 * say and nap as many times as the threads got round to.  Prints
 * "cancelled 40". */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define THREADS 40

static int sink_fd;
volatile unsigned long count;

void say(void)
{
    char line[64] = "a line that nobody reads\n";
    if (write(sink_fd, line, sizeof line) < 0)
        count++;
}

void nap(void)
{
    usleep(20);
}

void cleanup(void *arg)
{
    (void)arg;
    count++;
}

void *chatty(void *arg)
{
    (void)arg;
    pthread_cleanup_push(cleanup, 0);
    for (;;) {
        say();
        nap();
    }
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
    sink_fd = open("/dev/null", O_WRONLY);
    for (int i = 0; i < THREADS; i++) {
        pthread_t t;
        void *r;
        pthread_create(&t, 0, chatty, 0);
        if (i % 4)
            usleep(300 * (i % 4));
        pthread_cancel(t);
        pthread_join(t, &r);
        cancelled += r == PTHREAD_CANCELED;
    }
    printf("cancelled %d\n", cancelled);
    return after() - 1;
}
