#!/usr/bin/env bash
# Regenerates internal/codec/xz/testdata: .xz files written by xz (XZ Utils
# 5.4) for every filter, check and block layout, one RISC-V file written by
# 7-Zip (xz 5.4 has no RISC-V filter), and SHA256SUMS of their decompressed
# content. Inputs are generated deterministically by python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/xz/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys, struct
d = sys.argv[1]
def w(name, data):
    open(f"{d}/{name}", "wb").write(data)
r = random.Random(20261130)
words = [''.join(r.choice('etaoinshrdlucmfwyp') for _ in range(r.randint(1, 9))) for _ in range(500)]
text = ' '.join(r.choice(words) for _ in range(15000)).encode()[:60000]
w("text", text)
def code(n, gen):
    b = bytearray()
    while len(b) < n:
        b += gen()
    return bytes(b[:n])
rb = lambda k: bytes(r.getrandbits(8) for _ in range(k))
# x86: calls and jumps with near targets between filler instructions.
def x86():
    t = r.randint(-50000, 50000)
    op = r.choice([b"\xe8", b"\xe9", b"\x0f\x85"])
    return rb(r.randint(0, 12)) + op + struct.pack("<i", t)
w("x86", code(24576, x86))
w("arm", code(16384, lambda: struct.pack("<I", 0xEB000000 | r.getrandbits(24)) if r.random() < .3 else rb(4)))
def thumb():
    if r.random() < .3:
        v = r.getrandbits(22)
        return struct.pack("<HH", 0xF000 | (v >> 11), 0xF800 | (v & 0x7FF))
    return rb(2)
w("armthumb", code(16384, thumb))
def a64():
    x = r.random()
    if x < .2: return struct.pack("<I", 0x94000000 | r.getrandbits(26))
    if x < .35: return struct.pack("<I", 0x90000000 | (r.getrandbits(2) << 29) | ((r.getrandbits(14) - 8192) & 0x7FFFF) << 5 | r.getrandbits(5))
    return rb(4)
w("arm64", code(16384, a64))
w("powerpc", code(16384, lambda: struct.pack(">I", 0x48000001 | (r.getrandbits(24) << 2)) if r.random() < .3 else rb(4)))
def sparc():
    if r.random() < .3:
        v = r.randint(-(1 << 22), (1 << 22) - 1) & 0x3FFFFFFF
        return struct.pack(">I", 0x40000000 | v)
    return rb(4)
w("sparc", code(16384, sparc))
def ia64():
    b = bytearray(rb(16))
    b[0] = (b[0] & 0xE0) | r.choice([0x10, 0x11, 0x12, 0x13, 0x16, 0x17, 0x18, 0x1C])
    v = int.from_bytes(b, "little")
    for slot in range(3):
        if r.random() < .5:
            pos = 5 + 41 * slot
            ins = (v >> pos) & ((1 << 41) - 1)
            ins = (ins & ~(0xF << 37) & ~(0x7 << 9)) | (0x5 << 37)
            v = (v & ~(((1 << 41) - 1) << pos)) | (ins << pos)
    return v.to_bytes(16, "little")
w("ia64", code(16384, ia64))
def riscv():
    x = r.random()
    if x < .2:  # JAL ra
        return struct.pack("<I", 0xEF | (1 << 7) | (r.getrandbits(20) << 12))
    if x < .4:  # AUIPC rd + ADDI/LD with rs1 = rd
        rd = r.choice([1, 5, 6, 10, 11, 15])
        return struct.pack("<II", 0x17 | (rd << 7) | (r.getrandbits(20) << 12),
                           0x13 | (r.getrandbits(5) << 7) | (rd << 15) | (r.getrandbits(12) << 20))
    return rb(2)
w("riscv", code(16384, riscv))
# 32 MiB for the allocation test, very compressible: a 4 KiB pattern
# repeated, its E8/E9 bytes such that the x86 filter scans but rarely
# converts (converted targets differ per position and would not compress).
pat = bytearray(text[:4096])
for i in range(0, 4096, 97):
    pat[i:i + 5] = b"\xe8\x11\x22\x33\x44"
