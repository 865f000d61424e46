#!/usr/bin/env python3
"""Writes the compressed chunks of the single-chunk, non-solid resources of
a WIM as OUTDIR/PREFIX-USIZE-SHA1.EXT, for the xpress and lzms decoder tests.
Usage: wimchunks.py WIM OUTDIR PREFIX EXT [MAX]"""
import hashlib, struct, sys

wim, out, prefix, ext = sys.argv[1:5]
limit = int(sys.argv[5]) if len(sys.argv) > 5 else 4
b = open(wim, 'rb').read()
chunk = struct.unpack_from('<I', b, 20)[0]

def reshdr(o):
    size = int.from_bytes(b[o:o + 7], 'little')
    return size, b[o + 7], struct.unpack_from('<Q', b, o + 8)[0], struct.unpack_from('<Q', b, o + 16)[0]

tsize, _, toff, _ = reshdr(48)
n = 0
for e in range(toff, toff + tsize, 50):
    size, flags, off, usize = reshdr(e)
    sha = b[e + 30:e + 50].hex()
    # compressed (4), not solid (0x10), one chunk, actually compressed
    if flags & 0x14 != 0x04 or usize > chunk or size >= usize or usize < 64:
        continue
    open('%s/%s%d-%d-%s.%s' % (out, prefix, n, usize, sha, ext), 'wb').write(b[off:off + size])
    n += 1
    if n == limit:
        break
print('%s: %d chunks' % (wim, n))
