#!/usr/bin/env bash
# Fixtures for internal/codec/lz4, made with the lz4 command-line tool from
# deterministic inputs: each frame option (block sizes, linked blocks,
# block and content checksums, content size), legacy frames, skippable
# frames, several frames in one file, empty content, stored blocks.
# Idempotent. Writes testdata/*.lz4 and SHA256SUMS (the sha256 of each
# file's output as `lz4 -dc` gives it).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/lz4/testdata
mkdir -p "$out"
rm -f "$out"/*.lz4 "$out"/SHA256SUMS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261130)
# Text: words from a small vocabulary in sentences.
words = [''.join(r.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(r.randint(1, 8)))
         for _ in range(600)]
out, n = [], 0
while n < 70_000:
    s = ' '.join(r.choice(words) for _ in range(r.randint(3, 14))).capitalize() + '.\n'
    out.append(s); n += len(s)
open(f'{d}/text', 'w').write(''.join(out))
# Mixed: incompressible 25 KB chunks (stored blocks) between runs of one
# byte and short periods (match offsets 1..7) and text.
b = bytearray()
for i in range(3):
    b += r.randbytes(25_000)
    b += bytes([i]) * 3000
    for p in range(1, 8):
        b += bytes(r.randrange(256) for _ in range(p)) * (200 + i)
    b += ''.join(out[i * 100:(i + 1) * 100]).encode()
open(f'{d}/mixed', 'wb').write(bytes(b))
PY

: >"$tmp/empty"
lz4 -q -c "$tmp/empty" >"$out/empty.lz4"
lz4 -q -l -c "$tmp/empty" >"$out/empty-legacy.lz4"
lz4 -q -c "$tmp/text" >"$out/text-default.lz4"
lz4 -q -9 -c "$tmp/text" >"$out/text-9.lz4"
lz4 -q --fast=5 -c "$tmp/text" >"$out/text-fast5.lz4"
lz4 -q -B4 -BD -c "$tmp/text" >"$out/text-B4-BD.lz4"
lz4 -q -B4 -BX -c "$tmp/text" >"$out/text-B4-BX.lz4"
lz4 -q -B5 -BD -BX --content-size -c "$tmp/text" >"$out/text-B5-BD-BX-size.lz4"
lz4 -q -B6 --no-frame-crc -c "$tmp/text" >"$out/text-B6-nocrc.lz4"
lz4 -q --content-size -c "$tmp/text" >"$out/text-size.lz4"
lz4 -q -l -c "$tmp/text" >"$out/text-legacy.lz4"
lz4 -q -B4 -c "$tmp/mixed" >"$out/mixed-B4.lz4"
lz4 -q -B4 -BD -BX -c "$tmp/mixed" >"$out/mixed-B4-BD-BX.lz4"
lz4 -q -9 -B5 -BD --content-size -c "$tmp/mixed" >"$out/mixed-9-B5-BD-size.lz4"
head -c 1000 "$tmp/text" | lz4 -q -c >"$tmp/small.lz4"
# A skippable frame (magic 0x184D2A53, 5 bytes), a frame, an empty
# skippable frame (0x184D2A5F), an empty frame, a legacy frame and a
# frame again.
{
  printf '\x53\x2a\x4d\x18\x05\x00\x00\x00hello'
  cat "$tmp/small.lz4"
  printf '\x5f\x2a\x4d\x18\x00\x00\x00\x00'
  cat "$out/empty.lz4"
  head -c 2000 "$tmp/text" | lz4 -q -l -c
  cat "$out/text-B4-BX.lz4"
} >"$out/multi.lz4"

(cd "$out" && for f in *.lz4; do
  printf '%s  %s\n' "$(lz4 -dc "$f" | sha256sum | cut -d' ' -f1)" "$f"
done) >"$out/SHA256SUMS"
