#!/usr/bin/env bash
# The main job on the bundled examples: build calltrace, trace a small C
# program with the bundled runtime, draw its call graph, print its call
# tree, abstract a printer-product trace, and compare the printer's test
# patterns. Everything lands in example-out/ (safe to delete).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/example-out
mkdir -p "$out"

echo "== building calltrace (release)"
cargo build --release --quiet
ct=$root/target/release/calltrace

echo "== tracing testdata/hello with the runtime"
gcc -g -finstrument-functions testdata/hello/*.c runtime/calltrace.c -o "$out/hello"
(
  cd "$out"
  ./hello >/dev/null
  "$ct" graph ./hello              # reads trace.txt, writes graph.dot, like pvtrace
  "$ct" graph ./hello -o - --csv edges.csv >/dev/null
  echo "== call tree (one node per distinct call path)"
  "$ct" tree ./hello --view contexts
  if command -v dot >/dev/null; then
    dot -Tsvg graph.dot -o graph.svg
    echo "rendered $out/graph.svg"
  else
    echo "(install graphviz to render graph.dot: apt-get install -y graphviz)"
  fi
)

echo "== abstracting the printer's fax pattern (merge, then threshold 90%)"
p=testdata/printer
"$ct" abstract "$p/traces/printer" --trace "$p/traces/fax.trace" --modules "$p/modules.csv" \
  --merge-modules --threshold 90% -o "$out/fax-abstract.dot" --tree-out "$out/fax-abstract.txt"
if command -v dot >/dev/null; then
  dot -Tsvg "$out/fax-abstract.dot" -o "$out/fax-abstract.svg"
  echo "rendered $out/fax-abstract.svg"
fi

echo "== comparing the printer's test patterns"
"$ct" compare --binary "$p/traces/printer" --modules "$p/modules.csv" --out-dir "$out/compare" "$p/traces/"

echo "== outputs in $out"
ls "$out" "$out/compare"
