/* ring.c - a run of many calls for the ring mode (flight recorder).
 * Usage: ELF DUMP ROUNDS. Each round calls ring_step(i), which calls
 * ring_leaf(i) and, when i % 3 == 0, ring_odd(i), which calls ring_leaf
 * again: 2 + (i % 3 == 0 ? 2 : 0) calls per round. */
#include <stdio.h>
#include <stdlib.h>

#include "board.h"

static volatile unsigned sink;

void ring_leaf(unsigned i)
{
    sink += i;
}

void ring_odd(unsigned i)
{
    ring_leaf(i ^ 1);
}

void ring_step(unsigned i)
{
    ring_leaf(i);
    if (i % 3 == 0)
        ring_odd(i);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: ELF DUMP ROUNDS\n");
        return 2;
    }
    unsigned rounds = (unsigned)atoi(argv[1]);
    for (unsigned i = 0; i < rounds; i++)
        ring_step(i);
    printf("rounds=%u\n", rounds);
    return 0;
}
