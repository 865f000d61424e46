#!/usr/bin/env bash
# Regenerates the cabinet fixtures in internal/codec/cab/testdata:
# t-none.cab and t-mszip.cab written by gcab (stored, and MSZIP with -z)
# from one tree: text, random bytes, a 70 KB file that spans several
# 32 KiB data blocks, an empty file, nested directories. Each is checked
# by cabextract, which must give the tree back; files.txt lists
# "SHA-256 size name" of every file. The LZX and Quantum cabinets beside
# them come from libmspack's tests (SOURCES.md): no tool here writes them.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/cab/testdata
mkdir -p "$D"
rm -f "$D"/t-*.cab "$D"/files.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src/dir/sub"
python3 - "$src" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261202)
open(f'{d}/readme.txt', 'w').write(''.join(r.choice('cabinet folder \n') for _ in range(3001)))
open(f'{d}/dir/noise.bin', 'wb').write(bytes(r.randrange(256) for _ in range(5000)))
big = bytearray()
while len(big) < 70000:
    big += r.choice([b'MSZIP ', b'block ', b'window ', b'\n']) * r.randrange(1, 5)
    big += bytes(r.randrange(256) for _ in range(r.randrange(20)))
open(f'{d}/dir/sub/big.dat', 'wb').write(big[:70000])
open(f'{d}/empty', 'w').close()
PY
(cd "$src" && gcab -c "$D/t-none.cab" readme.txt dir/noise.bin dir/sub/big.dat empty)
(cd "$src" && gcab -c -z "$D/t-mszip.cab" readme.txt dir/noise.bin dir/sub/big.dat empty)
for c in "$D"/t-*.cab; do
  rm -rf "$tmp/out"; mkdir "$tmp/out"
  cabextract -q -d "$tmp/out" "$c"
  diff -r "$src" "$tmp/out"
done
(cd "$src" && for f in readme.txt dir/noise.bin dir/sub/big.dat empty; do
  echo "$(sha256sum "$f" | cut -d' ' -f1) $(stat -c %s "$f") $f"
done) > "$D/files.txt"
ls -l "$D"
