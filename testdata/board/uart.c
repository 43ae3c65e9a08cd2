/* uart.c - CMSDK APB UART0 of the mps2 boards (at 0x40004000) as a
 * calltrace_dump write callback: each byte waits for room in the
 * transmitter, then goes to the data register. Under QEMU
 * `-serial file:PATH` the bytes land in PATH as they are. */
#include "board.h"

#define UART0 0x40004000u
#define UART_DATA (*(volatile uint32_t *)(UART0 + 0x00))
#define UART_STATE (*(volatile uint32_t *)(UART0 + 0x04))
#define UART_CTRL (*(volatile uint32_t *)(UART0 + 0x08))
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0 + 0x10))
#define STATE_TX_FULL 1u
#define CTRL_TX_ENABLE 1u

BOARD_NOTRACE void uart_init(void)
{
    UART_BAUDDIV = 16; /* the smallest divider the UART accepts */
    UART_CTRL = CTRL_TX_ENABLE;
}

BOARD_NOTRACE void uart_write(const void *data, size_t len, void *ctx)
{
    const uint8_t *p = data;
    (void)ctx;
    for (size_t i = 0; i < len; i++) {
        while (UART_STATE & STATE_TX_FULL)
            ;
        UART_DATA = p[i];
    }
}
