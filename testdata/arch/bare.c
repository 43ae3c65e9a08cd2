/* A bare-metal program (no C library, never run): coverage reads which
   functions call the entry hook from an ELF32 file alone
   (tests/it/arch.rs). leaf and never call the hook, plain does not. */
static volatile int sink;

__attribute__((noinline)) int leaf(int x) { return x + 1; }

__attribute__((noinline, no_instrument_function)) int plain(int x) { return x * 2; }

__attribute__((noinline)) int never(int x) { return x - 1; }

int main(void) {
  sink = leaf(1) + plain(2) + (sink > 5 ? never(3) : 0);
  return 0;
}
