/* tick.c - a workload interrupted by SysTick at a fast rate, with an
 * instrumented handler. Usage: ELF DUMP RELOAD ROUNDS
 * RELOAD 0 runs without the interrupt; else SysTick fires every
 * RELOAD + 1 cycles and SysTick_Handler calls tick_count. Prints the
 * number of interrupts and the workload's result: the workload's calls
 * do not depend on the interrupts. */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"

static volatile unsigned ticks;

void tick_count(void)
{
    ticks++;
}

void SysTick_Handler(void)
{
    tick_count();
}

unsigned work_leaf(unsigned x)
{
    return x * 2654435761u >> 7;
}

unsigned work_mid(unsigned x)
{
    return work_leaf(x) ^ work_leaf(x + 1);
}

unsigned work_fib(unsigned n)
{
    return n < 2 ? n : work_fib(n - 1) + work_fib(n - 2);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ELF DUMP RELOAD ROUNDS\n");
        return 2;
    }
    unsigned reload = (unsigned)atoi(argv[1]), rounds = (unsigned)atoi(argv[2]), acc = 0;
    if (reload)
        systick_start(reload);
    for (unsigned i = 0; i < rounds; i++)
        acc += work_mid(i) + work_fib(i % 8);
    systick_stop();
    printf("ticks=%u acc=%u\n", ticks, acc);
    return 0;
}
