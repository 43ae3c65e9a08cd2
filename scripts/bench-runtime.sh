#!/usr/bin/env bash
# bench-runtime.sh - overhead of the tracing runtime on real third-party C
# programs (issue 12, targets 2 and 4), against their uninstrumented runs.
#
#   scripts/bench-runtime.sh                  # full run, a few minutes
#   BENCH_SMOKE=1 scripts/bench-runtime.sh    # tiny inputs, checks the script works
#
# Three programs nobody here wrote (four rows: zstd runs twice), from the C sources bundled in crates
# (scripts/third-party.sh), each with a small driver:
#   zlib  compress2 (level 6) + uncompress of 64 MiB of generated text in
#         64 KiB pieces: about 75 M events per run, 20 M per second of its
#         plain run time (deflate's loops are long, its functions big);
#   zstd  ZSTD_compress (level 3) + ZSTD_decompress of 64 MiB in 1 MiB
#         pieces: 72 M events, about 190 M per second of plain run time, a
#         very call-heavy program. Its per-byte static inline helpers live in
#         headers and are left out of the instrumentation
#         (-finstrument-functions-exclude-file-list=.h), as one does for such
#         helpers (with them even the empty hooks cost 5x);
#   zstd-mt the same zstd build compressing with 4 worker threads
#         (ZSTD_c_nbWorkers) in 8 MiB pieces: 5 traced threads, more than
#         a 2-core machine has CPUs;
#   sqlite  an SQL workload on an in-memory SQLite 3 database (inserts of
#         100 k rows, two indexes, an update, a delete, grouping, sorting
#         and a join): about 95 M events, 600 M per second of plain run
#         time, the densest of the three. Its -O2 build takes a minute or
#         two, so the smoke run (BENCH_SMOKE) leaves it out.
#
# Each program is built four ways, all -O2 -g: plain (the reference of
# every ratio), with empty __cyg_profile_func_* hooks (the floor any tracer
# built on -finstrument-functions pays: the physical reference), with hooks
# that only store each event into a ring in memory and never write it (the
# floor of any tracer that records every event: the untimed rows' physical
# reference), and with runtime/calltrace.c, run in each mode. `uftrace
# record` runs on the hook-less instrumented build as a comparison when
# uftrace is installed.
#
# Times are wall-clock seconds, best of BENCH_RUNS runs (default 3): the
# runtime's writer thread encodes and writes on the other core, which is
# what the wall time of a traced run shows on a machine with a free core.
# The cpu column is user + system time of the same run (both threads).
# BENCH_BASIS=cpu compares CPU times instead.
#
# A timestamp costs one rdtsc per event; the script measures that cost on
# this machine and prints, for the timed rows, the floor it sets on this
# program: (hooks time + events x rdtsc cost) / plain time. A target below
# that floor cannot be met by any tracer that timestamps every event. The
# text rows also show the time `dd` takes to write a file of the text
# trace's size: a text trace cannot be written faster than that, whoever
# formats it. A verdict says when its target is below such a floor.
#
# Rows: target  what  ours  cpu  reference  ratio  peak RSS  result
# (target 2: binary with timestamps <= 2x, CALLTRACE_CLOCK=none <= 1.5x;
# target 4: text <= 4x; load: binary traces with the other CPUs busy, against
# the same without the writer thread, <= 1.5x). Traces go to a temporary directory (BENCH_TMP,
# default $TMPDIR or /tmp), deleted at exit.
#
# Environment: BENCH_SMOKE, BENCH_RUNS, BENCH_BASIS (wall or cpu),
# BENCH_PROGRAMS (default "zlib zstd zstd-mt sqlite"; no sqlite when smoke),
# BENCH_TMP, CC.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-3}
cc=${CC:-gcc}
basis=${BENCH_BASIS:-wall}
if [[ -n "${BENCH_SMOKE:-}" ]]; then
    runs=${BENCH_RUNS:-1}
    zlib_kib=1024 zstd_mib=1 zstd_mt_mib=8 sqlite_krows=2
    programs=${BENCH_PROGRAMS:-zlib zstd zstd-mt}
