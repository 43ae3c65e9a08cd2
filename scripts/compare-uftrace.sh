#!/usr/bin/env bash
# Compares per-function call counts of calltrace with uftrace's on the same
# workload. The program is built twice from the same sources and flags:
# once with calltrace's runtime, once without (glibc's empty
# __cyg_profile_func_* hooks, which `uftrace record` replaces), both with
# -g -finstrument-functions. Libraries given in the flags must be built
# with -finstrument-functions as well.
#
#   scripts/compare-uftrace.sh [--dir DIR] COMPILER SOURCES-AND-FLAGS... [-- PROGRAM-ARGS...]
#   scripts/compare-uftrace.sh gcc testdata/hello/*.c
#   scripts/compare-uftrace.sh g++ -O2 testdata/cppstl/*.cpp
#   scripts/compare-uftrace.sh gcc -Ilibz app.c -Llibz -lz -Wl,-rpath,$PWD/libz
#
# Functions are matched by linkage name (and source file when two share one).
# Prints one line per function whose counts differ and a summary:
#   agree: 41 of 41 functions, 2910 calls (calltrace 2910, uftrace 2910)
# Exit status 0 when every function agrees, 1 when some differ, 2 on errors.
# Needs uftrace (Debian package uftrace), addr2line (binutils) and the calltrace binary (CALLTRACE,
# default: target/debug/calltrace, built if missing).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
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

# Functions are matched by linkage (mangled) name, which both tools print
# alike, unlike demangled names (anonymous namespaces, lambdas, ABI tags).
# Different functions with one linkage name (file-static functions of two
# files) are told apart by source file: calltrace appends ` [FILE]`, and
# uftrace's addresses are looked up with addr2line below.

# calltrace: one line per call in the call tree, `NAME (self / total)`.
(cd "$dir" && CALLTRACE_OUT="$dir/trace.txt" CALLTRACE_FORMAT=text ./app-calltrace "${args[@]}" > /dev/null)
"$calltrace" tree --trace "$dir/trace.txt" --demangle none -o "$dir/tree.txt" 2> "$dir/calltrace.log" \
  || { cat "$dir/calltrace.log" >&2; exit 2; }
sed -E 's/^ *//; s/ \([^()]* \/ [^()]*\)$//' "$dir/tree.txt" | grep -v '^\[thread ' |
  sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' | sort > "$dir/calltrace.counts"

# uftrace: `uftrace replay -f addr`, one `ADDRESS | NAME() {` or `NAME();`
# line per call; `}` lines are returns and `/* ... */` lines are events
# (its kernel pseudo-functions `linux:schedule` are not calls). uftrace may
# name a function by GCC's local alias at its address (`f.localalias`, what
# calls within a -fPIC library go to); calltrace, like addr2line, by `f`.
(cd "$dir" && uftrace record --no-libcall -d "$dir/uftrace.data" ./app-uftrace "${args[@]}" > /dev/null)
uftrace replay -d "$dir/uftrace.data" -f addr --demangle no --no-pager |
  awk -F ' [|] ' 'NF >= 2 { f = $2; sub(/^ +/, "", f)
      if (f !~ /^linux:/ && sub(/\(\) *(\{|;)$/, "", f)) { sub(/\.localalias$/, "", f); print $1 "\t" f } }' |
  sort | uniq -c | awk '{ print $2 "\t" $3 "\t" $1 }' > "$dir/uftrace.calls"
# Names held by more than one address (or that calltrace tells apart), if
# one of them is a local function, get
# what calltrace tells them apart by, the first that does: the compilation
# unit of the address's symbol (the FILE symbol before it in `readelf -s`;
# copies of a header's static inline function share the header as their
# source file), its source file (addr2line), its address in its object.
{ cut -f1,2 "$dir/uftrace.calls" | sort -u | cut -f2 | sort | uniq -d
  cut -f1 "$dir/calltrace.counts" | sed -n 's/ \[[^]]*\]$//p'
} | sort -u > "$dir/uftrace.shared"
: > "$dir/uftrace.where"
# units_of PATH: a file of `VALUE<TAB>UNIT` for PATH's local functions, made once.
units_of() {
  local f
  f="$dir/units.$(printf '%s' "$1" | md5sum | cut -c1-16)"
  [ -f "$f" ] || readelf -sW "$1" |
    awk '$4 == "FILE" { unit = $8 } $4 == "FUNC" && $5 == "LOCAL" { print $2 "\t" unit }' > "$f"
  echo "$f"
}
while IFS="$(printf '\t')" read -r addr name _; do
  grep -qxF -- "$name" "$dir/uftrace.shared" || continue
  a=$((16#${addr// /}))
  while read -r range _ _ _ _ path _; do
    lo=$((16#${range%-*})); hi=$((16#${range#*-}))
    if [ "$a" -ge "$lo" ] && [ "$a" -lt "$hi" ]; then
      off=$((a - lo))
      file="$(addr2line -e "$path" "$(printf '0x%x' "$off")" | sed 's/:.*//')"
      unit="$(awk -F '\t' -v want="$(printf '%016x' "$off")" '$1 == want { print $2; exit }' "$(units_of "$path")")"
      printf '%s\t%s\t%s\t%s\n' "$addr" "$(basename "$file")" "$unit" "$(printf '0x%x' "$off")" >> "$dir/uftrace.where"
      break
    fi
  done < <(cat "$dir"/uftrace.data/sid-*.map)
done < "$dir/uftrace.calls"
awk -F '\t' '
  FILENAME == ARGV[1] { file[$1] = $2; unit[$1] = $3; off[$1] = $4; next }
  { calls[$1 "\t" $2] = $3; if ($1 in file) addrs[$2] = addrs[$2] " " $1 }
  # Whether tier t names every address of `name` and no two alike.
  function tells(name, t,   n, a, i, v, seen) {
    n = split(addrs[name], a, " ")
    for (i = 1; i <= n; i++) {
      v = t == 1 ? unit[a[i]] : t == 2 ? file[a[i]] : off[a[i]]
      if (v == "" || v == "??" || (v in seen)) return 0
      seen[v] = 1
    }
    return 1
  }
  # Whether some address of `name` is a local function of its unit: global
  # ones (a template instance in the program and in a library, also one
  # that a version script made local, after an empty FILE symbol) are one
  # function to calltrace, as to the dynamic linker.
  function local(name,   n, a, i) {
    n = split(addrs[name], a, " ")
    for (i = 1; i <= n; i++) if (unit[a[i]] != "") return 1
    return 0
  }
  END {
    for (k in calls) {
      split(k, f, "\t"); addr = f[1]; name = f[2]
      if (addr in file && local(name)) {
        t = tells(name, 1) ? 1 : tells(name, 2) ? 2 : 3
        name = name " [" (t == 1 ? unit[addr] : t == 2 ? file[addr] : off[addr]) "]"
      }
      n[name] += calls[k]
    }
    for (x in n) print x "\t" n[x]
  }' "$dir/uftrace.where" "$dir/uftrace.calls" | sort > "$dir/uftrace.counts"

join -t "$(printf '\t')" -a1 -a2 -e 0 -o 0,1.2,2.2 "$dir/calltrace.counts" "$dir/uftrace.counts" |
  awk -F '\t' '
    { funcs++; ct += $2; uf += $3
      if ($2 == $3) { same++; calls += $2 } else printf "differ: %s: calltrace %d, uftrace %d\n", $1, $2, $3 }
    END {
      printf "agree: %d of %d functions, %d calls (calltrace %d, uftrace %d)\n", same, funcs, calls, ct, uf
      exit (same == funcs ? 0 : 1)
    }'
