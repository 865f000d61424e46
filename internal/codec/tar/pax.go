package tar

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/unpack-dev/unpack/internal/archive"
)

// Pax keys unpack acts on (POSIX.1-2001 and GNU's sparse extensions).
const (
	paxPath     = "path"
	paxLinkpath = "linkpath"
	paxSize     = "size"
	paxMtime    = "mtime"
	paxAtime    = "atime"
	paxComment  = "comment"

	sparseMajor     = "GNU.sparse.major"
	sparseMinor     = "GNU.sparse.minor"
	sparseName      = "GNU.sparse.name"
	sparseRealsize  = "GNU.sparse.realsize"
	sparseSize      = "GNU.sparse.size"
	sparseNumblocks = "GNU.sparse.numblocks"
	sparseMap       = "GNU.sparse.map"
	sparseOffset    = "GNU.sparse.offset"   // 0.0: repeated, one per region
	sparseNumbytes  = "GNU.sparse.numbytes" // 0.0: follows each offset
)

// paxRecords holds the records of the extended headers that apply to an
// entry: the per-file ones (type 'x') over the global ones (type 'g'). A
// per-file record with an empty value removes the key for its entry, so
// that the ustar field is used (POSIX).
type paxRecords struct {
	local  map[string]string
	global map[string]string
	// sparse00 lists the values of GNU sparse 0.0's repeated
	// GNU.sparse.offset and GNU.sparse.numbytes records in order.
	sparse00 []string
}

// get returns the value of key for the current entry, ok false when none.
func (p *paxRecords) get(key string) (string, bool) {
	if v, ok := p.local[key]; ok {
		return v, v != ""
	}
	v, ok := p.global[key]
	return v, ok
}

// reset forgets the per-file records once an entry has used them.
func (p *paxRecords) reset() {
	clear(p.local)
	p.sparse00 = p.sparse00[:0]
}

// parse reads the records of an extended header's data. A malformed record
// is ignored with a warning (GNU tar stops at it with an error): one whose
// length is sane is skipped alone; after a bad length nothing further can
// be framed, and the rest of the header is ignored.
func (p *paxRecords) parse(buf []byte, global bool, opt *archive.Options) {
	dst := &p.local
	if global {
		dst = &p.global
	}
	if *dst == nil {
		*dst = make(map[string]string)
	}
	for len(buf) > 0 {
		i := 0
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t') {
			i++
		}
		if i == len(buf) || buf[i] == 0 {
			return // padding
		}
		j := i
		for j < len(buf) && '0' <= buf[j] && buf[j] <= '9' {
			j++
		}
		n, err := strconv.ParseUint(string(buf[i:j]), 10, 63)
		if err != nil || n > uint64(len(buf)) || n <= uint64(j) {
			ignored(opt, "a record length is malformed; the rest of the header is ignored", buf)
			return
		}
		rec := buf[:n]
		buf = buf[n:]
		k := j
		for k < len(rec) && (rec[k] == ' ' || rec[k] == '\t') {
			k++
		}
		eq := bytes.IndexByte(rec[k:], '=')
		if k == j || eq < 0 || rec[len(rec)-1] != '\n' {
			ignored(opt, "a malformed record is ignored", rec)
			continue
		}
		key, val := string(rec[k:k+eq]), string(rec[k+eq+1:len(rec)-1])
		if !validPax(key, val) {
			ignored(opt, "a record with a malformed value is ignored", rec)
			continue
		}
		switch {
		case !global && (key == sparseOffset || key == sparseNumbytes):
			p.sparse00 = append(p.sparse00, key, val)
		case global && val == "":
			delete(*dst, key)
		default:
			(*dst)[key] = val
		}
	}
}

// ignored warns of a pax record ignored.
func ignored(opt *archive.Options, what string, rec []byte) {
	if len(rec) > 80 {
		rec = rec[:80]
	}
	opt.Tolerate(archive.WarnPaxRecordIgnored,
		fmt.Sprintf("tar: pax header: %s: %q", what, strings.TrimSuffix(string(rec), "\n")))
}

// validPax checks the value of a key whose syntax POSIX or GNU fixes; an
// empty value (a deletion) is always valid.
func validPax(key, val string) bool {
	if val == "" {
		return true
	}
	switch key {
	case paxMtime, paxAtime, "ctime":
		_, ok := parsePaxTime(val)
		return ok
	case paxSize, "uid", "gid", sparseRealsize, sparseSize, sparseNumblocks, sparseMajor, sparseMinor,
		sparseOffset, sparseNumbytes:
		_, ok := parseDecimal(val)
		return ok
	}
	return true
}

// parseDecimal parses an unsigned decimal number as GNU tar's decode_num
// does: digits only, no sign, within int64.
func parseDecimal(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || v > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// parsePaxTime parses a pax time, "[-]SECONDS[.FRACTION]": digits only in
// both parts, the fraction cut to nanoseconds; a negative time's fraction
// counts down too (-1.5 is a second and a half before the epoch).
func parsePaxTime(s string) (time.Time, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	secs, frac, _ := strings.Cut(s, ".")
	sec, ok := parseDecimal(secs)
	if !ok {
		return time.Time{}, false
	}
	var ns int64
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return time.Time{}, false
		}
		if i < 9 {
			ns = ns*10 + int64(c-'0')
		}
	}
	for i := len(frac); i < 9; i++ {
		ns *= 10
	}
	if neg {
		sec, ns = -sec, -ns
	}
	return time.Unix(sec, ns), true
}
