/* systick.c - the Cortex-M SysTick timer on the processor clock, with its
 * interrupt: SysTick_Handler runs every `reload + 1` cycles. */
#include "board.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define CSR_ENABLE 1u
#define CSR_TICKINT 2u
#define CSR_CLKSOURCE 4u

BOARD_NOTRACE void systick_start(uint32_t reload)
{
    SYST_CSR = 0;
    SYST_RVR = reload;
    SYST_CVR = 0;
    SYST_CSR = CSR_CLKSOURCE | CSR_TICKINT | CSR_ENABLE;
}

BOARD_NOTRACE void systick_stop(void)
{
    SYST_CSR &= ~CSR_TICKINT;
}
