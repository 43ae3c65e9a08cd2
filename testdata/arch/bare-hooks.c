/* Empty hooks and an entry point for bare.c, in a file of their own so
   that the compiler cannot inline them into their callers. */
void __cyg_profile_func_enter(void *fn, void *site) { (void)fn; (void)site; }
void __cyg_profile_func_exit(void *fn, void *site) { (void)fn; (void)site; }

int main(void);

void _start(void) {
  main();
  for (;;) {
  }
}
