#!/usr/bin/env bash
# Regenerates internal/verify/testdata/vectors.tsv: digests of a deterministic
# byte pattern (byte i = (i*131 + i>>9) mod 256) at lengths around every block
# and buffer boundary of the hashes in internal/verify, produced by reference
# implementations: BLAKE2sp with Python's hashlib.blake2s tree parameters
# (unkeyed; the keyed vectors come from the BLAKE2 KAT), XXH32 and XXH64 with
# xxhsum (Debian package xxhash). Also a zstd and an lz4 frame of the
# 100003-byte pattern, whose trailing content checksums (low 32 bits of XXH64,
# XXH32) the tests compare with their own. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v xxhsum >/dev/null || { echo "xxhsum missing: run scripts/install-tools.sh" >&2; exit 1; }
out=internal/verify/testdata/vectors.tsv
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lengths="0 1 3 4 7 8 15 16 17 31 32 33 63 64 65 127 128 129 255 256 511 512 513
 959 960 961 1023 1024 1025 1471 1472 1473 1535 1536 1537 2048 4095 4097 65553 100003"
{
  printf 'kind\tlength\tdigest\n'
  for n in $lengths; do
    python3 -c '
import sys
n = int(sys.argv[1])
sys.stdout.buffer.write(bytes((i*131 + (i>>9)) & 0xff for i in range(n)))' "$n" >"$tmp/d"
    python3 - "$n" "$tmp/d" <<'PY'
import hashlib, sys
n, path = int(sys.argv[1]), sys.argv[2]
data = open(path, 'rb').read()
def node(offset, depth, last):
    return hashlib.blake2s(digest_size=32, fanout=8, depth=2, leaf_size=0,
                           node_offset=offset, node_depth=depth, inner_size=32, last_node=last)
leaves = [node(i, 0, i == 7) for i in range(8)]
for j in range(0, len(data), 64):
    leaves[(j // 64) % 8].update(data[j:j + 64])
root = node(0, 1, True)
for leaf in leaves:
    root.update(leaf.digest())
print(f"BLAKE2sp\t{n}\t{root.hexdigest()}")
PY
    printf 'XXH32\t%s\t%s\n' "$n" "$(xxhsum -H0 <"$tmp/d" | cut -d' ' -f1)"
    printf 'XXH64\t%s\t%s\n' "$n" "$(xxhsum -H1 <"$tmp/d" | cut -d' ' -f1)"
  done
} >"$out"
echo "wrote $out ($(wc -l <"$out") lines)"
# $tmp/d now holds the longest pattern.
zstd -q -f -19 --check "$tmp/d" -o internal/verify/testdata/pattern-100003-zstd.zst
lz4 -q -f -9 --content-size "$tmp/d" internal/verify/testdata/pattern-100003-lz4.lz4
ls -l internal/verify/testdata
