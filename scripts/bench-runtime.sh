#!/usr/bin/env bash
# bench-runtime.sh - overhead of the tracing runtime on a real third-party C
# program (issue 12): zstd's library (fetched by scripts/third-party.sh)
# with a small driver that compresses and decompresses generated text.
#
#   scripts/bench-runtime.sh                  # full run, about a minute
#   BENCH_SMOKE=1 scripts/bench-runtime.sh    # tiny input, a few seconds
#
# zstd's static inline helpers live in its headers and run per byte; as one
# usually does for such helpers, they are left out of the instrumentation
# (-finstrument-functions-exclude-file-list=.h), which leaves the program
# making about 140 M events per second of its own (plain) run time.
#
# The program is built three times: plain (no instrumentation), with empty
# __cyg_profile_func_* hooks (the floor any tracer pays for the calls
# -finstrument-functions adds: the physical reference) and with
# runtime/calltrace.c. The traced build runs in each runtime mode; when
# uftrace is installed, `uftrace record` runs on the hook-less instrumented
# build as a comparison. One row per measurement:
#   target  what  ours  reference  ratio  peak RSS  result
# (target 2: the binary modes of issue 12.2; target 4: text, issue 12.4)
# where ratio = ours / plain run and result is PASS/FAIL against the targets:
# binary with timestamps <= 2x, CALLTRACE_CLOCK=none <= 1.5x, text <= 4x.
# Times are CPU seconds (user + system) by default: the driver is
# single-threaded and the runtime does all its work on the traced thread, so
# on an idle machine this equals the wall time, and it stays meaningful on a
# loaded one. BENCH_BASIS=wall compares wall-clock times instead. Each is the
# best of BENCH_RUNS runs (default 3); traces go to a temporary directory
# (BENCH_TMP, default $TMPDIR or /tmp), deleted at exit.
#
# Environment: BENCH_SMOKE, BENCH_RUNS, BENCH_MB (input size in MiB,
# default 16; 1 with BENCH_SMOKE), BENCH_BASIS (cpu or wall), BENCH_TMP, CC.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
runs=${BENCH_RUNS:-3}
cc=${CC:-gcc}
basis=${BENCH_BASIS:-cpu}
if [[ -n "${BENCH_SMOKE:-}" ]]; then
    mb=${BENCH_MB:-1}
    runs=${BENCH_RUNS:-1}
else
    mb=${BENCH_MB:-16}
fi
mb=$(awk -v m="$mb" 'BEGIN { printf "%d", (m < 1 ? 1 : m) }') # whole MiB, at least 1
tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/calltrace-rtbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x /usr/bin/time ]]; then
    echo "bench-runtime.sh: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
fi
zstd=$("$root/scripts/third-party.sh" zstd)

# The driver: compress and decompress MB MiB of generated text in 1 MiB
# pieces at level 3, and check the round trip.
cat >"$tmp/driver.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "zstd.h"
int main(int argc, char **argv) {
    size_t piece = 1 << 20, mb = argc > 1 ? strtoul(argv[1], 0, 10) : 1;
    static const char *words[] = {"call", "trace", "graph", "tree", "node", "edge",
                                  "thread", "time", "func", "main", "leaf", "root"};
    char *in = malloc(piece), *back = malloc(piece);
    size_t cap = ZSTD_compressBound(piece), total = 0, i, k;
    char *out = malloc(cap);
    unsigned long long seed = 88172645463325252ull;
    for (k = 0; k < mb; k++) {
        for (i = 0; i < piece; i++) {
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
            const char *w = words[seed % 12];
            size_t n = strlen(w);
            for (size_t j = 0; j < n && i < piece; j++) in[i++] = w[j];
            if (i < piece) in[i] = (seed >> 20) % 9 ? ' ' : '\n';
        }
        size_t c = ZSTD_compress(out, cap, in, piece, 3);
        if (ZSTD_isError(c)) return 1;
        size_t d = ZSTD_decompress(back, piece, out, c);
        if (d != piece || memcmp(in, back, piece)) return 2;
        total += c;
    }
    printf("%zu\n", total);
    return 0;
}
EOF
cat >"$tmp/hooks.c" <<'EOF'
void __cyg_profile_func_enter(void *f, void *c) { (void)f; (void)c; }
void __cyg_profile_func_exit(void *f, void *c) { (void)f; (void)c; }
EOF

