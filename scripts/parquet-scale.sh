#!/usr/bin/env bash
# parquet-scale.sh - the dataset benchmark of docs/scale.md: N runs exported
# with `calltrace export --to parquet`, then the top-functions and coverage
# recipes (sql/) run over all of them in DuckDB, timed, with their peak
# memory (GNU time's maximum resident set size).
#
#   scripts/parquet-scale.sh                # 10,000 runs (several minutes to export)
#   RUNS=200 scripts/parquet-scale.sh       # a smaller dataset
#   DATASET=/tmp/ds scripts/parquet-scale.sh   # keep the dataset there
#
# The runs are the 19 printer patterns (testdata/printer/traces) in turn,
# each exported under its own --run-id, so every run is a real export with
# names from the printer's DWARF. Needs the `duckdb` Python package and
# /usr/bin/time; uses target/release/calltrace when built, else debug.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-10000}
DATASET=${DATASET:-$(mktemp -d)/dataset}
BIN=target/release/calltrace
[ -x "$BIN" ] || BIN=target/debug/calltrace
[ -x "$BIN" ] || { echo "build calltrace first (cargo build)" >&2; exit 2; }
T=testdata/printer/traces
mapfile -t PATTERNS < <(ls "$T"/*.trace | sort)
mkdir -p "$DATASET"

start=$(date +%s.%N)
for ((i = 0; i < RUNS; i++)); do
  printf '%s %05d\n' "${PATTERNS[i % ${#PATTERNS[@]}]}" "$i"
done | xargs -P "$(nproc)" -L 1 sh -c \
  '"$0" export '"$T"'/printer --search-path '"$T"' --trace "$1" --to parquet -q --run-id "run-$2" -o '"$DATASET"'/"run-$2" 2>/dev/null' "$BIN"
end=$(date +%s.%N)
files=$(find "$DATASET" -name '*.parquet' | wc -l)
bytes=$(du -sb "$DATASET" | cut -f1)
echo "exported $RUNS runs in $(echo "$end - $start" | bc) s: $files files, $((bytes / 1024 / 1024)) MiB ($BIN)"

out=$(mktemp -d)
for recipe in top_functions coverage; do
  /usr/bin/time -f "$recipe: %e s, %M KiB peak" \
    python3 scripts/sql-run.py --engine duckdb --dataset "$DATASET" --out "$out" "sql/$recipe.sql"
  echo "  $(($(wc -l < "$out/$recipe.csv") - 1)) rows"
done
rm -rf "$out"
echo "dataset kept in $DATASET"
