/*
 * luaprof - runs a Lua 5.4 script and records the calls of its functions
 * with the calltrace runtime's interpreter API (calltrace.h).
 *
 *     luaprof script.lua [args]       (arg is set up like lua.c does)
 *
 * The trace is binary; it goes to $CALLTRACE_OUT, default trace.bin.
 *
 * A debug hook (lua_sethook, LUA_MASKCALL | LUA_MASKRET) sees every call and
 * return.  Each function is registered once with ct_method_register():
 * Lua functions keyed by source and first line (NAME@FILE:LINE in calltrace),
 * C functions keyed by their address and shown as "[C] NAME".  The name is
 * the one Lua gives the function at its first call (ar.name); without one,
 * "function <FILE:LINE>" ("main chunk" for a chunk).
 *
 * Every Lua thread (coroutine) keeps its own stack of open frames, each
 * tagged with its CallInfo (ar.i_ci: one per stack level, so it identifies
 * the frame).  That makes the trace well nested in every case Lua can
 * produce:
 *   - Tail calls (LUA_HOOKTAILCALL) reuse the caller's CallInfo and have no
 *     return of their own: the tail-called function is shown inside the one
 *     it replaced, and its return closes both.
 *   - Errors unwind frames without return events: the next event at the same
 *     or a lower level (the return of pcall, a new call) closes them first.
 *   - Coroutines: a resume nests the coroutine's open frames inside the
 *     resuming call; a yield closes them (reopened at the next resume).  So a
 *     coroutine's functions count one call per resumed slice, under whoever
 *     resumed them.  The C function that yielded (coroutine.yield) is not
 *     reopened: its call ends at the yield.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calltrace.h"
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* The runtime reads CALLTRACE_FORMAT and CALLTRACE_OUT in its constructor
 * (priority 101): give them our defaults before that. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
__attribute__((constructor(100))) static void luaprof_defaults(void)
{
    setenv("CALLTRACE_FORMAT", "binary", 0);
    setenv("CALLTRACE_OUT", "trace.bin", 0);
}
#pragma GCC diagnostic pop

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fputs("luaprof: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------------------------
 * Registered functions: an open-addressing hash map from (source, line) of a
 * Lua function, or the address of a C function, to its method id. */

struct method {
    char *source;         /* Lua function: ar.source (NULL for C functions) */
    int line;             /* Lua function: ar.linedefined */
    lua_CFunction cfunc;  /* C function */
    uint32_t id;
};

static struct method *methods;
static size_t nmethods, methods_cap; /* cap: a power of two, or 0 */

static uint64_t hash_key(const char *source, int line, lua_CFunction cfunc)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    if (source)
        for (; *source; source++)
            h = (h ^ (unsigned char)*source) * 1099511628211u;
    else
        h ^= (uint64_t)(uintptr_t)cfunc;
    h = (h ^ (uint32_t)line) * 1099511628211u;
    return h ^ (h >> 29);
}

static int same_key(const struct method *m, const char *source, int line, lua_CFunction cfunc)
{
    if (!source)
        return !m->source && m->cfunc == cfunc;
    return m->source && m->line == line && strcmp(m->source, source) == 0;
}

/* The slot holding the key, or the empty slot where it belongs. */
static struct method *method_slot(const char *source, int line, lua_CFunction cfunc)
{
    size_t mask = methods_cap - 1, i = (size_t)hash_key(source, line, cfunc) & mask;
    while (methods[i].source || methods[i].cfunc) {
        if (same_key(&methods[i], source, line, cfunc))
            return &methods[i];
        i = (i + 1) & mask;
    }
    return &methods[i];
}

static void methods_grow(void)
{
    struct method *old = methods;
    size_t i, old_cap = methods_cap;
    methods_cap = old_cap ? old_cap * 2 : 256;
    methods = xrealloc(NULL, methods_cap * sizeof *methods);
    memset(methods, 0, methods_cap * sizeof *methods);
    for (i = 0; i < old_cap; i++)
        if (old[i].source || old[i].cfunc)
            *method_slot(old[i].source, old[i].line, old[i].cfunc) = old[i];
    free(old);
}

/* The file a Lua function's source names: "@x.lua" is file x.lua, other
 * sources ("=stdin", a string chunk) are shown as Lua shows them. */