else
    zlib_kib=65536 zstd_mib=64 zstd_mt_mib=64 sqlite_krows=100
    programs=${BENCH_PROGRAMS:-zlib zstd zstd-mt sqlite}
fi
tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/calltrace-rtbench.XXXXXX")
spin=() # busy processes of the loaded rows, killed at exit whatever happens
trap 'kill "${spin[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT

if [[ ! -x /usr/bin/time ]]; then
    echo "bench-runtime.sh: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
fi

cat >"$tmp/hooks.c" <<'EOF'
void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; }
void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; }
EOF
# Hooks that count events, for the number of events per run.
cat >"$tmp/count.c" <<'EOF'
#include <stdio.h>
static unsigned long long n;
void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED); }
void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; __atomic_fetch_add(&n, 1, __ATOMIC_RELAXED); }
__attribute__((destructor)) static void report(void) {
    FILE *o = fopen("events.count", "w");
    if (o) { fprintf(o, "%llu\n", n); fclose(o); }
}
EOF
# Hooks that store each event (8 bytes: the address, the kind in bit 63)
# into a 512 KiB ring of its thread and nothing else: the least any
# recording costs.
cat >"$tmp/store.c" <<'EOF'
#include <stdint.h>
static __thread uint64_t ring[65536] __attribute__((tls_model("initial-exec")));
static __thread uint64_t *pos __attribute__((tls_model("initial-exec")));
static __thread uint64_t *lim __attribute__((tls_model("initial-exec")));
__attribute__((no_instrument_function, noinline)) static void wrap(void) {
    pos = ring;
    lim = ring + 65536;
}
__attribute__((no_instrument_function)) static inline void rec(uint64_t v) {
    uint64_t *p = pos;
    if (__builtin_expect(p >= lim, 0)) {
        wrap();
        p = pos;
    }
    *p = v;
    pos = p + 1;
}
void __cyg_profile_func_enter(void *f, void *c) { (void)c; rec((uint64_t)f); }
void __cyg_profile_func_exit(void *f, void *c) { (void)c; rec((uint64_t)f | (1ull << 63)); }
EOF
# The cost of one rdtsc, as the runtime reads it (best of 5 x 50 M reads).
cat >"$tmp/rdtsc.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
int main(void) {
    double best = 1e9;
    unsigned long long sink = 0;
    for (int r = 0; r < 5; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < 50000000; i++) sink += __rdtsc();
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 5e7;
        if (ns < best) best = ns;
    }
    printf("%.2f\n", best + (sink == 1) * 0.0);
    return 0;
}
EOF
"$cc" -O2 -c "$tmp/hooks.c" -o "$tmp/hooks.o"
"$cc" -O2 -c "$tmp/count.c" -o "$tmp/count.o"
"$cc" -O2 -c "$tmp/store.c" -o "$tmp/store.o"
"$cc" -O2 -c "$root/runtime/calltrace.c" -o "$tmp/calltrace.o"
rdtsc_ns=0
if [[ $(uname -m) == x86_64 ]] && "$cc" -O2 "$tmp/rdtsc.c" -o "$tmp/rdtsc" 2>/dev/null; then
    rdtsc_ns=$("$tmp/rdtsc")
fi

