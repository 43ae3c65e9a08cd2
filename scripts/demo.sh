#!/usr/bin/env bash
# The main job on the bundled examples: build calltrace, trace a small C
# program with the bundled runtime, draw its hot call graph, print its call
# tree, export it for other tools (flame graph, Perfetto, KCachegrind),
# draw a printer-product trace's hot graph and flame graph, abstract it, and
# write the 19 patterns into one offline page (view.html) and compare the
# printer's test patterns. Everything lands in example-out/
# (safe to delete).
set -euo pipefail
# A relative CARGO_TARGET_DIR means the directory the script was started in.
if [[ -n ${CARGO_TARGET_DIR:-} && $CARGO_TARGET_DIR != /* ]]; then
  export CARGO_TARGET_DIR=$PWD/$CARGO_TARGET_DIR
fi
cd "$(dirname "$0")/.."
root=$PWD
out=$root/example-out
mkdir -p "$out"

echo "== building calltrace (nothing to do after \`cargo install --locked --path .\`; else a few minutes)"
# The build `cargo install --locked --path .` made, reused: the same
# profile and Cargo.lock's versions. Cargo's progress on stderr; the path
# of the binary (wherever CARGO_TARGET_DIR or a cargo config puts it) from
# its JSON messages.
ct=$(cargo build --release --locked --bin calltrace --message-format=json-render-diagnostics |
  sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
if [[ ! -x $ct ]]; then
  echo "demo.sh: cargo built no calltrace executable" >&2
  exit 1
fi
echo "using $ct"

echo "== tracing testdata/hello with the runtime"
gcc -g -finstrument-functions testdata/hello/*.c runtime/calltrace.c -o "$out/hello"
(
  cd "$out"
  ./hello >/dev/null
  echo "== call graphs: graph.dot (the hot graph: functions with at least 0.5% of the time), plain.dot (every function)"
  "$ct" graph ./hello              # reads trace.txt, writes graph.dot (the hot graph)
  "$ct" graph ./hello --style plain -o plain.dot --csv edges.csv   # pvtrace's drawing
  echo "== call tree (one node per distinct call path)"
  "$ct" tree ./hello --view contexts
  echo "== per-call statistics: the slowest calls first"
  "$ct" stats ./hello --sort max --top 5
  echo "== exports"
  "$ct" export ./hello --to flamegraph -o flamegraph.svg
  "$ct" export ./hello --to chrome -o trace.json        # ui.perfetto.dev, chrome://tracing
  "$ct" export ./hello --to callgrind -o callgrind.out  # kcachegrind, callgrind_annotate
  "$ct" export ./hello --to folded -o stacks.folded     # inferno, flamegraph.pl, speedscope
  "$ct" export ./hello --to json -o tree.json
  if command -v dot >/dev/null; then
    dot -Tsvg graph.dot -o graph.svg
    dot -Tsvg plain.dot -o plain.svg
    echo "rendered $out/graph.svg and plain.svg"
  else
    echo "(install graphviz to render graph.dot: apt-get install -y graphviz)"
  fi
)

p=testdata/printer
echo "== the printer's fax pattern: hot call graph and flame graph"
"$ct" graph "$p/traces/printer" --trace "$p/traces/fax.trace" -o "$out/fax-graph.dot"
"$ct" export "$p/traces/printer" --trace "$p/traces/fax.trace" --to flamegraph -o "$out/fax-flamegraph.svg"
if command -v dot >/dev/null; then
  dot -Tpng "$out/fax-graph.dot" -o "$out/fax-graph.png"
  echo "rendered $out/fax-graph.png (docs/img/graph.png is this picture)"
fi

echo "== abstracting the printer's fax pattern (merge, then threshold 90%)"
"$ct" abstract "$p/traces/printer" --trace "$p/traces/fax.trace" --modules "$p/modules.csv" \
  --merge-modules --threshold 90% -o "$out/fax-abstract.dot" --tree-out "$out/fax-abstract.txt"
if command -v dot >/dev/null; then
  dot -Tsvg "$out/fax-abstract.dot" -o "$out/fax-abstract.svg"
  echo "rendered $out/fax-abstract.svg"
fi

echo "== the printer's 19 patterns in one page: open example-out/view.html in a browser (offline)"
"$ct" view "$p/traces/printer" "$p/traces/" --modules "$p/modules.csv" -o "$out/view.html"

echo "== comparing the printer's test patterns"
"$ct" compare "$p/traces/printer" --modules "$p/modules.csv" --out-dir "$out/compare" "$p/traces/"

echo "== outputs in $out"
ls "$out" "$out/compare"
