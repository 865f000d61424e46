#!/usr/bin/env bash
# Tar fixtures from GNU tar and bsdtar: ustar, pax, GNU long names, GNU and
# pax sparse files, links. Output: internal/codec/tar/testdata/*.tar
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/tar/testdata
mkdir -p "$out"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/dir/sub"
printf 'hello\n' > "$src/dir/a.txt"
python3 -c "import sys; sys.stdout.write(''.join(chr(32+(i*7)%90) for i in range(20000)))" > "$src/dir/sub/b.txt"
long=$(printf 'n%.0s' $(seq 1 150))
printf 'long\n' > "$src/dir/$long.txt"
ln -s a.txt "$src/dir/link"
ln "$src/dir/a.txt" "$src/dir/hard"
truncate -s 200K "$src/dir/sparse.bin"; printf 'data' | dd of="$src/dir/sparse.bin" bs=1 seek=100000 conv=notrunc 2>/dev/null
export TZ=UTC
opts=(--sort=name --mtime=2021-01-01 --owner=0 --group=0 --numeric-owner)
tar -C "$src" "${opts[@]}" --format=gnu --exclude=sparse.bin -cf "$out/gnu-gnutar.tar" dir
tar -C "$src" "${opts[@]}" --format=pax --exclude=sparse.bin -cf "$out/pax-gnutar.tar" dir
tar -C "$src" "${opts[@]}" --format=ustar -cf "$out/ustar-gnutar.tar" dir/a.txt dir/sub dir/link
tar -C "$src" "${opts[@]}" --format=gnu --sparse -cf "$out/sparse-gnutar.tar" dir/sparse.bin
tar -C "$src" "${opts[@]}" --format=pax --sparse -cf "$out/sparse-pax-gnutar.tar" dir/sparse.bin
tar -C "$src" "${opts[@]}" --format=v7 -cf "$out/v7-gnutar.tar" dir/a.txt dir/sub/b.txt
(cd "$src" && bsdtar --format=pax --exclude sparse.bin -cf "$OLDPWD/$out/pax-bsdtar.tar" dir)
ls -l "$out"
