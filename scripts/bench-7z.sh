#!/usr/bin/env bash
# Speed of the 7z reader against 7zz, in one run: LZMA2 on text, LZMA+BCJ
# and BCJ2 on binaries, PPMd on text, and a multi-folder archive decoded on
# all cores. Prints 7zz's time over ours (>= 1.0: as fast as 7zz or faster).
#   usage: scripts/bench-7z.sh [MiB per input, default 24]
# Inputs and archives are kept in $BENCH_DIR (default /tmp/unpack-bench-7z).
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-24}
dir=${BENCH_DIR:-/tmp/unpack-bench-7z}
mkdir -p "$dir"

[[ -s "$dir/text" ]] || python3 - "$dir/text" "$mib" <<'PY'
import random, sys
rnd = random.Random(1)
words = [''.join(rnd.choice('etaoinshrdlucmfwypvbgkqjxz') for _ in range(rnd.randint(1, 10))) for _ in range(5000)]
n = int(sys.argv[2]) << 20
with open(sys.argv[1], 'w') as f:
    size = 0
    while size < n:
        line = ' '.join(rnd.choice(words) for _ in range(rnd.randint(5, 15))) + '\n'
        f.write(line); size += len(line)
PY
# Real executables (head closes the pipe early: that is not an error).
[[ -s "$dir/bin" ]] || { find /usr/bin /usr/lib -type f -size +100k 2>/dev/null | sort | xargs cat 2>/dev/null | head -c "$((mib << 20))" > "$dir/bin" || true; }
if [[ ! -d "$dir/multi" ]]; then
  mkdir -p "$dir/multi"
  split -n 8 -d "$dir/text" "$dir/multi/t"
  split -n 8 -d "$dir/bin" "$dir/multi/b"
fi

mk() { # archive, inputs, options...
  local a=$1 in=$2; shift 2
  [[ -s "$dir/$a" ]] || 7zz a -bd -bso0 "$@" "$dir/$a" "$in" >/dev/null
}
mk lzma2.7z "$dir/text" -m0=lzma2 -mx5 -ms=on
mk bcj.7z "$dir/bin" -m0=lzma -mf=BCJ -mx5
mk bcj2.7z "$dir/bin" -m0=lzma -mf=BCJ2 -mx5
mk ppmd.7z "$dir/text" -m0=ppmd -mx5
mk multi.7z "$dir/multi" -m0=lzma2 -mx5 -ms=off

go test -c -o "$dir/sevenzip.test" ./internal/codec/sevenzip
cores=$(nproc)
printf '%-10s %8s %10s %10s %7s\n' archive threads "7zz s" "unpack s" ratio
for a in lzma2.7z bcj.7z bcj2.7z ppmd.7z multi.7z; do
  threads=1
  [[ $a == multi.7z ]] && threads=$cores
  if ! SEVENZIP_BENCH_FILE="$dir/$a" "$dir/sevenzip.test" -test.run '^$' -test.bench '^BenchmarkFile$' -test.benchtime 1x >/dev/null 2>&1; then
    printf '%-10s %8s %s\n' "$a" "$threads" "unpack cannot decode it yet (method pending)"
    continue
  fi
  hyperfine -N --warmup 1 --runs 3 --export-json "$dir/$a.json" \
    "7zz t -bd -mmt=1 $dir/$a" \
    "env SEVENZIP_BENCH_FILE=$dir/$a SEVENZIP_BENCH_THREADS=$threads $dir/sevenzip.test -test.run ^\$ -test.bench ^BenchmarkFile\$ -test.benchtime 1x" >/dev/null
  python3 - "$dir/$a.json" "$a" "$threads" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))['results']
t7, tu = r[0]['mean'], r[1]['mean']
print(f"{sys.argv[2]:<10} {sys.argv[3]:>8} {t7:10.3f} {tu:10.3f} {t7/tu:7.2f}")
PY
done
