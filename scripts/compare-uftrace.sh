#!/usr/bin/env bash
# Compares per-function call counts of calltrace with uftrace's on the same
# workload. The program is built twice from the same sources and flags:
# once with calltrace's runtime, once without (glibc's empty
# __cyg_profile_func_* hooks, which `uftrace record` replaces), both with
# -g -finstrument-functions. Libraries given in the flags must be built
# with -finstrument-functions as well.
#
#   scripts/compare-uftrace.sh [--demangle simple|full] [--dir DIR] COMPILER SOURCES-AND-FLAGS... [-- PROGRAM-ARGS...]
#   scripts/compare-uftrace.sh gcc testdata/hello/*.c
#   scripts/compare-uftrace.sh g++ -O2 testdata/cppstl/*.cpp
#   scripts/compare-uftrace.sh gcc -Ilibz app.c -Llibz -lz -Wl,-rpath,$PWD/libz
#
# Prints one line per function whose counts differ and a summary:
#   agree: 41 of 41 functions, 2910 calls (calltrace 2910, uftrace 2910)
# Exit status 0 when every function agrees, 1 when some differ, 2 on errors.
# Needs uftrace (Debian package uftrace) and the calltrace binary (CALLTRACE,
# default: target/debug/calltrace, built if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
demangle=simple
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --demangle) demangle="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || { sed -n '9,12p' "$0" >&2; exit 2; }
cc="$1"; shift
flags=(); args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
[ $# -gt 0 ] && { shift; args=("$@"); }
command -v uftrace >/dev/null || { echo "compare-uftrace.sh: uftrace not found (apt-get install uftrace)" >&2; exit 2; }
calltrace="${CALLTRACE:-$root/target/debug/calltrace}"
if [ ! -x "$calltrace" ]; then
  cargo build --quiet --manifest-path "$root/Cargo.toml" >&2
fi
if [ -z "$dir" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"

# Two builds of one program.
"$calltrace" runtime > "$dir/calltrace.c"
"$cc" -g -finstrument-functions "${flags[@]}" "$dir/calltrace.c" -o "$dir/app-calltrace"
"$cc" -g -finstrument-functions "${flags[@]}" -o "$dir/app-uftrace"

# calltrace: one line per call in the call tree, `NAME (self / total)`.
(cd "$dir" && CALLTRACE_OUT="$dir/trace.txt" CALLTRACE_FORMAT=text ./app-calltrace "${args[@]}" > /dev/null)
"$calltrace" tree --trace "$dir/trace.txt" --demangle "$demangle" -o "$dir/tree.txt" 2> "$dir/calltrace.log" \
  || { cat "$dir/calltrace.log" >&2; exit 2; }
sed -E 's/^ *//; s/ \([^()]* \/ [^()]*\)$//' "$dir/tree.txt" | grep -v '^\[thread ' |
  sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' | sort > "$dir/calltrace.counts"

# uftrace: `uftrace report -f call`, `CALLS  NAME` below a two-line header;
# its kernel pseudo-functions (`linux:schedule (pre-empted)`) are not calls.
(cd "$dir" && uftrace record --no-libcall -d "$dir/uftrace.data" ./app-uftrace "${args[@]}" > /dev/null)
uftrace report -d "$dir/uftrace.data" -f call --demangle "$demangle" --no-pager |
  tail -n +3 | awk '{ n = $1; sub(/^ *[0-9]+ +/, ""); print $0 "\t" n }' | grep -v '^linux:' |
  sort > "$dir/uftrace.counts"

join -t "$(printf '\t')" -a1 -a2 -e 0 -o 0,1.2,2.2 "$dir/calltrace.counts" "$dir/uftrace.counts" |
  awk -F '\t' '
    { funcs++; ct += $2; uf += $3
      if ($2 == $3) { same++; calls += $2 } else printf "differ: %s: calltrace %d, uftrace %d\n", $1, $2, $3 }
    END {
      printf "agree: %d of %d functions, %d calls (calltrace %d, uftrace %d)\n", same, funcs, calls, ct, uf
      exit (same == funcs ? 0 : 1)
    }'
