#!/usr/bin/env bash
# Regenerates the ARJ fixtures in internal/codec/arj/testdata with arj
# (ARJ32 3.10) over a small tree (text, random bytes, a subdirectory, an
# empty file): arj-m0..arj-m4.arj (`arj a -m<n> -r`; m1 also carries an
# archive comment, -z), vol.arj/.a01/.a02… (`-v10k`: files spanning
# volumes), garbled.arj (`-gsecret`), dir.arj (the tree with its
# directory entry, `-r -a1`). Each is checked by `arj x` against
# the tree (garbled.arj with the password). files.txt lists the tree
# ("SHA-256 size path").
set -euo pipefail
cd "$(dirname "$0")/../.."
T=$PWD/internal/codec/arj/testdata
mkdir -p "$T"
rm -f "$T"/*.arj "$T"/*.a0? "$T"/files.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

s=$tmp/src; mkdir -p "$s/sub"
python3 -c "
import random; r = random.Random(11)
w = ['arj', 'robert', 'jung', 'volume', 'huffman', 'window', '\n']
open('$s/text.txt', 'w').write(' '.join(r.choice(w) for _ in range(4000)))
open('$s/rand.bin', 'wb').write(bytes(r.getrandbits(8) for _ in range(6000)))
open('$s/sub/small.txt', 'w').write('hello arj\n')
open('$s/empty.txt', 'w').write('')"
printf 'an archive comment\n' > "$tmp/cmt"
find "$s" -exec touch -d 2021-03-04T05:06:07Z {} +
names="text.txt rand.bin sub/small.txt empty.txt"
arj_a() { (cd "$s" && arj a "$@" -y $names >/dev/null); }
for m in 0 1 2 3 4; do
  extra=(); [ $m = 1 ] && extra=("-z$tmp/cmt")
  arj_a "$T/arj-m$m.arj" -m$m "${extra[@]}"
done
arj_a "$T/vol.arj" -m0 -v10k
arj_a "$T/garbled.arj" -m1 -gsecret
(cd "$s" && arj a "$T/dir.arj" -r -a1 -y '*' >/dev/null)
arj l "$T/dir.arj" | grep -q '^sub .* drwx'
for a in arj-m0 arj-m1 arj-m2 arj-m3 arj-m4 vol garbled; do
  rm -rf "$tmp/x"; mkdir "$tmp/x"
  pw=(); [ $a = garbled ] && pw=(-gsecret)
  (cd "$tmp/x" && arj x "$T/$a.arj" -y -v "${pw[@]}" >/dev/null)
  for n in $names; do cmp "$tmp/x/$n" "$s/$n"; done
done
(cd "$s" && for n in $names; do printf '%s %s %s\n' "$(sha256sum < "$n" | cut -d' ' -f1)" "$(stat -c %s "$n")" "$n"; done) > "$T/files.txt"
ls -l "$T"
