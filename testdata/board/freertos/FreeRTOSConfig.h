/* FreeRTOSConfig.h - FreeRTOS for the Cortex-M3 of QEMU's mps2-an385
 * (testdata/board/freertos/main.c): preemptive, with time slicing, a
 * 10 kHz tick (SysTick every 2,500 cycles of the 25 MHz clock: fast, so
 * that it preempts the tasks often), a tick hook that counts the ticks,
 * static allocation only (no heap file), no software timers, and the
 * calltrace hook of README.md's FreeRTOS recipe. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000UL
#define configTICK_RATE_HZ 10000
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#define configMAX_PRIORITIES 4
#define configMINIMAL_STACK_SIZE 256
#define configMAX_TASK_NAME_LEN 16
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1

#define configSUPPORT_STATIC_ALLOCATION 1
#define configSUPPORT_DYNAMIC_ALLOCATION 0
#define configKERNEL_PROVIDED_STATIC_MEMORY 1

#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 1
#define configUSE_MALLOC_FAILED_HOOK 0
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_TIMERS 0
#define configUSE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 0
#define configUSE_TRACE_FACILITY 0
#define configUSE_CO_ROUTINES 0
#define configQUEUE_REGISTRY_SIZE 0

#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_vTaskDelete 0

/* The mps2-an385's Cortex-M3 implements 3 priority bits (QEMU: 3) */
#define configPRIO_BITS 3
#define configKERNEL_INTERRUPT_PRIORITY (7 << (8 - configPRIO_BITS))
#define configMAX_SYSCALL_INTERRUPT_PRIORITY (2 << (8 - configPRIO_BITS))

#ifndef __ASSEMBLER__
void board_assert(const char *file, int line);
#endif
#define configASSERT(x) \
    if (!(x))           \
    board_assert(__FILE__, __LINE__)

/* calltrace: each task is a thread named by its name (README.md) */
#ifndef __ASSEMBLER__
void calltrace_task_switch(const void *task, const char *name);
#endif
#define traceTASK_SWITCHED_IN() calltrace_task_switch(pxCurrentTCB, pxCurrentTCB->pcTaskName)

#endif