# link DIR: the plain, hooks, store, count, traced and bare (hook-less, for
# uftrace) programs from DIR/plain/*.o and DIR/inst/*.o.
link() {
    local d=$1
    "$cc" "$d"/plain/*.o -o "$d/plain.exe" -lm -pthread
    "$cc" "$d"/inst/*.o "$tmp/hooks.o" -o "$d/hooks.exe" -lm -pthread
    "$cc" "$d"/inst/*.o "$tmp/store.o" -o "$d/store.exe" -lm -pthread
    "$cc" "$d"/inst/*.o "$tmp/count.o" -o "$d/count.exe" -lm -pthread
    "$cc" "$d"/inst/*.o "$tmp/calltrace.o" -o "$d/traced.exe" -lm -pthread
    "$cc" "$d"/inst/*.o -o "$d/bare.exe" -lm -pthread # glibc's no-op hooks, replaced by uftrace
}

# compile DIR SRCDIR FLAGS -- FILES...: DIR/plain/*.o and DIR/inst/*.o, one
# compiler per core (each file's two builds may run side by side).
compile() {
    local d=$1 inc=$2
    shift 2
    local flags=()
    while [[ $1 != -- ]]; do
        flags+=("$1")
        shift
    done
    shift
    mkdir -p "$d/plain" "$d/inst"
    for f in "$@"; do printf 'plain\0%s\0inst\0%s\0' "$f" "$f"; done |
        CC_=$cc INC_=$inc D_=$d FLAGS_="${flags[*]:-}" xargs -0 -n 2 -P "$(nproc)" sh -c '
            how=$0 f=$1 o=$(basename "$1" .c).o extra=
            [ "$how" = inst ] && extra="-finstrument-functions -finstrument-functions-exclude-file-list=.h"
            $CC_ -O2 -g -I"$INC_" $FLAGS_ $extra -c "$f" -o "$D_/$how/$o"'
}

setup_zlib() {
    local src d=$tmp/zlib f files=()
    src=$("$root/scripts/third-party.sh" zlib)
    for f in adler32 compress crc32 deflate inflate inffast inftrees trees uncompr zutil; do files+=("$src/$f.c"); done
    compile "$d" "$src" -- "$root/scripts/drivers/zlib-drive.c" "${files[@]}"
    link "$d"
    prog_dir=$d prog_args=("$zlib_kib")
    prog_label="zlib level 6, $((zlib_kib / 1024)) MiB compressed and decompressed in 64 KiB pieces"
}

setup_zstd() {
    local src d=$tmp/zstd
    src=$("$root/scripts/third-party.sh" zstd)
    cat >"$tmp/zstd-drive.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zstd.h"
/* Compresses and decompresses N MiB of generated text in pieces: 1 MiB
 * with ZSTD_compress, or 8 MiB with W worker threads (ZSTD_c_nbWorkers). */
int main(int argc, char **argv) {
    size_t mb = argc > 1 ? strtoul(argv[1], 0, 10) : 1;
    int workers = argc > 2 ? atoi(argv[2]) : 0;
    size_t piece = (size_t)(workers ? 8 : 1) << 20, total = 0, i, k;
    static const char *words[] = {"call", "trace", "graph", "tree", "node", "edge",
                                  "thread", "time", "func", "main", "leaf", "root"};
    char *in = malloc(piece), *back = malloc(piece);
    size_t cap = ZSTD_compressBound(piece);
    char *out = malloc(cap);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    unsigned long long seed = 88172645463325252ull;
    if (workers && ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_nbWorkers, workers))) return 3;
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
    for (k = 0; k < (mb << 20) / piece; k++) {
        for (i = 0; i < piece; i++) {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            const char *w = words[seed % 12];
            size_t n = strlen(w);
            for (size_t j = 0; j < n && i < piece; j++) in[i++] = w[j];
            if (i < piece) in[i] = (seed >> 20) % 9 ? ' ' : '\n';
        }
        size_t c = ZSTD_compress2(cctx, out, cap, in, piece);
        if (ZSTD_isError(c)) return 1;
        size_t d = ZSTD_decompress(back, piece, out, c);
        if (d != piece || memcmp(in, back, piece)) return 2;
        total += c;
    }
    printf("%zu\n", total);
    return 0;
}
EOF
    local files=("$tmp/zstd-drive.c")
    mapfile -d '' -O 1 files < <(find "$src/common" "$src/compress" "$src/decompress" -name '*.c' -print0)
    compile "$d" "$src" -DZSTD_DISABLE_ASM -DZSTD_MULTITHREAD -- "${files[@]}"
    link "$d"
    prog_dir=$d prog_args=("$zstd_mib")
    prog_label="zstd level 3, $zstd_mib MiB compressed and decompressed in 1 MiB pieces"
}

