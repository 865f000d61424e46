#!/usr/bin/env bash
# Builds the release: a static binary for each target below, with the
# version and commit built in (`unpack version` shows them), packed with the
# README, the man pages and shell completions (.tar.gz; .zip for Windows),
# and SHA256SUMS over the packs. Output: dist/.
# Usage: scripts/release.sh [version]   (default: git describe)
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
targets=(linux/amd64 linux/arm64 linux/386 linux/arm darwin/amd64 darwin/arm64
  windows/amd64 windows/arm64 freebsd/amd64)
pkg=github.com/unpack-dev/unpack/internal/cli
ldflags="-s -w -X $pkg.Version=$version -X $pkg.Commit=$commit"
rm -rf dist && mkdir -p dist
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# Completions come from a binary for this machine; the man pages are the
# committed ones (make docs), checked to be current first.
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$work/host-unpack" ./cmd/unpack
mkdir -p "$work/docs/completions"
"$work/host-unpack" completion bash > "$work/docs/completions/unpack.bash"
"$work/host-unpack" completion zsh > "$work/docs/completions/_unpack"
"$work/host-unpack" completion fish > "$work/docs/completions/unpack.fish"
"$work/host-unpack" completion powershell > "$work/docs/completions/unpack.ps1"
go run ./scripts/gendocs "$work/docs"
if ! diff -r -I '^\.TH ' "$work/docs/man" docs/man >/dev/null; then  # the .TH line carries the month
  echo "release: docs/man is out of date: run make docs" >&2; exit 1
fi

for t in "${targets[@]}"; do
  os=${t%/*} arch=${t#*/}
  name=unpack-$version-$os-$arch
  dir=$work/$name
  mkdir -p "$dir"
  exe=unpack; [ "$os" = windows ] && exe=unpack.exe
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$dir/$exe" ./cmd/unpack
  cp README.md "$dir/"
  cp -r docs/man "$work/docs/completions" "$dir/"
  if [ "$os" = windows ]; then
    (cd "$work" && zip -qr "$OLDPWD/dist/$name.zip" "$name")
  else
    tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "dist/$name.tar.gz" "$name"
  fi
  echo "dist/$name: $(stat -c %s "$dir/$exe") bytes"
done
(cd dist && sha256sum -- * > SHA256SUMS)
echo "release $version ($commit): dist/SHA256SUMS"
