package formats

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/ar"
	"github.com/unpack-dev/unpack/internal/verify"
)

// A .deb is read here, on top of the ar reader, rather than in a codec of
// its own: its members are tars inside any of the stream formats, and this
// package is the one that knows them all (codecs never import it).
//
// The entries are what dpkg-deb -R makes: the data tree, and the control
// files under DEBIAN/. Each member's stream checks are verified to its
// end, and its entries are Pending until the checks covering them pass;
// when the control member has an md5sums file, each data file it lists
// carries that MD5, checked when the file's data ends.

const maxMD5Sums = 64 << 20 // a larger md5sums control file is refused

var (
	errDebVersion = archive.Unsupportedf("deb: format version is not 2.x")
	errDebMembers = archive.Corruptf("deb: no debian-binary, control or data member in order")
)

// debMembers maps a control or data member's suffix to its stream format
// ("" for a plain tar).
var debMembers = map[string]archive.Format{
	"": "", ".gz": archive.Gzip, ".xz": archive.XZ, ".zst": archive.Zstd,
	".bz2": archive.Bzip2, ".lzma": archive.LZMA,
}

type debReader struct {
	ar  *ar.Reader
	opt *archive.Options

	stage   int          // 0: control next, 1: data next, 2: data read
	tr      *tarInStream // the member's tar
	closer  io.Closer    // its decoder, when it has resources to release
	prefix  string       // "DEBIAN/" in the control member
	listing bool         // entries are only listed: none is held Pending
	done    []archive.Verdict

	md5s map[string][]byte // from DEBIAN/md5sums: data path -> MD5

	mem  *bytes.Reader // the current entry's data when held in memory
	hash hash.Hash     // MD5 of the current data entry, when listed
	want []byte
}

func openDeb(in *archive.Input, opt *archive.Options) (archive.Reader, error) {
	a, err := ar.NewReader(in.R)
	if err != nil {
		return nil, err
	}
	e, err := a.Next()
	if err != nil {
		return nil, err
	}
	if e.Name != "debian-binary" {
		return nil, errDebMembers
	}
	var v [16]byte
	n, _ := io.ReadFull(a, v[:])
	if !bytes.HasPrefix(v[:n], []byte("2.")) {
		return nil, errDebVersion
	}
	return &debReader{ar: a, opt: opt, listing: in.Listing}, nil
}

func (d *debReader) Close() error { return d.closeMember() }

func (d *debReader) closeMember() error {
	c := d.closer
	d.closer = nil
	if c != nil {
		return c.Close()
	}
	return nil
}

// Settled returns the verdicts on the pending entries of the members read.
func (d *debReader) Settled() []archive.Verdict {
	if d.tr != nil {
		d.done = append(d.done, d.tr.Settled()...)
	}
	v := d.done
	d.done = nil
	return v
}

// nextMember opens the control or data member's tar.
func (d *debReader) nextMember() error {
	for {
		e, err := d.ar.Next()
		if err == io.EOF {
			if d.stage < 2 {
				return errDebMembers
			}
			return io.EOF
		}
		if err != nil {
			return err
		}
		want := [...]string{"control.tar", "data.tar"}[min(d.stage, 1)]
		if d.stage == 2 || !strings.HasPrefix(e.Name, want) {
			if strings.HasPrefix(e.Name, "_") || d.stage == 2 {
				continue // signatures and other additions, as dpkg skips them
			}
			return errDebMembers
		}
		f, ok := debMembers[e.Name[len(want):]]
		if !ok {
			return archive.Unsupportedf("deb: member %s is compressed in a way dpkg does not know", e.Name)
		}
		// As for a single stream: the decoder's errors are classified,
		// a failed read of the input staying an I/O error.
		src := &source{r: d.ar}
		var r, cov io.Reader = bufio.NewReaderSize(src, 64<<10), nil
		if f != "" {
			dec, err := streams[f](r, d.opt)
			if err != nil {
				return archive.Decoded(string(f), err)
			}
			d.closer, _ = dec.(io.Closer)
			r = &archive.Decoding{R: dec, Format: string(f), Ended: trailing(dec, string(f), d.opt)}
			if !d.listing {
				cov = dec
			}
		}
		d.tr = newTarStream(bufio.NewReaderSize(r, 64<<10), cov, d.opt)
		d.prefix = ""
		if d.stage == 0 {
			d.prefix = "DEBIAN/"
		}
		d.stage++
		return nil
	}
}

func (d *debReader) Next() (*archive.Entry, error) {
	d.mem, d.hash, d.want = nil, nil, nil
	for {
		if d.tr == nil {
			if err := d.nextMember(); err != nil {
				return nil, err
			}
		}
		e, err := d.tr.Next()
		if err == io.EOF {
			// The member's stream was read to its end, its entries settled.
			d.done = append(d.done, d.tr.Settled()...)
			if err := d.closeMember(); err != nil {
				return nil, err
			}
			d.tr = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		clean := strings.TrimPrefix(path.Clean("/"+e.Name), "/")
		if d.prefix != "" {
			e.Name = strings.TrimSuffix(d.prefix, "/")
			if clean != "" {
				e.Name = d.prefix + clean
			}
			if e.Type == archive.TypeHardlink {
				e.Linkname = d.prefix + strings.TrimPrefix(path.Clean("/"+e.Linkname), "/")
			}
			if clean == "md5sums" && e.Type == archive.TypeFile {
				if err := d.readMD5Sums(e); err != nil {
					return nil, err
				}
			}
			return e, nil
		}
		if want, ok := d.md5s[clean]; ok && e.Type == archive.TypeFile {
			e.Checksum, e.ChecksumValue = verify.MD5, want
			d.hash, d.want = verify.New(verify.MD5), want
		}
		return e, nil
	}
}

// readMD5Sums reads the md5sums control file into memory (it is served
// from there) and parses its "MD5  path" lines; lines it cannot parse are
// ignored, as dpkg --verify does.
func (d *debReader) readMD5Sums(e *archive.Entry) error {
	if e.Size > maxMD5Sums {
		return archive.Limitf("deb: md5sums of %d bytes", e.Size)
	}
	b, err := io.ReadAll(io.LimitReader(d.tr, maxMD5Sums+1))
	if err != nil {
		return err
	}
	d.mem = bytes.NewReader(b)
	d.md5s = map[string][]byte{}
	for _, line := range strings.Split(string(b), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 32 {
			continue
		}
		v, err := hex.DecodeString(sum)
		if err != nil {
			continue
		}
		d.md5s[strings.TrimPrefix(path.Clean("/"+name), "/")] = v
	}
	return nil
}

func (d *debReader) Read(p []byte) (int, error) {
	if d.mem != nil {
		return d.mem.Read(p)
	}
	if d.tr == nil {
		return 0, io.EOF
	}
	n, err := d.tr.Read(p)
	if d.hash != nil {
		d.hash.Write(p[:n])
		if err == io.EOF {
			h := d.hash
			d.hash = nil
			if cerr := verify.Check(verify.MD5, h, d.want); cerr != nil {
				return n, fmt.Errorf("md5sums: %w", cerr)
			}
		}
	}
	return n, err
}
