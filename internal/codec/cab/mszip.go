package cab

import (
	"bytes"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
)

// MSZIP errors.
var (
	ErrMSZIPSignature = archive.Corruptf("cab: MSZIP block without its CK signature")
	ErrMSZIPSize      = archive.Corruptf("cab: MSZIP block decodes to another size than its header's")
)

const mszipWindow = 32 << 10

// mszip decodes MSZIP blocks: each a "CK" signature and a complete
// deflate stream whose matches may reach into the previous blocks' last
// 32 KiB.
type mszip struct {
	inf  *inflate.Inflater
	br   bytes.Reader
	hist []byte
}

func newMSZIP() *mszip {
	return &mszip{inf: inflate.NewInflater(nil, false), hist: make([]byte, 0, 2*mszipWindow)}
}

func (m *mszip) reset() { m.hist = m.hist[:0] }

// decode decodes one block's data src into all of dst.
func (m *mszip) decode(dst, src []byte) error {
	if len(src) < 2 || src[0] != 'C' || src[1] != 'K' {
		return ErrMSZIPSignature
	}
	m.br.Reset(src[2:])
	m.inf.ResetDict(&m.br, m.hist)
	if _, err := io.ReadFull(m.inf, dst); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return ErrMSZIPSize
		}
		return err
	}
	var one [1]byte
	if n, err := m.inf.Read(one[:]); n != 0 {
		return ErrMSZIPSize
	} else if err != io.EOF {
		return err
	}
	m.hist = append(m.hist, dst...)
	if k := len(m.hist) - mszipWindow; k > 0 {
		m.hist = m.hist[:copy(m.hist, m.hist[k:])]
	}
	return nil
}
