/* A small program whose coverage is known from its source: main,
   sum_squares and square are called, never is not, and plain cannot be
   traced (tests/it/arch.rs). */
#include <stdio.h>
#include <stdlib.h>

static int square(int x) { return x * x; }

int sum_squares(int n) {
  int s = 0;
  for (int i = 1; i <= n; i++) s += square(i);
  return s;
}

__attribute__((noinline, no_instrument_function)) int plain(int x) { return x + 1; }

__attribute__((noinline)) int never(int x) { return x * 3; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  int r = sum_squares(n);
  if (argc > 2) r += never(n);
  printf("%d %d\n", r, plain(r));
  return 0;
}
