#!/usr/bin/env bash
# Regenerates internal/codec/zip/testdata and internal/codec/inflate/testdata
# with Info-ZIP zip, 7-Zip (7zz) and Go's archive/zip. Idempotent: the
# content is generated from fixed seeds and timestamps are pinned.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
out=$root/internal/codec/zip/testdata
d64=$root/internal/codec/inflate/testdata
mkdir -p "$out" "$d64"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/dir"

python3 - "$src" <<'PY'
import os, random, sys
d = sys.argv[1]
r = random.Random(20240506)
words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split()
open(os.path.join(d, "hello.txt"), "w").write("hello, world\n")
open(os.path.join(d, "lorem.txt"), "w").write(" ".join(r.choice(words) for _ in range(4000)) + "\n")
open(os.path.join(d, "random.bin"), "wb").write(bytes(r.getrandbits(8) for _ in range(8192)))
open(os.path.join(d, "empty.txt"), "w").close()
open(os.path.join(d, "dir", "nested.txt"), "w").write("nested file\n")
# For deflate64: 36 KiB of random bytes repeated, so matches reach past 32 KiB.
block = bytes(r.getrandbits(8) for _ in range(36 << 10))
open(os.path.join(d, "..", "far.bin"), "wb").write(block * 2 + block[:1000])
PY
ln -s hello.txt "$src/link"
find "$src" "$work/far.bin" -exec touch -h -d '2024-05-06 07:08:10' {} +
chmod 644 "$src"/*.txt "$src"/random.bin "$src/dir/nested.txt"
chmod 755 "$src/dir"

files=(hello.txt lorem.txt random.bin empty.txt dir dir/nested.txt link)
nolink=(hello.txt lorem.txt random.bin empty.txt dir dir/nested.txt)
rm -f "$out"/*.zip "$out"/*.z0? "$out"/*.zip.0?? "$out"/*.sha256
cd "$src"
( for f in hello.txt lorem.txt random.bin empty.txt dir/nested.txt; do sha256sum "$f"; done ) > "$out/src.sha256"

# Info-ZIP.
zip -q -X -y "$out/infozip-deflate.zip" "${files[@]}"
zip -q -X -y -0 "$out/infozip-store.zip" "${files[@]}"
zip -q -X -P secret "$out/infozip-zipcrypto.zip" "${nolink[@]}"
zip -q -X -fz "$out/infozip-zip64.zip" "${nolink[@]}"
# Written to a pipe: data descriptors, and zip64 sizes in them.
zip -q -X - "${nolink[@]}" | cat > "$out/infozip-pipe.zip"
# Encrypted to a pipe: the local CRC field holds other data.
zip -q -X -P secret - "${nolink[@]}" | cat > "$out/infozip-zipcrypto-pipe.zip"
# A split set of 64 KiB parts (needs more data than the others).
cp "$work/far.bin" far.bin
zip -q -X -0 -s 64k "$out/infozip-split.zip" far.bin hello.txt
rm far.bin

# 7-Zip: every method and encryption it writes for zip.
for m in Deflate Deflate64 BZip2 LZMA PPMd; do
  lower=$(echo "$m" | tr 'A-Z' 'a-z')
  7zz a -bso0 -bsp0 -tzip -mm=$m -mtc=off "$out/7zip-$lower.zip" "${nolink[@]}" >/dev/null
done
7zz a -bso0 -bsp0 -tzip -mm=Deflate -mem=AES256 -psecret -mtc=off "$out/7zip-aes256.zip" "${nolink[@]}" >/dev/null
7zz a -bso0 -bsp0 -tzip -mm=LZMA -mem=AES128 -psecret -mtc=off "$out/7zip-aes128-lzma.zip" "${nolink[@]}" >/dev/null
7zz a -bso0 -bsp0 -tzip -mm=Deflate -mem=ZipCrypto -psecret -mtc=off "$out/7zip-zipcrypto.zip" "${nolink[@]}" >/dev/null
# AES written to standard output: data descriptors, AE-2.
7zz a -tzip -mm=Deflate -mem=AES256 -psecret -mtc=off -so x.zip "${nolink[@]}" 2>/dev/null > "$out/7zip-aes256-pipe.zip"
# A raw split (name.zip.001, .002 …).
cp "$work/far.bin" far.bin
7zz a -bso0 -bsp0 -tzip -mm=Copy -v40k -mtc=off "$out/7zip-split.zip" far.bin hello.txt >/dev/null
rm far.bin

# Go's archive/zip: data descriptors, and an archive behind a prefix.
cd "$root"
go run ./scripts/testdata/zipgen "$src" "$out"

# Deflate64 streams with distances beyond 32 KiB, and its expected output.
cd "$work"
7zz a -bso0 -bsp0 -tzip -mm=Deflate64 -mx=9 -mtc=off "$d64/far-7zip.zip" far.bin >/dev/null
sha256sum far.bin > "$d64/far.sha256"
ls -l "$out" "$d64" | awk '{s+=$5} END {print "fixture bytes:", s}'
