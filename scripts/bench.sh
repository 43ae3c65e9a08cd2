#!/usr/bin/env bash
# bench.sh - the issue-5 benchmark: every target measured side by side in one run.
#
#   scripts/bench.sh                 # full run: a >= 3 GB trace, a few minutes
#   BENCH_MB=0.05 scripts/bench.sh   # smoke run (what the test suite does)
#
# It builds the call-heavy C workload (testdata/workload) plain and with the
# runtime (runtime/calltrace.c), runs it uninstrumented, traced as text and
# traced as binary, uses the text trace (BENCH_MB MiB of workload input; 56
# gives ~3.4 GB) for the parsing targets, and builds a generated program of
# 10,000 functions for the symbol target. For every target it prints our
# time, the reference time, the ratio, peak resident memory (as
# /usr/bin/time reports it) and PASS/FAIL. Times are the best of
# BENCH_RUNS runs (default 3) on a page-cached file. Everything it creates
# lives in one temporary directory (under BENCH_TMP, default $TMPDIR or
# /tmp), deleted at exit.
#
# Environment: BENCH_MB, BENCH_RUNS, BENCH_TMP, CALLTRACE_BIN (a calltrace
# binary to measure instead of building target/release/calltrace), CC.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mb=${BENCH_MB:-56}
runs=${BENCH_RUNS:-3}
cc=${CC:-gcc}
funcs=${BENCH_FUNCS:-10000}
tmp=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/calltrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [[ ! -x /usr/bin/time ]]; then
    echo "bench.sh: /usr/bin/time is needed (apt-get install time)" >&2
    exit 2
fi
if [[ -n "${CALLTRACE_BIN:-}" ]]; then
    ct=$CALLTRACE_BIN
else
    (cd "$root" && cargo build --release --quiet)
    ct=$root/target/release/calltrace
fi

