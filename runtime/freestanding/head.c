/*
 * calltrace-fw.c - function entry/exit tracing runtime for `calltrace`, for
 * microcontrollers and other targets without an operating system.
 *
 * Compile this file into your firmware together with your own sources, all
 * of them built with -finstrument-functions.  It needs no OS and no C
 * library: it includes only <stdint.h> and <stddef.h>, calls nothing (no
 * memset, no memcpy) and links with -nostdlib.  Every entry and exit goes
 * into one global object, `calltrace_buffer`, in RAM; take it off the target
 * by semihosting, through your own write function (a UART), or with a
 * debugger, and read it with calltrace:
 *
 *     calltrace runtime --freestanding > calltrace-fw.c
 *     arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -g -O2 -finstrument-functions \
 *         app.c calltrace-fw.c ... -o firmware.elf
 *     (gdb) dump binary memory trace.bin &calltrace_buffer \
 *               ((char *)&calltrace_buffer) + sizeof(calltrace_buffer)
 *     calltrace graph firmware.elf --trace trace.bin
 *
 * Tested with GCC 12 for Cortex-M0 (ARMv6-M), Cortex-M3 (ARMv7-M),
 * Cortex-M33 (ARMv8-M), RV32IMAC, and x86-64 (with a CALLTRACE_CLOCK), at
 * -O0 to -O2.  Compile it as C (gnu99 or later), single core only.
 * Functions must start at even addresses, but for the Thumb bit (bit 0 of
 * an event holds its kind): on x86 build with -falign-functions=2 or -O2.
 *
 * API (every function here is no_instrument_function; declare the ones you
 * call):
 *
 *   void   calltrace_start(void);   resume recording (on from reset)
 *   void   calltrace_stop(void);    pause recording
 *   void   calltrace_clear(void);   empty the buffer (the task table stays)
 *   void   calltrace_task_switch(const void *task, const char *name);
 *          the following thread-mode calls belong to this task (an RTOS's
 *          task-switch hook calls it; the name is copied)
 *   size_t calltrace_dump(void (*write)(const void *data, size_t len, void *ctx),
 *                         void *ctx);
 *          hands the buffer's bytes to `write` (one call), returns how many;
 *          recording pauses meanwhile and then goes on as it was
 *   int    calltrace_dump_semihosting(const char *path);
 *          writes them to a file on the host through semihosting (a
 *          debugger or QEMU with -semihosting-config enable=on); 0 on
 *          success.  Without a debugger attached the breakpoint faults.
 *
 * Options (-D on the compiler's command line):
 *
 *   CALLTRACE_EVENTS=N     event slots (default 4096); each is 8 bytes on a
 *                          32-bit target (16 on a 64-bit one)
 *   CALLTRACE_MODE=CALLTRACE_MODE_STOP   (default) stop recording when the
 *                          buffer is full and count what is dropped
 *   CALLTRACE_MODE=CALLTRACE_MODE_RING   flight recorder: keep the last N
 *                          events, overwriting the oldest
 *   CALLTRACE_TASKS=N      tasks remembered by name (default 16); more share
 *                          the context "other tasks"
 *   CALLTRACE_TASK_NAME=N  bytes kept of a task's name, with its NUL
 *                          (default 16)
 *   CALLTRACE_CLOCK()      an expression giving the time (its low 32 bits
 *                          are kept), such as a timer's counter register,
 *                          (*(volatile uint32_t *)0x40000024); must not
 *                          call instrumented code
 *   CALLTRACE_DECLARE      declarations the macros need, put at file scope:
 *                          -D'CALLTRACE_DECLARE=uint32_t now(void);'
 *   CALLTRACE_CLOCK_HZ=HZ  the clock's rate, written into the buffer so that
 *                          calltrace prints seconds (else "cycles")
 *   CALLTRACE_UNTIMED      record no time at all (events are only ordered)
 *   CALLTRACE_LOCK()       an expression that masks interrupts and gives a
 *   CALLTRACE_UNLOCK(key)  key (uintptr_t) to restore them with; both or
 *                          neither (default: PRIMASK on Cortex-M, mstatus.MIE
 *                          on RISC-V, nothing elsewhere)
 *   CALLTRACE_EXCEPTION()  the number of the exception being handled, 0 in
 *                          thread mode (default: IPSR on Cortex-M, 0
 *                          elsewhere)
 *
 * Clock.  Without CALLTRACE_CLOCK the runtime picks one at the first event
 * and says which in the buffer's header: on ARMv7-M and ARMv8-M mainline the
 * DWT cycle counter, enabled by the runtime, if it advances (QEMU's stays 0;
 * a Cortex-M7's locked DWT too: unlock it, DWT->LAR = 0xC5ACCE55, first);
 * else, and on ARMv6-M (no DWT), the SysTick counter extended by its wraps
 * (started with reload 0xFFFFFF on the processor clock if nobody enabled
 * it; a gap of more than one SysTick period between two events loses whole
 * periods); on RISC-V mcycle if it advances; else an event counter (calltrace
 * then treats the trace as untimed).
 *
 * Interrupts.  Each event is recorded with interrupts masked, so a handler
 * that arrives mid-record waits a few cycles.  Calls made while IPSR is not
 * 0 (in an exception handler) belong to the context of that exception, one
 * per exception number, which calltrace shows as a thread named by the
 * handler (SysTick_Handler) or "exception N".
 *
 * The buffer format is specified in calltrace's docs/binary-format.md
 * ("The freestanding buffer format").  When recording passes from one
 * context (task, exception, thread mode) to another, the runtime writes a
 * context-switch record first, which takes a slot of its own: the ring
 * keeps exactly the last CALLTRACE_EVENTS entries and exits only in a
 * program without task switches or interrupts.
 *
 * Source: `calltrace runtime --freestanding` prints this file, put together
 * from the files of runtime/freestanding/ and runtime/common.h in calltrace's
 * sources (common.h is shared with the Linux runtime); change those parts,
 * not this file.
 */

