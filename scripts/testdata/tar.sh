#!/usr/bin/env bash
# Tar fixtures from GNU tar (every --format, --sparse with each
# --sparse-version), bsdtar and Python's tarfile: ustar, pax, GNU long
# names, GNU and pax sparse files, links. Each X.tar has X.tar.sha256s, the
# SHA-256 of every regular file as GNU tar extracts it, which the tests
# compare with what the reader gives.
# Output: internal/codec/tar/testdata/*.tar{,.sha256s}
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/tar/testdata
rm -f "$out"/*.tar "$out"/*.sha256s
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
# sparse.bin: data at 100000 in 200 KiB of holes. many.bin: 40 data runs
# 64 KiB apart (more than an old GNU header and one extension block hold),
# data at both ends, a size that is no multiple of the block.
truncate -s 200K "$src/dir/sparse.bin"; printf 'data' | dd of="$src/dir/sparse.bin" bs=1 seek=100000 conv=notrunc 2>/dev/null
python3 - "$src/dir/many.bin" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    size = 40 * 65536 + 777
    f.truncate(size)
    for i in range(40):
        f.seek(i * 65536)
        f.write(bytes((i * 31 + j) % 251 + 1 for j in range(1000 + i)))
    f.seek(size - 5)
    f.write(b"tail!")
PY
export TZ=UTC
opts=(--sort=name --mtime=2021-01-01 --owner=0 --group=0 --numeric-owner)
dense=(--exclude=sparse.bin --exclude=many.bin)
tar -C "$src" "${opts[@]}" --format=gnu "${dense[@]}" -cf "$out/gnu-gnutar.tar" dir
tar -C "$src" "${opts[@]}" --format=oldgnu "${dense[@]}" -cf "$out/oldgnu-gnutar.tar" dir
tar -C "$src" "${opts[@]}" --format=pax "${dense[@]}" -cf "$out/pax-gnutar.tar" dir
tar -C "$src" "${opts[@]}" --format=ustar -cf "$out/ustar-gnutar.tar" dir/a.txt dir/sub dir/link
tar -C "$src" "${opts[@]}" --format=v7 -cf "$out/v7-gnutar.tar" dir/a.txt dir/sub/b.txt
tar -C "$src" "${opts[@]}" --format=gnu --sparse -cf "$out/sparse-gnutar.tar" dir/sparse.bin dir/many.bin dir/a.txt
tar -C "$src" "${opts[@]}" --format=oldgnu --sparse -cf "$out/sparse-oldgnu-gnutar.tar" dir/many.bin dir/a.txt
for v in 0.0 0.1 1.0; do
  tar -C "$src" "${opts[@]}" --format=pax --sparse --sparse-version=$v -cf "$out/sparse-pax$v-gnutar.tar" dir/sparse.bin dir/many.bin dir/a.txt
done
(cd "$src" && bsdtar --format=pax "${dense[@]}" -cf "$OLDPWD/$out/pax-bsdtar.tar" dir)
(cd "$src" && bsdtar --format=ustar -cf "$OLDPWD/$out/ustar-bsdtar.tar" dir/a.txt dir/sub dir/link)
(cd "$src" && bsdtar --format=gnutar "${dense[@]}" -cf "$OLDPWD/$out/gnu-bsdtar.tar" dir)
(cd "$src" && bsdtar --format=pax -cf "$OLDPWD/$out/sparse-pax-bsdtar.tar" dir/sparse.bin dir/many.bin dir/a.txt)
python3 - "$src" "$out" <<'PY'
import os, sys, tarfile
src, out = sys.argv[1], sys.argv[2]
for name, fmt in (("gnu", tarfile.GNU_FORMAT), ("pax", tarfile.PAX_FORMAT), ("ustar", tarfile.USTAR_FORMAT)):
    with tarfile.open(os.path.join(out, name + "-pytarfile.tar"), "w", format=fmt) as t:
        def reset(ti):
            ti.uid = ti.gid = 0; ti.uname = ti.gname = ""; ti.mtime = 1609459200
            return ti
        for p in ("dir/a.txt", "dir/sub/b.txt", "dir/link", "dir/hard"):
            t.add(os.path.join(src, p), arcname=p, filter=reset)
        if fmt != tarfile.USTAR_FORMAT:
            long = [n for n in os.listdir(os.path.join(src, "dir")) if n.startswith("nnn")][0]
            t.add(os.path.join(src, "dir", long), arcname="dir/" + long, filter=reset)
PY
# What GNU tar extracts from each, the reference the tests compare with.
for f in "$out"/*.tar; do
  x=$work/x; rm -rf "$x"; mkdir -p "$x"
  tar -C "$x" -xf "$f"
  (cd "$x" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while read -r p; do sha256sum "$p"; done) > "$f.sha256s"
done
ls -l "$out"
