/* ------------------------------------------------------------------ */
/* Shared by both runtimes                                              */

/* What the Linux runtime and the freestanding runtime have in common:
 * how the hooks are declared and kept out of the instrumentation, and what
 * an event's kind is.  Both printed runtimes (`calltrace runtime`,
 * `calltrace runtime --freestanding`) carry this part verbatim, so the two
 * cannot disagree on it.  It needs only <stddef.h> and <stdint.h>. */
#include <stddef.h>
#include <stdint.h>

/* The runtime's own functions are never instrumented (a hook calling an
 * instrumented function would recurse). */
#define CT_NOINST __attribute__((no_instrument_function))
#define CT_HOOK __attribute__((no_instrument_function, visibility("default")))
#define CT_LIKELY(x) __builtin_expect(!!(x), 1)
#define CT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Orders memory accesses against a signal or interrupt handler on this
 * core (a compiler barrier, no instruction). */
#define CT_BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* An event's kind: the function was entered or left. */
#define CT_ENTRY 0u
#define CT_EXIT 1u
/* The kind in the top bit of a 64-bit word (the Linux runtime's events). */
#define CT_KIND_TOP(kind) ((uint64_t)(kind) << 63)
/* The kind in the low bit of a function address (the freestanding
 * runtime's events): the address's own low bit (Thumb) is dropped, as code
 * is at least 2-byte aligned. */
#define CT_KIND_LOW(fn, kind) (((uintptr_t)(fn) & ~(uintptr_t)1) | (uintptr_t)(kind))

#ifdef __cplusplus
extern "C" {
#endif
/* The hooks that -finstrument-functions calls around every function. */
CT_HOOK void __cyg_profile_func_enter(void *this_fn, void *call_site);
CT_HOOK void __cyg_profile_func_exit(void *this_fn, void *call_site);
#ifdef __cplusplus
}
#endif

