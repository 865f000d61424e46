#!/usr/bin/env bash
# Regenerates the XAR fixtures in internal/codec/xar/testdata:
#   t-{gzip,bzip2,xz,lzma,none}.xar  bsdtar --format xar with each data
#       compression (SHA-1 TOC and file checksums), from one tree (files,
#       a file with two names, an empty file, a symlink, nested directories,
#       an extended attribute);
#   t-md5.xar, t-nosum.xar  the same with MD5 checksums, and with none;
#   t.pkg   a flat product package as productbuild lays it out
#       (Distribution, comp.pkg/{Bom,PackageInfo,Payload,Scripts}, with the
#       Payload and Scripts gzip-compressed odc cpio archives, and
#       pbzx.pkg/Payload a pbzx stream: xz chunks and one stored chunk);
#   t.xip   a .xip: Metadata and a pbzx Content.
# Each archive is checked: bsdtar -x (and 7zz x for the plain ones) gives
# the tree back. files.txt lists "SHA-256 size name" of every regular file
# of the plain tree, links.txt "name -> target"; pkg-files.txt and
# xip-files.txt the files unpack gives for t.pkg and t.xip, each cpio
# member extracted with bsdtar as a tree under its name.
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/xar/testdata
mkdir -p "$D"
rm -f "$D"/*.xar "$D"/*.pkg "$D"/*.xip "$D"/*.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

src=$tmp/src
mkdir -p "$src/d/e"
python3 - "$src" <<'PY'
import os, random, sys
d = sys.argv[1]
r = random.Random(20261202)
open(f'{d}/d/text.txt', 'w').write(''.join(r.choice('abc de\n') for _ in range(50001)))
open(f'{d}/d/e/bin.dat', 'wb').write(bytes(r.randrange(256) for _ in range(3003)))
open(f'{d}/empty', 'w').close()
open(f'{d}/two', 'w').write('one inode, two names\n')
# An extended attribute: bsdtar stores it as an <ea> with its checksums.
os.setxattr(f'{d}/d/text.txt', 'user.comment', b'an extended attribute of text.txt')
PY
ln "$src/two" "$src/d/two-2"
ln -s d/text.txt "$src/sym"
chmod 640 "$src/d/text.txt"
find "$src" -exec touch -h -d 2021-03-04T05:06:07Z {} +

sums() { # dir: "SHA-256 size name" of its regular files
  (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
    printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"
  done)
}
same() { # archive tree
  local t=$tmp/x
  rm -rf "$t"; mkdir "$t"
  bsdtar -xf "$1" -C "$t"
  diff -r --no-dereference "$2" "$t"
}

for c in gzip bzip2 xz lzma none; do
  bsdtar --format xar --options "xar:compression=$c" -cf "$D/t-$c.xar" -C "$src" .
done
bsdtar --format xar --options xar:toc-checksum=md5,xar:checksum=md5 -cf "$D/t-md5.xar" -C "$src" .
bsdtar --format xar --options xar:toc-checksum=none,xar:checksum=none -cf "$D/t-nosum.xar" -C "$src" .
for a in "$D"/*.xar; do
  same "$a" "$src"
  case $a in *-xz.xar|*-lzma.xar) continue ;; esac # 7-Zip reads neither in xar
  rm -rf "$tmp/z"; 7zz x -y -bd -o"$tmp/z" "$a" >/dev/null
  cmp "$tmp/z/d/text.txt" "$src/d/text.txt"; cmp "$tmp/z/d/e/bin.dat" "$src/d/e/bin.dat"
done
sums "$src" > "$D/files.txt"
echo "sym -> d/text.txt" > "$D/links.txt"

# A product package: payload trees as odc cpio archives.
pay=$tmp/payload scr=$tmp/scripts pkg=$tmp/pkg
mkdir -p "$pay/usr/local/bin" "$pay/Library/App" "$scr" "$pkg/comp.pkg" "$pkg/pbzx.pkg"
cp "$src/d/text.txt" "$pay/Library/App/text.txt"
cp "$src/d/e/bin.dat" "$pay/usr/local/bin/tool"
printf '#!/bin/sh\nexit 0\n' > "$scr/postinstall"
chmod 755 "$scr/postinstall" "$pay/usr/local/bin/tool"
python3 - "$pay/Library/App/big.bin" <<'PY'
import random, sys
r = random.Random(7)
# 200 KiB: compressible text, then random bytes (a chunk pbzx stores).
data = ''.join(r.choice('xyz \n') for _ in range(150000)).encode() + bytes(r.randrange(256) for _ in range(54800))
open(sys.argv[1], 'wb').write(data)
PY
find "$pay" "$scr" -exec touch -h -d 2021-03-04T05:06:07Z {} +
(cd "$pay" && find . | LC_ALL=C sort | cpio -o --quiet -H odc) > "$tmp/payload.cpio"
(cd "$scr" && find . | LC_ALL=C sort | cpio -o --quiet -H odc) > "$tmp/scripts.cpio"
gzip -n -c "$tmp/payload.cpio" > "$pkg/comp.pkg/Payload"
gzip -n -c "$tmp/scripts.cpio" > "$pkg/comp.pkg/Scripts"
# pbzx: "pbzx", the chunk size, then per chunk its flags (bit 24: more
# follow) and length; a chunk xz does not shrink is stored.
pbzx() { # in out
  python3 - "$1" "$2" <<'PY'
import lzma, struct, sys
data = open(sys.argv[1], 'rb').read()
size = 64 << 10
chunks = [data[i:i + size] for i in range(0, len(data), size)]
out = bytearray(b'pbzx' + struct.pack('>Q', size))
for i, c in enumerate(chunks):
    z = lzma.compress(c, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    if len(z) >= len(c):
        z = c
    more = (1 << 24) if i < len(chunks) - 1 else 0
    out += struct.pack('>QQ', len(c) | more, len(z)) + z
open(sys.argv[2], 'wb').write(out)
PY
}
pbzx "$tmp/payload.cpio" "$pkg/pbzx.pkg/Payload"
head -c 4096 /dev/urandom > "$pkg/comp.pkg/Bom"
cp "$pkg/comp.pkg/Bom" "$pkg/pbzx.pkg/Bom"
printf '<pkg-info identifier="dev.unpack.test"/>\n' > "$pkg/comp.pkg/PackageInfo"
cp "$pkg/comp.pkg/PackageInfo" "$pkg/pbzx.pkg/PackageInfo"
printf '<installer-gui-script minSpecVersion="2"/>\n' > "$pkg/Distribution"
find "$pkg" -exec touch -h -d 2021-03-04T05:06:07Z {} +
bsdtar --format xar -cf "$D/t.pkg" -C "$pkg" Distribution comp.pkg pbzx.pkg
same "$D/t.pkg" "$pkg"

# What unpack gives: each member's cpio as a tree under the member's name.
want=$tmp/want
cp -a "$pkg" "$want"
for m in comp.pkg/Payload comp.pkg/Scripts pbzx.pkg/Payload; do
  rm "$want/$m"; mkdir "$want/$m"
done
bsdtar -xf "$tmp/payload.cpio" -C "$want/comp.pkg/Payload"
bsdtar -xf "$tmp/scripts.cpio" -C "$want/comp.pkg/Scripts"
bsdtar -xf "$tmp/payload.cpio" -C "$want/pbzx.pkg/Payload"
sums "$want" > "$D/pkg-files.txt"

xip=$tmp/xip
mkdir -p "$xip"
pbzx "$tmp/payload.cpio" "$xip/Content"
printf '<?xml version="1.0"?><plist version="1.0"><dict/></plist>\n' > "$xip/Metadata"
find "$xip" -exec touch -h -d 2021-03-04T05:06:07Z {} +
bsdtar --format xar --options xar:toc-checksum=sha1 -cf "$D/t.xip" -C "$xip" Content Metadata
same "$D/t.xip" "$xip"
wantx=$tmp/wantx
mkdir -p "$wantx/Content"
cp "$xip/Metadata" "$wantx/"
bsdtar -xf "$tmp/payload.cpio" -C "$wantx/Content"
sums "$wantx" > "$D/xip-files.txt"
ls -l "$D"
