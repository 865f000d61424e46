// Package lzma decodes LZMA and LZMA2 data: raw LZMA streams (Reader1, as
// 7z and zip store them), raw LZMA2 streams (Reader2, as xz blocks and 7z
// store them) and .lzma files (AloneReader, the LZMA-alone format of LZMA
// Utils and xz --format=lzma).
//
// The formats are those of the LZMA SDK (lzma-specification.txt, LZMA SDK
// 9.18 and later) and of XZ Utils 5.x for LZMA2 chunks and the .lzma header;
// the behaviour at stream ends follows liblzma: with a known size the end
// marker is optional, the range coder must end with code zero, and an LZMA2
// chunk must consume exactly its compressed size.
//
// # API
//
//	props, err := lzma.ParseProps(coderProps)          // 5 bytes: 7z, zip
//	dictSize, err := lzma.DictSize2(propByte)         // LZMA2 property byte: xz, 7z
//	r1, err := lzma.NewReader1(r, props, unpackSize)  // -1: end marker required
//	r2, err := lzma.NewReader2(r, dictSize)           // raw LZMA2, reads up to its end marker
//	ra, err := lzma.NewAloneReader(r, memLimit)       // .lzma file
//	err = lzma.DictLimit(dictSize, memLimit)          // check before NewReader1/2
//
// Every reader has Reset to decode another stream with the same buffers:
// the dictionary window and the probability tables are allocated once and
// reused while they are large enough, so decoding many blocks, entries or
// members allocates nothing after the first. Readers share no mutable
// state: several may run in parallel goroutines.
//
// Reader2 never reads past the LZMA2 end marker, whatever r is. Reader1
// consumes exactly its stream from a *bufio.Reader (or any reader with Peek,
// Discard and Size) and otherwise may read ahead; InputSize tells how many
// compressed bytes it used.
//
// # Errors
//
// Malformed data gives one of the package's sentinel errors, all of
// category archive.ErrCorrupt (ErrTruncated is also io.ErrUnexpectedEOF).
// Errors of the underlying reader are returned as they are. A dictionary
// over a memory limit gives an archive.ErrLimit error from DictLimit and
// NewAloneReader.
//
// # Speed
//
// The decoder keeps the range coder, state and rep distances in local
// variables for a whole batch of symbols and decodes literal and bit-tree
// bits without branching on the bit, loading both candidates for the next
// bit's probability before the bit is known (conditional moves pick one).
// Literals, lengths and distances are decoded in functions of their own, so
// that their loops keep the range coder in registers. Matches are copied 8
// bytes at a time or with copy; short matches from 64 KiB back or more are
// queued until a literal needs the window, so that their cache misses
// overlap. Input bounds are checked once per symbol: a symbol reads at most
// 64 bytes, so near the end of the input the rest is copied into a buffer
// padded with zeros, and reading into the padding is reported as truncation.
// The output window is checked once per literal and once per match; a
// match crossing the end of the window is finished on the next call.
//
// # Security concerns
//
// The window is as large as the declared dictionary (or the declared
// uncompressed size, when smaller), up to 4 GiB. Callers must check header
// values with DictLimit (AloneReader does it) before constructing a reader.
// Output is bounded only by the stream; callers bound it as they need.
package lzma
