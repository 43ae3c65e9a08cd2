/* Compresses a generated buffer with libbz2 and decompresses it again:
   the same calls on every architecture (tests/it/arch.rs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bzlib.h"

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000, i, seed = 1;
  unsigned zn = n + n / 100 + 600, on = n;
  char *in = malloc(n), *z = malloc(zn), *out = malloc(n);
  if (!in || !z || !out) return 1;
  for (i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    in[i] = "abcdefgh"[(seed >> 16) & 7];
  }
  if (BZ2_bzBuffToBuffCompress(z, &zn, in, n, 1, 0, 0) != BZ_OK) return 1;
  if (BZ2_bzBuffToBuffDecompress(out, &on, z, zn, 0, 0) != BZ_OK) return 1;
  printf("%u -> %u -> %u %s\n", n, zn, on, memcmp(in, out, n) ? "differ" : "same");
  return 0;
}