static const char *source_file(const lua_Debug *ar)
{
    return ar->source[0] == '@' ? ar->source + 1 : ar->short_src;
}

/* Registers the function that ar describes (a call event) under its name. */
static uint32_t method_register(lua_State *L, lua_Debug *ar, lua_CFunction cfunc)
{
    char name[LUA_IDSIZE + 64];
    lua_getinfo(L, "n", ar);
    if (cfunc) {
        snprintf(name, sizeof name, "[C] %s", ar->name ? ar->name : "?");
        return ct_method_register(name, NULL, 0);
    }
    if (ar->name)
        snprintf(name, sizeof name, "%s", ar->name);
    else if (strcmp(ar->what, "main") == 0)
        snprintf(name, sizeof name, "main chunk");
    else
        snprintf(name, sizeof name, "function <%s:%d>", ar->short_src, ar->linedefined);
    return ct_method_register(name, source_file(ar), ar->linedefined);
}

/* The method id of the function being called. */
static uint32_t method_of(lua_State *L, lua_Debug *ar)
{
    lua_CFunction cfunc = NULL;
    const char *source = NULL;
    struct method *m;
    lua_getinfo(L, "S", ar);
    if (ar->what[0] == 'C') {
        lua_getinfo(L, "f", ar);
        cfunc = lua_tocfunction(L, -1);
        lua_pop(L, 1);
        if (!cfunc) /* cannot happen for a C function; keep the key valid */
            cfunc = (lua_CFunction)(uintptr_t)1;
    } else {
        source = ar->source;
    }
    if (2 * (nmethods + 1) > methods_cap)
        methods_grow();
    m = method_slot(source, ar->linedefined, cfunc);
    if (!m->source && !m->cfunc) {
        m->id = method_register(L, ar, cfunc);
        m->source = source ? strcpy(xrealloc(NULL, strlen(source) + 1), source) : NULL;
        m->line = ar->linedefined;
        m->cfunc = cfunc;
        nmethods++;
    }
    return m->id;
}

/* ------------------------------------------------------------------------
 * Open frames, per Lua thread. */

struct frame {
    const void *ci; /* the frame's CallInfo (ar.i_ci) */
    uint32_t id;
    unsigned char tail; /* entered by a tail call from the frame below */
    unsigned char c;    /* a C function */
};

struct thread {
    lua_State *L;
    struct frame *f;
    size_t n, cap;
    struct thread *next; /* hash chain */
};

#define THREAD_BUCKETS 1024u
static struct thread *threads[THREAD_BUCKETS];

/* The threads whose frames are open in the trace, innermost last: the main
 * thread, the coroutine it resumed, the one that coroutine resumed... */
static struct thread **chain;
static size_t nchain, chain_cap;

static size_t thread_bucket(const lua_State *L)
{
    return ((uintptr_t)L >> 4) % THREAD_BUCKETS;
}

static struct thread *thread_of(lua_State *L)
{
    struct thread *t, **b = &threads[thread_bucket(L)];
    for (t = *b; t; t = t->next)
        if (t->L == L)
            return t;
    t = xrealloc(NULL, sizeof *t);
    memset(t, 0, sizeof *t);
    t->L = L;
    t->next = *b;
    *b = t;
    return t;
}

static void thread_free(struct thread *t)
{
    struct thread **p = &threads[thread_bucket(t->L)];
    while (*p != t)
        p = &(*p)->next;
    *p = t->next;
    free(t->f);
    free(t);
}

static void push(struct thread *t, const void *ci, uint32_t id, int tail, int c)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->f = xrealloc(t->f, t->cap * sizeof *t->f);
    }
    t->f[t->n].ci = ci;
    t->f[t->n].id = id;
    t->f[t->n].tail = (unsigned char)tail;
    t->f[t->n].c = (unsigned char)c;
    t->n++;
    ct_enter(id);
}

/* Closes the frames from the top down to index i (included). */
static void pop_to(struct thread *t, size_t i)
{
    while (t->n > i)
        ct_exit(t->f[--t->n].id);
}

/* The index of the topmost frame of CallInfo ci, or t->n if none. */
static size_t find(const struct thread *t, const void *ci)
{
    size_t i = t->n;
    while (i > 0)
        if (t->f[--i].ci == ci)
            return i;
    return t->n;
}

