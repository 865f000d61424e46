#!/usr/bin/env bash
# Compares our LZMA / LZMA2 decoder with liblzma (xz -dc -T1) on ~32 MiB of
# deterministic text-like and binary-like data, in the same run.
#
# Usage: scripts/bench-lzma.sh [runs]      (default 5 runs per measurement)
# Data is made once in $LZMA_BENCH_DIR (default /tmp/unpack-bench-lzma).
# Reported: wall and user CPU seconds per decode, best of the runs, and the
# ratio xz/ours (>= 1.0 means we are at least as fast). CPU time is the
# fairer number on a loaded machine.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dir=${LZMA_BENCH_DIR:-/tmp/unpack-bench-lzma}
mkdir -p "$dir"

if [ ! -f "$dir/bin.size" ]; then
  python3 - "$dir" <<'PY'
import random, struct, sys
d = sys.argv[1]
size = 32 << 20
r = random.Random(42)
# Text: Zipf-distributed words from a 20k vocabulary, with punctuation.
vocab = [''.join(r.choice('etaoinshrdlucmfwypvbgkjqxz') for _ in range(r.randint(1, 12)))
         for _ in range(20000)]
cw, t = [], 0.0
for i in range(len(vocab)):
    t += 1.0 / (i + 1)
    cw.append(t)
parts, n = [], 0
while n < size:
    ws = r.choices(vocab, cum_weights=cw, k=200000)
    s = ' '.join(ws)
    s = s.replace(' the ', '. The ', 50).replace(' a ', ',\n', 30)
    parts.append(s); n += len(s)
open(f'{d}/text.raw', 'w').write(''.join(parts)[:size])
# Binary: records of counters, small integers, a few floats and flags,
# runs of zeros, and some noise, like object files and databases.
out = bytearray()
floats = [struct.pack('<d', r.uniform(-1000, 1000)) for _ in range(64)]
i = 0
while len(out) < size:
    kind = r.random()
    if kind < 0.6:
        out += struct.pack('<IIHBB', i, i * 13 + 7, r.randrange(300), i & 7, 0) + r.choice(floats)
    elif kind < 0.8:
        out += bytes(r.randrange(64)) 
    elif kind < 0.95:
        out += r.randbytes(r.randrange(1, 24))
    else:
        out += out[-r.randrange(1, 4096):][:r.randrange(8, 200)] if len(out) > 8 else b'x'
    i += 1
open(f'{d}/bin.raw', 'wb').write(bytes(out[:size]))
PY
  for n in text bin; do
    xz --format=lzma -6 -T1 -c "$dir/$n.raw" > "$dir/$n.lzma"
    xz --format=raw --lzma2=preset=6 -c "$dir/$n.raw" > "$dir/$n.lzma2"
    stat -c %s "$dir/$n.raw" > "$dir/$n.size"
    rm "$dir/$n.raw"
  done
fi

go test -c -o "$dir/lzma.test" ./internal/codec/lzma

# measure runs a command once and prints its wall and user seconds.
measure() {
  /usr/bin/time -f '%e %U' -o "$dir/time.out" "$@" >/dev/null 2>&1
  cat "$dir/time.out"
}

printf '%-12s %10s %10s %10s %10s %8s %8s\n' stream xz-wall xz-user go-wall go-user ratio-w ratio-u
for n in text bin; do
  for f in lzma lzma2; do
    if [ $f = lzma ]; then
      xzcmd=(xz --format=lzma -dc -T1 "$dir/$n.lzma")
      bench="BenchmarkAlone/$n\$"
    else
      xzcmd=(xz --format=raw --lzma2=preset=6 -dc -T1 "$dir/$n.lzma2")
      bench="BenchmarkReader2/$n\$"
    fi
    # Runs alternate between xz and ours so both see the same machine
    # load; the best of each is kept. One decode per process
    # (-test.benchtime=1x) includes the window allocation, as a
    # command-line decode would.
    xw=999 xu=999 gw=999 gu=999
    for _ in $(seq "$runs"); do
      read -r w u < <(measure "${xzcmd[@]}")
      xw=$(python3 -c "print(min($xw, $w))"); xu=$(python3 -c "print(min($xu, $u))")
      read -r w u < <(LZMA_BENCH_DIR=$dir measure "$dir/lzma.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x)
      gw=$(python3 -c "print(min($gw, $w))"); gu=$(python3 -c "print(min($gu, $u))")
    done
    printf '%-12s %10s %10s %10s %10s %8.2f %8.2f\n' "$n.$f" "$xw" "$xu" "$gw" "$gu" \
      "$(python3 -c "print($xw/$gw)")" "$(python3 -c "print($xu/max($gu,0.001))")"
  done
done
