#!/usr/bin/env bash
# Regenerates every fixture in testdata/ with the real tools, by running each
# per-format script in scripts/testdata/. Fixtures are committed; this is only
# needed when they change.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-tools.sh
for s in scripts/testdata/*.sh; do
  echo "== $s"
  bash "$s"
done
