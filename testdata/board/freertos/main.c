/* main.c - two FreeRTOS tasks on the Cortex-M3 of QEMU's mps2-an385:
 * "sensor" samples and filters readings and sends them through a queue,
 * "logger" receives and formats them. Both have the same priority, so
 * the kernel's tick (SysTick, every 2,500 cycles) also switches them in
 * the middle of their work; the sensor sleeps 8 ticks every 64 rounds,
 * so the idle task runs too. Usage: ELF DUMP ROUNDS.
 *
 * The firmware counts its own calls and the ticks (the tick hook) and
 * prints them (`sensor_sample=N ... ticks=N`) before the trace is taken
 * off: the logger, after the last reading, masks the kernel's interrupts,
 * prints and finishes the board (dump, exit) from its task. The sensor
 * is then suspended in vTaskSuspend, the idle task wherever the last
 * switch left it.
 *
 * The vector table (startup.c's, with SVCall, PendSV and SysTick moved
 * to FreeRTOS's handlers) is copied to RAM and installed with VTOR, as
 * the port's check of its handlers (configCHECK_HANDLER_INSTALLATION)
 * expects. */
#include <stdio.h>
#include <stdlib.h>

#include "FreeRTOS.h"
#include "queue.h"
#include "task.h"

#include "board.h"

#define STACK_WORDS 2048
#define QUEUE_LENGTH 4
#define VECTORS 48
#define VTOR (*(volatile uint32_t *)0xE000ED08u)

void vPortSVCHandler(void);
void xPortPendSVHandler(void);
void xPortSysTickHandler(void);

static unsigned n_sample, n_filter, n_format, n_digit;
static volatile unsigned ticks;
static volatile uint32_t sink;
static int rounds;

static QueueHandle_t readings;
static StaticQueue_t readings_queue;
static uint8_t readings_storage[QUEUE_LENGTH * sizeof(uint32_t)];
static StaticTask_t sensor_tcb, logger_tcb;
static StackType_t sensor_stack[STACK_WORDS], logger_stack[STACK_WORDS];
static void (*vectors[VECTORS])(void) __attribute__((aligned(256)));

/* A little work that the tick can interrupt. */
static unsigned spin(unsigned x)
{
    for (int k = 0; k < 40; k++)
        x = x * 1103515245u + 12345u;
    return x;
}

int sensor_sample(int i)
{
    n_sample++;
    sink = spin((unsigned)i);
    return (i * 37 + 11) % 101;
}

int sensor_filter(int prev, int sample)
{
    n_filter++;
    return (3 * prev + sample) / 4;
}

void sensor_task(void *arg)
{
    int level = 0;
    (void)arg;
    for (int i = 0; i < rounds; i++) {
        level = sensor_filter(level, sensor_sample(i));
        uint32_t reading = (uint32_t)level + (uint32_t)i * 7919u;
        xQueueSend(readings, &reading, portMAX_DELAY);
        if (i % 64 == 63)
            vTaskDelay(8);
    }
    vTaskSuspend(NULL);
}

unsigned logger_digit(unsigned v)
{
    n_digit++;
    return v % 10;
}

unsigned logger_format(unsigned v)
{
    unsigned n = 0;
    n_format++;
    do {
        n = n * 10 + logger_digit(v);
        v /= 10;
    } while (v);
    return spin(n);
}

/* Prints the counts and takes the trace off, with no more ticks. */
BOARD_NOTRACE static void logger_finish(void)
{
    taskDISABLE_INTERRUPTS();
    printf("sensor_sample=%u sensor_filter=%u logger_format=%u logger_digit=%u ticks=%u\n",
        n_sample, n_filter, n_format, n_digit, ticks);
    board_finish(0);
}

void logger_task(void *arg)
{
    (void)arg;
    for (int i = 0; i < rounds; i++) {
        uint32_t reading;
        xQueueReceive(readings, &reading, portMAX_DELAY);
        sink = logger_format(reading);
    }
    logger_finish();
}

void vApplicationTickHook(void)
{
    ticks++;
}

BOARD_NOTRACE void board_assert(const char *file, int line)
{
    taskDISABLE_INTERRUPTS();
    fprintf(stderr, "assertion failed: %s:%d\n", file, line);
    board_exit(73);
}

/* startup.c's vector table, with FreeRTOS's handlers, installed by VTOR. */
BOARD_NOTRACE static void install_vectors(void)
{
    void (*const *boot)(void) = (void (*const *)(void))(uintptr_t)VTOR;
    for (int v = 0; v < VECTORS; v++)
        vectors[v] = boot[v];
    vectors[11] = vPortSVCHandler;
    vectors[14] = xPortPendSVHandler;
    vectors[15] = xPortSysTickHandler;
    VTOR = (uint32_t)(uintptr_t)vectors;
    __asm__ volatile("dsb\n isb" ::: "memory");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (rounds = atoi(argv[1])) <= 0) {
        fprintf(stderr, "usage: ELF DUMP ROUNDS\n");
        return 2;
    }
    install_vectors();
    readings = xQueueCreateStatic(QUEUE_LENGTH, sizeof(uint32_t), readings_storage, &readings_queue);
    xTaskCreateStatic(sensor_task, "sensor", STACK_WORDS, NULL, 1, sensor_stack, &sensor_tcb);
    xTaskCreateStatic(logger_task, "logger", STACK_WORDS, NULL, 1, logger_stack, &logger_tcb);
    vTaskStartScheduler();
    return 1;
}
