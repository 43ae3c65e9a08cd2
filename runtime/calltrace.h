/*
 * calltrace.h - record the calls of an interpreted program (or any code that
 * is not compiled with -finstrument-functions) with the calltrace runtime.
 *
 *     calltrace runtime > calltrace.c
 *     calltrace runtime --header > calltrace.h
 *     gcc -g interp.c calltrace.c -o interp          # your interpreter
 *     CALLTRACE_FORMAT=binary CALLTRACE_OUT=run.trace ./interp script
 *     calltrace tree --trace run.trace
 *
 * Register each method of the interpreted program once, then report every
 * call and return with its id, on the thread that runs it:
 *
 *     static uint32_t id_main;
 *     id_main = ct_method_register("main", "script.lua", 1);
 *     ct_enter(id_main);  ...  ct_exit(id_main);
 *
 * Events of methods mix freely with those of instrumented C functions.
 * Each method appears in calltrace's output as NAME@FILE:LINE (NAME without
 * a file).  Use the binary format: text traces record method calls as
 * addresses, which calltrace does not name.  All functions are thread safe.
 */
#ifndef CALLTRACE_H
#define CALLTRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers a method; returns its id (ids count from 0, in registration
 * order).  name and file may be NULL; they are copied into the trace. */
uint32_t ct_method_register(const char *name, const char *file, int line);

/* The calling thread entered / left method id. */
void ct_enter(uint32_t id);
void ct_exit(uint32_t id);

/* Names the calling thread in the trace: calltrace shows it as [name]. */
void ct_thread_name(const char *name);

/* The calling thread will record nothing more: write its buffered events
 * and release its buffer now (threads that exit do this by themselves). */
void ct_thread_end(void);

/* Writes every thread's buffered events now. */
void calltrace_flush(void);

#ifdef __cplusplus
}
#endif

#endif /* CALLTRACE_H */
