/* testdata/zlib: a small program calling zlib, which the tests build from
 * zlib's own sources as an instrumented shared object (libz.so). It
 * compresses a generated text with compress2 and with a streaming deflate,
 * checks both round trips, and prints the sizes and the CRC. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static size_t make_text(unsigned char *buf, size_t cap) {
    size_t n = 0;
    for (int i = 0; n + 64 < cap; i++)
        n += (size_t)snprintf((char *)buf + n, cap - n, "line %d: the quick brown fox %d\n", i, i % 7);
    return n;
}

static int round_trip(const unsigned char *src, size_t n) {
    unsigned char packed[65536], back[65536];
    uLongf plen = sizeof packed, blen = sizeof back;
    if (compress2(packed, &plen, src, n, 6) != Z_OK)
        return -1;
    if (uncompress(back, &blen, packed, plen) != Z_OK || blen != n || memcmp(back, src, n))
        return -1;
    return (int)plen;
}

static int streamed(const unsigned char *src, size_t n) {
    unsigned char out[65536];
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit(&s, 9) != Z_OK)
        return -1;
    s.next_in = (unsigned char *)src;
    s.avail_in = (uInt)n;
    s.next_out = out;
    s.avail_out = sizeof out;
    if (deflate(&s, Z_FINISH) != Z_STREAM_END)
        return -1;
    int len = (int)s.total_out;
    deflateEnd(&s);
    return len;
}

int main(void) {
    static unsigned char text[20000];
    size_t n = make_text(text, sizeof text);
    printf("bytes=%zu compress2=%d deflate=%d crc=%08lx\n", n, round_trip(text, n),
           streamed(text, n), crc32(0L, text, (uInt)n));
    return 0;
}
