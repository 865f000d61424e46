#!/usr/bin/env bash
# make robustness: damaged-input run over every fixture and corpus file (see
# scripts/robustness.py for what it counts and the knobs).
set -euo pipefail
cd "$(dirname "$0")/.."
CGO_ENABLED=0 go build -o bin/unpack ./cmd/unpack
exec python3 scripts/robustness.py