# measure NAME CMD...: runs CMD (stdout discarded) BENCH_RUNS times; sets
# secs (best wall time), rss_kb (peak RSS of that run) and cpu (user+sys).
measure() {
    local name=$1 best="" line
    shift
    for ((i = 0; i < runs; i++)); do
        /usr/bin/time -f '%e %M %U %S' -o "$tmp/time.$name" "$@" >/dev/null 2>"$tmp/err.$name" || {
            echo "bench.sh: $name failed:" >&2
            cat "$tmp/err.$name" >&2
            exit 1
        }
        line=$(tail -n1 "$tmp/time.$name")
        if [[ -z "$best" ]] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
            best=$line
        fi
    done
    read -r secs rss_kb user sys <<<"$best"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
verdict() { if le "$1" "$2"; then echo PASS; else echo FAIL; fi; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f MB", k / 1024 }'; }

printf '%-6s %-44s %10s %-22s %7s %9s  %s\n' target what ours reference ratio "peak RSS" result
row() { printf '%-6s %-44s %10s %-22s %7s %9s  %s\n' "$@"; }

# --- build the workload and run it three ways (target 4) -------------------
wl=$root/testdata/workload/workload.c
"$cc" -O2 -g "$wl" -o "$tmp/workload"
"$cc" -O2 -g -finstrument-functions "$wl" "$root/runtime/calltrace.c" -o "$tmp/workload-traced"

measure plain "$tmp/workload" "$mb"
plain=$secs
CALLTRACE_OUT=$tmp/big.bin CALLTRACE_FORMAT=binary measure binary "$tmp/workload-traced" "$mb"
bin_secs=$secs
bin_size=$(stat -c %s "$tmp/big.bin")
# The text run last: its trace is the one the parsing targets read.
runs_saved=$runs
runs=1
CALLTRACE_OUT=$tmp/big.trace CALLTRACE_FORMAT=text measure text "$tmp/workload-traced" "$mb"
runs=$runs_saved
text_secs=$secs
size=$(stat -c %s "$tmp/big.trace")
row 4 "workload traced, text ($(awk -v s="$size" 'BEGIN { printf "%.2f GB", s / 1e9 }'))" "${text_secs} s" "plain ${plain} s" "$(ratio "$text_secs" "$plain")x" - "(text: no target)"
row 4 "workload traced, binary ($(mib $((bin_size / 1024))))" "${bin_secs} s" "plain ${plain} s" "$(ratio "$bin_secs" "$plain")x" - "$(verdict "$(ratio "$bin_secs" "$plain")" 3) (<= 3x)"

# --- parse the big text trace (targets 1, 2, 5) ------------------------------
lines=$(wc -l <"$tmp/big.trace")
calls=$(grep -c '^E' "$tmp/big.trace" || true)
sync # let the trace's write-back finish before timing anything
cat "$tmp/big.trace" >/dev/null # page-cache it
measure wc wc -l "$tmp/big.trace"
wc_secs=$secs
label="$(awk -v l="$lines" 'BEGIN { printf "%.1f M lines", l / 1e6 }')"
[[ $size -ge 3000000000 ]] || echo "note: the trace is under 3 GB (BENCH_MB=$mb); target figures are indicative only"

measure graph "$ct" graph "$tmp/workload-traced" --trace "$tmp/big.trace" -o "$tmp/graph.dot"
graph_secs=$secs graph_rss=$rss_kb graph_cpu=$cpu
r=$(ratio "$graph_secs" "$wc_secs")
row 1 "graph, $label" "${graph_secs} s" "wc -l ${wc_secs} s" "${r}x" "$(mib "$graph_rss")" "$(verdict "$r" 2) (<= 2x)"

measure contexts "$ct" tree --view contexts "$tmp/workload-traced" --trace "$tmp/big.trace" -o "$tmp/contexts.txt"
ctx_secs=$secs ctx_rss=$rss_kb
r=$(ratio "$ctx_secs" "$wc_secs")
row 1 "tree --view contexts, $label" "${ctx_secs} s" "wc -l ${wc_secs} s" "${r}x" "$(mib "$ctx_rss")" "$(verdict "$r" 2) (<= 2x)"

row 2 "peak RSS, graph" "$(mib "$graph_rss")" "limit 256 MB" - - "$(verdict "$graph_rss" 262144) (<= 256 MB)"
row 2 "peak RSS, tree --view contexts" "$(mib "$ctx_rss")" "limit 256 MB" - - "$(verdict "$ctx_rss" 262144) (<= 256 MB)"

runs_saved=$runs
runs=1
measure calls "$ct" tree --view calls "$tmp/workload-traced" --trace "$tmp/big.trace" -o /dev/null
runs=$runs_saved
calls_rss=$rss_kb
bpn=$(awk -v k="$calls_rss" -v n="$calls" 'BEGIN { printf "%.2f", k * 1024 / n }')
row 2 "tree --view calls: peak RSS / call node" "${bpn} B" "$((calls)) nodes" - "$(mib "$calls_rss")" "$(verdict "$bpn" 24) (<= 24 B)"
# The same on a trace a quarter the size: the difference is what a node costs.
head -n "$((lines / 4))" "$tmp/big.trace" >"$tmp/quarter.trace"
qcalls=$(grep -c '^E' "$tmp/quarter.trace" || true)
runs=1
measure quarter "$ct" tree --view calls "$tmp/workload-traced" --trace "$tmp/quarter.trace" -o /dev/null
runs=$runs_saved
rm -f "$tmp/quarter.trace"
marginal=$(awk -v a="$calls_rss" -v b="$rss_kb" -v n="$calls" -v m="$qcalls" 'BEGIN { printf "%.2f", (a - b) * 1024 / (n - m) }')
row 2 "tree --view calls: RSS growth / call node" "${marginal} B" "vs 1/4 of the trace" - - "$(verdict "$marginal" 24) (<= 24 B)"

# Target 5: the same work on one thread; outputs must be byte-identical.
measure graph1 "$ct" graph "$tmp/workload-traced" --trace "$tmp/big.trace" -o "$tmp/graph1.dot" --threads 1
graph1_secs=$secs
measure contexts1 "$ct" tree --view contexts "$tmp/workload-traced" --trace "$tmp/big.trace" -o "$tmp/contexts1.txt" --threads 1
same=FAIL
cmp -s "$tmp/graph.dot" "$tmp/graph1.dot" && cmp -s "$tmp/contexts.txt" "$tmp/contexts1.txt" && same=PASS
cores=$(awk -v c="$graph_cpu" -v s="$graph_secs" 'BEGIN { printf "%.2f", (s > 0 ? c / s : 0) }')
row 5 "graph on $(nproc) threads vs 1 (same output: $same)" "${graph_secs} s" "1 thread ${graph1_secs} s" "$(ratio "$graph1_secs" "$graph_secs")x" "$cores cores" \
    "$([[ $same == PASS ]] && le 1.5 "$cores" && echo PASS || echo FAIL) (identical, >= 1.5 cores busy)"
measure graphbin "$ct" graph "$tmp/workload-traced" --trace "$tmp/big.bin" -o /dev/null
row - "graph on the binary trace" "${secs} s" "text ${graph_secs} s" "$(ratio "$secs" "$graph_secs")x" "$(mib "$rss_kb")" "(no target)"
rm -f "$tmp/big.trace" "$tmp/big.bin"

# --- symbol resolution (target 3) -------------------------------------------
gen=$tmp/many.c
{
    for ((i = 0; i < funcs; i++)); do echo "int f$i(int x) { return x + $i; }"; done
    echo "int main(void) { int s = 0;"
    for ((i = 0; i < funcs; i++)); do echo "s += f$i(s);"; done
    echo "return s == 42; }"
} >"$gen"
"$cc" -O0 -g -finstrument-functions "$gen" "$root/runtime/calltrace.c" -o "$tmp/many"
(cd "$tmp" && CALLTRACE_OUT=$tmp/many.trace ./many) || true
measure nobin "$ct" graph --trace "$tmp/many.trace" -o "$tmp/many-hex.dot"
hex_secs=$secs
measure named "$ct" graph "$tmp/many" --trace "$tmp/many.trace" -o "$tmp/many.dot"
named=$(grep -c 'label="f[0-9]*"' "$tmp/many.dot" || true)
res=$(awk -v a="$secs" -v b="$hex_secs" 'BEGIN { d = a - b; printf "%.2f", (d < 0 ? 0 : d) }')
row 3 "resolve $funcs functions ($named named)" "${res} s" "graph ${secs} s/${hex_secs} s" - "$(mib "$rss_kb")" \
    "$([[ $named -ge $funcs ]] && le "$res" 1 && echo PASS || echo FAIL) (< 1 s, all named)"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), trace $(awk -v s="$size" 'BEGIN { printf "%.2f GB", s / 1e9 }'), best of $runs run(s)"
