#!/usr/bin/env bash
# Fixtures of internal/codec/gzip, from gzip and pigz: deterministic text
# and random bytes (stored blocks), a stored name and time, several
# members, an empty member. Tests decode them against klauspost/compress
# as an oracle, so the plain data is not committed.
# Output: internal/codec/gzip/testdata/
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/gzip/testdata
rm -rf "$out"; mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(20261130)
words = [''.join(r.choice('etaoinshrdlucmfwyp') for _ in range(r.randint(2, 8))) for _ in range(400)]
with open(d + '/text.txt', 'w') as f:
    f.write('\n'.join(' '.join(r.choice(words) for _ in range(r.randint(3, 14))) for _ in range(1200)))
open(d + '/random.bin', 'wb').write(r.randbytes(20000))
open(d + '/runs.bin', 'wb').write(b'a' * 70000 + bytes(range(256)) * 40 + b'ab' * 5000)
PY
gzip -9 -n -c "$work/text.txt" > "$out/text.gz"
gzip -1 -n -c "$work/random.bin" > "$out/random.gz"                # stored blocks
gzip -6 -n -c "$work/runs.bin" > "$out/runs.gz"                    # long matches, short periods
pigz -n -c "$work/text.txt" > "$out/text-pigz.gz"                  # pigz block layout
touch -d '2024-05-06 07:08:09 UTC' "$work/text.txt"
gzip -c "$work/text.txt" > "$out/named.gz"                          # FNAME and MTIME
: > "$work/empty"
{ gzip -n -c "$work/empty"; gzip -n -c "$work/runs.bin"; gzip -n -c "$work/empty"; gzip -1 -n -c "$work/text.txt"; } > "$out/members.gz"
ls -l "$out"
