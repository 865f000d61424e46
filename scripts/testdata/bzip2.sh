#!/usr/bin/env bash
# Fixtures for internal/codec/bzip2, made with bzip2, lbzip2 and pbzip2 from
# deterministic inputs. Idempotent. Writes testdata/*.bz2 and SHA256SUMS
# (the sha256 of each file's output as `bzip2 -dc` gives it).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/bzip2/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261130)
# Text: words from a small vocabulary in sentences (compresses about 4:1).
words = [''.join(r.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(r.randint(1, 8)))
         for _ in range(600)]
out, n = [], 0
while n < 110_000:
    s = ' '.join(r.choice(words) for _ in range(r.randint(3, 14))).capitalize() + '.\n'
    out.append(s); n += len(s)
open(f'{d}/text', 'w').write(''.join(out))
# Binary: little-endian records with counters, small floats and zero gaps.
b = bytearray()
for i in range(12_000):
    b += i.to_bytes(4, 'little') + r.randrange(1 << 6).to_bytes(2, 'little') + bytes(r.choice((0, 2, 6)))
open(f'{d}/binary', 'wb').write(bytes(b))
# Runs: long runs (RLE1 counts of 255, exact 4- and 5-runs) totalling 12 MB,
# so a block expands far beyond one buffer.
b = bytearray()
b += bytes(10_000_000)
for k in range(1, 600):
    b += bytes([k & 0xff]) * (k % 9) + b'\xff' * 4 + b'ab'
b += b'\x07' * 2_000_000
open(f'{d}/runs', 'wb').write(bytes(b))
# Magic in the symbol map: the set of byte values spells the block magic
# (0x314159265359) in rows 0..2 of the used-byte bitmap and the
# end-of-stream magic (0x177245385090) in rows 3..5, so every block holds
# both at a bit position where no block starts. No byte repeats 4 times.
rows = [0x3141, 0x5926, 0x5359, 0x1772, 0x4538, 0x5090] + [0x8000] * 10
alphabet = [16 * row + k for row, w in enumerate(rows) for k in range(16) if w & (0x8000 >> k)]
chunks = [bytes(r.choice(alphabet) for _ in range(r.randint(2, 9))) for _ in range(300)]
b = bytearray()
while len(b) < 210_000:
    c = r.choice(chunks)
    if b and c[0] == b[-1]:
        continue
    b += c
open(f'{d}/bitmap', 'wb').write(bytes(b))
PY

: >"$tmp/empty"
bzip2 -c "$tmp/empty" >"$out/empty-bzip2.bz2"
for l in 1 2 3 4 5 6 7 8 9; do
  bzip2 -"$l" -c "$tmp/text" >"$out/text-bzip2-$l.bz2"
done
head -c 3000 "$tmp/text" | bzip2 -9 -c >"$out/small-bzip2.bz2"
bzip2 -9 -c "$tmp/binary" >"$out/binary-bzip2.bz2"
lbzip2 -1 -n 2 -c "$tmp/binary" >"$out/binary-lbzip2.bz2"
pbzip2 -1 -b1 -p2 -c "$tmp/text" >"$out/text-pbzip2.bz2"
bzip2 -1 -c "$tmp/runs" >"$out/runs-bzip2.bz2"
bzip2 -1 -c "$tmp/bitmap" >"$out/bitmap-bzip2.bz2"
# Three concatenated streams, the middle one empty.
cat "$out/text-bzip2-1.bz2" "$out/empty-bzip2.bz2" "$out/runs-bzip2.bz2" >"$out/multi-bzip2.bz2"

(cd "$out" && for f in *.bz2; do
  printf '%s  %s\n' "$(bzip2 -dc "$f" | sha256sum | cut -d' ' -f1)" "$f"
done) >"$out/SHA256SUMS"
