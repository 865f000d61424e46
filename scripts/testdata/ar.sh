#!/usr/bin/env bash
# Regenerates the ar and .deb fixtures.
#  internal/codec/ar/testdata: gnu.a (GNU ar: the "//" long-name table,
#  "/N" names), bsd.a (bsdtar --format arbsd: "#1/LEN" names), each
#  checked by bsdtar -x (and gnu.a by ar x and 7zz x) against the files.
#  internal/formats/testdata/deb: hello_1.0_all-{gzip,xz,zstd,none}.deb
#  from dpkg-deb -b -Z…, -bzip2.deb and -lzma.deb assembled with ar from
#  the same members (dpkg-deb reads them, cannot write them), and
#  bad-md5.deb whose md5sums names a wrong sum for one file. Each good one
#  is checked by dpkg-deb -R; tree.txt lists what dpkg-deb -R makes
#  ("SHA-256 size path" for files, "link path -> target" for symlinks).
set -euo pipefail
cd "$(dirname "$0")/../.."
A=$PWD/internal/codec/ar/testdata
B=$PWD/internal/formats/testdata/deb
mkdir -p "$A" "$B"
rm -f "$A"/* "$B"/*
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

m=$tmp/m; mkdir -p "$m"
printf 'short\n' > "$m/short.txt"
printf 'odd' > "$m/odd.bin"
head -c 4001 /dev/zero | tr '\0' 'q' > "$m/a-very-long-member-name.txt"
printf 'another long name in the table\n' > "$m/another-long-name-for-table.o"
names="short.txt odd.bin a-very-long-member-name.txt another-long-name-for-table.o"
(cd "$m" && ar rcD "$A/gnu.a" $names)
(cd "$m" && bsdtar --format arbsd -cf "$A/bsd.a" $names)
for a in gnu.a bsd.a; do
  # GNU ar does not know BSD's "#1/LEN" names; 7zz (23.01) leaves out
  # the last member of bsd.a.
  tools=("bsdtar -xf $A/$a"); [ $a = gnu.a ] && tools+=("ar x $A/$a" "7zz x -y -bd $A/$a")
  for x in "${tools[@]}"; do
    # bsdtar takes the "//" table of gnu.a for an entry "/" it cannot
    # write (exit 1), and extracts the members all the same.
    rm -rf "$tmp/x"; mkdir "$tmp/x"; (cd "$tmp/x" && $x >/dev/null 2>&1 || true)
    for n in $names; do cmp "$tmp/x/$n" "$m/$n"; done
  done
done
(cd "$m" && for n in $names; do printf '%s %s %s\n' "$(sha256sum < "$n" | cut -d' ' -f1)" "$(stat -c %s "$n")" "$n"; done) > "$A/files.txt"

# A package tree.
p=$tmp/pkg
mkdir -p "$p/DEBIAN" "$p/usr/bin" "$p/usr/share/doc/hello"
printf '#!/bin/sh\necho hello\n' > "$p/usr/bin/hello"; chmod 755 "$p/usr/bin/hello"
python3 -c "
import random; r = random.Random(5)
open('$p/usr/share/doc/hello/README', 'w').write(''.join(r.choice('hello world\n') for _ in range(20000)))"
printf 'copyright\n' > "$p/usr/share/doc/hello/copyright"
ln -s hello "$p/usr/bin/hi"
cat > "$p/DEBIAN/control" <<'CTL'
Package: hello
Version: 1.0
Architecture: all
Maintainer: Test <test@example.org>
Description: test package for unpack
CTL
printf '#!/bin/sh\nexit 0\n' > "$p/DEBIAN/postinst"; chmod 755 "$p/DEBIAN/postinst"
(cd "$p" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$p/DEBIAN/md5sums"
find "$p" -exec touch -h -d 2021-03-04T05:06:07Z {} +
export SOURCE_DATE_EPOCH=1614834367
for z in gzip xz zstd none; do
  dpkg-deb --root-owner-group -Z$z -b "$p" "$B/hello_1.0_all-$z.deb" >/dev/null
done
# bzip2 and lzma data members, with the gzip package's other members.
(cd "$tmp" && mkdir -p asm && cd asm && ar x "$B/hello_1.0_all-none.deb" && ls -1 > ../order)
for z in bzip2 lzma; do
  (cd "$tmp/asm" && rm -f data.tar.* && case $z in
     bzip2) bzip2 -c data.tar > data.tar.bz2 ;;
     lzma) xz --format=lzma -c data.tar > data.tar.lzma ;;
   esac
   ctl=$(ls control.tar*)
   ar rcD "$B/hello_1.0_all-$z.deb" debian-binary "$ctl" data.tar.*)
done
for d in "$B"/*.deb; do
  rm -rf "$tmp/r"; dpkg-deb -R "$d" "$tmp/r"
  diff -r --no-dereference "$p" "$tmp/r"
done
# md5sums naming a wrong sum for usr/share/doc/hello/copyright.
cp -a "$p" "$tmp/bad"
sed -i 's/^[0-9a-f]*\(  usr\/share\/doc\/hello\/copyright\)$/00000000000000000000000000000000\1/' "$tmp/bad/DEBIAN/md5sums"
grep -q '^0\{32\}  usr/share/doc/hello/copyright' "$tmp/bad/DEBIAN/md5sums"
dpkg-deb --root-owner-group -Zxz -b "$tmp/bad" "$B/bad-md5.deb" >/dev/null

(cd "$p" && find . -mindepth 1 \( -type f -o -type l \) | LC_ALL=C sort | while read -r f; do
  if [ -L "$f" ]; then printf 'link %s -> %s\n' "${f#./}" "$(readlink "$f")"
  else printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"; fi
done) > "$B/tree.txt"
ls -l "$A" "$B"
