#!/usr/bin/env bash
# make-patterns.sh - build the toy printer (testdata/printer) with the
# calltrace runtime and record one text trace per job pattern.
#
# Usage: scripts/make-patterns.sh [OUTDIR]      (default: testdata/printer/traces)
#
# Writes OUTDIR/<pattern>.trace for every testdata/printer/patterns/<pattern>.job
# and OUTDIR/printer, the exact binary that produced the traces (needed to
# resolve their addresses).  Relative OUTDIR paths are taken relative to the
# current directory.  Environment: CC (default gcc).
set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$script_dir/.." && pwd)

outdir=${1:-$root/testdata/printer/traces}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

cd "$root"
cc=${CC:-gcc}
runtime=runtime/calltrace.c
if [[ ! -f $runtime ]]; then
    echo "make-patterns: $runtime not found" >&2
    exit 1
fi

builddir=$(mktemp -d "${TMPDIR:-/tmp}/calltrace-printer.XXXXXX")
trap 'rm -rf "$builddir"' EXIT

# glibc >= 2.34 has pthread in libc; -lpthread keeps older systems working.
"$cc" -g -O0 -finstrument-functions testdata/printer/*.c "$runtime" \
    -o "$builddir/printer" -lpthread
cp "$builddir/printer" "$outdir/printer"

shopt -s nullglob
jobs=(testdata/printer/patterns/*.job)
if ((${#jobs[@]} == 0)); then
    echo "make-patterns: no job files in testdata/printer/patterns" >&2
    exit 1
fi

for job in "${jobs[@]}"; do
    stem=$(basename "$job" .job)
    trace=$outdir/$stem.trace
    rm -f "$trace"
    status=0
    # bad-*.job patterns exit with status 1 by design (error sheet path)
    CALLTRACE_OUT=$trace CALLTRACE_FORMAT=text "$outdir/printer" "$job" \
        >/dev/null 2>&1 || status=$?
    if ((status > 1)) || [[ ! -s $trace ]]; then
        echo "make-patterns: $stem: printer failed (exit $status) or wrote no trace" >&2
        exit 1
    fi
    lines=$(grep -c '^[EX]' "$trace" || true)
    printf '%-18s %7d lines  exit %d\n' "$stem" "$lines" "$status"
done
bytes=$(cat "$outdir"/*.trace | wc -c)
echo "traces ($bytes bytes; keep the committed set under ~2.5 MB) and binary in $outdir"
