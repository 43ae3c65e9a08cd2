/* zformat.c - printf and fprintf for application code built with
 * -Dprintf=board_printf -Dfprintf=board_fprintf: Debian's newlib for
 * arm-none-eabi is built without C99 formats, so `%zu` would print "zu"
 * and shift every later argument. size_t is unsigned int on this ILP32
 * target, so dropping the `z` prints the same. Not instrumented: the
 * application's calls are traced, the C library's are not (as on the host). */
#include <stdarg.h>
#include <stdio.h>

#include "board.h"

/* Copies fmt into out without the `z` of each conversion. */
BOARD_NOTRACE static const char *without_z(const char *fmt, char *out, size_t size)
{
    size_t n = 0;
    int in_conversion = 0;
    for (const char *p = fmt; *p; p++) {
        if (n + 1 >= size)
            return fmt;
        if (*p == '%')
            in_conversion = !in_conversion;
        else if (in_conversion && *p == 'z')
            continue;
        else if (in_conversion && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
            in_conversion = 0;
        out[n++] = *p;
    }
    out[n] = 0;
    return out;
}

BOARD_NOTRACE int board_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char plain[256];
    return vfprintf(f, without_z(fmt, plain, sizeof plain), ap);
}

BOARD_NOTRACE int board_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = board_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

BOARD_NOTRACE int board_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = board_vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}
