// Package rar opens RAR archives of either generation: it finds the
// signature (looking past a self-extractor stub) and hands the archive to
// package rar4 (RAR 1.5 to 4.x) or rar5 (RAR 5.0 and 7.0), which read the
// formats as RARLAB documents them ("RAR 5.0 archive format", technote.txt
// of RAR 4) and as unrar reads them. What the two share (buffer pools,
// volume names, the E8 and DELTA filters) is in rarshared.
//
// # Security concerns
//
// Everything an archive declares is bounded before it is trusted: a RAR 5
// header is at most 2 MiB and is CRC-checked before its fields are used;
// names are at most 64 KiB; the decompression window is the entry's
// dictionary, or less when the stream (the solid chain so far and the
// entry) is shorter, grown as a solid chain goes on, and must fit
// Options.Limit, checked before allocating (archive.ErrLimit); filter
// blocks are at most 4 MiB and at most 8192 wait at once; an archive
// comment is read only up to 1 MiB; key derivation is refused above 2^24
// rounds. Output never exceeds an entry's declared size.
//
// Windows, filter memory, input buffers and decoder tables come from pools
// (package rarshared) that readers return them to when closed, so that
// entries and archives read one after another do not each allocate them.
package rar

import (
	"bufio"
	"bytes"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/rar/rar4"
	"github.com/unpack-dev/unpack/internal/codec/rar/rar5"
)

// Signatures. Both start with the same six bytes.
var (
	sigPrefix = []byte("Rar!\x1a\x07")
	sigRAR4   = []byte("Rar!\x1a\x07\x00")
	sigRAR5   = []byte("Rar!\x1a\x07\x01\x00")
)

// errNotRAR is returned when no RAR signature is found within
// archive.SFXScanLimit bytes.
var errNotRAR = archive.Errorf(archive.ErrNotArchive, "rar: no RAR signature found")

// scanChunk is how much Open reads at a time while looking for a signature.
const scanChunk = 64 << 10

// Open opens a RAR archive of either generation. in.R must be at the first
// byte of the file; a self-extractor stub before the signature is skipped
// (up to archive.SFXScanLimit bytes). The format's own reader receives an
// Input whose R starts at the signature, together with the signature's
// offset in the file. When in.R is a *bufio.Reader (as the caller is asked
// to give) and the signature starts the file, it is peeked at and in.R
// itself is read on, without another buffer.
func Open(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	if opt == nil {
		opt = &archive.Options{}
	}
	if br, ok := in.R.(*bufio.Reader); ok {
		head, _ := br.Peek(len(sigRAR5))
		switch {
		case bytes.HasPrefix(head, sigRAR5):
			return rar5.Open(in, opt, 0)
		case bytes.HasPrefix(head, sigRAR4):
			return rar4.Open(in, opt, 0)
		}
	}
	buf := make([]byte, 0, scanChunk)
	var base int64 // file offset of buf[0]
	for {
		if i := findSignature(buf); i >= 0 {
			rest := buf[i:]
			if len(rest) < len(sigRAR5) {
				// Need the byte(s) after the common prefix; read them.
				more := make([]byte, len(sigRAR5)-len(rest))
				n, _ := io.ReadFull(in.R, more)
				rest = append(rest, more[:n]...)
			}
			sub := *in
			sub.R = io.MultiReader(bytes.NewReader(rest), in.R)
			off := base + int64(i)
			switch {
			case bytes.HasPrefix(rest, sigRAR5):
				return rar5.Open(&sub, opt, off)
			case bytes.HasPrefix(rest, sigRAR4):
				return rar4.Open(&sub, opt, off)
			}
			// The prefix without a known version byte: look further.
			buf = buf[i+1:]
			base += int64(i + 1)
			continue
		}
		if base+int64(len(buf)) >= archive.SFXScanLimit {
			return nil, errNotRAR
		}
		// Keep a tail that may hold the start of a signature.
		if keep := len(sigRAR5) - 1; len(buf) > keep {
			base += int64(len(buf) - keep)
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
		n, err := io.ReadAtLeast(in.R, buf[len(buf):cap(buf)], 1)
		buf = buf[:len(buf)+n]
		if err != nil {
			if i := findSignature(buf); i >= 0 {
				continue
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, errNotRAR
			}
			return nil, err
		}
	}
}

// findSignature returns the index of the first RAR signature prefix in b
// (possibly cut short at the end of b), or -1.
func findSignature(b []byte) int {
	if i := bytes.Index(b, sigPrefix); i >= 0 {
		return i
	}
	return -1
}
