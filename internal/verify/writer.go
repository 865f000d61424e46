package verify

import (
	"hash"
	"io"
)

// Writer is the write-side twin of Reader: it hashes everything written
// through it, passes it on to the underlying writer, and compares the digest
// with the expected value when closed.
type Writer struct {
	w       io.Writer
	kind    Kind
	h       hash.Hash
	want    []byte
	hashKey []byte
	sum     [64]byte // scratch for the digest
}

// NewWriter returns a Writer that hashes with kind k what it passes to w (nil
// w: hash only) and checks it against want on Close. A nil want, or kind
// None, checks nothing.
func NewWriter(w io.Writer, k Kind, want []byte) *Writer {
	v := &Writer{}
	v.Reset(w, k, want)
	return v
}

// Reset makes v check a new stream, reusing its hash when the kind is the
// same. It clears any key set with SetRAR5Key.
func (v *Writer) Reset(w io.Writer, k Kind, want []byte) {
	v.h = reuse(v.h, v.kind, k)
	v.w, v.kind, v.want, v.hashKey = w, k, want, nil
}

// SetRAR5Key makes Close compare want with RAR5Keyed(kind, hashKey, digest);
// see Reader.SetRAR5Key.
func (v *Writer) SetRAR5Key(hashKey []byte) { v.hashKey = hashKey }

// Write passes p to the underlying writer and hashes what it accepted.
func (v *Writer) Write(p []byte) (int, error) {
	n := len(p)
	var err error
	if v.w != nil {
		n, err = v.w.Write(p)
	}
	if n > 0 && v.h != nil {
		v.h.Write(p[:n])
	}
	return n, err
}

// Close compares the digest of everything written with the expected value
// and returns a *MismatchError when they differ. It does not close the
// underlying writer.
func (v *Writer) Close() error { return check(v.kind, v.h, v.hashKey, v.want, v.sum[:0]) }

// Sum returns the digest of what has been written so far (nil for None),
// plain, not keyed.
func (v *Writer) Sum() []byte {
	if v.h == nil {
		return nil
	}
	return v.h.Sum(nil)
}
