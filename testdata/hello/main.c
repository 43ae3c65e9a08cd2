/* hello - the example program from the README.
 *
 * Build (from the repository root):
 *   gcc -g -finstrument-functions testdata/hello/main.c testdata/hello/shapes.c \
 *       testdata/hello/util.c runtime/calltrace.c -o hello
 *
 * EXPECTED CALLS: (single thread; caller -> callee xN)
 *   main          -> greet          x1
 *   main          -> total_area     x1
 *   main          -> factorial      x1
 *   main          -> log_value      x3
 *   greet         -> log_value      x1
 *   total_area    -> square_area    x1
 *   total_area    -> rect_area      x1
 *   total_area    -> triangle_area  x1
 *   total_area    -> sum3           x1
 *   square_area   -> rect_area      x1
 *   rect_area     -> multiply       x2
 *   triangle_area -> multiply       x1
 *   triangle_area -> half           x1
 *   sum3          -> add            x2
 *   factorial     -> factorial      x3   (recursive: factorial(4) -> 3 -> 2 -> 1)
 *   factorial     -> multiply       x3
 * Totals: 12 functions, 25 calls including the root call of main (50 E/X lines).
 * Called several times: multiply x6 (from rect_area, triangle_area, factorial),
 *   log_value x4 (from main and greet), rect_area x2 (from total_area and
 *   square_area), factorial x4, add x2.
 * Output is deterministic:  hello 1 / area 31 / 4! 24 / sum 55
 */
#include "shapes.h"

static void greet(void)
{
    log_value("hello", 1);
}

int main(void)
{
    greet();
    int area = total_area();
    log_value("area", area);
    int f = factorial(4);
    log_value("4!", f);
    log_value("sum", area + f);
    return 0;
}
