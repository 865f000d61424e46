#!/usr/bin/env bash
# squashfs fixtures from mksquashfs, one per compressor (gzip, xz with the
# x86 filter, lz4, zstd, lzma, lzo), with
# fragments, a sparse file, a symbolic link and a hard link, and a small
# image for the fuzzer. Expected tree: unsquashfs's extraction, in .sums.
# Output: internal/codec/squashfs/testdata/.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$PWD/internal/codec/squashfs/testdata
mkdir -p "$out"
rm -f "$out"/*.sqfs "$out"/*.sums
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/d/e"
printf 'hello, squashfs\n' > "$src/a.txt"
python3 -c "import sys; sys.stdout.write(''.join('line %d of a squashfs fixture\n' % i for i in range(12000)))" > "$src/d/big.txt"
ln -s ../a.txt "$src/d/link"
ln "$src/a.txt" "$src/d/hard"
truncate -s 300K "$src/sparse"; printf 'end' >> "$src/sparse"
opts=(-noappend -quiet -mkfs-time 1612325106 -all-time 1612325106 -all-root -b 64K)
mksquashfs "$src" "$out/gzip.sqfs" -comp gzip "${opts[@]}" >/dev/null
mksquashfs "$src" "$out/xz.sqfs" -comp xz -Xbcj x86 "${opts[@]}" >/dev/null
mksquashfs "$src" "$out/lz4.sqfs" -comp lz4 -Xhc "${opts[@]}" >/dev/null
mksquashfs "$src" "$out/zstd.sqfs" -comp zstd "${opts[@]}" >/dev/null
mksquashfs "$src" "$out/lzma.sqfs" -comp lzma "${opts[@]}" >/dev/null
mksquashfs "$src" "$out/lzo.sqfs" -comp lzo -Xalgorithm lzo1x_999 "${opts[@]}" >/dev/null
mksquashfs "$src/a.txt" "$out/tiny.sqfs" -comp gzip "${opts[@]}" >/dev/null
for f in "$out"/*.sqfs; do
  d=$work/x-$(basename "$f"); unsquashfs -q -d "$d" "$f" >/dev/null
  (cd "$d" && find . -type f | sort | sed 's|^\./||' | while read -r p; do sha256sum "$p"; done
   find . -type l | sort | sed 's|^\./||' | while read -r p; do printf 'link %s -> %s\n' "$p" "$(readlink "$p")"; done) > "${f%.sqfs}.sums"
done
ls -l "$out"
