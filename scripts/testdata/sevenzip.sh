#!/usr/bin/env bash
# Fixtures for internal/codec/sevenzip, made by 7zz from deterministic
# content: one archive per coder and option 7zz writes. Existing archives
# are kept (AES salts and IVs are random, so rebuilding changes bytes);
# FORCE=1 rebuilds everything.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=internal/codec/sevenzip/testdata
mkdir -p "$out"
if [[ "${FORCE:-}" == 1 ]]; then rm -f "$out"/*.7z "$out"/*.7z.0* "$out"/src.sha256s; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src="$work/src"
mkdir -p "$src/dir/sub" "$src/emptydir"
python3 - "$src" <<'PY'
import random, sys, os
root = sys.argv[1]
rnd = random.Random(7)
words = [''.join(rnd.choice('etaoinshrdlucmfwyp') for _ in range(rnd.randint(2, 9))) for _ in range(300)]
def text(n):
    out, size = [], 0
    while size < n:
        line = ' '.join(rnd.choice(words) for _ in range(rnd.randint(4, 14))) + '\n'
        out.append(line); size += len(line)
    return ''.join(out)[:n].encode()
def code(n):
    # x86-like: prologues, calls and jumps with varying targets.
    b = bytearray()
    while len(b) < n:
        k = rnd.randint(0, 5)
        if k == 0: b += bytes([0x55, 0x48, 0x89, 0xE5])
        elif k == 1: b += bytes([0xE8]) + rnd.randint(0, 1 << 16).to_bytes(4, 'little')
        elif k == 2: b += bytes([0xE9]) + rnd.randint(0, 1 << 12).to_bytes(4, 'little')
        elif k == 3: b += bytes([0x0F, 0x84]) + rnd.randint(0, 1 << 10).to_bytes(4, 'little')
        elif k == 4: b += bytes([0x48, 0x83, 0xC4, rnd.randint(0, 64)])
        else: b += bytes([0xC3, 0x90, 0x90])
    return bytes(b[:n])
open(os.path.join(root, 'text.txt'), 'wb').write(text(12000))
open(os.path.join(root, 'dir/code.bin'), 'wb').write(code(8000))
open(os.path.join(root, 'dir/sub/small.txt'), 'wb').write(b'hello, 7z\n')
open(os.path.join(root, 'dir/empty.txt'), 'wb').write(b'')
PY
ln -s ../text.txt "$src/dir/link"
chmod 0750 "$src/dir/sub"
chmod 0640 "$src/dir/sub/small.txt"
find "$src" -exec touch -h -d '2024-01-02 03:04:05 UTC' {} +

(cd "$src" && find . -type f | sort | sed 's|^\./||' | while read -r f; do
  printf '%s  %s\n' "$(sha256sum "$f" | cut -d' ' -f1)" "$f"; done) > "$out/src.sha256s"

mk() { # name, 7zz options...
  local name=$1; shift
  [[ -e "$out/$name" ]] && return 0
  (cd "$src" && 7zz a -bd -bso0 -snl "$@" "$work/$name" text.txt dir emptydir >/dev/null)
  mv "$work/$name"* "$out/"
}
mk copy.7z -m0=copy
mk lzma.7z -m0=lzma -md=64k
mk lzma2.7z -m0=lzma2 -md=64k
mk ppmd.7z -m0=ppmd
mk bzip2.7z -m0=bzip2
mk deflate.7z -m0=deflate
mk deflate64.7z -m0=deflate64
mk mx0.7z -mx0
mk mx1.7z -mx1
mk mx9.7z -mx9 -md=64k
mk nonsolid.7z -ms=off -md=64k
mk bcj.7z -mf=BCJ -md=64k
mk bcj2.7z -mf=BCJ2 -md=64k
for f in ARM ARMT ARM64 PPC SPARC IA64 RISCV; do
  mk "$(echo "$f" | tr A-Z a-z).7z" -mf=$f -md=64k
done
mk delta.7z -mf=Delta:4 -md=64k
mk aes.7z -pSecret -md=64k
mk aes-hdr.7z -pSecret -mhe=on -md=64k
mk aes-copy.7z -pSecret -m0=copy -mhe=on
[[ -e "$out/vol.7z.001" ]] || {
  (cd "$src" && 7zz a -bd -bso0 -snl -m0=copy -v6k "$work/vol.7z" text.txt dir emptydir >/dev/null)
  mv "$work"/vol.7z.0* "$out/"
}
[[ -e "$out/empty.7z" ]] || {
  (cd "$src" && 7zz a -bd -bso0 "$work/empty.7z" emptydir dir/empty.txt >/dev/null)
  mv "$work/empty.7z" "$out/"
}
du -sh "$out"
