package msi

import (
	"encoding/binary"
	"io"
	"sort"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/cfb"
)

// Column type bits, as the _Columns table stores them.
const (
	typeString    = 0x0800
	typeNullable  = 0x1000
	typeTemporary = 0x4000
	typeValid     = 0x0100
)

// maxTable bounds a table stream held in memory.
const maxTable = 256 << 20

// db is a Windows Installer database: its string pool and the column
// definitions of its tables.
type db struct {
	f       *cfb.File
	streams map[string]*cfb.Entry // top-level streams by unpacked name
	strs    []string              // string pool, from id 1
	refSize int                   // bytes of a string reference: 2 or 3
	columns map[string][]column
	limit   int64
}

type column struct {
	name string
	typ  uint16
}

// isBinary reports a stream (binary data) column, stored as 2 bytes.
func isBinary(t uint16) bool { return t&^typeNullable == typeString|typeValid }

// isString reports a column of string references.
func isString(t uint16) bool { return t&typeString != 0 && !isBinary(t) }

// width is how many bytes a column takes in each row.
func (d *db) width(t uint16) int {
	switch {
	case isBinary(t):
		return 2
	case isString(t):
		return d.refSize
	case t&0xff == 4:
		return 4
	}
	return 2
}

func (d *db) stream(name string) ([]byte, error) {
	e, ok := d.streams[name]
	if !ok {
		return nil, nil
	}
	if e.Size > maxTable || e.Size > d.limit {
		return nil, archive.Limitf("msi: stream %s of %d bytes", name, e.Size)
	}
	r, err := d.f.Open(e)
	if err != nil {
		return nil, err
	}
	b := make([]byte, e.Size)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// loadStrings reads the string pool (_StringPool: per string its length
// and reference count, a long string's length in the next entry) and
// the strings' bytes (_StringData).
func (d *db) loadStrings() error {
	pool, err := d.stream("!_StringPool")
	if err != nil {
		return err
	}
	data, err := d.stream("!_StringData")
	if err != nil {
		return err
	}
	if len(pool) < 4 {
		return archive.Corruptf("msi: no string pool")
	}
	// Each 4-byte entry becomes a string: bounded like the tables.
	if int64(len(pool))*8 > d.limit {
		return archive.Limitf("msi: a string pool of %d entries exceeds the memory limit", len(pool)/4)
	}
	d.refSize = 2
	if binary.LittleEndian.Uint32(pool)&0x80000000 != 0 {
		d.refSize = 3
	}
	d.strs = []string{""}
	off := 0
	for i := 4; i+4 <= len(pool); i += 4 {
		n := int(binary.LittleEndian.Uint16(pool[i:]))
		refs := binary.LittleEndian.Uint16(pool[i+2:])
		if n == 0 && refs != 0 && i+8 <= len(pool) {
			i += 4
			n = int(binary.LittleEndian.Uint32(pool[i:]))
		}
		if n < 0 || n > len(data)-off {
			return archive.Corruptf("msi: string pool longer than its data")
		}
		d.strs = append(d.strs, latin1(data[off:off+n]))
		off += n
	}
	return nil
}

// latin1 makes a string of the pool's bytes: UTF-8 as it is, other bytes
// (a single-byte code page) as Latin-1.
func latin1(b []byte) string {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return string(b)
	}
	if s := string(b); isUTF8(s) {
		return s
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// loadColumns reads _Columns (Table, Number, Name, Type).
func (d *db) loadColumns() error {
	b, err := d.stream("!_Columns")
	if err != nil {
		return err
	}
	rows, err := d.decode(b, []column{{"Table", typeString | 64}, {"Number", 2}, {"Name", typeString | 64}, {"Type", 2}})
	if err != nil {
		return err
	}
	type def struct {
		n int
		c column
	}
	defs := map[string][]def{}
	for _, r := range rows {
		t, _ := r[0].(string)
		n, _ := r[1].(int)
		name, _ := r[2].(string)
		typ, _ := r[3].(int)
		defs[t] = append(defs[t], def{n, column{name, uint16(typ)}})
	}
	d.columns = map[string][]column{}
	for t, ds := range defs {
		sort.Slice(ds, func(i, j int) bool { return ds[i].n < ds[j].n })
		for _, x := range ds {
			d.columns[t] = append(d.columns[t], x.c)
		}
	}
	return nil
}

// table returns the rows of a table by its column names; a table the
// database lacks has none.
func (d *db) table(name string) ([]map[string]any, error) {
	cols, ok := d.columns[name]
	if !ok {
		return nil, nil
	}
	b, err := d.stream("!" + name)
	if err != nil {
		return nil, err
	}
	rows, err := d.decode(b, cols)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		m := map[string]any{}
		for j, c := range cols {
			m[c.name] = r[j]
		}
		out[i] = m
	}
	return out, nil
}

// decode reads a table stream: column after column, each value a string
// (from the pool), an int, or nil for null.
func (d *db) decode(b []byte, cols []column) ([][]any, error) {
	var stored []int // indexes of the columns stored
	rowSize := 0
	for i, c := range cols {
		if c.typ&typeTemporary != 0 {
			continue
		}
		stored = append(stored, i)
		rowSize += d.width(c.typ)
	}
	if rowSize == 0 {
		return nil, nil
	}
	n := len(b) / rowSize
	// Each value takes an interface (16 bytes) where it took 2 to 4.
	if int64(n)*int64(len(cols)+2)*16 > d.limit {
		return nil, archive.Limitf("msi: a table of %d rows exceeds the memory limit", n)
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, len(cols))
	}
	off := 0
	for _, ci := range stored {
		c := cols[ci]
		w := d.width(c.typ)
		for r := 0; r < n; r++ {
			p := b[off+r*w:]
			var v uint32
			switch w {
			case 2:
				v = uint32(binary.LittleEndian.Uint16(p))
			case 3:
				v = uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
			case 4:
				v = binary.LittleEndian.Uint32(p)
			}
			switch {
			case v == 0:
			case isString(c.typ):
				if int64(v) >= int64(len(d.strs)) {
					return nil, archive.Corruptf("msi: string %d past the pool", v)
				}
				rows[r][ci] = d.strs[v]
			case w == 4:
				rows[r][ci] = int(int32(v ^ 0x80000000))
			default:
				rows[r][ci] = int(int16(uint16(v) ^ 0x8000))
			}
		}
		off += n * w
	}
	return rows, nil
}
