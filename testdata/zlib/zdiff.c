/* testdata/zlib: a workload for `calltrace diff`, built from zlib's own
 * sources in several variants by tests/it/diff.rs. It compresses and
 * inflates a generated text ROUNDS times and takes its CRC CRC_CALLS times
 * per round; the "twice" build doubles CRC_CALLS, the "slow" build adds a
 * busy loop to zlib's adler32_z. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#ifndef ROUNDS
#define ROUNDS 20
#endif
#ifndef CRC_CALLS
#define CRC_CALLS 3
#endif

static size_t make_text(unsigned char *buf, size_t cap) {
    size_t n = 0;
    for (int i = 0; n + 64 < cap; i++)
        n += (size_t)snprintf((char *)buf + n, cap - n, "line %d: the quick brown fox %d\n", i, i % 7);
    return n;
}

static int round_trip(const unsigned char *src, size_t n) {
    static unsigned char packed[65536], back[65536];
    uLongf plen = sizeof packed, blen = sizeof back;
    if (compress2(packed, &plen, src, n, 6) != Z_OK)
        return -1;
    if (uncompress(back, &blen, packed, plen) != Z_OK || blen != n || memcmp(back, src, n))
        return -1;
    return (int)plen;
}

int main(void) {
    static unsigned char text[20000];
    size_t n = make_text(text, sizeof text);
    unsigned long crc = 0;
    int packed = 0;
    for (int r = 0; r < ROUNDS; r++) {
        packed = round_trip(text, n);
        for (int c = 0; c < CRC_CALLS; c++)
            crc = crc32(0L, text, (uInt)n);
    }
    printf("bytes=%zu compress2=%d crc=%08lx\n", n, packed, crc);
    return 0;
}
