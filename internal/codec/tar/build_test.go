package tar

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Byte-built archives, for what no tool here writes: damaged fields, odd
// but valid encodings, hostile sparse maps.

// hdr is a header block under construction.
type hdr struct{ b block }

// ustarHdr returns a POSIX ustar header: mode 0644, mtime 1e9.
func ustarHdr(name string, typ byte, size int64) *hdr {
	h := &hdr{}
	copy(h.b[offName:offName+100], name)
	h.b[offType] = typ
	h.octal(offMode, 8, 0o644)
	h.octal(offSize, 12, size)
	h.octal(offMtime, 12, 1e9)
	copy(h.b[offMagic:], "ustar\x0000")
	return h
}

// gnuHdr returns a GNU format header.
func gnuHdr(name string, typ byte, size int64) *hdr {
	h := ustarHdr(name, typ, size)
	copy(h.b[offMagic:], "ustar  \x00")
	return h
}

func (h *hdr) octal(off, n int, v int64) *hdr {
	copy(h.b[off:off+n], fmt.Sprintf("%0*o\x00", n-1, v))
	return h
}

func (h *hdr) set(off int, s string) *hdr {
	copy(h.b[off:], s)
	return h
}

// bytes returns the block with its checksum (unsigned) filled in.
func (h *hdr) bytes() []byte {
	b := h.b
	copy(b[offChksum:offChksum+8], "        ")
	var sum int64
	for _, c := range b {
		sum += int64(c)
	}
	copy(b[offChksum:offChksum+8], fmt.Sprintf("%06o\x00 ", sum))
	return b[:]
}

// padded returns data padded to whole blocks.
func padded(data []byte) []byte {
	return append(append([]byte(nil), data...), make([]byte, -len(data)&(blockSize-1))...)
}

// paxData returns the records "k=v" as pax extended header data.
func paxData(kv ...string) []byte {
	var b bytes.Buffer
	for _, r := range kv {
		k, v, _ := strings.Cut(r, "=")
		b.WriteString(paxRecord(k, v))
	}
	return b.Bytes()
}

// paxRecord returns one record, its length counting its own digits.
func paxRecord(k, v string) string {
	rec := " " + k + "=" + v + "\n"
	n := len(rec) + 1
	for n != len(rec)+len(strconv.Itoa(n)) {
		n = len(rec) + len(strconv.Itoa(n))
	}
	return strconv.Itoa(n) + rec
}

// tarOf concatenates headers and data, adding the two zero blocks.
func tarOf(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, padded(p)...)
	}
	return append(b, make([]byte, 2*blockSize)...)
}

// entry is what a test reads of one entry.
type entry struct {
	*archive.Entry
	data []byte
	err  error
}

// readAll reads every entry of data, with Read; the warnings by kind.
func readAll(t *testing.T, data []byte) ([]entry, map[archive.WarnKind][]string, error) {
	return readWith(t, data, &archive.Options{})
}

// readWith is readAll with options (their Warning is replaced).
func readWith(t *testing.T, data []byte, opt *archive.Options) ([]entry, map[archive.WarnKind][]string, error) {
	t.Helper()
	warns := map[archive.WarnKind][]string{}
	opt.Warning = func(k archive.WarnKind, m string) { warns[k] = append(warns[k], m) }
	r := NewReader(bytes.NewReader(data), opt)
	var out []entry
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, warns, nil
		}
		if err != nil {
			return out, warns, err
		}
		body, err := io.ReadAll(r)
		out = append(out, entry{e, body, err})
	}
}