# zstd-mt: the same build, compressing with 4 worker threads (8 MiB
# pieces): 5 traced threads on however many CPUs.
setup_zstd-mt() {
    [[ -x $tmp/zstd/traced.exe ]] || setup_zstd
    prog_dir=$tmp/zstd prog_args=("$zstd_mt_mib" 4)
    prog_label="zstd level 3 with 4 worker threads, $zstd_mt_mib MiB in 8 MiB pieces"
}

setup_sqlite() {
    local src d=$tmp/sqlite
    src=$("$root/scripts/third-party.sh" sqlite)
    cat >"$tmp/sqlite-drive.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"
/* An SQL workload on N thousand rows of an in-memory database; prints
 * every result row, so that a traced run can be checked against a plain one. */
static int show(void *u, int n, char **v, char **c) {
    (void)u; (void)c;
    for (int i = 0; i < n; i++) printf("%s%s", i ? "|" : "", v[i] ? v[i] : "NULL");
    printf("\n");
    return 0;
}
int main(int argc, char **argv) {
    int k = argc > 1 ? atoi(argv[1]) : 10;
    char sql[2048], *err = 0;
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 1;
    snprintf(sql, sizeof sql,
        "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL, d INTEGER);"
        "INSERT INTO t(b, c, d) WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < %d)"
        "  SELECT printf('row %%d %%x', i, i * 7919), i * 0.5, (i * 2654435761) %% 1000 FROM r;"
        "CREATE INDEX tb ON t(b);"
        "CREATE INDEX td ON t(d, c);"
        "SELECT count(*), sum(c) FROM t WHERE b LIKE 'row 1%%';"
        "UPDATE t SET c = c * 2 WHERE a %% 3 = 0;"
        "SELECT d, count(*), avg(c) FROM t GROUP BY d ORDER BY 2 DESC, 1 LIMIT 5;"
        "DELETE FROM t WHERE a %% 5 = 0;"
        "SELECT b, c FROM t WHERE d BETWEEN 100 AND 110 ORDER BY c DESC LIMIT 5;"
        "SELECT count(*) FROM t AS x JOIN t AS y ON x.d = y.a %% 1000 WHERE y.a < 2000;",
        k * 1000);
    if (sqlite3_exec(db, sql, show, 0, &err) != SQLITE_OK) { fprintf(stderr, "%s\n", err); return 1; }
    sqlite3_close(db);
    return 0;
}
EOF
    compile "$d" "$src" -- "$tmp/sqlite-drive.c" "$src/sqlite3.c"
    link "$d"
    prog_dir=$d prog_args=("$sqlite_krows")
    prog_label="SQLite, $sqlite_krows k rows inserted, indexed, updated, deleted, grouped, sorted and joined in memory"
}

