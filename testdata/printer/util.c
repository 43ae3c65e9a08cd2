/* util.c - checked allocation, small math helpers, CRC, PRNG, strings. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "printer: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "printer: out of memory (%zu x %zu bytes)\n", n, size);
        abort();
    }
    return p;
}

void xfree(void *p)
{
    free(p);
}

int util_min(int a, int b)
{
    return a < b ? a : b;
}

int util_max(int a, int b)
{
    return a > b ? a : b;
}

int util_clamp(int v, int lo, int hi)
{
    return util_max(lo, util_min(v, hi));
}

/* bitwise CRC-32 (IEEE 802.3, reflected) */
uint32_t util_crc32(uint32_t crc, const uint8_t *data, size_t n)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= data[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/* deterministic linear congruential generator (the scanner's sensor noise) */
uint32_t util_lcg_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

char *util_trim(char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int util_parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < -1000000 || v > 1000000)
        return -1;
    *out = (int)v;
    return 0;
}
