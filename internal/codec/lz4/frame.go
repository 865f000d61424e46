package lz4

import "encoding/binary"

// Magic numbers (little-endian in the stream).
const (
	frameMagic        = 0x184D2204
	legacyMagic       = 0x184C2102
	skippableMagicMin = 0x184D2A50
	skippableMagicMax = 0x184D2A5F
)

// FLG and BD bits of the frame descriptor.
const (
	flgVersionMask   = 0xC0
	flgVersion1      = 0x40
	flgBlockIndep    = 0x20
	flgBlockChecksum = 0x10
	flgContentSize   = 0x08
	flgContentCheck  = 0x04
	flgReserved      = 0x02
	flgDictID        = 0x01
	bdReserved       = 0x8F
)

const (
	// window is how far back a match may reach.
	window = 64 << 10
	// legacyBlockMax is the decoded size of every block of a legacy frame
	// but the last.
	legacyBlockMax = 8 << 20
	// legacyCompressedMax is the largest compressed block a legacy frame
	// can hold (LZ4_compressBound of 8 MiB); a larger size word is the
	// magic number of the next frame.
	legacyCompressedMax = legacyBlockMax + legacyBlockMax/255 + 16
	// maxDescriptor is the longest frame descriptor after the magic:
	// FLG, BD, content size, dictionary ID, HC.
	maxDescriptor = 2 + 8 + 4 + 1
)

// frame is what the descriptor of the frame being read says.
type frame struct {
	legacy        bool
	independent   bool
	blockChecksum bool
	contentCheck  bool
	hasSize       bool
	blockMax      int    // the largest decoded (and stored) block
	contentSize   uint64 // valid when hasSize
}

// descriptorLen returns the length of the frame descriptor (after the
// magic) whose FLG byte is flg.
func descriptorLen(flg byte) int {
	n := 3
	if flg&flgContentSize != 0 {
		n += 8
	}
	if flg&flgDictID != 0 {
		n += 4
	}
	return n
}

// parseDescriptor fills f from the frame descriptor d (FLG to HC), checking
// its version, reserved bits and header checksum. hc computes the XXH32 of
// its argument.
func (f *frame) parseDescriptor(d []byte, hc func([]byte) uint32, offset int64) error {
	flg, bd := d[0], d[1]
	if flg&flgVersionMask != flgVersion1 || flg&flgReserved != 0 || bd&bdReserved != 0 {
		return &FrameError{Offset: offset, Err: ErrHeader}
	}
	code := bd >> 4 & 7
	if code < 4 {
		return &FrameError{Offset: offset, Err: ErrHeader}
	}
	want := d[len(d)-1]
	if got := byte(hc(d[:len(d)-1]) >> 8); got != want {
		return checksumError(HeaderChecksum, offset+int64(len(d))-1, uint32(want), uint32(got))
	}
	if flg&flgDictID != 0 {
		return &FrameError{Offset: offset, Err: ErrUnsupported}
	}
	*f = frame{
		independent:   flg&flgBlockIndep != 0,
		blockChecksum: flg&flgBlockChecksum != 0,
		contentCheck:  flg&flgContentCheck != 0,
		hasSize:       flg&flgContentSize != 0,
		blockMax:      1 << (8 + 2*code), // 4: 64 KiB, 5: 256 KiB, 6: 1 MiB, 7: 4 MiB
	}
	if f.hasSize {
		f.contentSize = binary.LittleEndian.Uint64(d[2:])
	}
	return nil
}
