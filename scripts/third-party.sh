#!/usr/bin/env bash
# Prints the directory of a third-party C source tree bundled in a Rust
# package, fetching it with cargo first (the Rust package registry is the only network we need).
#   scripts/third-party.sh zlib     -> .../libz-sys-*/src/zlib
#   scripts/third-party.sh zstd     -> .../zstd-sys-*/zstd/lib
#   scripts/third-party.sh sqlite   -> .../libsqlite3-sys-*/sqlite3   (sqlite3.c, sqlite3.h)
#   scripts/third-party.sh lua      -> .../lua-src-*/lua-5.4.9         (the Lua 5.4 library; no lua.c)
#   scripts/third-party.sh xz       -> .../lzma-sys-*/xz-5.2           (liblzma; its config.h is in ..)
#   scripts/third-party.sh bzip2    -> .../bzip2-sys-*/bzip2-1.0.8     (libbz2 and the bzip2 program)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
manifest="$here/third-party/Cargo.toml"
want="${1:?usage: third-party.sh zlib|zstd|sqlite|lua|xz|bzip2}"
case "$want" in
  zlib) crate=libz-sys; sub=src/zlib ;;
  zstd) crate=zstd-sys; sub=zstd/lib ;;
  sqlite) crate=libsqlite3-sys; sub=sqlite3 ;;
  lua) crate=lua-src; sub=lua-5.4.9 ;;
  xz) crate=lzma-sys; sub=xz-5.2 ;;
  bzip2) crate=bzip2-sys; sub=bzip2-1.0.8 ;;
  *) echo "third-party.sh: unknown source '$want' (zlib, zstd, sqlite, lua, xz, bzip2)" >&2; exit 2 ;;
esac
cargo fetch --quiet --manifest-path "$manifest" >&2
dir="$(cargo metadata --format-version 1 --manifest-path "$manifest" 2>/dev/null |
  python3 -c 'import json,sys,os; m=json.load(sys.stdin); print(next(os.path.dirname(p["manifest_path"]) for p in m["packages"] if p["name"]==sys.argv[1]))' "$crate")"
[ -d "$dir/$sub" ] || { echo "third-party.sh: $dir/$sub is missing" >&2; exit 2; }
echo "$dir/$sub"
