// Package ppmd decodes PPMd variant H (Dmitry Shkarin's PPMII, as 7-Zip's
// Ppmd7 and RAR 3.x use it) with its own sub-allocator, so that results
// match the reference encoders byte for byte, including model restarts
// when memory runs out.
package ppmd

import (
	"errors"

	"github.com/unpack-dev/unpack/internal/archive"
)

// ErrCorrupt reports invalid PPMd data.
var ErrCorrupt = archive.Corruptf("ppmd: corrupt data")

var errNotYet = errors.New("ppmd: model not implemented")

// ModelH is a PPMd variant H model.
type ModelH struct{}

// NewH returns a model of the given order (2..64) and memory size in bytes.
func NewH(order, memSize int) (*ModelH, error) { return nil, errNotYet }

// Reset restarts m with a new order and memory size.
func (m *ModelH) Reset(order, memSize int) error { return errNotYet }

// DecodeSymbol decodes one byte.
func (m *ModelH) DecodeSymbol(rc *RangeDecoder) (int, error) { return 0, errNotYet }
