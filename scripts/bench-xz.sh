#!/usr/bin/env bash
# Compares internal/codec/xz with xz -dc on a 64 MiB sample of this machine's
# binaries and text: one single-block file and one multi-block file (as
# xz -T writes it). Usage: scripts/bench-xz.sh [size-MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
mib=${1:-64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ cat /usr/bin/* /usr/share/doc/*/* 2>/dev/null || true; } | head -c "${mib}M" > "$tmp/sample" || true
xz -T1 -6 -c "$tmp/sample" > "$tmp/single.xz"
xz -T2 -6 --block-size=4MiB -c "$tmp/sample" > "$tmp/multi.xz"
xz -T1 --x86 --lzma2=preset=6 -c "$tmp/sample" > "$tmp/x86.xz"
for f in single multi x86; do
  echo "== $f.xz ($(stat -c %s "$tmp/$f.xz") bytes → $mib MiB)"
  for t in 1 2; do
    s=$( { /usr/bin/time -f %e xz -dc -T$t "$tmp/$f.xz" > /dev/null; } 2>&1 )
    echo "xz -dc -T$t: ${s}s = $(python3 -c "print(round($mib*1.048576/$s,1))") MB/s"
  done
  UNPACK_XZ_BENCH="$tmp/$f.xz" go test -run '^$' -bench 'Reader/file=env' -benchtime 2x ./internal/codec/xz/ | grep -E '^Bench'
done
