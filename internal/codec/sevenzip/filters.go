package sevenzip

import (
	"encoding/binary"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/bcj"
)

// newFilter returns the reader of a branch converter or delta coder over
// in, using internal/bcj. Branch converters take an optional 4-byte start
// offset; Delta takes one byte, the distance minus one.
func newFilter(c *coder, in io.Reader, env *decodeEnv) (io.Reader, error) {
	var conv bcj.Converter
	if c.id == mDelta {
		if len(c.props) != 1 {
			return nil, archive.Corruptf("7z: bad Delta properties")
		}
		conv = bcj.NewDelta(int(c.props[0]) + 1)
	} else {
		var start uint32
		switch len(c.props) {
		case 0:
		case 4:
			start = binary.LittleEndian.Uint32(c.props)
		default:
			return nil, archive.Corruptf("7z: bad %s properties", methodName(c))
		}
		switch c.id {
		case mX86:
			conv = bcj.NewX86(start)
		case mPPC:
			conv = bcj.NewPPC(start)
		case mIA64:
			conv = bcj.NewIA64(start)
		case mARM:
			conv = bcj.NewARM(start)
		case mARMT:
			conv = bcj.NewARMThumb(start)
		case mSPARC:
			conv = bcj.NewSPARC(start)
		case mARM64:
			conv = bcj.NewARM64(start)
		case mRISCV:
			conv = bcj.NewRISCV(start)
		}
	}
	r := bcj.NewReader(in, conv)
	env.closers = append(env.closers, r)
	return r, nil
}