# measure NAME CMD...: runs CMD (stdout kept in $tmp/out.NAME) BENCH_RUNS
# times in $tmp; sets secs (best time per BENCH_BASIS), cpu and rss_kb
# (peak RSS) of that run. Before each run, untimed: the trace named by
# $fresh (if set, a file or uftrace's directory) is deleted and dirty pages are written out, so that no
# run pays for truncating the previous run's trace or for its writeback.
measure() {
    local name=$1 best="" line i
    shift
    for ((i = 0; i < runs; i++)); do
        if [[ -n "${fresh:-}" ]]; then
            rm -rf "$fresh" "$fresh.old"
            sync
        fi
        (cd "$tmp" && /usr/bin/time -f '%e %U %S %M' -o "$tmp/time.$name" "$@" >"$tmp/out.$name" 2>"$tmp/err.$name") || {
            echo "bench-runtime.sh: $name failed:" >&2
            cat "$tmp/err.$name" >&2
            exit 1
        }
        line=$(tail -n1 "$tmp/time.$name" | awk -v b="$basis" '{ printf "%.2f %.2f %s", (b == "cpu" ? $2 + $3 : $1), $2 + $3, $4 }')
        if [[ -z "$best" ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
            best=$line
        fi
    done
    read -r secs cpu rss_kb <<<"$best"
    if [[ $name != plain && $name != dd ]] && ! cmp -s "$tmp/out.$name" "$tmp/out.plain"; then
        echo "bench-runtime.sh: $name printed something else than the plain run" >&2
        exit 1
    fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "PASS" : "FAIL") }'; }
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k / 1024 }'; }
size() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
row() { printf '%-6s %-44s %8s %8s %-14s %7s %9s  %s\n' "$@"; }

# trace NAME FORMAT CLOCK TARGET LABEL ID: one traced mode of the program.
# The verdict names the floor that applies to the mode: the timestamps'
# (timed), bare ring stores' (untimed); for text, writing its bytes (the
# dd row printed after it) counts too. A target below its floor is said so.
trace() {
    local name=$1 format=$2 clock=$3 target=$4 label=$5 id=$6 r f note="" bytes
    fresh=$tmp/trace.$name
    measure "$name" env CALLTRACE_FORMAT="$format" CALLTRACE_CLOCK="$clock" \
        CALLTRACE_OUT="$tmp/trace.$name" "$prog_dir/traced.exe" "${prog_args[@]}"
    fresh=
    r=$(ratio "$secs" "$plain")
    f=$store_floor
    if [[ $clock != none ]] && above "$rdtsc_ns" 0; then
        f=$floor note=", rdtsc floor ${floor}x"
    else
        note=", store floor ${store_floor}x"
    fi
    bytes=$(stat -c %s "$tmp/trace.$name")
    local t_secs=$secs t_cpu=$cpu t_rss=$rss_kb dd_secs=""
    rm -f "$tmp/trace.$name"
    if [[ $format == text ]]; then
        fresh=$tmp/dd.out
        measure dd dd if=/dev/zero of="$tmp/dd.out" bs=512K count=$(((bytes + 524287) / 524288)) status=none
        fresh=
        rm -f "$tmp/dd.out"
        dd_secs=$secs
        if above "$(ratio "$dd_secs" "$plain")" "$f"; then
            f=$(ratio "$dd_secs" "$plain") note=", writing its bytes ${f}x"
        fi
    fi
    above "$f" "$target" && note="$note: target below this machine's floor"
    row "$id" "$label ($(awk -v b="$bytes" 'BEGIN { printf "%.0f MB", b / 1e6 }'))" "${t_secs} s" "${t_cpu} s" \
        "plain ${plain} s" "${r}x" "$(mib "$t_rss")" "$(verdict "$r" "$target") (<= ${target}x$note)"
    if [[ -n $dd_secs ]]; then
        row - "$p: dd writing as many bytes to a file" "${dd_secs} s" "${cpu} s" "plain ${plain} s" \
            "$(ratio "$dd_secs" "$plain")x" "$(mib "$rss_kb")" "(reference)"
    fi
}

