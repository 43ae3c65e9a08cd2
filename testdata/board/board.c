/* board.c - the board's life around the application: split the
 * semihosting command line `ELF DUMP ARGS...` (QEMU's -kernel and -append)
 * into arguments, run main(ELF, ARGS...), take the trace off as DUMP says, stop at
 * board_done (where a debugger dumps calltrace_buffer) and exit QEMU with
 * main's status. DUMP is a comma-separated list of:
 *   none       nothing (the harness without the runtime)
 *   semi:PATH  calltrace_dump_semihosting(PATH): a file on the host
 *   uart       calltrace_dump into CMSDK UART0 (QEMU -serial file:PATH)
 * A program that does not return from main (the scheduler's tasks)
 * calls board_finish itself. Without BOARD_TRACE (the harness), there is
 * no runtime and only `none` is accepted. */
#include <stdio.h>
#include <string.h>

#include "board.h"

#ifdef BOARD_TRACE
size_t calltrace_dump(void (*write)(const void *data, size_t len, void *ctx), void *ctx);
int calltrace_dump_semihosting(const char *path);
#endif

#define MAX_ARGS 16

static char cmdline[1024];
static char *args[MAX_ARGS + 1];
static const char *dump_spec = "none";

/* Splits the command line at spaces; returns the number of arguments. */
BOARD_NOTRACE static int split_args(char *line)
{
    int n = 0;
    for (char *p = line; *p && n < MAX_ARGS;) {
        while (*p == ' ')
            *p++ = 0;
        if (!*p)
            break;
        args[n++] = p;
        while (*p && *p != ' ')
            p++;
    }
    args[n] = 0;
    return n;
}

/* Takes the trace off in one way; 0 on success. */
BOARD_NOTRACE static int dump_one(const char *how, size_t len)
{
    if (len == 4 && !strncmp(how, "none", 4))
        return 0;
#ifdef BOARD_TRACE
    if (len > 5 && !strncmp(how, "semi:", 5)) {
        char path[256];
        if (len - 5 >= sizeof path)
            return -1;
        memcpy(path, how + 5, len - 5);
        path[len - 5] = 0;
        return calltrace_dump_semihosting(path);
    }
    if (len == 4 && !strncmp(how, "uart", 4)) {
        uart_init();
        return calltrace_dump(uart_write, 0) > 0 ? 0 : -1;
    }
#endif
    return -1;
}

/* Takes the trace off every way DUMP names; 0 on success. */
BOARD_NOTRACE static int dump_all(const char *spec)
{
    while (*spec) {
        const char *end = strchr(spec, ',');
        size_t len = end ? (size_t)(end - spec) : strlen(spec);
        if (dump_one(spec, len) != 0) {
            sh_write("board: cannot dump the trace as `");
            sh_write(spec);
            sh_write("`\n");
            return -1;
        }
        spec += end ? len + 1 : len;
    }
    return 0;
}

/* A debugger's breakpoint: the trace is complete here. */
BOARD_NOTRACE __attribute__((noinline)) void board_done(int status)
{
    __asm__ volatile("" : : "r"(status) : "memory");
}

BOARD_NOTRACE void board_finish(int status)
{
    fflush(stdout);
    fflush(stderr);
    if (dump_all(dump_spec) != 0)
        status = 71;
    board_done(status);
    board_exit(status);
}

BOARD_NOTRACE void board_start(void)
{
    if (board_cmdline(cmdline, sizeof cmdline) != 0) {
        sh_write("board: no semihosting command line\n");
        board_exit(72);
    }
    int argc = split_args(cmdline);
    if (argc < 2) {
        sh_write("board: usage: ELF DUMP ARGS...\n");
        board_exit(72);
    }
    dump_spec = args[1];
    args[1] = args[0];
    board_finish(main(argc - 1, args + 1));
}
