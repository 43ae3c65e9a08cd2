/* semihosting.c - the few semihosting calls the board programs make
 * themselves (newlib's librdimon makes the others: files, stdout):
 * the command line, a message on the host's stderr and the exit with a
 * status (SYS_EXIT_EXTENDED, so QEMU exits with the program's status). */
#include "board.h"

enum {
    SYS_WRITE0 = 0x04,
    SYS_GET_CMDLINE = 0x15,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
    ADP_STOPPED_APPLICATION_EXIT = 0x20026,
};

BOARD_NOTRACE int sh_call(int op, void *arg)
{
    register int r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

BOARD_NOTRACE void sh_write(const char *s)
{
    sh_call(SYS_WRITE0, (void *)s);
}

BOARD_NOTRACE void board_exit(int status)
{
    uint32_t block[2] = { ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status };
    sh_call(SYS_EXIT_EXTENDED, block);
    /* a host without the extension: exit without the status */
    sh_call(SYS_EXIT, (void *)ADP_STOPPED_APPLICATION_EXIT);
    for (;;)
        ;
}

/* The command line into buf, NUL-terminated; 0 on success. */
BOARD_NOTRACE int board_cmdline(char *buf, size_t size)
{
    struct {
        char *buf;
        uint32_t size;
    } block = { buf, (uint32_t)size };
    return sh_call(SYS_GET_CMDLINE, &block);
}
