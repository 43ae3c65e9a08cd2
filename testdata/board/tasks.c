/* tasks.c - two tasks under sched.c: "sensor" samples and filters,
 * "logger" formats records. Usage: ELF DUMP coop|preempt ROUNDS
 *   coop     each task yields after each round (PendSV)
 *   preempt  no task yields: SysTick switches them every 2000 cycles,
 *            wherever they are (its handler is instrumented)
 * Each task's calls depend only on ROUNDS, not on when it is switched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"

static volatile uint32_t sink;
static int cooperative;

int sensor_sample(int i)
{
    return (i * 37 + 11) % 101;
}

int sensor_filter(int prev, int sample)
{
    return (3 * prev + sample) / 4;
}

void sensor_task(void *arg)
{
    int rounds = *(int *)arg, level = 0;
    for (int i = 0; i < rounds; i++) {
        level = sensor_filter(level, sensor_sample(i));
        sink = (uint32_t)level;
        if (cooperative)
            sched_yield();
    }
}

unsigned logger_digit(unsigned v)
{
    return v % 10;
}

unsigned logger_format(unsigned v)
{
    unsigned n = 0;
    do {
        n = n * 10 + logger_digit(v);
        v /= 10;
    } while (v);
    return n;
}

void logger_task(void *arg)
{
    int rounds = *(int *)arg;
    for (int i = 0; i < rounds; i++) {
        sink = logger_format((unsigned)i * 7919u);
        if (cooperative)
            sched_yield();
    }
}

/* SysTick: preemption, instrumented as a timer interrupt of a firmware
 * is: its calls belong to the interrupt, not to the task it preempts. */
void tick_preempt(void)
{
    sched_yield();
}

void SysTick_Handler(void)
{
    tick_preempt();
}

int main(int argc, char **argv)
{
    static int rounds;
    if (argc != 3) {
        fprintf(stderr, "usage: ELF DUMP coop|preempt ROUNDS\n");
        return 2;
    }
    cooperative = !strcmp(argv[1], "coop");
    rounds = atoi(argv[2]);
    sched_add(sensor_task, &rounds, "sensor");
    sched_add(logger_task, &rounds, "logger");
    if (!cooperative)
        systick_start(1999);
    sched_start();
}
