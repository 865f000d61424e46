#!/usr/bin/env bash
# Regenerates the LZMA, LZMA2 and lzip fixtures in internal/codec/lzma/testdata
# and internal/codec/lzip/testdata with xz, 7zz and lzip from deterministic
# input (python3, seeded). Idempotent. The decompressed inputs are not kept;
# sums.txt records their SHA-256 and size.
set -euo pipefail
cd "$(dirname "$0")/../.."
L=internal/codec/lzma/testdata
Z=internal/codec/lzip/testdata
mkdir -p "$L" "$Z"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261130)
# Text-like: words from a small vocabulary, lines of varying length.
words = [''.join(r.choice('etaoinshrdlucmfwypvbgkjqxz') for _ in range(r.randint(1, 10)))
         for _ in range(3000)]
out, n = [], 0
while n < 96 * 1024:
    w = r.choice(words) + (' ' if r.random() < 0.88 else '\n')
    out.append(w); n += len(w)
open(f'{d}/text', 'w').write(''.join(out)[:96 * 1024])
# Binary-like: little-endian records with small counters and noise, a few
# incompressible bytes, then a long run of one byte (distance-1 matches).
b = bytearray()
for i in range(6000):
    b += (i * 7).to_bytes(4, 'little') + r.randrange(1 << 16).to_bytes(2, 'little') + bytes([i & 15, 0])
b += bytes(r.randrange(256) for _ in range(4096))
b += b'\x55' * 5000
open(f'{d}/bin', 'wb').write(b)
# Mixed: 66 KiB of noise first, which LZMA2 stores as uncompressed chunks
# (the first one resetting the dictionary), then the binary data.
open(f'{d}/mixed', 'wb').write(bytes(r.randrange(256) for _ in range(66 * 1024)) + b)
PY

# .lzma (LZMA-alone): xz writes an unknown size and an end marker.
xz --format=lzma -6 -c "$tmp/text" > "$L/text-xz.lzma"
xz --format=lzma --lzma1=preset=6,lc=0,lp=2,pb=0 -c "$tmp/bin" > "$L/bin-lc0lp2pb0-xz.lzma"
# Raw LZMA (end marker, size unknown) and raw LZMA2.
xz --format=raw --lzma1=preset=6,dict=64KiB -c "$tmp/bin" > "$L/bin-xz.lzma1"
xz --format=raw --lzma2=preset=6,dict=1MiB -c "$tmp/text" > "$L/text-xz.lzma2"
xz --format=raw --lzma2=preset=6,dict=4KiB -c "$tmp/text" > "$L/text-dict4k-xz.lzma2"
xz --format=raw --lzma2=preset=6,dict=64KiB,lc=1,lp=2,pb=1 -c "$tmp/mixed" > "$L/mixed-xz.lzma2"

# A known-size .lzma without end marker, lc=8 lp=4: 7-Zip's LZMA encoder
# inside a 7z archive, its packed stream given a .lzma header.
rm -f "$tmp/t.7z"
(cd "$tmp" && 7zz a -t7z -mhc=off -m0=LZMA:lc=8:lp=4:pb=0:d=64k t.7z text >/dev/null)
python3 - "$tmp/t.7z" "$L/text-lc8lp4-7zip.lzma" "$(stat -c %s "$tmp/text")" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
nho, nhs = struct.unpack('<QQ', b[12:28])
hdr = b[32 + nho:32 + nho + nhs]
i = hdr.find(b'\x03\x01\x01\x05')
assert i >= 0, 'LZMA coder not found'
props = hdr[i + 4:i + 9]
open(sys.argv[2], 'wb').write(props + struct.pack('<Q', int(sys.argv[3])) + b[32:32 + nho])
PY

# Small streams seed the fuzz targets (FuzzLZMA, FuzzLZMA2, FuzzLzip).
head -c 3000 "$tmp/text" > "$tmp/small"
head -c 1500 "$tmp/mixed" >> "$tmp/small"
xz --format=lzma -6 -c "$tmp/small" > "$L/small-xz.lzma"
xz --format=raw --lzma2=preset=6,dict=4KiB -c "$tmp/small" > "$L/small-xz.lzma2"
lzip -c "$tmp/small" > "$Z/small-lzip.lz"

# lzip: one member, a multi-member file (two files concatenated and a
# member-size split), and lzip's fast encoder.
lzip -6 -c "$tmp/text" > "$Z/text-lzip.lz"
lzip -0 -c "$tmp/bin" > "$Z/bin-lzip0.lz"
{ lzip -c "$tmp/bin"; lzip -c "$tmp/text"; } > "$Z/two-members-lzip.lz"
cat "$tmp/bin" "$tmp/text" > "$tmp/both"
lzip -b 100kB -c "$tmp/both" > "$Z/split-lzip.lz"

{
  for f in text bin mixed both small; do
    printf '%s %s %s\n' "$f" "$(sha256sum < "$tmp/$f" | cut -d' ' -f1)" "$(stat -c %s "$tmp/$f")"
  done
} > "$L/sums.txt"
cp "$L/sums.txt" "$Z/sums.txt"
ls -l "$L" "$Z"
