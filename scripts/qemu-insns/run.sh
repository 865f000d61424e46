#!/usr/bin/env bash
# Guest instructions per byte of the arm64 fast paths and their generic
# twins, under qemu-aarch64 with a small instruction-counting TCG plugin
# (insncount.c; QEMU's own libinsn.so is not packaged here). arm64 speed
# cannot be measured on an amd64 machine: this is the proxy
# docs/BENCHMARKS.md reports.
#
#   scripts/qemu-insns/run.sh
#
# Needs gcc and qemu-user (a measurement, not part of make test).
# Each row is the difference between a 6x and a 2x run of one benchmark
# over 1 MiB, divided by 4 MiB, so start-up and the test framework cancel.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -shared -fPIC -O2 -o "$tmp/insncount.so" scripts/qemu-insns/insncount.c
for tags in "" purego; do
  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -c -tags "$tags" -o "$tmp/verify${tags:+-$tags}.test" ./internal/verify
  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go test -c -tags "$tags" -o "$tmp/bcj${tags:+-$tags}.test" ./internal/bcj
done

# ipb binary benchmark: instructions per byte of one 1 MiB benchmark.
ipb() {
  run() {
    GOMAXPROCS=1 qemu-aarch64 -plugin "$tmp/insncount.so" "$tmp/$1" -test.run '^$' \
      -test.bench "$2" -test.benchtime "$3"x 2>&1 | sed -n 's/^insns: //p'
  }
  local a b
  a=$(run "$1" "$2" 2)
  b=$(run "$1" "$2" 6)
  awk -v n="$1 $2" -v a="$a" -v b="$b" 'BEGIN { printf "%-60s %6.2f insns/byte\n", n, (b - a) / (4 * 1048576) }'
}
ipb verify.test 'BLAKE2sp/impl=neon-pmull/size=1048576/align=0$'
ipb verify.test 'BLAKE2sp/impl=generic/size=1048576/align=0$'
ipb verify.test '^BenchmarkCRC64$/impl=clmul/size=1048576/align=0$'
ipb verify.test '^BenchmarkCRC64$/impl=generic/size=1048576/align=0$'
ipb bcj.test 'FindE8/impl=neon$'
ipb bcj.test 'FindE8/impl=generic$'
ipb bcj.test '^BenchmarkX86$/data=dense/impl=fast$'
ipb bcj-purego.test '^BenchmarkX86$/data=dense/impl=fast$'
ipb bcj.test '^BenchmarkX86$/data=sparse/impl=fast$'
ipb bcj-purego.test '^BenchmarkX86$/data=sparse/impl=fast$'
ipb bcj.test '^BenchmarkConvert$/arch=arm64/size=1048576$'
ipb bcj-purego.test '^BenchmarkConvert$/arch=arm64/size=1048576$'
