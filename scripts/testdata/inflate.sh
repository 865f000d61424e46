#!/usr/bin/env bash
# Deflate fixtures of internal/codec/inflate from real encoders: raw
# streams from zlib (python3's zlib module) with each strategy, from pigz
# -11 (zopfli's block splitting) and a zip from 7-Zip's deflate encoder
# (-mx9: long matches, distances up to 32 KiB). The input is deterministic
# (text, runs, short periods, a random block repeated about 30 KiB
# apart); tests decode the streams with compress/flate as the oracle, so
# the plain data is not committed.
# Output: internal/codec/inflate/testdata/*.deflate, deflate-7zip.zip
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/inflate/testdata
rm -f "$out"/*.deflate "$out"/deflate-7zip.zip
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" "$out" <<'PY'
import random, sys, zlib
work, out = sys.argv[1], sys.argv[2]
r = random.Random(20261130)
words = [''.join(r.choice('etaoinshrdlucmfwyp') for _ in range(r.randint(2, 8))) for _ in range(300)]
text = '\n'.join(' '.join(r.choice(words) for _ in range(r.randint(3, 14))) for _ in range(500)).encode()
block = r.randbytes(2000)  # repeated about 30 KiB later: far matches
data = (block + text + b'\0' * 3000 + b'ab' * 700 + b'xyz' * 500 + bytes(range(256)) * 8
        + block + text[:5000])
open(work + '/data', 'wb').write(data)
for name, level, strategy in [
        ('zlib-default', 6, zlib.Z_DEFAULT_STRATEGY), ('zlib-1', 1, zlib.Z_DEFAULT_STRATEGY),
        ('zlib-9', 9, zlib.Z_DEFAULT_STRATEGY), ('zlib-fixed', 6, zlib.Z_FIXED),
        ('zlib-rle', 6, zlib.Z_RLE), ('zlib-huffman', 6, zlib.Z_HUFFMAN_ONLY),
        ('zlib-filtered', 6, zlib.Z_FILTERED), ('zlib-stored', 0, zlib.Z_DEFAULT_STRATEGY)]:
    c = zlib.compressobj(level, zlib.DEFLATED, -15, 8, strategy)
    open('%s/%s.deflate' % (out, name), 'wb').write(c.compress(data) + c.flush())
PY
# pigz writes gzip: a 10-byte header (no name with -n) and an 8-byte trailer.
pigz -11 -n -c "$work/data" > "$work/data.gz"
head -c -8 "$work/data.gz" | tail -c +11 > "$out/zopfli.deflate"
touch -d "2026-01-01 00:00:00 UTC" "$work/data" # a fixed time: the same zip each run
(cd "$work" && 7zz a -bso0 -bsp0 -tzip -mm=Deflate -mx9 deflate-7zip.zip data)
cp "$work/deflate-7zip.zip" "$out/"
ls -l "$out"
