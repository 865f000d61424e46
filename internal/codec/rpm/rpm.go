// Package rpm reads the lead and the two headers of an RPM package, checks
// the digests they carry, and gives the payload: a compressed cpio archive
// whose digests are checked when it has been read to its end.
//
// Checked: the SHA-256 and SHA-1 of the main header (signature tags 273 and
// 269) before any entry is given; the payload digest (tag 5092, by its
// algorithm 5093), the MD5 of header and payload (signature tag 1004) and
// their size (tag 1000) at the payload's end. GPG and PGP signatures are
// not checked (reported by Signed).
package rpm

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

const leadSize = 96

var (
	leadMagic   = []byte{0xED, 0xAB, 0xEE, 0xDB}
	headerMagic = []byte{0x8E, 0xAD, 0xE8, 0x01}
)

// Which digest failed: a mismatch wraps one of these with its
// *verify.MismatchError.
var (
	errHeaderDigest  = errors.New("rpm: header digest")
	errPayloadDigest = errors.New("rpm: payload digest")
)

// Header and signature tags used here.
const (
	sigSize          = 1000
	sigMD5           = 1004
	sigPGP           = 1002
	sigGPG           = 1005
	sigDSA           = 267
	sigRSA           = 268
	sigSHA1          = 269
	sigSHA256        = 273
	tagPayloadFormat = 1124
	tagCompressor    = 1125
	tagPayloadDigest = 5092
	tagDigestAlgo    = 5093
)

// Index entry types.
const (
	typeInt32       = 4
	typeString      = 6
	typeBin         = 7
	typeStringArray = 8
)

// maxHeader bounds a header's index entries and data store, as rpm does.
const (
	maxIndex = 0x10000
	maxData  = 256 << 20
)

// Package is an opened RPM: what its headers say about the payload, and
// the payload itself.
type Package struct {
	// Compressor names the payload's compression as the formats package
	// names stream formats ("gzip", "bzip2", "xz", "lzma", "zstd"), or ""
	// for an uncompressed payload.
	Compressor string
	// Format is the payload's archive format ("cpio").
	Format string
	// Signed reports a GPG or PGP signature, which is not checked.
	Signed bool
	// Digested reports a digest of the payload (the payload digest or the
	// legacy MD5 of header and payload), checked when Payload ends.
	Digested bool
	// Payload reads the compressed payload and checks its digests at its
	// end (a *verify.MismatchError, or archive.ErrCorrupt for its size).
	// Closing it (it is an io.ReadCloser) stops the hashing of a payload
	// not read to its end.
	Payload io.ReadCloser
}

// header is one parsed header structure.
type header struct {
	raw     []byte // from the magic to the end of the data store
	entries map[uint32]indexEntry
	data    []byte
}

type indexEntry struct {
	typ, offset, count uint32
}

