package zstd

import "github.com/klauspost/compress/huff0"

// literals decodes the literals section at the start of a compressed block
// (RFC 8878 §3.1.1.3.1). It returns the literals (in the block itself when
// raw, else in d.lits) and the section's size.
func (d *Decoder) literals(in []byte) ([]byte, int, error) {
	if len(in) < 1 {
		return nil, 0, errLiterals
	}
	typ, format := in[0]&3, in[0]>>2&3
	var regen, comp, hl int
	four := false
	if typ < 2 {
		switch format {
		case 0, 2:
			regen, hl = int(in[0]>>3), 1
		case 1:
			if len(in) < 2 {
				return nil, 0, errLiterals
			}
			regen, hl = int(in[0]>>4)|int(in[1])<<4, 2
		case 3:
			if len(in) < 3 {
				return nil, 0, errLiterals
			}
			regen, hl = int(in[0]>>4)|int(in[1])<<4|int(in[2])<<12, 3
		}
	} else {
		hl = [4]int{3, 3, 4, 5}[format]
		if len(in) < hl {
			return nil, 0, errLiterals
		}
		v := uint64(in[0]) | uint64(in[1])<<8 | uint64(in[2])<<16
		if hl > 3 {
			v |= uint64(in[3]) << 24
		}
		if hl > 4 {
			v |= uint64(in[4]) << 32
		}
		four = format != 0
		bits := [4]uint{10, 10, 14, 18}[format]
		regen = int(v >> 4 & (1<<bits - 1))
		comp = int(v >> (4 + bits) & (1<<bits - 1))
	}
	if regen > d.blockMax {
		return nil, 0, errLiterals
	}
	in = in[hl:]
	switch typ {
	case 0:
		if len(in) < regen {
			return nil, 0, errLiterals
		}
		return in[:regen], hl + regen, nil
	case 1:
		if len(in) < 1 {
			return nil, 0, errLiterals
		}
		out := d.lits[:regen]
		for i := range out {
			out[i] = in[0]
		}
		return out, hl + 1, nil
	}
	if comp > len(in) || comp == 0 {
		return nil, 0, errLiterals
	}
	src := in[:comp]
	if typ == 2 {
		if d.huff == nil {
			d.huff = &huff0.Scratch{}
		}
		s, rest, err := huff0.ReadTable(src, d.huff)
		if err != nil {
			d.huffOK = false
			return nil, 0, errLiterals
		}
		d.huff, d.huffOK, src = s, true, rest
		d.hdec = *s.Decoder()
	} else if !d.huffOK {
		return nil, 0, errRepeat
	}
	var out []byte
	var err error
	if four {
		out, err = d.hdec.Decompress4X(d.lits[:0:regen], src)
	} else {
		out, err = d.hdec.Decompress1X(d.lits[:0:regen], src)
	}
	if err != nil || len(out) != regen {
		return nil, 0, errLiterals
	}
	return d.lits[:regen], hl + comp, nil
}