# build DIR FLAGS...: compiles zstd's library and the driver into DIR/*.o
# (two compilers at a time).
build() {
    local dir=$1
    shift
    mkdir -p "$dir"
    find "$zstd/common" "$zstd/compress" "$zstd/decompress" -name '*.c' -print0 |
        xargs -0 -P "$(nproc)" -I{} sh -c 'cc=$0 inc=$1 out=$2; shift 2; "$cc" -O2 -g -DZSTD_DISABLE_ASM -I"$inc" "$@" -c {} -o "$out/$(basename {} .c).o"' \
            "$cc" "$zstd" "$dir" "$@"
    "$cc" -O2 -g -I"$zstd" "$@" -c "$tmp/driver.c" -o "$dir/driver.o"
}
build "$tmp/plain"
build "$tmp/inst" -finstrument-functions -finstrument-functions-exclude-file-list=.h
"$cc" -O2 -c "$tmp/hooks.c" -o "$tmp/hooks.o"
"$cc" -O2 -c "$root/runtime/calltrace.c" -o "$tmp/calltrace.o"
"$cc" "$tmp"/plain/*.o -o "$tmp/zb-plain"
"$cc" "$tmp"/inst/*.o "$tmp/hooks.o" -o "$tmp/zb-hooks"
"$cc" "$tmp"/inst/*.o "$tmp/calltrace.o" -o "$tmp/zb-traced"
"$cc" "$tmp"/inst/*.o -o "$tmp/zb-bare" # glibc's no-op hooks, replaced by uftrace

# measure NAME CMD...: runs CMD (stdout kept in $tmp/out.NAME) BENCH_RUNS
# times in $tmp; sets secs (best time, CPU or wall per BENCH_BASIS), wall
# and rss_kb (peak RSS) of that run.
measure() {
    local name=$1 best="" line
    shift
    for ((i = 0; i < runs; i++)); do
        (cd "$tmp" && /usr/bin/time -f '%U %S %e %M' -o "$tmp/time.$name" "$@" >"$tmp/out.$name" 2>"$tmp/err.$name") || {
            echo "bench-runtime.sh: $name failed:" >&2
            cat "$tmp/err.$name" >&2
            exit 1
        }
        line=$(tail -n1 "$tmp/time.$name" | awk -v b="$basis" '{ printf "%.2f %s %s", (b == "wall" ? $3 : $1 + $2), $3, $4 }')
        if [[ -z "$best" ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
            best=$line
        fi
    done
    read -r secs wall rss_kb <<<"$best"
    if ! cmp -s "$tmp/out.$name" "$tmp/out.plain" 2>/dev/null && [[ $name != plain ]]; then
        echo "bench-runtime.sh: $name printed something else than the plain run" >&2
        exit 1
    fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN { print (r <= t ? "PASS" : "FAIL") }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k / 1024 }'; }
size() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
row() { printf '%-6s %-40s %9s %-16s %7s %9s  %s\n' "$@"; }

measure plain "$tmp/zb-plain" "$mb"
plain=$secs
measure hooks "$tmp/zb-hooks" "$mb"
hooks=$secs
hooks_rss=$rss_kb
echo "zstd level 3, $mb MiB compressed and decompressed; plain run ${plain} s $basis time (best of $runs)"
printf '%-6s %-40s %9s %-16s %7s %9s  %s\n' target what ours reference ratio "peak RSS" result
row - "empty hooks (the floor)" "${hooks} s" "plain ${plain} s" "$(ratio "$hooks" "$plain")x" "$(mib "$hooks_rss")" "(reference)"

trace() { # NAME FORMAT CLOCK EXT TARGET LABEL ROW
    local name=$1 format=$2 clock=$3 ext=$4 target=$5 label=$6 id=$7
    measure "$name" env CALLTRACE_FORMAT="$format" CALLTRACE_CLOCK="$clock" \
        CALLTRACE_OUT="$tmp/trace.$ext" "$tmp/zb-traced" "$mb"
    local r
    r=$(ratio "$secs" "$plain")
    row "$id" "$label ($(size "$tmp/trace.$ext"))" "${secs} s" "plain ${plain} s" "${r}x" "$(mib "$rss_kb")" \
        "$(verdict "$r" "$target") (<= ${target}x)"
}
trace binary binary auto bin 2 "binary, timestamps" 2
trace none binary none none.bin 1.5 "binary, CALLTRACE_CLOCK=none" 2
trace text text auto txt 4 "text, timestamps" 4

if command -v uftrace >/dev/null; then
    measure uftrace uftrace record -d "$tmp/uftrace.data" "$tmp/zb-bare" "$mb"
    row - "uftrace record (same program)" "${secs} s" "plain ${plain} s" "$(ratio "$secs" "$plain")x" "$(mib "$rss_kb")" "(comparison)"
else
    row - "uftrace record" - - - - "(uftrace not installed)"
fi
