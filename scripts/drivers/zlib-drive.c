/* Compresses and decompresses N KiB of generated text in 64 KiB pieces. */
#include <stdio.h>
#include <stdlib.h>
#include "zlib.h"
int main(int argc, char **argv) {
    long kib = argc > 1 ? atol(argv[1]) : 1024;
    static unsigned char in[65536], out[70000], back[65536];
    unsigned long long seed = 1, sum = 0;
    for (long done = 0; done < kib; done += 64) {
        for (size_t i = 0; i < sizeof in; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            in[i] = "the quick brown fox jumps over a lazy dog 0123"[(seed >> 33) % 46];
        }
        uLongf n = sizeof out, m = sizeof back;
        if (compress2(out, &n, in, sizeof in, 6) != Z_OK) return 1;
        if (uncompress(back, &m, out, n) != Z_OK || m != sizeof in) return 1;
        sum += adler32(0, out, (uInt)n);
    }
    printf("%llu\n", sum);
    return 0;
}
