#!/usr/bin/env bash
# Per-function guest instructions per output byte of the LZMA (xz), bzip2,
# brotli and inflate (gzip) decoders, built from the same source for arm64
# and amd64 and run under qemu-aarch64 and qemu-x86_64 with the
# insnprof.c plugin: where arm64 code generation costs more than amd64's.
#
#   BENCH_DIR=/tmp/bench-x scripts/qemu-insns/profile.sh [xz|bz2|br|gz ...]
#   INSNS=40 ...   also the 40 most executed arm64 instructions of each
#
# The input is 4 MiB of scripts/bench.sh's text.raw and 4 MiB of its
# binary.raw (made first by `make bench` in BENCH_DIR), compressed by xz -6,
# bzip2 -9, brotli -q 9 and gzip -6. Needs gcc, qemu-user and those tools
# (a measurement, not part of make test).
set -euo pipefail
cd "$(dirname "$0")/../.."
W=${BENCH_DIR:-/tmp/unpack-bench}
[ -s "$W/text.raw" ] && [ -s "$W/binary.raw" ] || { echo "profile.sh: no $W/text.raw and binary.raw (run make bench with BENCH_DIR=$W)" >&2; exit 1; }
[ $# -gt 0 ] || set -- xz bz2 br gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -shared -fPIC -O2 -o "$tmp/insnprof.so" scripts/qemu-insns/insnprof.c
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build -o "$tmp/unpack-arm64" ./cmd/unpack
GOOS=linux GOARCH=amd64 CGO_ENABLED=0 go build -o "$tmp/unpack-amd64" ./cmd/unpack
{ head -c 4M "$W/text.raw"; head -c 4M "$W/binary.raw"; } > "$tmp/in.raw"
size=$(stat -c %s "$tmp/in.raw")
for f in "$@"; do
  case $f in
    xz) xz -6 -T1 -c "$tmp/in.raw" > "$tmp/in.xz" ;;
    bz2) bzip2 -9 -c "$tmp/in.raw" > "$tmp/in.bz2" ;;
    br) brotli -q 9 -c "$tmp/in.raw" > "$tmp/in.br" ;;
    gz) gzip -6 -c "$tmp/in.raw" > "$tmp/in.gz" ;;
    *) echo "profile.sh: unknown input $f" >&2; exit 2 ;;
  esac
  for a in arm64:aarch64 amd64:x86_64; do
    GOMAXPROCS=1 "qemu-${a#*:}" -plugin "$tmp/insnprof.so,top=12,insns=${INSNS:-0}" \
      "$tmp/unpack-${a%:*}" t "$tmp/in.$f" 2> "$tmp/$f.${a%:*}" >/dev/null
  done
  # One line per function: instructions per byte on arm64, on amd64, and
  # their ratio, functions in arm64's order.
  echo "== $f: instructions per output byte (arm64, amd64, arm64/amd64)"
  awk -v n="$size" '
    FNR == 1 { file++ }
    $1 == "total" { t[file] = $2 }
    $1 == "fn" { c[file, $3] = $2; if (file == 1) order[++k] = $3 }
    END {
      printf "%8.2f %8.2f %6.2f  %s\n", t[1] / n, t[2] / n, t[1] / t[2], "total"
      for (i = 1; i <= k; i++) {
        f = order[i]; a = c[1, f]; b = c[2, f]
        if (a / n < 0.05) continue
        printf "%8.2f %8.2f %6s  %s\n", a / n, b / n, b ? sprintf("%.2f", a / b) : "-", f
      }
    }' "$tmp/$f.arm64" "$tmp/$f.amd64"
  if [ "${INSNS:-0}" -gt 0 ]; then
    grep '^insn ' "$tmp/$f.arm64"
  fi
done