# loaded NAME CLOCK LABEL: the traced program (binary trace) on a machine
# whose other CPUs are busy: one spinning process for every CPU but one, so
# that the traced thread and the writer share one CPU. The reference is the
# same run with CALLTRACE_WRITER=0 (each thread writes its own ring): the
# writer thread must never make a loaded machine slower than doing without
# it (a traced thread that waited for a writer without a CPU made zstd 10x
# slower here once). Target: within 1.5x of that reference (the collapse was 5-30x; loaded runs vary by 20%).
loaded() {
    local name=$1 clock=$2 label=$3 i n ours ours_cpu ours_rss
    n=$(($(nproc) - 1))
    ((n >= 1)) || { row - "$label" - - - - - "(one CPU: nothing to share)"; return; }
    for ((i = 0; i < n; i++)); do
        sh -c 'while :; do :; done' &
        spin+=($!)
    done
    fresh=$tmp/trace.$name
    measure "$name" env CALLTRACE_FORMAT=binary CALLTRACE_CLOCK="$clock" \
        CALLTRACE_OUT="$tmp/trace.$name" "$prog_dir/traced.exe" "${prog_args[@]}"
    ours=$secs ours_cpu=$cpu ours_rss=$rss_kb
    measure "$name-w0" env CALLTRACE_WRITER=0 CALLTRACE_FORMAT=binary CALLTRACE_CLOCK="$clock" \
        CALLTRACE_OUT="$tmp/trace.$name" "$prog_dir/traced.exe" "${prog_args[@]}"
    fresh=
    kill "${spin[@]}" 2>/dev/null
    wait "${spin[@]}" 2>/dev/null || true
    spin=()
    rm -f "$tmp/trace.$name"
    local r
    r=$(ratio "$ours" "$secs")
    row load "$label" "${ours} s" "${ours_cpu} s" "no writer ${secs} s" "${r}x" "$(mib "$ours_rss")" \
        "$(verdict "$r" 1.5) (<= 1.5x)"
}

echo "rdtsc: ${rdtsc_ns} ns a read; times: ${basis} seconds, best of $runs"
row target what ours cpu reference ratio "peak RSS" result
for p in $programs; do
    "setup_$p"
    measure plain "$prog_dir/plain.exe" "${prog_args[@]}"
    plain=$secs
    (cd "$tmp" && "$prog_dir/count.exe" "${prog_args[@]}" >/dev/null)
    events=$(cat "$tmp/events.count")
    echo "$p: $prog_label; $(awk -v e="$events" -v s="$plain" 'BEGIN { printf "%.1f M events, %.0f M events per second of the plain run", e / 1e6, (s > 0 ? e / s / 1e6 : 0) }')"
    measure hooks "$prog_dir/hooks.exe" "${prog_args[@]}"
    hooks=$secs
    floor=$(awk -v h="$hooks" -v e="$events" -v c="$rdtsc_ns" -v p="$plain" 'BEGIN { printf "%.2f", (p > 0 && c > 0 ? (h + e * c / 1e9) / p : 0) }')
    row - "$p: empty hooks (the floor)" "${hooks} s" "${cpu} s" "plain ${plain} s" "$(ratio "$hooks" "$plain")x" "$(mib "$rss_kb")" "(reference)"
    measure store "$prog_dir/store.exe" "${prog_args[@]}"
    store_floor=$(ratio "$secs" "$plain")
    row - "$p: bare ring stores, nothing written" "${secs} s" "${cpu} s" "plain ${plain} s" "${store_floor}x" "$(mib "$rss_kb")" "(reference)"
    trace binary binary auto 2 "$p: binary, timestamps" 2
    trace none binary none 1.5 "$p: binary, CALLTRACE_CLOCK=none" 2
    trace text text auto 4 "$p: text, timestamps" 4
    loaded loaded auto "$p: binary, timestamps, other CPUs busy"
    loaded loaded-none none "$p: binary, untimed, other CPUs busy"
    if command -v uftrace >/dev/null; then
        fresh=$tmp/uftrace.data
        measure uftrace uftrace record -d "$tmp/uftrace.data" "$prog_dir/bare.exe" "${prog_args[@]}"
        fresh=
        row - "$p: uftrace record (same program)" "${secs} s" "${cpu} s" "plain ${plain} s" "$(ratio "$secs" "$plain")x" "$(mib "$rss_kb")" "(comparison)"
        rm -rf "$tmp/uftrace.data"
    else
        row - "$p: uftrace record" - - - - - "(uftrace not installed)"
    fi
done
