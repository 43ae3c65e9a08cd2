#!/usr/bin/env bash
# Evaluates the abstraction methods on a real program with several test
# patterns: SQLite (the amalgamation, fetched by scripts/third-party.sh)
# built with -finstrument-functions and the bundled runtime, driven by a
# small program that runs one SQL workload per pattern. Prints, per
# pattern, the call nodes and for every method the nodes kept and the
# explained time, side by side; then runs `calltrace compare` without and
# with --keep-features for groups and distinguishing functions, and checks
# the targets of the readable pipeline (exit 1 when one is missed).
#   scripts/eval-abstraction.sh [OUT_DIR]      (default eval-out/)
# CALLTRACE=path/to/calltrace uses that binary (default: cargo build).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="$(mkdir -p "${1:-eval-out}" && cd "${1:-eval-out}" && pwd)"
if [ -z "${CALLTRACE:-}" ]; then
  cargo build --quiet --release --manifest-path "$root/Cargo.toml"
  CALLTRACE="$root/target/release/calltrace"
fi
src="$("$here/third-party.sh" sqlite)"
bin="$out/sqlite-eval"
if [ ! -x "$bin" ]; then
  echo "building SQLite with -finstrument-functions (a minute or two)..." >&2
  "$CALLTRACE" runtime > "$out/calltrace.c"
  gcc -O1 -g -finstrument-functions -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION \
    -I"$src" "$src/sqlite3.c" "$here/eval/sqlite-driver.c" "$out/calltrace.c" -o "$bin" -lm
fi
mkdir -p "$out/sql" "$out/traces" "$out/stats"
patterns=$(python3 "$here/eval/workloads.py" "$out/sql")
# Traces are recorded once (times are wall-clock: record on a quiet
# machine, preemption inflates random functions); delete OUT/traces to
# record them again.
for p in $patterns; do
  t="$out/traces/$p.trace"
  [ -s "$t" ] || CALLTRACE_OUT="$t" CALLTRACE_FORMAT=binary "$bin" "$out/sql/$p.sql"
done

# name|flags: each method as `calltrace abstract` flags.
methods=(
  "method1-0.9|--view calls --threshold 0.9"
  "merge|--view contexts --merge-modules --modules auto"
  "merge+threshold|--view contexts --merge-modules --modules auto --threshold 0.9"
  "global|--min-total 0.1%"
  "readable|"
)
printf '%-13s %10s %9s' pattern calls contexts
for m in "${methods[@]}"; do printf ' %22s' "${m%%|*}"; done
printf '\n'
for p in $patterns; do
  line=""
  for m in "${methods[@]}"; do
    name="${m%%|*}"; flags="${m#*|}"
    json="$out/stats/$p.$name.json"
    # shellcheck disable=SC2086
    "$CALLTRACE" abstract "$bin" --trace "$out/traces/$p.trace" $flags --stats "$json" >/dev/null 2>&1
    line+=$(python3 - "$json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f" {s['nodes_after']:>7} ({100*s['nodes_after']/s['nodes_before']:5.2f}%) {100*s['explained_time']:5.1f}%", end="")
PY
)
  done
  read -r calls contexts < <(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["nodes_before"], s["contexts"])' "$out/stats/$p.readable.json")
  printf '%-13s %10s %9s%s\n' "$p" "$calls" "$contexts" "$line"
done
echo
echo "each method: nodes kept (% of call nodes) and explained time; readable = the default pipeline"
echo "(contexts, merge by auto modules, fold recursion, min-total 0.1%)"
echo
for keep in "" --keep-features; do
  dir="$out/compare${keep:+-kept}"
  echo "== compare --modules auto --view contexts $keep"
  # shellcheck disable=SC2086
  "$CALLTRACE" compare "$bin" --modules auto --view contexts --sweep 0.9:0.9:0.1 \
    $keep --out-dir "$dir" "$out/traces" 2>/dev/null | sed -n '/^before:/,$p'
done

# The targets, for the readable pipeline (merge + contexts + fold + min-total 0.1%).
python3 - "$out" $patterns <<'PY'
import csv, json, sys
out, patterns = sys.argv[1], sys.argv[2:]
ok = True
print("\ntargets (readable pipeline): <= 250 nodes, <= 2% of call nodes, >= 90% explained")
for p in patterns:
    s = json.load(open(f"{out}/stats/{p}.readable.json"))
    share = s["nodes_after"] / s["nodes_before"]
    good = s["nodes_after"] <= 250 and share <= 0.02 and s["explained_time"] >= 0.9
    ok &= good
    print(f"  {p:<13} {s['nodes_after']:>4} nodes {100*share:6.3f}% {100*s['explained_time']:5.1f}%  {'ok' if good else 'MISSED'}")
stage = "merge+fold+global"
groups = [r for r in csv.DictReader(open(f"{out}/compare/groups.csv")) if r["stage"] == stage]
changed = [r["pattern"] for r in groups if r["changed"] == "true"]
print(f"  distinguishable ({stage}, no protection): {'ok' if not changed else 'MISSED: ' + ', '.join(changed)}")
feats = [r for r in csv.DictReader(open(f"{out}/compare-kept/features.csv")) if r["stage"] == stage]
lost = [r["function"] for r in feats if r["kept"] != "true"]
print(f"  features kept with --keep-features: {len(feats) - len(lost)}/{len(feats)} {'ok' if not lost else 'MISSED'}")
ok &= not changed and not lost
sys.exit(0 if ok else 1)
PY
