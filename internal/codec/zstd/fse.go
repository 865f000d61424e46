package zstd

import "math/bits"

// fseTables are the decoding tables of the three sequence fields, in one
// array (the assembly finds each at a fixed offset). An entry packs, for
// one FSE state, what decoding a field needs: bits 0–7 the state bits to
// read, 8–15 the value's extra bits, 16–31 the next state's base, 32–63
// the value's base.
type fseTables struct {
	t   [3][1 << 9]uint64
	n   [3]int // entries in use; 0 before the frame's first description
	far int    // entries of the offset table whose code is farCode or more
}

// farCode is the smallest offset code counted as far: its offsets are
// 2^farCode or more back, past what the cache holds.
const farCode = 22

// countFar sets ts.far from the offset table.
func (ts *fseTables) countFar() {
	ts.far = 0
	for _, e := range ts.t[fieldOF][:ts.n[fieldOF]] {
		if e>>8&0xff >= farCode {
			ts.far++
		}
	}
}

// dt returns field's table.
func (ts *fseTables) dt(field int) []uint64 { return ts.t[field][:ts.n[field]] }

// The three sequence fields, in the order of their table descriptions.
const (
	fieldLL = iota
	fieldOF
	fieldML
)

var (
	maxSym = [3]int{35, 31, 52}
	maxLog = [3]uint{9, 8, 9}

	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
		13, 14, 15, 16}
	mlBase = [53]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}

	// The predefined distributions (RFC 8878 §3.1.1.3.2.2).
	predefNorm = [3][]int16{
		{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
			-1, -1, -1, -1},
		{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1},
		{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
			1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1},
	}
	predefLog = [3]uint{6, 5, 6}
	predef    [3][]uint64
)

func init() {
	for f := range predef {
		predef[f] = make([]uint64, 1<<predefLog[f])
		if !buildTable(predef[f], f, predefNorm[f], predefLog[f]) {
			panic("zstd: bad predefined table")
		}
	}
}

// symbolValue returns a field's value base and extra bits for symbol s.
func symbolValue(field, s int) (base uint32, extra uint8) {
	switch field {
	case fieldLL:
		return llBase[s], llBits[s]
	case fieldML:
		return mlBase[s], mlBits[s]
	}
	return 1 << s, uint8(s)
}

// entry packs a decoding table entry.
func entry(stateBits uint, next uint32, base uint32, extra uint8) uint64 {
	return uint64(stateBits) | uint64(extra)<<8 | uint64(next)<<16 | uint64(base)<<32
}

// read sets the table of field from its description mode (RFC 8878
// §3.1.1.3.2.1) at the start of in, and returns the bytes it used.
func (ts *fseTables) read(field int, mode byte, in []byte) (int, error) {
	n, err := ts.readTable(field, mode, in)
	if field == fieldOF && err == nil && mode != 3 {
		ts.countFar()
	}
	return n, err
}

func (ts *fseTables) readTable(field int, mode byte, in []byte) (int, error) {
	t := &ts.t[field]
	switch mode {
	case 0:
		ts.n[field] = copy(t[:], predef[field])
		return 0, nil
	case 1:
		if len(in) < 1 {
			return 0, errTable
		}
		s := int(in[0])
		if s > maxSym[field] {
			return 0, errTable
		}
		base, extra := symbolValue(field, s)
		t[0] = entry(0, 0, base, extra)
		ts.n[field] = 1
		return 1, nil
	case 2:
		var norm [53]int16
		n, log, used, ok := readNCount(in, norm[:maxSym[field]+1], maxLog[field])
		if !ok {
			return 0, errTable
		}
		ts.n[field] = 1 << log
		if !buildTable(t[:1<<log], field, norm[:n], log) {
			ts.n[field] = 0
			return 0, errTable
		}
		return used, nil
	}
	if ts.n[field] == 0 {
		return 0, errRepeat
	}
	return 0, nil
}

// readNCount reads an FSE table description (RFC 8878 §4.1.1) into norm:
// it returns the symbols described, the accuracy log and the bytes used.
func readNCount(in []byte, norm []int16, maxLog uint) (n int, log uint, used int, ok bool) {
	if len(in) < 1 {
		return 0, 0, 0, false
	}
	peek := func(pos uint) uint32 {
		i := int(pos >> 3)
		var v uint32
		for k := 3; k >= 0; k-- {
			v <<= 8
			if i+k < len(in) {
				v |= uint32(in[i+k])
			}
		}
		return v >> (pos & 7)
	}
	log = uint(in[0]&15) + 5
	if log > maxLog {
		return 0, 0, 0, false
	}
	pos := uint(4)
	remaining := int32(1)<<log + 1
	threshold := int32(1) << log
	nbBits := log + 1
	prev0 := false
	for remaining > 1 {
		if prev0 {
			for {
				r := int(peek(pos) & 3)
				pos += 2
				if n+r > len(norm) {
					return 0, 0, 0, false
				}
				for i := 0; i < r; i++ {
					norm[n] = 0
					n++
				}
				if r != 3 {
					break
				}
			}
		}
		if n >= len(norm) || pos > uint(len(in))*8 {
			return 0, 0, 0, false
		}
		mx := 2*threshold - 1 - remaining
		v := int32(peek(pos))
		var count int32
		if v&(threshold-1) < mx {
			count = v & (threshold - 1)
			pos += nbBits - 1
		} else {
			count = v & (2*threshold - 1)
			if count >= threshold {
				count -= mx
			}
			pos += nbBits
		}
		count--
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		norm[n] = int16(count)
		n++
		prev0 = count == 0
		if remaining < 1 {
			return 0, 0, 0, false
		}
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	if remaining != 1 || pos > uint(len(in))*8 {
		return 0, 0, 0, false
	}
	return n, log, int(pos+7) >> 3, true
}

// buildTable fills dt (1<<log entries) from the normalized counts of
// field's symbols; it reports false when they do not fill the table.
func buildTable(dt []uint64, field int, norm []int16, log uint) bool {
	size := 1 << log
	high := size - 1
	var next [53]uint32
	var sym [1 << 9]uint8
	total := 0
	for s, c := range norm {
		if c == -1 {
			if high < 0 {
				return false
			}
			sym[high] = uint8(s)
			high--
			next[s] = 1
			total++
		} else {
			next[s] = uint32(c)
			total += int(c)
		}
	}
	if total != size {
		return false
	}
	step := size>>1 + size>>3 + 3
	mask := size - 1
	pos := 0
	for s, c := range norm {
		for i := 0; i < int(c); i++ {
			sym[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return false
	}
	for u := 0; u < size; u++ {
		s := int(sym[u])
		ns := next[s]
		next[s]++
		nb := log - uint(bits.Len32(ns)-1)
		base, extra := symbolValue(field, s)
		dt[u] = entry(nb, ns<<nb-uint32(size), base, extra)
	}
	return true
}