// Open reads the lead, the signature header and the main header from r,
// checks the header digests, and returns the package with its payload
// still to read from r.
func Open(r io.Reader, limit int64) (*Package, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	r = br
	var lead [leadSize]byte
	if _, err := io.ReadFull(r, lead[:]); err != nil {
		return nil, truncated(err)
	}
	if !bytes.Equal(lead[:4], leadMagic) {
		return nil, archive.Corruptf("rpm: no lead")
	}
	sig, err := readHeader(r, limit)
	if err != nil {
		return nil, fmt.Errorf("rpm: signature header: %w", err)
	}
	// The signature header is padded to a multiple of 8 bytes.
	if pad := (8 - len(sig.raw)%8) % 8; pad > 0 {
		if _, err := io.ReadFull(r, make([]byte, pad)); err != nil {
			return nil, truncated(err)
		}
	}
	main, err := readHeader(r, limit)
	if err != nil {
		return nil, fmt.Errorf("rpm: header: %w", err)
	}
	for _, d := range []struct {
		tag  uint32
		kind verify.Kind
	}{{sigSHA256, verify.SHA256}, {sigSHA1, verify.SHA1}} {
		want, ok := sig.string(d.tag)
		if !ok {
			continue
		}
		if err := check(d.kind, want, main.raw); err != nil {
			return nil, fmt.Errorf("%w: %w", errHeaderDigest, err)
		}
	}
	p := &Package{Format: "cpio", Compressor: "gzip"}
	if f, ok := main.string(tagPayloadFormat); ok {
		p.Format = f
	}
	c, ok := main.string(tagCompressor)
	if !ok {
		// Without the tag rpm reads the payload through zlib's gzread,
		// which passes data that is not gzip through unchanged: an
		// uncompressed payload is read as it is.
		if head, _ := br.Peek(2); !bytes.Equal(head, []byte{0x1f, 0x8b}) {
			p.Compressor = ""
		}
	} else {
		switch c {
		case "gzip", "bzip2", "xz", "lzma", "zstd":
			p.Compressor = c
		case "identity", "none":
			p.Compressor = ""
		default:
			return nil, archive.Unsupportedf("rpm: payload compressor %q", c)
		}
	}
	if p.Format != "cpio" {
		return nil, archive.Unsupportedf("rpm: payload format %q", p.Format)
	}
	for _, t := range []uint32{sigPGP, sigGPG, sigDSA, sigRSA} {
		if _, ok := sig.entries[t]; ok {
			p.Signed = true
		}
	}
	pr := &payload{r: r}
	if want, ok := main.string(tagPayloadDigest); ok {
		algo := uint32(8) // SHA-256, rpm's default
		if a, ok := main.int32(tagDigestAlgo); ok {
			algo = a
		}
		kind, ok := digestKinds[algo]
		if !ok {
			return nil, archive.Unsupportedf("rpm: payload digest algorithm %d", algo)
		}
		pr.digest, pr.digestKind, pr.digestWant = verify.New(kind), kind, want
	}
	if want, ok := sig.bin(sigMD5); ok && len(want) == 16 {
		pr.md5, pr.md5Want = verify.New(verify.MD5), want
		pr.md5.Write(main.raw)
	}
	if n, ok := sig.int32(sigSize); ok {
		pr.size = int64(n) - int64(len(main.raw))
		if pr.size < 0 {
			return nil, archive.Corruptf("rpm: size %d smaller than the header", n)
		}
	} else {
		pr.size = -1
	}
	p.Payload = pr
	p.Digested = pr.digest != nil || pr.md5 != nil
	return p, nil
}

// digestKinds maps rpm's PGP hash algorithm numbers to checksum kinds.
var digestKinds = map[uint32]verify.Kind{1: verify.MD5, 2: verify.SHA1, 8: verify.SHA256}

// check compares the hex digest want with that of data.
func check(kind verify.Kind, want string, data []byte) error {
	h := verify.New(kind)
	h.Write(data)
	return compare(kind, want, h.Sum(nil))
}

func compare(kind verify.Kind, want string, got []byte) error {
	w, err := hex.DecodeString(want)
	if err != nil || len(w) != len(got) {
		return archive.Corruptf("%s digest %q is not one", kind, want)
	}
	if !bytes.Equal(w, got) {
		return &verify.MismatchError{Kind: kind, Want: w, Got: got}
	}
	return nil
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return archive.Corruptf("rpm: package cut short")
	}
	return err
}

// readHeader reads one header structure.
func readHeader(r io.Reader, limit int64) (*header, error) {
	var pre [16]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, truncated(err)
	}
	if !bytes.Equal(pre[:4], headerMagic) {
		return nil, archive.Corruptf("no header magic")
	}
	n, size := binary.BigEndian.Uint32(pre[8:]), binary.BigEndian.Uint32(pre[12:])
	if n > maxIndex || size > maxData || int64(n)*16+int64(size) > limit {
		return nil, archive.Limitf("%d index entries and %d bytes of data", n, size)
	}
	raw := make([]byte, 16+int(n)*16+int(size))
	copy(raw, pre[:])
	if _, err := io.ReadFull(r, raw[16:]); err != nil {
		return nil, truncated(err)
	}
	h := &header{raw: raw, entries: make(map[uint32]indexEntry, n), data: raw[16+int(n)*16:]}
	for i := 0; i < int(n); i++ {
		e := raw[16+16*i:]
		tag := binary.BigEndian.Uint32(e)
		ie := indexEntry{typ: binary.BigEndian.Uint32(e[4:]), offset: binary.BigEndian.Uint32(e[8:]), count: binary.BigEndian.Uint32(e[12:])}
		if ie.offset > size {
			return nil, archive.Corruptf("tag %d points past the data", tag)
		}
		h.entries[tag] = ie
	}
	return h, nil
}

// string returns a string tag's value (the first of a string array).
func (h *header) string(tag uint32) (string, bool) {
	e, ok := h.entries[tag]
	if !ok || e.typ != typeString && e.typ != typeStringArray || e.count == 0 {
		return "", false
	}
	s := h.data[e.offset:]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return string(s[:i]), true
	}
	return "", false
}

