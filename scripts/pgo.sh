#!/usr/bin/env bash
# make pgo: regenerates cmd/unpack/default.pgo, the CPU profile that
# `go build ./cmd/unpack` (make build, bench.sh, cross.sh) optimises with
# (Go's -pgo=auto). The workload is the PPMd decoders' benchmarks over their
# committed fixtures (internal/codec/ppmd/testdata: 7z variant H and zip
# variant I), the one hot loop where the profile was measured to pay
# (docs/BENCHMARKS.md, session 7 ppmd7). Regenerate after changing the PPMd
# decoders; the profile is machine-dependent in detail, not in what is hot.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$GO test -count=1 -run '^$' -bench 'BenchmarkDecode7z|BenchmarkDecodeI' -benchtime "${PGO_BENCHTIME:-2s}" \
  -o "$tmp/ppmd.test" -cpuprofile "$tmp/cpu.pprof" ./internal/codec/ppmd >/dev/null
cp "$tmp/cpu.pprof" cmd/unpack/default.pgo
echo "cmd/unpack/default.pgo: $(wc -c <cmd/unpack/default.pgo) bytes"
