#!/usr/bin/env bash
# Regenerates the LZX fixtures in internal/codec/lzx/testdata: WIM files
# written by wimlib-imagex capture --compress=LZX (whose resources are LZX
# chunks as WIM carries them), one with WIMGAPI's 32 KiB chunks (window
# 2^15) and one with 128 KiB chunks (window 2^17), from one file of text,
# x86-like code (0xE8 calls, for the E8 translation) and random bytes.
# Each is checked by wimlib-imagex apply; files.txt lists "SHA-256 size"
# of the source file, which the tests find among the WIM's resources.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/lzx/testdata
mkdir -p "$D"
rm -f "$D"/*.wim "$D"/files.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
python3 - "$tmp/src/mixed.bin" <<'PY'
import random, struct, sys
r = random.Random(20261202)
words = ['lzx', 'window', 'frame', 'cabinet', 'chunk', 'offset', 'Huffman', 'E8', 'call', '\n']
out = bytearray()
while len(out) < 160000:
    k = r.randrange(4)
    if k == 0:
        out += ' '.join(r.choice(words) for _ in range(r.randrange(5, 200))).encode()
    elif k == 1:
        # x86-ish: calls with relative targets, some near the E8 limits.
        for _ in range(r.randrange(10, 400)):
            out += bytes([0x55, 0x8b, 0xec, 0xe8]) + struct.pack('<i', r.randrange(-70000, 70000))
            out += bytes(r.randrange(4) for _ in range(r.randrange(3)))
    elif k == 2:
        out += bytes(r.randrange(256) for _ in range(r.randrange(1, 400)))
    else:
        start = r.randrange(max(1, len(out)))
        out += out[start:start + r.randrange(1, 2000)]
open(sys.argv[1], 'wb').write(out[:160000])
PY
wimlib-imagex capture "$tmp/src" "$D/lzx-32k.wim" --compress=LZX --no-acls >/dev/null
wimlib-imagex capture "$tmp/src" "$D/lzx-128k.wim" --compress=LZX --chunk-size=131072 --no-acls >/dev/null
for w in "$D"/*.wim; do
  rm -rf "$tmp/out"
  wimlib-imagex apply "$w" 1 "$tmp/out" >/dev/null
  cmp "$tmp/src/mixed.bin" "$tmp/out/mixed.bin"
done
(cd "$tmp/src" && sha256sum mixed.bin | awk '{print $1}' | tr -d '\n'; echo " $(stat -c %s mixed.bin)") > "$D/files.txt"
ls -l "$D"
