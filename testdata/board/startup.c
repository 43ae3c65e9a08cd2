/* startup.c - reset and exceptions of the Cortex-M3 of QEMU's mps2-an385:
 * the vector table (placed at 0x0 by mps2-an385.ld), the reset handler
 * (copies .data, clears .bss, opens newlib's semihosting handles, then
 * board_start in board.c), fault handlers that report and exit QEMU with
 * status 70 instead of hanging, and _sbrk for newlib's malloc, with the
 * heap in the 16 MB PSRAM. Nothing here is instrumented: it runs before
 * .data (and so calltrace_buffer) is in place. */
#include <errno.h>
#include <stdint.h>

#include "board.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __bss_start[], __bss_end[];
extern char __stack_top[], __heap_start[], __heap_end[];

void initialise_monitor_handles(void);
void board_start(void) __attribute__((noreturn));
void Reset_Handler(void) __attribute__((noreturn));

BOARD_NOTRACE static void fault(const char *what)
{
    sh_write("board: ");
    sh_write(what);
    sh_write("\n");
    board_exit(70);
}

BOARD_NOTRACE void Default_Handler(void)
{
    fault("unexpected exception or interrupt");
}

BOARD_NOTRACE void HardFault_Handler(void)
{
    fault("hard fault");
}

BOARD_NOTRACE void MemManage_Handler(void)
{
    fault("memory management fault");
}

BOARD_NOTRACE void BusFault_Handler(void)
{
    fault("bus fault");
}

BOARD_NOTRACE void UsageFault_Handler(void)
{
    fault("usage fault");
}

#define WEAK_DEFAULT __attribute__((weak, alias("Default_Handler")))
void NMI_Handler(void) WEAK_DEFAULT;
void SVC_Handler(void) WEAK_DEFAULT;
void DebugMon_Handler(void) WEAK_DEFAULT;
void PendSV_Handler(void) WEAK_DEFAULT;
void SysTick_Handler(void) WEAK_DEFAULT;

__attribute__((section(".isr_vector"), used)) static void (*const vectors[16 + 32])(void) = {
    (void (*)(void))__stack_top,
    Reset_Handler,
    NMI_Handler,
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    0, 0, 0, 0,
    SVC_Handler,
    DebugMon_Handler,
    0,
    PendSV_Handler,
    SysTick_Handler,
    /* the 32 external interrupts: none enabled */
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
    Default_Handler, Default_Handler, Default_Handler, Default_Handler,
};

BOARD_NOTRACE void Reset_Handler(void)
{
    /* volatile: GCC must not turn these loops into memcpy/memset calls */
    volatile uint32_t *dst = __data_start;
    const volatile uint32_t *src = __data_load;
    while (dst < __data_end)
        *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end;)
        *dst++ = 0;
    /* usage, bus and memory faults get their own handlers */
    *(volatile uint32_t *)0xE000ED24 |= 7u << 16;
    initialise_monitor_handles();
    board_start();
}

BOARD_NOTRACE void *_sbrk(ptrdiff_t incr)
{
    static char *brk = __heap_start;
    char *old = brk;
    if (incr > __heap_end - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    brk += incr;
    return old;
}

/* newlib's exit runs __libc_fini_array, which calls _fini (crti.o's,
 * left out with the other start files): nothing to do here. */
BOARD_NOTRACE void _init(void)
{
}

BOARD_NOTRACE void _fini(void)
{
}
