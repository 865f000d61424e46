#!/usr/bin/env bash
# Regenerates the chmcmd fixtures in internal/codec/chm/testdata with Free
# Pascal's CHM compiler (chmcmd, package fp-utils): LZX with a 64 KiB
# window and a reset every 2 frames, its system files in section 0.
#   chmcmd.chm: nested directories, a 150 KB file (several reset
#     intervals), random bytes, an empty file, names with spaces and
#     non-ASCII letters; one directory chunk.
#   chmcmd-many.chm: 160 files with long names, over several PMGL
#     chunks (chmcmd writes the header's first PMGL chunk number wrong:
#     chmlib and libmspack list only the last chunk's files; 7-Zip all).
# NAME.txt lists "SHA-256 size path" of every file 7zz x extracts, each
# source file among them checked byte for byte against its source (and,
# for chmcmd.chm, against extract_chmLib's output).
set -euo pipefail
cd "$(dirname "$0")/../.."
D=$PWD/internal/codec/chm/testdata
CHMCMD=$(command -v chmcmd-3.2.2 || command -v chmcmd)
mkdir -p "$D"
rm -f "$D"/chmcmd*.chm "$D"/chmcmd*.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sums() {
  (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do
    printf '%s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "${f#./}"
  done)
}
build() { # name dir
  local n=$1 src=$tmp/$2
  (cd "$src" && { printf '[OPTIONS]\nCompiled file=%s\nTitle=%s\n\n[FILES]\n' "$tmp/$n.chm" "$n"; find . -type f | LC_ALL=C sort | sed 's|^\./||'; } > "$tmp/$n.hhp")
  mv "$tmp/$n.hhp" "$src/" # chmcmd finds the files beside the project
  (cd "$src" && "$CHMCMD" --no-html-scan "$n.hhp" >/dev/null && rm "$n.hhp")
  rm -rf "$tmp/x"
  7zz x -bd -o"$tmp/x" "$tmp/$n.chm" >/dev/null
  (cd "$src" && find . -type f | while read -r f; do cmp "$f" "$tmp/x/$f"; done)
  sums "$tmp/x" > "$D/$n.txt"
  cp "$tmp/$n.chm" "$D/"
}
mkdir -p "$tmp/one" "$tmp/many"
python3 - "$tmp/one" "$tmp/many" <<'PY'
import os, random, sys
one, many = sys.argv[1], sys.argv[2]
r = random.Random(20261202)
words = ['chm', 'help', 'topic', 'index', 'LZX', 'window', 'frame', 'reset', '<p>', '</p>', '\n']
def w(p, data):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, 'wb').write(data)
w(one + '/index.html', b'<html><body><a href="sub/big.html">big</a></body></html>\n')
w(one + '/sub/big.html', ' '.join(r.choice(words) for _ in range(30000)).encode()[:150000])
w(one + '/sub/deep/er/random.bin', bytes(r.randrange(256) for _ in range(20000)))
w(one + '/empty.html', b'')
w(one + '/with space/\u00e9t\u00e9 \u00fcber.html', '<p>\u00e9t\u00e9</p>\n'.encode())
for i in range(160):
    name = 'a-rather-long-topic-name-to-fill-directory-chunks-%03d.html' % i
    w(many + '/topics/' + name, ('<p>topic %d %s</p>\n' % (i, ' '.join(r.choice(words) for _ in range(r.randrange(1, 50))))).encode())
PY
build chmcmd one
rm -rf "$tmp/y" && extract_chmLib "$D/chmcmd.chm" "$tmp/y" >/dev/null
(cd "$tmp/one" && find . -type f | while read -r f; do cmp "$f" "$tmp/y/$f"; done)
build chmcmd-many many
ls -l "$D"
