#!/usr/bin/env bash
# Compares unpack with bsdtar and unar on the largest RAR 5 archives of the
# shared corpus, in one hyperfine run per archive (output to stdout or a
# scratch directory, nothing kept). Needs the CLI to read RAR (internal/
# formats registers rar.Open).
# Usage: scripts/bench-rar.sh [runs]   (UNPACK_CORPUS overrides the corpus)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
corpus=${UNPACK_CORPUS:-../shared/corpus}
CGO_ENABLED=0 go build -o bin/unpack ./cmd/unpack
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# The largest rar5 archives that are a single volume and need no password.
mapfile -t archives < <(awk -F'\t' 'NR>1 && $6=="rar5" && $8=="" && ($11=="" || $11==$3) && $7 !~ /multivolume/ {print $5"\t"$3}' \
  "$corpus/manifest.tsv" | sort -rn | head -3 | cut -f2)
for a in "${archives[@]}"; do
  f="$corpus/$a"
  echo "== $a ($(stat -c %s "$f") bytes)"
  hyperfine -N -i -w 2 -r "$runs" \
    -n unpack "bin/unpack x -c $f" \
    -n bsdtar "bsdtar -xOf $f" \
    -n unar "unar -q -f -o $scratch $f"
done
