#!/usr/bin/env bash
# ISO 9660 fixtures from genisoimage and xorriso: plain ISO 9660 names,
# Rock Ridge (modes, symlinks, hard links, deep directories relocated),
# Joliet alone, zisofs-compressed files, an El Torito boot image. Each
# image's expected tree (SHA-256 of every file, link targets) is what
# bsdtar extracts from it. Output: internal/codec/iso9660/testdata/.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/iso9660/testdata
mkdir -p "$out"
rm -f "$out"/*.iso "$out"/*.sums
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
src=$work/src
mkdir -p "$src/docs/deep/1/2/3/4/5/6/7/8/9" "$src/bin"
printf 'hello, iso\n' > "$src/hello.txt"
python3 -c "import sys; sys.stdout.write(''.join('line %d of a text that compresses well\n' % i for i in range(1500)))" > "$src/docs/long text with spaces.txt"
python3 -c "import random,sys; r=random.Random(9660); sys.stdout.buffer.write(bytes(r.getrandbits(8) for _ in range(20000)))" > "$src/bin/random.bin"
printf 'deep\n' > "$src/docs/deep/1/2/3/4/5/6/7/8/9/deep.txt"
printf 'ünïcödé\n' > "$src/docs/ünïcödé.txt"
: > "$src/empty"
ln -s ../hello.txt "$src/docs/link-to-hello"
ln "$src/hello.txt" "$src/docs/hard-hello.txt"
chmod 0750 "$src/bin"; chmod 0600 "$src/bin/random.bin"
find "$src" -not -type l -exec touch -d 2021-02-03T04:05:06Z {} +
export TZ=UTC SOURCE_DATE_EPOCH=1612325106
g=(genisoimage -quiet -input-charset utf-8 -no-pad)
"${g[@]}" -o "$out/plain.iso" "$src/hello.txt" "$src/bin"
"${g[@]}" -R -J -o "$out/rr-joliet.iso" "$src"
"${g[@]}" -J -joliet-long -o "$out/joliet.iso" "$src"
x=(xorriso -abort_on FAILURE -report_about WARNING -padding 0)
"${x[@]}" -outdev "$out/rr-xorriso.iso" -map "$src" / -hardlinks on >/dev/null 2>&1
"${x[@]}" -outdev "$out/zisofs.iso" -zisofs level=9:block_size=32k -map "$src" / \
  -set_filter_r --zisofs / -- >/dev/null 2>&1
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256))*16)" > "$work/boot.img"
mkdir -p "$work/bootsrc/boot"; cp "$work/boot.img" "$work/bootsrc/boot/"; cp "$src/hello.txt" "$work/bootsrc/"
"${x[@]}" -as mkisofs -R -no-pad -o "$out/boot.iso" -b boot/boot.img -no-emul-boot -boot-load-size 4 "$work/bootsrc" >/dev/null 2>&1
for iso in "$out"/*.iso; do
  d=$work/x-$(basename "$iso"); mkdir -p "$d"
  bsdtar -xf "$iso" -C "$d"
  (cd "$d" && find . -type f | sort | sed 's|^\./||' | while read -r f; do sha256sum "$f"; done
   find . -type l | sort | sed 's|^\./||' | while read -r f; do printf 'link %s -> %s\n' "$f" "$(readlink "$f")"; done) > "${iso%.iso}.sums"
done
ls -l "$out"

# UDF: the UDF side of a genisoimage -udf bridge image, as 7-Zip (which
# prefers UDF) extracts it. Output: internal/codec/udf/testdata/.
udf=internal/codec/udf/testdata
mkdir -p "$udf"
"${g[@]}" -R -J -udf -o "$udf/bridge.iso" "$src/hello.txt" "$src/docs/long text with spaces.txt" "$src/bin" "$src/empty"
d=$work/x-udf; mkdir -p "$d"
(cd "$d" && 7zz x -y "$OLDPWD/$udf/bridge.iso" >/dev/null)
(cd "$d" && find . -type f | sort | sed 's|^\./||' | while read -r f; do sha256sum "$f"; done) > "$udf/bridge.sums"
ls -l "$udf"
