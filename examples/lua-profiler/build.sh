#!/usr/bin/env bash
# Builds luaprof: Lua 5.4 (the lua-src crate's sources, from
# scripts/third-party.sh lua), luaprof.c and the calltrace runtime.
#   examples/lua-profiler/build.sh [OUTDIR]     (default: examples/lua-profiler/build)
# Writes OUTDIR/luaprof.  The Lua objects are kept in OUTDIR/lua and rebuilt
# only when missing or older than their source.
# Environment: CALLTRACE (the calltrace binary, default: `calltrace` on PATH,
# else the repository's target/debug/calltrace), CC (default cc).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="$(mkdir -p "${1:-$here/build}" && cd "${1:-$here/build}" && pwd)"
cc="${CC:-cc}"
calltrace="${CALLTRACE:-$(command -v calltrace || echo "$repo/target/debug/calltrace")}"
lua="$("$repo/scripts/third-party.sh" lua)"

mkdir -p "$out/lua"
"$calltrace" runtime > "$out/calltrace.c"
"$calltrace" runtime --header > "$out/calltrace.h"

# The Lua library: every .c but the stand-alone lua.c and luac.c, in parallel.
for src in "$lua"/*.c; do
  name="$(basename "$src" .c)"
  case "$name" in lua | luac) continue ;; esac
  obj="$out/lua/$name.o"
  [ "$obj" -nt "$src" ] || printf '%s\n' "$src"
done | xargs -r -P "$(nproc 2>/dev/null || echo 2)" -I{} \
  sh -c '"$1" -O2 -std=gnu99 -DLUA_USE_POSIX -c "$2" -o "$3/lua/$(basename "$2" .c).o"' \
  sh "$cc" {} "$out"

# luaprof itself; the runtime is not built with -finstrument-functions, so
# the trace holds the Lua functions only.
"$cc" -O2 -g -Wall -Wextra -I"$lua" -I"$out" "$here/luaprof.c" "$out/calltrace.c" \
  "$out"/lua/*.o -lm -pthread -o "$out/luaprof"
echo "$out/luaprof"
