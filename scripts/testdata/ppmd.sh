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

# Edge cases of updateModel, both variants (issue 23): runs of one byte of
# every length up to 89, each ended by another byte (a binary context
# whose frequency is at every value about 30, the cut-off of its
# doubling, when it gets its second state), one byte followed by all 256
# (a context given its 256th state), one pair repeated k times. NAME.7z
# (variant H, read as rar4.sh's) and zipI-NAME.zip with NAME.sha256 each.
python3 - "$tmp/edge.bin" <<'PY'
import random, sys
r = random.Random(16)
out = bytearray()
for rep in range(3):
    for k in range(2, 90):
        a = r.randrange(256)
        b = (a + 1 + r.randrange(255)) % 256
        out += bytes([r.randrange(256)]) + bytes([a]) * k + bytes([b])
    for x in r.sample(range(256), 6):
        vals = list(range(256))
        r.shuffle(vals)
        for v in vals:
            out += bytes([x, v])
    for k in range(2, 70):
        p, q, s = r.sample(range(256), 3)
        out += bytes([p, q]) * k + bytes([p, s])
open(sys.argv[1], 'wb').write(out)
PY
sum="$(sha256sum < "$tmp/edge.bin" | cut -d' ' -f1) $(stat -c %s "$tmp/edge.bin")"
for o in 2 6; do
  name=o$o-m16m-edge
  cp "$tmp/edge.bin" "$tmp/$name.txt"
  touch -d '2024-01-02 03:04:05' "$tmp/$name.txt"
  rm -f "$out/$name.7z" "$out/zipI-$name-a0.zip"
  (cd "$tmp" && 7zz a -bd -bso0 -mhc=off -mx=9 -m0=PPMd:o=$o:mem=16m "$OLDPWD/$out/$name.7z" "$name.txt")
  echo "$sum" > "$out/$name.sha256"
  cp "$tmp/edge.bin" "$tmp/edge.txt"
  touch -d '2024-01-02 03:04:05' "$tmp/edge.txt"
  (cd "$tmp" && 7zz a -bd -bso0 -tzip -mtc=off -mm=PPMd:o=$o:mem=16m:a=0 "$OLDPWD/$out/zipI-$name-a0.zip" edge.txt)
  echo "$sum" > "$out/zipI-$name-a0.sha256"
  rm -f "$tmp/edge.txt"
done
