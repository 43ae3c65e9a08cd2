/* board.h - what the board programs of testdata/board share: semihosting,
 * the board's start and end, the UART, SysTick and the two-task scheduler.
 *
 * A board program is an application with an ordinary `main(argc, argv)`
 * (printer's, or a program of this folder) linked with startup.c,
 * semihosting.c, board.c and zformat.c. The semihosting command line
 * is `ELF DUMP ARGS...` (QEMU's -kernel ELF -append "DUMP ARGS..."):
 * board.c runs main(ELF, ARGS...),
 * then takes the trace off as DUMP says (see board.c), stops at
 * board_done (a debugger's breakpoint) and exits QEMU with main's status. */
#ifndef BOARD_H
#define BOARD_H

#include <stddef.h>
#include <stdint.h>

#define BOARD_NOTRACE __attribute__((no_instrument_function))

/* semihosting.c */
int sh_call(int op, void *arg);
void sh_write(const char *s);
void board_exit(int status) __attribute__((noreturn));
int board_cmdline(char *buf, size_t size);

/* board.c */
int main(int argc, char **argv);
void board_done(int status);
void board_finish(int status) __attribute__((noreturn));

/* uart.c: CMSDK APB UART0 of the mps2 boards */
void uart_init(void);
void uart_write(const void *data, size_t len, void *ctx);

/* systick.c */
void systick_start(uint32_t reload);
void systick_stop(void);

/* sched.c: two tasks switched by PendSV, each on its own stack */
typedef void (*task_fn)(void *arg);
void sched_add(task_fn fn, void *arg, const char *name);
void sched_yield(void);
void sched_start(void) __attribute__((noreturn));

#endif
