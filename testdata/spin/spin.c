/* testdata/spin: calls of known, deterministic lengths, for per-call
 * statistics. Call i of work() spins i units; every 1000th call spins 100
 * times as long. Two threads run the same calls; the main thread's come
 * first. */
#include <pthread.h>
#include <stdio.h>

#define CALLS 2000
#define UNIT 20

static volatile unsigned sink;

void work(int units) {
    for (long i = 0; i < (long)units * UNIT; i++)
        sink += (unsigned)i;
}

static void *calls(void *arg) {
    (void)arg;
    for (int i = 1; i <= CALLS; i++)
        work(i % 1000 == 0 ? i * 100 : i);
    return NULL;
}

int main(void) {
    calls(NULL);
    pthread_t t;
    pthread_create(&t, NULL, calls, NULL);
    pthread_join(t, NULL);
    printf("%u\n", sink);
    return 0;
}
