#!/usr/bin/env bash
# Times unpack's bzip2 decoder against bzip2, lbzip2 and 7zz on ~100 MiB
# text-like, binary-like and mixed workloads compressed with `bzip2 -9`,
# and prints the speed ratios (reference time / unpack time: >= 1.0 means
# unpack is at least as fast).
#
# unpack's decoder runs through its test binary (TestDecodeFile with
# -bzip2.file), so no command ships for it. Single-threaded runs are
# compared with bzip2, two-thread runs with lbzip2 -n 2 and 7zz -mmt2.
#
# Usage: scripts/bench-bzip2.sh
#   env: SIZE_MB=100 RUNS=3 WARMUP=1 WORK=/tmp/unpack-bench-bzip2
set -euo pipefail
cd "$(dirname "$0")/.."
size=${SIZE_MB:-100}
runs=${RUNS:-3}
warmup=${WARMUP:-1}
work=${WORK:-/tmp/unpack-bench-bzip2}
mkdir -p "$work"
for t in bzip2 lbzip2 7zz hyperfine python3; do
  command -v "$t" >/dev/null || { echo "missing $t (scripts/install-tools.sh)"; exit 1; }
done

go test -c -o "$work/bzip2.test" ./internal/codec/bzip2

python3 - "$work" "$size" <<'PY'
import os, random, struct, sys
work, size = sys.argv[1], int(sys.argv[2]) << 20

def text(r, n):
    vocab = [''.join(r.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(r.randint(1, 11)))
             for _ in range(20000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]  # Zipf-like
    sents = []
    for _ in range(60000):
        words = r.choices(vocab, weights, k=r.randint(4, 18))
        sents.append(' '.join(words).capitalize() + r.choice('.,;!?') + r.choice((' ', '\n')))
    out, total = [], 0
    while total < n:
        s = ''.join(r.choices(sents, k=5000))
        out.append(s)
        total += len(s)
    return ''.join(out).encode()[:n]

def binary(r, n):
    ops = [r.randbytes(r.choice((1, 2, 3, 4, 6, 8))) for _ in range(300)]
    opw = [1 / (i + 1) ** 0.8 for i in range(len(ops))]
    out, total, addr = [], 0, 0x401000
    while total < n:
        recs = []
        for _ in range(4096):
            k = r.random()
            if k < 0.55:
                recs.append(b''.join(r.choices(ops, opw, k=r.randint(1, 6))))
            elif k < 0.8:
                addr += r.randint(1, 64)
                recs.append(struct.pack('<IH', addr, r.randint(0, 300)))
            elif k < 0.9:
                recs.append(bytes(r.choice((2, 4, 8, 16))))
            else:
                recs.append(r.randbytes(r.randint(2, 12)))
        b = b''.join(recs)
        out.append(b)
        total += len(b)
    return b''.join(out)[:n]

def mixed(r, n):
    t, b = text(r, n // 2), binary(r, n // 2)
    out, i, j, total = [], 0, 0, 0
    while total < n:
        k = r.random()
        if k < 0.45:
            c = t[i:i + (1 << 20)]; i += len(c)
        elif k < 0.9:
            c = b[j:j + (1 << 20)]; j += len(c)
        else:
            c = r.randbytes(1 << 19)  # already compressed data
        if not c:
            i = j = 0
            continue
        out.append(c)
        total += len(c)
    return b''.join(out)[:n]

for name, gen, seed in (('text', text, 1), ('binary', binary, 2), ('mixed', mixed, 3)):
    path = os.path.join(work, name)
    if os.path.exists(path) and os.path.getsize(path) == size:
        continue
    with open(path, 'wb') as f:
        f.write(gen(random.Random(seed), size))
PY

bin="$work/bzip2.test"
summary="$work/summary.txt"
: >"$summary"
for w in text binary mixed; do
  f="$work/$w"
  [ "$f.bz2" -nt "$f" ] || bzip2 -9 -kf "$f"
  want=$(sha256sum <"$f" | cut -d' ' -f1)
  for th in 1 2; do
    "$bin" -test.run '^TestDecodeFile$' -bzip2.file "$f.bz2" -bzip2.threads "$th" -bzip2.out "$work/out" >/dev/null
    got=$(sha256sum <"$work/out" | cut -d' ' -f1)
    rm -f "$work/out"
    [ "$got" = "$want" ] || { echo "$w: wrong output with threads=$th"; exit 1; }
  done
  hyperfine -N --runs "$runs" --warmup "$warmup" --export-json "$work/$w.json" \
    -n "bzip2 -dc" "bzip2 -dc $f.bz2" \
    -n "unpack threads=1" "$bin -test.run ^TestDecodeFile\$ -bzip2.file $f.bz2 -bzip2.threads 1 -bzip2.out /dev/null" \
    -n "lbzip2 -dc -n2" "lbzip2 -dc -n 2 $f.bz2" \
    -n "7zz x -so -mmt2" "7zz x -so -mmt2 $f.bz2" \
    -n "unpack threads=2" "$bin -test.run ^TestDecodeFile\$ -bzip2.file $f.bz2 -bzip2.threads 2 -bzip2.out /dev/null" \
    --output=null
  python3 - "$work/$w.json" "$w" "$(stat -c %s "$f.bz2")" >>"$summary" <<'PY'
import json, sys
res = {r['command']: r for r in json.load(open(sys.argv[1]))['results']}
m = {k: v['mean'] for k, v in res.items()}
cpu = {k: v['user'] + v['system'] for k, v in res.items()}
print(f"{sys.argv[2]} ({int(sys.argv[3]) / 2**20:.1f} MiB compressed):")
for k in res:
    print(f"  {k:18s} {m[k]:7.3f} s wall  {cpu[k]:7.3f} s cpu")
for ref, ours in (('bzip2 -dc', 'unpack threads=1'), ('lbzip2 -dc -n2', 'unpack threads=2'),
                  ('7zz x -so -mmt2', 'unpack threads=2')):
    print(f"  ratio {ref} / {ours}: {m[ref] / m[ours]:.2f}x wall, {cpu[ref] / cpu[ours]:.2f}x cpu")
PY
done
cat "$summary"
