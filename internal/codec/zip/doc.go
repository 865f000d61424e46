// Package zip reads ZIP archives as described by PKWARE's APPNOTE.TXT
// (version 6.3.10), with the WinZip AES extension (AE-1, AE-2) and the
// Info-ZIP extra fields (Unicode path, extended timestamp, Unix).
//
// Open reads the central directory when the input is seekable (a *Reader,
// which also implements archive.RandomAccess): zip64 end records and extra
// fields, archive comments, data before the archive (self-extractor stubs,
// with offsets that count it or not), split sets (name.z01 … name.zip)
// and raw splits (name.001 …), opened from any part. Standard input and
// pipes are streamed from the local headers (a *StreamReader), with data
// descriptors with or without signature, 32- or 64-bit.
//
// Methods: stored, deflate and Deflate64 (internal/codec/inflate), bzip2
// (compress/bzip2, a stand-in), LZMA (internal/codec/lzma), xz
// (internal/codec/xz), zstd (klauspost/compress), shrink and implode.
// Reduce and PPMd are reported as archive.ErrUnsupported naming them.
// Encryption: traditional PKWARE (ZipCrypto) and WinZip AES-128/192/256.
//
// Every entry's CRC32, or its AES authentication code, is verified at the
// end of its data, and its size is checked against the headers.
//
// # Security concerns
//
// Local and central headers that disagree on an entry's name, method,
// sizes or CRC are refused (ErrHeaderMismatch), and so are entries whose
// data overlap each other or the central directory, the construction of
// non-recursive zip bombs (ErrOverlap). Dictionary sizes (LZMA, xz, zstd)
// are checked against Options.Limit before anything is allocated, the
// central directory is bounded by the file size and the limit, and a
// symbolic link's target by 64 KiB.
package zip
