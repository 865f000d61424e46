#!/usr/bin/env bash
# The example archive `make demo` extracts: a small tree as tar.xz.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=testdata/demo
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/example/docs" "$work/example/bin"
printf '# Example\nThis tree was packed by scripts/testdata/demo.sh.\n' > "$work/example/README.md"
seq 1 2000 | sed 's/^/line /' > "$work/example/docs/lines.txt"
printf '#!/bin/sh\necho hello from unpack demo\n' > "$work/example/bin/hello.sh"; chmod 755 "$work/example/bin/hello.sh"
ln -s ../README.md "$work/example/docs/README.link"
tar -C "$work" --sort=name --mtime=2024-01-01 --owner=0 --group=0 -cf - example | xz -9 > "$out/example.tar.xz"
ls -l "$out"
