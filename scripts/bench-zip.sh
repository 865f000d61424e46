#!/usr/bin/env bash
# Compares internal/codec/zip (through scripts/benchzip) with unzip -p,
# 7zz x -so and bsdtar -xOf on a many-entry and a few-large-entry zip,
# in one hyperfine run each. Inputs are generated (deterministically) under
# ${BENCH_DIR:-/tmp/unpack-bench-zip} and are not committed.
# Usage: scripts/bench-zip.sh [hyperfine options, e.g. --runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-/tmp/unpack-bench-zip}
mkdir -p "$dir"
go build -o "$dir/benchzip" ./scripts/benchzip
if [ ! -f "$dir/many.zip" ] || [ ! -f "$dir/large.zip" ]; then
  python3 - "$dir" <<'PY'
import os, random, sys
d = sys.argv[1]
r = random.Random(7)
words = [''.join(r.choice('abcdefghijklmnopqrstuvwxyz_') for _ in range(r.randint(2, 10))) for _ in range(3000)]
def text(n):
    out = []
    size = 0
    while size < n:
        line = ' ' * (4 * r.randint(0, 3)) + ' '.join(r.choice(words) for _ in range(r.randint(3, 12))) + '\n'
        out.append(line); size += len(line)
    return ''.join(out)[:n]
many = os.path.join(d, 'many'); os.makedirs(many, exist_ok=True)
for i in range(4000):
    sub = os.path.join(many, 'd%02d' % (i % 40)); os.makedirs(sub, exist_ok=True)
    open(os.path.join(sub, 'f%04d.txt' % i), 'w').write(text(r.randint(1000, 30000)))
large = os.path.join(d, 'large'); os.makedirs(large, exist_ok=True)
for i in range(4):
    with open(os.path.join(large, 'big%d.dat' % i), 'wb') as f:
        for _ in range(24):
            f.write(text(1 << 20).encode())
            f.write(bytes(r.getrandbits(8) for _ in range(32 << 10)))
PY
  (cd "$dir" && rm -f many.zip large.zip && zip -q -r -X many.zip many && zip -q -r -X large.zip large)
fi
for z in many large; do
  f=$dir/$z.zip
  echo "== $z.zip: $(du -h "$f" | cut -f1) compressed"
  hyperfine --warmup 1 --runs "${RUNS:-5}" -N "$@" \
    -n "unpack-zip -j1" "$dir/benchzip -j 1 $f" \
    -n "unpack-zip -j2" "$dir/benchzip -j 2 $f" \
    -n "unzip -p" "unzip -p $f" \
    -n "7zz x -so" "7zz x -so $f" \
    -n "bsdtar -xOf" "bsdtar -xOf $f"
done
