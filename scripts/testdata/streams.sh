#!/usr/bin/env bash
# Single-stream fixtures from the reference tools, each decompressing to
# plain.txt (or plain.txt twice, for concatenated streams), plus a tar.
# Output: internal/formats/testdata/streams/
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/formats/testdata/streams
rm -rf "$out"; mkdir -p "$out"
python3 - > "$out/plain.txt" <<'PY'
import random
r = random.Random(7)
words = "the quick brown fox jumps over a lazy dog archive stream checksum verify".split()
print("\n".join(" ".join(r.choice(words) for _ in range(12)) for _ in range(600)))
PY
p=$out/plain.txt
gzip -9 -n -c "$p" > "$out/plain.txt.gz"
{ gzip -n -c "$p"; gzip -1 -n -c "$p"; } > "$out/twice.txt.gz"          # multi-member
pigz -n -c "$p" > "$out/plain-pigz.txt.gz"
zstd -q -19 -c "$p" > "$out/plain.txt.zst"
{ zstd -q -c "$p"; zstd -q --no-check -c "$p"; } > "$out/twice.txt.zst"  # two frames
python3 -c "import struct,sys; sys.stdout.buffer.write(struct.pack('<II',0x184D2A50,5)+b'skip!')" > "$out/skip.txt.zst"
zstd -q -c "$p" >> "$out/skip.txt.zst"                                  # skippable frame first
bzip2 -9 -c "$p" > "$out/plain.txt.bz2"
{ bzip2 -c "$p"; bzip2 -1 -c "$p"; } > "$out/twice.txt.bz2"            # multi-stream
lbzip2 -c "$p" > "$out/plain-lbzip2.txt.bz2"
brotli -q 11 -c "$p" > "$out/plain.txt.br"
lz4 -q -9 -c "$p" > "$out/plain.txt.lz4"
lz4 -q -l -c "$p" > "$out/legacy.txt.lz4"                               # legacy frame
lz4 -q --content-size -BX -c "$p" > "$out/checked.txt.lz4"               # block checksums, content size
{ lz4 -q -c "$p"; lz4 -q -c "$p"; } > "$out/twice.txt.lz4"               # concatenated frames
xz -9 -c "$p" > "$out/plain.txt.xz"
xz --format=lzma -c "$p" > "$out/plain.txt.lzma"
lzip -c "$p" > "$out/plain.txt.lz"
compress -c < "$p" > "$out/plain.txt.Z"
lzop -q -c < "$p" > "$out/plain.txt.lzo"
{ lzop -q -c < "$p"; lzop -q -9 -CC --crc32 -c < "$p"; } > "$out/twice.txt.lzo"  # two files
# A tar inside each compressor.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir "$work/t"; cp "$p" "$work/t/"; printf 'second\n' > "$work/t/second.txt"
tar -C "$work" --sort=name --mtime=2021-01-01 --owner=0 --group=0 -cf "$work/t.tar" t
gzip -n -c "$work/t.tar" > "$out/t.tar.gz"
zstd -q -c "$work/t.tar" > "$out/t.tar.zst"
bzip2 -c "$work/t.tar" > "$out/t.tar.bz2"
xz -c "$work/t.tar" > "$out/t.tar.xz"
lz4 -q -c "$work/t.tar" > "$out/t.tar.lz4"
brotli -c "$work/t.tar" > "$out/t.tar.br"
compress -c < "$work/t.tar" > "$out/t.tar.Z"
lzop -q -c < "$work/t.tar" > "$out/t.tar.lzo"
ls -l "$out"
