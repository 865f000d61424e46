package ppmd

import "io"

// Range coder constants.
const (
	rcTop = 1 << 24
	rcBot = 1 << 15
)

// RangeDecoder is the arithmetic decoder under a PPMd model. Two variants
// exist: 7-Zip's (Init7z) and RAR's carry-less coder (InitRAR); both read
// bytes from an io.ByteReader. A read error is kept and returned by the
// model's next DecodeSymbol.
type RangeDecoder struct {
	br    io.ByteReader
	low   uint32 // RAR only
	code  uint32
	rng   uint32
	isRAR bool
	err   error
}

// Init7z starts a 7-Zip PPMd (variant H) stream: 5 bytes, the first zero.
func (rc *RangeDecoder) Init7z(br io.ByteReader) error {
	*rc = RangeDecoder{br: br, rng: 0xffffffff}
	first := rc.next()
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	if rc.err == nil && (first != 0 || rc.code == 0xffffffff) {
		rc.err = ErrCorrupt
	}
	return rc.err
}

// InitRAR starts a RAR 3.x PPMd stream: 4 bytes.
func (rc *RangeDecoder) InitRAR(br io.ByteReader) error {
	*rc = RangeDecoder{br: br, rng: 0xffffffff, isRAR: true}
	for i := 0; i < 4; i++ {
		rc.code = rc.code<<8 | uint32(rc.next())
	}
	return rc.err
}

// InitI starts a PPMd variant I stream (7-Zip's Ppmd8, zip method 98):
// RAR's carry-less coder, 4 bytes, which may not be all ones.
func (rc *RangeDecoder) InitI(br io.ByteReader) error {
	if err := rc.InitRAR(br); err != nil {
		return err
	}
	if rc.code == 0xFFFFFFFF {
		rc.err = ErrCorrupt
	}
	return rc.err
}

func (rc *RangeDecoder) next() byte {
	c, err := rc.br.ReadByte()
	if err != nil {
		if rc.err == nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			rc.err = err
		}
		return 0
	}
	return c
}

// threshold returns the count within total of the next symbol.
func (rc *RangeDecoder) threshold(total uint32) uint32 {
	rc.rng /= total
	if rc.isRAR {
		return (rc.code - rc.low) / rc.rng
	}
	return rc.code / rc.rng
}

// decode consumes the symbol occupying [start, start+size) of the total
// passed to threshold.
func (rc *RangeDecoder) decode(start, size uint32) {
	if rc.isRAR {
		rc.low += start * rc.rng
	} else {
		rc.code -= start * rc.rng
	}
	rc.rng *= size
	if rc.rng < rcTop || rc.isRAR {
		rc.normalize()
	}
}

// normalize refills the range after decode, kept out of line so that
// decode inlines.
func (rc *RangeDecoder) normalize() {
	if rc.isRAR {
		rc.normalizeRAR()
	} else {
		rc.normalize7z()
	}
}

// normalizeRAR is the normalisation of RAR's carry-less coder.
func (rc *RangeDecoder) normalizeRAR() {
	for {
		if rc.low^(rc.low+rc.rng) >= rcTop {
			if rc.rng >= rcBot {
				return
			}
			rc.rng = -rc.low & (rcBot - 1)
		}
		if rc.rng == 0 || rc.err != nil {
			// Only invalid data gets here; stop rather than spin.
			if rc.err == nil {
				rc.err = ErrCorrupt
			}
			return
		}
		rc.code = rc.code<<8 | uint32(rc.next())
		rc.rng <<= 8
		rc.low <<= 8
	}
}

// normalize7z refills the 7-Zip coder's range (below rcTop).
func (rc *RangeDecoder) normalize7z() {
	if rc.rng == 0 {
		if rc.err == nil {
			rc.err = ErrCorrupt // only invalid data gets here
		}
		rc.rng = 1 << 31
		return
	}
	for rc.rng < rcTop {
		rc.code = rc.code<<8 | uint32(rc.next())
		rc.rng <<= 8
	}
}

// bit decodes a binary choice with probability size0/2^14 for 0.
func (rc *RangeDecoder) bit(size0 uint32) uint32 {
	if rc.isRAR {
		return rc.bitRAR(size0)
	}
	// 7-Zip splits the range exactly rather than by the scaled unit.
	bound := (rc.rng >> 14) * size0
	b := uint32(1)
	if rc.code < bound {
		rc.rng = bound
		b = 0
	} else {
		rc.code -= bound
		rc.rng -= bound
	}
	if rc.rng < rcTop {
		rc.normalize7z()
	}
	return b
}

func (rc *RangeDecoder) bitRAR(size0 uint32) uint32 {
	if rc.threshold(1<<14) < size0 {
		rc.decode(0, size0)
		return 0
	}
	rc.decode(size0, 1<<14-size0)
	return 1
}
