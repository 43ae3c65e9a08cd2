/* sched.c - a tiny scheduler of two tasks, each on its own stack, switched
 * by PendSV as an RTOS port does: cooperative when a task calls
 * sched_yield, preemptive when SysTick_Handler does. The switch calls
 * calltrace_task_switch(task, name) the way FreeRTOS's
 * traceTASK_SWITCHED_IN hook does, from the PendSV handler. When the last
 * task returns, the board finishes (dump, exit) with status 0.
 * PendSV_Handler is naked: it must not be built with -finstrument-functions. */
#include "board.h"

#define MAX_TASKS 2
#define STACK_WORDS 2048
#define ICSR (*(volatile uint32_t *)0xE000ED04u)
#define ICSR_PENDSVSET (1u << 28)
#define SHPR3 (*(volatile uint32_t *)0xE000ED20u)

void calltrace_task_switch(const void *task, const char *name);

struct task {
    uint32_t *sp;
    const char *name;
    int done;
};

static struct task tasks[MAX_TASKS];
static uint32_t stacks[MAX_TASKS][STACK_WORDS] __attribute__((aligned(8)));
static int ntasks;
static int current = -1;

/* Where a task's function returns to. */
BOARD_NOTRACE static void task_exit(void)
{
    tasks[current].done = 1;
    for (int i = 0; i < ntasks; i++)
        if (!tasks[i].done)
            for (;;)
                sched_yield();
    board_finish(0);
}

BOARD_NOTRACE void sched_add(task_fn fn, void *arg, const char *name)
{
    struct task *t = &tasks[ntasks];
    uint32_t *sp = &stacks[ntasks][STACK_WORDS];
    *--sp = 1u << 24;                      /* xPSR: Thumb */
    *--sp = (uint32_t)(uintptr_t)fn & ~1u; /* PC */
    *--sp = (uint32_t)(uintptr_t)task_exit; /* LR */
    for (int r = 0; r < 4; r++)
        *--sp = 0;                         /* r12, r3, r2, r1 */
    *--sp = (uint32_t)(uintptr_t)arg;      /* r0 */
    for (int r = 0; r < 8; r++)
        *--sp = 0;                         /* r11..r4, restored by PendSV */
    t->sp = sp;
    t->name = name;
    ntasks++;
}

BOARD_NOTRACE void sched_yield(void)
{
    ICSR = ICSR_PENDSVSET;
    __asm__ volatile("dsb\n isb" ::: "memory");
}

/* Called by PendSV_Handler with the stack of the task it left (0 at the
 * first switch); returns the stack of the next task. */
BOARD_NOTRACE uint32_t *sched_next(uint32_t *sp)
{
    if (current >= 0)
        tasks[current].sp = sp;
    int next = current;
    do
        next = (next + 1) % ntasks;
    while (tasks[next].done && next != current);
    current = next;
    calltrace_task_switch(&tasks[next], tasks[next].name);
    return tasks[next].sp;
}

__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile(
        "mrs r0, psp\n"
        "cbz r0, 1f\n"
        "stmdb r0!, {r4-r11}\n"
        "1:\n"
        "bl sched_next\n"
        "ldmia r0!, {r4-r11}\n"
        "msr psp, r0\n"
        "ldr lr, =0xFFFFFFFD\n" /* to thread mode, on the process stack */
        "bx lr\n");
}

BOARD_NOTRACE void sched_start(void)
{
    SHPR3 |= 0xFFu << 16; /* PendSV: the lowest priority */
    __asm__ volatile("msr psp, %0" : : "r"(0));
    sched_yield();
    for (;;)
        ;
}
