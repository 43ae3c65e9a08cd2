/* longjmp - a non-local exit skips function exits.
 *
 * Build (from the repository root):
 *   gcc -g -finstrument-functions testdata/longjmp/longjmp.c runtime/calltrace.c -o longjmp
 *
 * EXPECTED CALLS: (single thread; caller -> callee xN; what really happens)
 *   main -> run x1
 *   main -> e   x1
 *   run  -> a   x1
 *   run  -> d   x1
 *   a    -> b   x1
 *   b    -> c   x1
 * Totals: 7 functions (main run a b c d e), 7 calls including main.
 * Missing exits: c, b and a are entered but never exited (c longjmp()s back
 *   into run), so the trace has 7 E lines and only 4 X lines (d, run, e, main),
 *   in this order:
 *     E main, E run, E a, E b, E c, E d, X d, X run, E e, X e, X main
 * What a trace can show: the E/X stream has no record of the jump, so at
 *   "E d" the innermost open frame is still c, and a tracer that pushes on E
 *   and pops on X sees c -> d instead of run -> d (all other edges as above).
 *   On "X run" it must notice that c, b, a are still open above run and
 *   close them (their exits are missing), so e is correctly seen as called
 *   by main and the stack is empty at the end.
 * Output is deterministic: "run: jumped back with 42" / "d=5" / "e=6".
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;

void c(int x)
{
    longjmp(env, x);
}

void b(int x)
{
    c(x * 2);
    puts("not reached (b)");
}

void a(int x)
{
    b(x + 20);
    puts("not reached (a)");
}

int d(int x)
{
    return x + 1;
}

int e(int x)
{
    return x + 2;
}

int run(void)
{
    volatile int jumped = 0;
    int rc = setjmp(env);
    if (rc == 0) {
        a(1);
        puts("not reached (run)");
    } else {
        jumped = rc;
        printf("run: jumped back with %d\n", jumped);
    }
    return d(4);
}

int main(void)
{
    int r = run();
    printf("d=%d\n", r);
    printf("e=%d\n", e(4));
    return 0;
}
