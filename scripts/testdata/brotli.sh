#!/usr/bin/env bash
# Fixtures for internal/codec/brotli, made with the brotli command-line
# tool from deterministic inputs: every quality 0..11 and every window
# size 10..24, text (context modeling, dictionary words), binary with
# repeats at short distances, incompressible runs (uncompressed
# meta-blocks) and a large-window stream (refused).
# Idempotent. Writes testdata/*.br and SHA256SUMS (the sha256 of each
# file's output as `brotli -dc` gives it).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/brotli/testdata
mkdir -p "$out"
rm -f "$out"/*.br "$out"/SHA256SUMS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261130)
# Text: English-like words (many are static dictionary words) in
# sentences, with some UTF-8.
words = ('the of and to in is that for it with as was on be by this are from '
         'at or an have not which but all they were can their one there been '
         'time would more other about some into only these could people first '
         'system information public service international development '
         'naïve café über straße résumé').split()
out, n = [], 0
while n < 20_000:
    s = ' '.join(r.choice(words) for _ in range(r.randint(3, 14))).capitalize() + '.\n'
    out.append(s); n += len(s)
text = ''.join(out).encode()
open(f'{d}/text', 'wb').write(text)
# Mixed: text, incompressible chunks, runs of one byte, short periods.
b = bytearray()
for i in range(2):
    b += r.randbytes(1000)
    b += bytes([i]) * 1500
    for p in range(1, 20):
        b += bytes(r.randrange(256) for _ in range(p)) * (40 + i)
    b += text[i * 4000:(i + 1) * 4000]
open(f'{d}/mixed', 'wb').write(bytes(b))
# Far: a block repeated after 12 KB of 4-bit noise, for windows smaller
# and larger than the distance.
def noise(n):
    return bytes(r.choice(b'0123456789abcdef') for _ in range(n))
blk = r.randbytes(1500)
open(f'{d}/far', 'wb').write(blk + noise(12_000) + blk + blk)
# Noise: incompressible, stored in uncompressed meta-blocks.
open(f'{d}/noise', 'wb').write(r.randbytes(5000))
PY

# (The empty stream is not made here: every form the brotli CLI writes is
# byte-identical to one of the corpus's empty.compressed* files, which
# TestCorpus reads.)
for q in 0 1 2 3 4 5 6 7 8 9 10 11; do
	brotli -c -q "$q" "$tmp/mixed" >"$out/mixed-q$q.br"
	brotli -c -q "$q" "$tmp/text" >"$out/text-q$q.br"
done
for w in 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
	brotli -c -q 9 -w "$w" "$tmp/far" >"$out/far-q9-w$w.br"
done
brotli -c -q 11 -w 10 "$tmp/mixed" >"$out/mixed-q11-w10.br"
for q in 0 5 11; do
	brotli -c -q "$q" "$tmp/noise" >"$out/noise-q$q.br"
done
brotli -c -q 5 --large_window=26 "$tmp/far" >"$tmp/large.br"
cp "$tmp/large.br" "$out/far-largewindow26.br"

cd "$out"
for f in *.br; do
	[ "$f" = far-largewindow26.br ] && continue
	printf '%s  %s\n' "$(brotli -dc "$f" | sha256sum | cut -d' ' -f1)" "$f"
done >SHA256SUMS
du -ch ./*.br | tail -1