// int32 returns the first value of an INT32 tag.
func (h *header) int32(tag uint32) (uint32, bool) {
	e, ok := h.entries[tag]
	if !ok || e.typ != typeInt32 || e.count == 0 || int(e.offset)+4 > len(h.data) {
		return 0, false
	}
	return binary.BigEndian.Uint32(h.data[e.offset:]), true
}

// bin returns a BIN tag's bytes.
func (h *header) bin(tag uint32) ([]byte, bool) {
	e, ok := h.entries[tag]
	if !ok || e.typ != typeBin || uint64(e.offset)+uint64(e.count) > uint64(len(h.data)) {
		return nil, false
	}
	return h.data[e.offset : e.offset+e.count], true
}

// payload reads the compressed payload, hashing it, and checks the
// digests at its end.
type payload struct {
	r          io.Reader
	read       int64
	size       int64 // expected payload size, -1 when not given
	digest     hash.Hash
	digestKind verify.Kind
	digestWant string
	md5        hash.Hash
	md5Want    []byte
	err        error

	// The digests are computed on another goroutine (hasher) over copies
	// of what Read returned, gathered in chunks of hashChunk bytes: full
	// takes them to it in order, free brings them back. Up to hashDepth
	// chunks wait in full, so that the decoding reading the payload does
	// not wait for the hashing of each chunk. hashed is closed once the
	// hasher has seen every chunk and full was closed.
	cur    []byte
	full   chan []byte
	free   chan []byte
	hashed chan struct{}
}

// The payload hashing's chunks: hashDepth+2 of hashChunk bytes in all (the
// one filling, the one hashed, those waiting).
const (
	hashChunk = 128 << 10
	hashDepth = 4
)

func (p *payload) Read(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.r.Read(b)
	p.read += int64(n)
	if n > 0 && (p.digest != nil || p.md5 != nil) {
		p.hash(b[:n])
	}
	if err == io.EOF {
		if cerr := p.finish(); cerr != nil {
			p.err = cerr
			return n, cerr
		}
		p.err = io.EOF
	}
	return n, err
}

// hash copies b into the chunk being filled, handing each full chunk to
// the hasher (started on the first call).
func (p *payload) hash(b []byte) {
	if p.full == nil {
		p.full = make(chan []byte, hashDepth)
		p.free = make(chan []byte, hashDepth+2)
		p.hashed = make(chan struct{})
		for range hashDepth + 1 {
			p.free <- make([]byte, 0, hashChunk)
		}
		p.cur = make([]byte, 0, hashChunk)
		go p.hasher(p.full, p.free, p.hashed)
	}
	for len(b) > 0 {
		n := min(len(b), cap(p.cur)-len(p.cur))
		p.cur = append(p.cur, b[:n]...)
		b = b[n:]
		if len(p.cur) == cap(p.cur) {
			p.full <- p.cur
			p.cur = (<-p.free)[:0]
		}
	}
}

// hasher adds the chunks of full to the digests, in order, until full is
// closed.
func (p *payload) hasher(full <-chan []byte, free chan<- []byte, hashed chan<- struct{}) {
	for c := range full {
		if p.digest != nil {
			p.digest.Write(c)
		}
		if p.md5 != nil {
			p.md5.Write(c)
		}
		free <- c
	}
	close(hashed)
}

// wait hands the hasher the last chunk, stops it and returns once it has
// hashed everything.
func (p *payload) wait() {
	if p.full == nil {
		return
	}
	if len(p.cur) > 0 {
		p.full <- p.cur
	}
	close(p.full)
	<-p.hashed
	p.full, p.free, p.cur = nil, nil, nil
}

// Close stops the hashing of a payload not read to its end.
func (p *payload) Close() error {
	if p.full != nil {
		close(p.full)
		<-p.hashed
		p.full, p.free, p.cur = nil, nil, nil
	}
	return nil
}

// finish checks the size and digests once the payload has ended.
func (p *payload) finish() error {
	p.wait()
	if p.size >= 0 && p.read != p.size {
		return archive.Corruptf("rpm: payload of %d bytes, the signature says %d", p.read, p.size)
	}
	if p.digest != nil {
		if err := compare(p.digestKind, p.digestWant, p.digest.Sum(nil)); err != nil {
			return fmt.Errorf("%w: %w", errPayloadDigest, err)
		}
	}
	if p.md5 != nil {
		if got := p.md5.Sum(nil); !bytes.Equal(got, p.md5Want) {
			return fmt.Errorf("rpm: header and payload MD5: %w", &verify.MismatchError{Kind: verify.MD5, Want: p.md5Want, Got: got})
		}
	}
	return nil
}
