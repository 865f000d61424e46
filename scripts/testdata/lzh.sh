#!/usr/bin/env bash
# Regenerates the LHA fixtures in internal/codec/lzh/testdata.
#  jlha-l{0,1,2}-lh{5,6,7}.lzh, jlha-l1-lh0.lzh: jlha-utils (`lha c<level>o<n>`,
#  `lha c1z`) over a small tree (text, random bytes, a subdirectory, an
#  empty file), each checked by lhasa and 7zz extraction against the tree.
#  files.txt lists the tree ("SHA-256 size path").
#  The methods and header levels no tool here writes (-lh1-, -lzs-, -lz5-,
#  -lh4-, -lhx-, level 3, symlinks, MacBinary) are small files from lhasa's
#  test suite, copied by hand from the shared corpus (see testdata/SOURCES.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
T=$PWD/internal/codec/lzh/testdata
mkdir -p "$T"
rm -f "$T"/jlha-*.lzh "$T"/files.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

s=$tmp/src; mkdir -p "$s/sub"
python3 -c "
import random; r = random.Random(7)
w = ['alpha', 'beta', 'gamma', 'delta', 'lzh', 'huffman', 'window', '\n']
open('$s/text.txt', 'w').write(' '.join(r.choice(w) for _ in range(6000)))
open('$s/rand.bin', 'wb').write(bytes(r.getrandbits(8) for _ in range(3000)))
open('$s/sub/small.txt', 'w').write('hello lzh\n')
open('$s/empty.txt', 'w').write('')"
names="text.txt rand.bin sub/small.txt empty.txt"
for spec in l0-lh5:c0o5 l1-lh6:c1o6 l2-lh7:c2o7 l1-lh0:c1z; do
  out=$T/jlha-${spec%%:*}.lzh
  (cd "$s" && lha "${spec#*:}" "$out" $names >/dev/null)
  for x in "lhasa x" "7zz x -y -bd"; do
    rm -rf "$tmp/x"; mkdir "$tmp/x"; (cd "$tmp/x" && $x "$out" >/dev/null)
    for n in $names; do cmp "$tmp/x/$n" "$s/$n"; done
  done
done
(cd "$s" && for n in $names; do printf '%s %s %s\n' "$(sha256sum < "$n" | cut -d' ' -f1)" "$(stat -c %s "$n")" "$n"; done) > "$T/files.txt"
ls -l "$T"
