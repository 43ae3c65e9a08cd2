/* threads - two worker threads plus work on the main thread.
 *
 * Build (from the repository root):
 *   gcc -g -finstrument-functions -pthread testdata/threads/threads.c runtime/calltrace.c -o threads
 *
 * EXPECTED CALLS: (caller -> callee xN, per thread)
 *   main thread:
 *     main     -> start_workers x1
 *     main     -> main_work     x1
 *     main     -> join_workers  x1
 *     main_work -> leaf_main    x2
 *   thread A (entry point worker_a, no caller: it is a thread root):
 *     worker_a -> leaf_a        x3
 *   thread B (entry point worker_b, no caller: it is a thread root):
 *     worker_b -> leaf_b        x5
 * Totals: 10 functions; 3 threads; 16 calls (main thread 6 incl. main,
 *   thread A 4 incl. worker_a, thread B 6 incl. worker_b) = 32 E/X lines.
 * Each thread's calls nest properly; events of different threads may interleave
 *   in the file, and the file order is not chronological across threads (the
 *   runtime writes per-thread blocks, so the workers' events usually come
 *   before main's): order by timestamp, group by thread id.
 * No edge crosses threads (start_workers does NOT call worker_a/worker_b).
 * Output is deterministic: "a=12 b=30 m=20".
 */
#include <pthread.h>
#include <stdio.h>

static pthread_t thread_a, thread_b;
static int result_a, result_b;

int leaf_a(int i)
{
    return i * 2;
}

int leaf_b(int i)
{
    return i * 3;
}

int leaf_main(int i)
{
    return i * 10;
}

void *worker_a(void *arg)
{
    int *out = arg;
    int sum = 0;
    for (int i = 0; i < 3; i++)
        sum += leaf_a(i + 1);
    *out = sum;
    return NULL;
}

void *worker_b(void *arg)
{
    int *out = arg;
    int sum = 0;
    for (int i = 0; i < 5; i++)
        sum += leaf_b(i);
    *out = sum;
    return NULL;
}

void start_workers(void)
{
    pthread_create(&thread_a, NULL, worker_a, &result_a);
    pthread_create(&thread_b, NULL, worker_b, &result_b);
}

int main_work(void)
{
    return leaf_main(1) + leaf_main(1);
}

void join_workers(void)
{
    pthread_join(thread_a, NULL);
    pthread_join(thread_b, NULL);
}

int main(void)
{
    start_workers();
    int m = main_work();
    join_workers();
    printf("a=%d b=%d m=%d\n", result_a, result_b, m);
    return 0;
}
