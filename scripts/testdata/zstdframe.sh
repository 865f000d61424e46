#!/usr/bin/env bash
# Regenerates internal/codec/zstdframe/testdata: zstd frames made by the
# reference zstd CLI over deterministic content (Python's random seeded with
# 1), and expected.tsv with the size and SHA-256 of each one's content:
#   text-check.zst      text, multi-block (> 128 KiB), with Content_Checksum
#   big-check.zst       ten copies of that text: a frame over 1 MiB
#   text-nocheck.zst    its first 20000 bytes, --no-check
#   stdin-check.zst     the same, piped (no Frame_Content_Size)
#   random-check.zst    incompressible bytes: raw blocks
#   zeros-check.zst     zeros: RLE blocks
#   multi.zst           three frames (checksum, none, checksum) concatenated
#   skippable.zst       skippable frames before, between and after two frames
#   empty-check.zst     an empty input (no content size: the header with a window descriptor)
# Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/zstdframe/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(1)
words = [''.join(r.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(r.randint(2, 9))) for _ in range(60)]
text = []
n = 0
while n < 200000:
    line = ' '.join(r.choice(words) for _ in range(r.randint(3, 14))) + '\n'
    text.append(line)
    n += len(line)
open(d + '/text', 'w').write(''.join(text))
open(d + '/random', 'wb').write(bytes(r.getrandbits(8) for _ in range(20000)))
open(d + '/zeros', 'wb').write(bytes(300000))
open(d + '/empty', 'wb').write(b'')
PY
z() { zstd -q -f "$@"; }
raw=$tmp/raw
mkdir -p "$raw"
head -c 20000 "$tmp/text" >"$tmp/text20k"
z -3 --check "$tmp/text" -o "$out/text-check.zst";           cp "$tmp/text" "$raw/text-check"
z -3 --no-check "$tmp/text20k" -o "$out/text-nocheck.zst";   cp "$tmp/text20k" "$raw/text-nocheck"
zstd -q -3 --check -c <"$tmp/text20k" >"$out/stdin-check.zst"; cp "$tmp/text20k" "$raw/stdin-check"
z -3 --check "$tmp/random" -o "$out/random-check.zst";       cp "$tmp/random" "$raw/random-check"
z -3 --check "$tmp/zeros" -o "$out/zeros-check.zst";         cp "$tmp/zeros" "$raw/zeros-check"
for _ in 1 2 3 4 5 6 7 8 9 10; do cat "$tmp/text"; done >"$raw/big-check"
z -3 --check "$raw/big-check" -o "$out/big-check.zst"
z -3 --check --no-content-size "$tmp/empty" -o "$out/empty-check.zst";         cp "$tmp/empty" "$raw/empty-check"
head -c 1000 "$tmp/text" >"$tmp/a"; tail -c 2000 "$tmp/text" >"$tmp/b"; tail -c 5000 "$tmp/random" >"$tmp/c"
z --check "$tmp/a" -o "$tmp/a.zst"; z --no-check "$tmp/b" -o "$tmp/b.zst"; z --check "$tmp/c" -o "$tmp/c.zst"
cat "$tmp/a.zst" "$tmp/b.zst" "$tmp/c.zst" >"$out/multi.zst"; cat "$tmp/a" "$tmp/b" "$tmp/c" >"$raw/multi"
# Skippable frames (magic 0x184D2A5?, little-endian size, payload).
skip() { python3 -c 'import struct,sys; m,n=int(sys.argv[1]),int(sys.argv[2]); sys.stdout.buffer.write(struct.pack("<II", 0x184D2A50|m, n) + bytes((i*7) & 0xff for i in range(n)))' "$1" "$2"; }
{ skip 0 16; cat "$tmp/a.zst"; skip 15 0; skip 3 300; cat "$tmp/b.zst"; skip 7 5; } >"$out/skippable.zst"
cat "$tmp/a" "$tmp/b" >"$raw/skippable"
{
  printf 'name\tsize\tsha256\n'
  for f in "$out"/*.zst; do
    name=$(basename "$f" .zst)
    cmp -s <(zstd -q -d -c "$f") "$raw/$name" || { echo "zstd disagrees on $f" >&2; exit 1; }
    printf '%s\t%s\t%s\n' "$name" "$(wc -c <"$raw/$name")" "$(sha256sum <"$raw/$name" | cut -d' ' -f1)"
  done
} >"$out/expected.tsv"
ls -l "$out"
du -sh "$out"