/* The function at ci ends (it returns, or a new call reuses its level after
 * an error unwound it): close its frame, the frames its tail calls replaced,
 * and every frame above (left open by an error). */
static void end_level(struct thread *t, const void *ci)
{
    size_t i = find(t, ci);
    if (i == t->n)
        return; /* entered before the hook, or the C function that yielded */
    while (i > 0 && t->f[i].tail && t->f[i - 1].ci == ci)
        i--;
    pop_to(t, i);
}

/* Control left thread t (it yielded, finished or failed): close its frames
 * in the trace, and keep them to reopen if it is resumed. */
static void leave(struct thread *t)
{
    size_t i = t->n;
    while (i > 0)
        ct_exit(t->f[--i].id);
    if (t->n > 0 && t->f[t->n - 1].c)
        t->n--; /* the yielding C function: its call ended with the yield */
    if (t->n == 0)
        thread_free(t);
}

/* Makes L's thread the innermost of the chain; ar is the event on it. */
static struct thread *switch_to(lua_State *L, lua_Debug *ar)
{
    struct thread *t;
    size_t k, i;
    lua_Debug below;
    if (nchain > 0 && chain[nchain - 1]->L == L)
        return chain[nchain - 1];
    for (k = nchain; k-- > 0;) {
        if (chain[k]->L == L) { /* back in a resumer: the inner ones yielded or ended */
            while (nchain > k + 1)
                leave(chain[--nchain]);
            return chain[k];
        }
    }
    /* A coroutine starts or resumes. */
    t = thread_of(L);
    if (ar->event == LUA_HOOKCALL && !lua_getstack(L, 1, &below))
        t->n = 0; /* its first call: frames of a dead coroutine at this address are gone */
    for (i = 0; i < t->n; i++)
        ct_enter(t->f[i].id);
    if (nchain == chain_cap) {
        chain_cap = chain_cap ? 2 * chain_cap : 16;
        chain = xrealloc(chain, chain_cap * sizeof *chain);
    }
    chain[nchain++] = t;
    return t;
}

static void hook(lua_State *L, lua_Debug *ar)
{
    struct thread *t = switch_to(L, ar);
    const void *ci = ar->i_ci;
    uint32_t id;
    size_t i;
    switch (ar->event) {
    case LUA_HOOKRET:
        end_level(t, ci);
        break;
    case LUA_HOOKCALL:
        end_level(t, ci); /* an error left a frame at this level open */
        id = method_of(L, ar);
        push(t, ci, id, 0, ar->what[0] == 'C');
        break;
    case LUA_HOOKTAILCALL:
        i = find(t, ci);
        if (i < t->n)
            pop_to(t, i + 1); /* frames above the replaced one: left by an error */
        id = method_of(L, ar);
        push(t, ci, id, 1, 0);
        break;
    default:
        break;
    }
}

/* Closes every open frame, innermost first. */
static void close_all(void)
{
    while (nchain > 0) {
        struct thread *t = chain[--nchain];
        pop_to(t, 0);
    }
}

int main(int argc, char **argv)
{
    lua_State *L;
    int i, status;
    if (argc < 2) {
        fputs("usage: luaprof script.lua [args]\n", stderr);
        return 2;
    }
    L = luaL_newstate();
    if (!L) {
        fputs("luaprof: cannot create the Lua state\n", stderr);
        return 1;
    }
    luaL_openlibs(L);
    lua_createtable(L, argc - 2, 2); /* arg, as lua.c sets it */
    for (i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - 1);
    }
    lua_setglobal(L, "arg");
    if (luaL_loadfile(L, argv[1]) != LUA_OK) {
        fprintf(stderr, "luaprof: %s\n", lua_tostring(L, -1));
        lua_close(L);
        return 1;
    }
    for (i = 2; i < argc; i++)
        lua_pushstring(L, argv[i]);
    lua_sethook(L, hook, LUA_MASKCALL | LUA_MASKRET, 0);
    status = lua_pcall(L, argc - 2, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    close_all(); /* frames an error left open */
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "luaprof: %s\n", msg ? msg : "(error object is not a string)");
    }
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
