#!/usr/bin/env bash
# Fixtures for internal/codec/ppmd variant I: zip method 98 (PPMd var.I
# rev 1) entries written by 7-Zip (7zz a -tzip -mm=PPMd). Each zipI-*.zip
# holds one file, text.txt (generated from a fixed seed), compressed at
# the order, memory and restore method (a=0 RESTART, a=1 CUT_OFF) in its
# name; the 1 MiB models run out of memory, so both restore methods are
# exercised. zipI.sha256 holds the file's SHA-256 and size. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/ppmd/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/text.txt" <<'PY'
import random, sys
r = random.Random(7)
words = [''.join(r.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(r.randint(1, 9))) for _ in range(3000)]
out, n = [], 0
while n < 200000:
    line = ' '.join(r.choice(words) for _ in range(r.randint(3, 14)))
    if r.random() < 0.1:
        line += ' %d' % r.randint(0, 99999)
    out.append(line)
    n += len(line) + 1
open(sys.argv[1], 'w').write('\n'.join(out) + '\n')
PY
touch -d '2024-01-02 03:04:05' "$tmp/text.txt"
(cd "$tmp" && sha256sum text.txt | awk -v s="$(stat -c %s text.txt)" '{print $1, s}') > "$out/zipI.sha256"

mk() { # name, 7zz method options
  rm -f "$out/$1.zip"
  (cd "$tmp" && 7zz a -bd -bso0 -tzip -mtc=off -mm=PPMd"$2" "$OLDPWD/$out/$1.zip" text.txt)
}
mk zipI-o2-m1m-a0 ":o=2:mem=1m:a=0"
mk zipI-o6-m16m-a0 ":o=6:mem=16m:a=0"
mk zipI-o8-m2m-a1 ":o=8:mem=2m:a=1"
mk zipI-o16-m1m-a0 ":o=16:mem=1m:a=0"
mk zipI-o16-m1m-a1 ":o=16:mem=1m:a=1"
