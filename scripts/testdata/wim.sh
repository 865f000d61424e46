#!/usr/bin/env bash
# WIM fixtures from wimlib-imagex: one image per compression (XPRESS, LZX,
# LZMS, none), an LZMS solid WIM (version 3584), two images in one WIM,
# an XPRESS WIM split in three .swm parts, and one with an integrity table
# (--check); the tree has multi-chunk
# and stored chunks, x86-like code (LZMS's filter), a symbolic link, a
# hard link, an empty file and a non-ASCII name. Expected trees: what
# `wimlib-imagex apply` extracts, per image, in NAME.sums ("N/" prefixes
# for several images). Also raw XPRESS and LZMS chunks for the decoder
# tests (wimchunks.py).
# Output: internal/codec/wim/testdata/, internal/codec/{xpress,lzms}/testdata/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/internal/codec/wim/testdata
mkdir -p "$out" "$root/internal/codec/xpress/testdata" "$root/internal/codec/lzms/testdata"
rm -f "$out"/*.wim "$out"/*.swm "$out"/*.sums "$root"/internal/codec/xpress/testdata/*.xpress "$root"/internal/codec/lzms/testdata/*.lzms
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/d/e" "$src/empty"
printf 'hello, wim\n' > "$src/a.txt"
python3 - "$src" <<'PY'
import random, struct, sys
d = sys.argv[1] + '/d/'
r = random.Random(7)
open(d + 'big.txt', 'w').write(''.join('line %d of a wim fixture\n' % i for i in range(3000)))
open(d + 'mid.txt', 'w').write(''.join('%d %s\n' % (i, 'abcdefgh'[i % 8] * (i % 13)) for i in range(2000)))
open(d + 'random.bin', 'wb').write(bytes(r.getrandbits(8) for _ in range(40000)))
# x86-like code: calls (E8) and RIP-relative loads (48 8B 05) to a few
# targets, between filler, as LZMS's and LZX's filters expect.
code = bytearray()
targets = [0x1000 * i + 0x40 for i in range(1, 9)]
while len(code) < 100000:
    k = r.randrange(4)
    if k == 0:
        code += b'\xe8' + struct.pack('<i', r.choice(targets) - (len(code) + 5))
    elif k == 1:
        code += b'\x48\x8b\x05' + struct.pack('<i', r.choice(targets) - (len(code) + 7))
    else:
        code += bytes(r.choice([0x55, 0x89, 0xe5, 0x5d, 0xc3, 0x90, 0x31, 0xc0]) for _ in range(r.randrange(1, 6)))
open(d + 'code.bin', 'wb').write(code)
# 16-bit samples of a slope, what LZMS's delta matches are for.
open(d + 'ramp.bin', 'wb').write(b''.join(struct.pack('<HH', (i * 7) & 0xffff, (i * 13 + (i >> 9)) & 0xffff) for i in range(12000)))
PY
ln -s ../a.txt "$src/d/link"
ln "$src/a.txt" "$src/d/hard"
: > "$src/d/e/zero"
printf 'unicode\n' > "$src/d/é ü.txt"
q() { "$@" >/dev/null 2>&1; }
q wimlib-imagex capture "$src" "$out/xpress.wim" one --compress=XPRESS
q wimlib-imagex capture "$src" "$out/lzx.wim" one --compress=LZX
q wimlib-imagex capture "$src" "$out/lzms.wim" one --compress=LZMS
q wimlib-imagex capture "$src" "$out/none.wim" one --compress=none
q wimlib-imagex capture "$src" "$out/solid.wim" one --solid
cp "$out/xpress.wim" "$out/multi.wim"
q wimlib-imagex append "$src/d" "$out/multi.wim" two
q wimlib-imagex split "$out/xpress.wim" "$out/split.swm" 0.03
# Small ones for the fuzzer's seeds.
mkdir -p "$work/tiny"; cp "$src/a.txt" "$work/tiny/"; head -c 3000 "$src/d/mid.txt" > "$work/tiny/m.txt"; ln -s a.txt "$work/tiny/l"
q wimlib-imagex capture "$work/tiny" "$out/tiny-xpress.wim" one --compress=XPRESS
q wimlib-imagex capture "$work/tiny" "$out/tiny-solid.wim" one --solid
# With an integrity table (SHA-1 of each 10 MiB of the file).
q wimlib-imagex capture "$work/tiny" "$out/check.wim" one --compress=XPRESS --check
rm -f "$out/none.wim.tmp"
sums() { # DIR: file sums and links, as the tests read them
  (cd "$1" && find . -type f | sort | sed 's|^\./||' | while read -r p; do sha256sum "$p"; done
   find . -type l | sort | sed 's|^\./||' | while read -r p; do printf 'link %s -> %s\n' "$p" "$(readlink "$p")"; done)
}
for f in "$out"/*.wim "$out/split.swm"; do
  n=$(wimlib-imagex info "$f" | awk '/^Image Count:/ {print $3}')
  x=$work/x-$(basename "$f"); mkdir -p "$x"
  if [ "$n" = 1 ]; then
    q wimlib-imagex apply "$f" 1 "$x" --ref="$out/split*.swm"
  else
    for i in $(seq "$n"); do q wimlib-imagex apply "$f" "$i" "$x/$i"; done
  fi
  sums "$x" > "${f%.*}.sums"
done
python3 scripts/testdata/wimchunks.py "$out/xpress.wim" "$root/internal/codec/xpress/testdata" wimlib xpress
python3 scripts/testdata/wimchunks.py "$out/lzms.wim" "$root/internal/codec/lzms/testdata" wimlib lzms 6
ls -l "$out"
