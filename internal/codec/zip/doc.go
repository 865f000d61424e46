// Package zip reads ZIP archives as described by PKWARE's APPNOTE.TXT
// (version 6.3.10) with the WinZip AES extension (AE-1, AE-2) and the
// Info-ZIP extra fields.
//
// Open reads the central directory when the input is seekable (including
// split and spanned sets, self-extractor prefixes and zip64) and otherwise
// streams the entries from their local headers. Every entry's CRC32, or its
// AES authentication code, is verified at the end of its data, and sizes
// are checked against the headers.
//
// # Security concerns
//
// Local and central headers that disagree on an entry's name or sizes are
// refused, and so are entries whose data overlap (the construction of
// non-recursive zip bombs). Dictionary sizes (LZMA, xz, zstd) are checked
// against Options.Limit before anything is allocated, and the central
// directory itself is bounded by the file size and the limit.
package zip