w("x86big", bytes(pat) * 8192)
PY

rm -f "$out"/*.xz "$out"/SHA256SUMS
x() { local name=$1 in=$2; shift 2; xz -c -T1 "$@" "$tmp/$in" > "$out/$name.xz"; echo "$in" > "$tmp/$name.src"; }
x x86-lzma2        x86      --x86 --lzma2=preset=6,dict=64KiB
x x86-start        x86      --x86=start=4096 --lzma2=dict=64KiB
x arm-lzma2        arm      --arm --lzma2=dict=64KiB
x arm-start        arm      --arm=start=1024 --lzma2=dict=64KiB
x armthumb-lzma2   armthumb --armthumb --lzma2=dict=64KiB
x arm64-lzma2      arm64    --arm64 --lzma2=dict=64KiB
x arm64-start      arm64    --arm64=start=4294963200 --lzma2=dict=64KiB
x powerpc-lzma2    powerpc  --powerpc --lzma2=dict=64KiB
x sparc-lzma2      sparc    --sparc --lzma2=dict=64KiB
x ia64-lzma2       ia64     --ia64 --lzma2=dict=64KiB
x ia64-start       ia64     --ia64=start=256 --lzma2=dict=64KiB
x delta4-lzma2     text     --delta=dist=4 --lzma2=dict=64KiB
x delta256-lzma2   text     --delta=dist=256 --lzma2=dict=64KiB
x chain3           x86      --delta=dist=2 --x86 --arm --lzma2=dict=64KiB
x chain4           text     --delta=dist=1 --delta=dist=3 --x86 --lzma2=dict=64KiB
x check-none       text     --check=none -1
x check-crc32      text     --check=crc32 -1
x check-crc64      text     --check=crc64 -1
x check-sha256     text     --check=sha256 -1
x blocks-sized     text     -T2 --block-size=8KiB -1
x blocks-unsized   text     -T1 --block-size=8KiB -1
x x86-blocks-sized x86      -T2 --block-size=4KiB --x86 --lzma2=dict=64KiB
x x86big           x86big   --x86 --lzma2=preset=6
# Tiny files: quick fuzz seeds with every structure.
head -c 600 "$tmp/text" > "$tmp/tiny"
x tiny-x86-delta   tiny     --delta=dist=3 --x86 --lzma2=dict=4KiB --check=sha256
x tiny-blocks      tiny     -T2 --block-size=200 --lzma2=dict=4KiB --check=crc64
x tiny-arm64-crc32 tiny     --arm64=start=64 --lzma2=dict=4KiB --check=crc32
x tiny-none        tiny     --lzma2=dict=4KiB --check=none
# Empty input, concatenated streams with stream padding between them.
: > "$tmp/empty"
x empty            empty
{ cat "$out/check-crc32.xz"; head -c 8 /dev/zero; cat "$out/blocks-sized.xz"; head -c 4 /dev/zero; } > "$out/concat-padded.xz"
cat "$tmp/text" "$tmp/text" > "$tmp/text2"; echo text2 > "$tmp/concat-padded.src"
# RISC-V: 7-Zip writes the xz filter 0x0B.
rm -f "$tmp/riscv.xz"
7zz a -txz -mf=RISCV -mx=5 "$tmp/riscv.xz" "$tmp/riscv" > /dev/null
cp "$tmp/riscv.xz" "$out/riscv-7zip.xz"; echo riscv > "$tmp/riscv-7zip.src"

for f in "$out"/*.xz; do
  n=$(basename "$f" .xz)
  src=$(cat "$tmp/$n.src")
  if [ "$n" = riscv-7zip ]; then
    7zz e -so "$f" 2>/dev/null | cmp -s - "$tmp/$src" || { echo "7zz does not round-trip $n" >&2; exit 1; }
  else
    xz -dc "$f" | cmp -s - "$tmp/$src" || { echo "xz does not round-trip $n" >&2; exit 1; }
  fi
  echo "$(sha256sum < "$tmp/$src" | cut -c1-64)  $(stat -c %s "$tmp/$src")  $n.xz"
done > "$out/SHA256SUMS"
du -sh "$out"
