package lz4

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/testutil"
	"github.com/unpack-dev/unpack/internal/verify"
)

// makeFrame builds a frame with descriptor flags flg and bd (content
// size and dictionary ID flags clear or set alike), whose blocks hold the
// given contents, compressed by encodeBlock (linked to the ones before
// when flg says so) or stored when that does not make them smaller, with
// the checksums flg asks for.
func makeFrame(flg, bd byte, blocks ...[]byte) []byte {
	var all []byte
	for _, b := range blocks {
		all = append(all, b...)
	}
	d := []byte{flg, bd}
	if flg&flgContentSize != 0 {
		d = binary.LittleEndian.AppendUint64(d, uint64(len(all)))
	}
	var f []byte
	var hist []byte
	for _, b := range blocks {
		c := encodeBlock(hist, b)
		if flg&flgBlockIndep == 0 {
			hist = append(hist, b...)
		}
		word := uint32(len(c))
		if len(c) >= len(b) && len(b) > 0 {
			c, word = b, uint32(len(b))|1<<31 // stored
		}
		f = binary.LittleEndian.AppendUint32(f, word)
		f = append(f, c...)
		if flg&flgBlockChecksum != 0 {
			f = binary.LittleEndian.AppendUint32(f, verify.XXH32Sum(c))
		}
	}
	f = append(f, 0, 0, 0, 0)
	if flg&flgContentCheck != 0 {
		f = binary.LittleEndian.AppendUint32(f, verify.XXH32Sum(all))
	}
	return withDescriptor(d, f...)
}

// FuzzLZ4Frame decodes arbitrary input with a Reader fed whole and one
// byte at a time: both must agree (same output, same error), never panic
// or hang, and fail only with errors of the corrupt or unsupported
// categories. A Reader with an output buffer of a few bytes (history moved
// and sequences copied in pieces all the time) must succeed where they
// do, with the same output.
func FuzzLZ4Frame(f *testing.F) {
	// Small seeds keep the fuzzer (and its minimisation) fast.
	f.Add(testutil.Fixture(f, "empty.lz4"))
	f.Add(testutil.Fixture(f, "empty-legacy.lz4"))
	text := testInputs()["text"]
	f.Add(makeFrame(0x7C, 0x40, text[:300], text[300:500])) // linked, every checksum, size
	f.Add(makeFrame(0x64, 0x40, text[:200], text[200:300])) // independent, content checksum
	f.Add(append([]byte{0x52, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'h', 'i'}, makeFrame(0x60, 0x40, text[:100])...))
	f.Add(withDescriptor([]byte{0x68, 0x40, 2, 0, 0, 0, 0, 0, 0, 0}, 0x02, 0, 0, 0x80, 'a', 'b', 0, 0, 0, 0))
	f.Add([]byte{0x02, 0x21, 0x4c, 0x18, 6, 0, 0, 0, 0x10, 'a', 1, 0, 0x10, 'b'})
	whole, bytewise, small := new(Reader), new(Reader), smallReader(13)
	f.Fuzz(func(t *testing.T, data []byte) {
		out1, err1 := decodeAll(whole, bytes.NewReader(data))
		out2, err2 := decodeAll(bytewise, iotest.OneByteReader(bytes.NewReader(data)))
		if !bytes.Equal(out1, out2) || (err1 == nil) != (err2 == nil) {
			t.Fatalf("whole and byte-wise input disagree: %v / %v, %d / %d bytes", err1, err2, len(out1), len(out2))
		}
		out3, err3 := decodeAll(small, bytes.NewReader(data))
		if (err1 == nil) != (err3 == nil) || err1 == nil && !bytes.Equal(out1, out3) {
			t.Fatalf("a small output buffer disagrees: %v / %v, %d / %d bytes", err1, err3, len(out1), len(out3))
		}
		if err1 != nil && !isCorrupt(err1) && !errors.Is(err1, archive.ErrUnsupported) && !errors.Is(err1, archive.ErrLimit) {
			t.Fatalf("error of the wrong category: %v", err1)
		}
		if err1 == io.EOF {
			t.Fatal("io.EOF as an error")
		}
	})
}
