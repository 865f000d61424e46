#!/usr/bin/env bash
# Fixtures for internal/codec/ppmd: PPMd variant H streams written by 7-Zip
# (7zz). No RAR writer exists here, so RAR 1.5-4.x tests use public test
# files (scripts/testdata/rar.sh); the PPMd model is shared with RAR 3 and
# checked here through 7z as well.
# Each NAME.7z holds one file (NAME.txt) compressed with PPMd at the order
# and memory in the name; NAME.sha256 is the SHA-256 and size of the input.
# Deterministic: the input comes from a seeded generator.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/ppmd/testdata
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/words.txt" <<'PY'
import random, sys
rnd = random.Random(20261130)
words = ["archive", "volume", "solid", "header", "window", "filter", "model",
         "context", "symbol", "escape", "range", "decoder", "unpack", "rar",
         "stream", "block", "table", "huffman", "length", "offset"]
lines = []
for i in range(3500):
    n = rnd.randint(3, 14)
    lines.append(" ".join(rnd.choice(words) for _ in range(n)) + " %d" % rnd.randint(0, 99999))
data = ("\n".join(lines) + "\n").encode()
# Some binary noise so that the model also sees rare symbols.
data += bytes(rnd.getrandbits(8) for _ in range(6000))
open(sys.argv[1], "wb").write(data)
PY

gen() { # name order mem
  local name=$1 o=$2 mem=$3
  cp "$tmp/words.txt" "$tmp/$name.txt"
  rm -f "$out/$name.7z"
  (cd "$tmp" && 7zz a -bd -bso0 -mhc=off -mx=9 -m0=PPMd:o=$o:mem=$mem "$OLDPWD/$out/$name.7z" "$name.txt")
  printf '%s %s\n' "$(sha256sum < "$tmp/$name.txt" | cut -d' ' -f1)" "$(stat -c %s "$tmp/$name.txt")" > "$out/$name.sha256"
}
gen o6-m16m 6 16m
gen o16-m1m 16 1m   # small memory: the model restarts many times
gen o2-m64k 2 64k
gen o32-m2m 32 2m
ls -l "$out"
