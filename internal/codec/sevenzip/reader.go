package sevenzip

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/verify"
)

// maxLinkSize bounds a symlink target read into memory.
const maxLinkSize = 64 << 10

// Reader reads the entries of a 7z archive. Sequential use (Next, Read)
// decodes each folder once, front to back.
type Reader struct {
	opt     *archive.Options
	closers []io.Closer
	limit   int64
	src     folderSource
	db      *database
	keys    keyCache

	headerEncrypted bool
	pwMu            sync.Mutex
	password        string // the password that opened an encrypted header
	havePW          bool

	entries []*archive.Entry
	fileOf  []int // entry index → file index

	// Sequential state.
	next    int            // index of the entry Next returns next
	cur     int            // current entry, -1 before the first
	fs      *folderStream  // the folder being decoded
	er      entryReader    // the current entry's data
	discard [32 << 10]byte // skipped bytes go here

	ra randomState // for RandomAccess

}

// folderStream is one decoding pass over a folder's unpacked stream.
type folderStream struct {
	env      *decodeEnv // owns the chain's buffers
	f        *folder
	idx      int
	r        io.Reader
	pos      uint64 // bytes delivered so far
	err      error  // sticky: the stream cannot continue
	enc      bool   // the folder is encrypted
	verified bool   // an entry's CRC has matched: the password is right
	hashAll  bool   // hash the whole stream for the folder CRC
	crc      uint32
}

// openFolderStream starts decoding folder idx. A failure is kept in the
// stream so that every entry of the folder reports it.
func (r *Reader) openFolderStream(idx int) *folderStream {
	f := &r.db.si.folders[idx]
	fs := &folderStream{f: f, idx: idx, enc: f.encrypted(), hashAll: f.crcDefined && f.numSub > 1}
	env := &decodeEnv{limit: r.limit, threads: r.threads(), keys: &r.keys}
	if fs.enc {
		pw, err := r.dataPassword(idx)
		if err != nil {
			fs.err = err
			return fs
		}
		env.password, env.havePW = pw, true
	}
	fs.env = env
	fs.r, fs.err = openFolder(f, &r.src, env)
	if fs.err != nil {
		fs.err = fs.classify(fs.err)
	}
	return fs
}

// threads is the goroutine budget a decoder may use.
func (r *Reader) threads() int {
	if r.opt == nil {
		return 0
	}
	return r.opt.Threads
}

// dataPassword is the password for encrypted data: the one that opened the
// header; else the only candidate; else the first candidate that decodes
// the start of folder idx and, when it is short enough, matches its CRC.
func (r *Reader) dataPassword(idx int) (string, error) {
	r.pwMu.Lock()
	defer r.pwMu.Unlock()
	if r.havePW {
		return r.password, nil
	}
	pws, err := r.opt.PasswordList()
	if err != nil {
		return "", archive.Errorf(archive.ErrNeedPassword, "7z: encrypted data needs a password")
	}
	r.password, r.havePW = pws[0], true
	if len(pws) > 1 {
		for _, pw := range pws {
			if r.tryPassword(idx, pw) {
				r.password = pw
				r.opt.Accepted(pw)
				break
			}
		}
	}
	return r.password, nil
}

// trialSize is how much of a folder's first entry tryPassword decodes.
const trialSize = 1 << 20

// tryPassword decodes the start of folder idx with pw: a decoding error or
// a CRC mismatch of a first entry shorter than trialSize rejects it.
func (r *Reader) tryPassword(idx int, pw string) bool {
	si := r.db.si
	f := &si.folders[idx]
	env := &decodeEnv{limit: r.limit, threads: r.threads(), password: pw, havePW: true, keys: &r.keys}
	fr, err := openFolder(f, &r.src, env)
	defer env.release()
	if err != nil {
		return false
	}
	if f.firstFile < 0 {
		_, err := io.CopyN(io.Discard, fr, int64(min(f.unpackSize(), trialSize)))
		return err == nil
	}
	fl := &r.db.files[f.firstFile]
	n := min(fl.size, trialSize)
	h := verify.NewCRC32()
	if _, err := io.CopyN(h, fr, int64(n)); err != nil {
		return false
	}
	return !fl.crcDefined || n < fl.size || h.Sum32() == fl.crc
}

// classify makes a decoding failure in encrypted data, before any CRC
// proved the password right, a password error.
func (fs *folderStream) classify(err error) error {
	err = corrupt(err)
	if fs.enc && !fs.verified && isDataError(err) {
		return &passwordError{err}
	}
	return err
}

func isDataError(err error) bool {
	return errors.Is(err, archive.ErrCorrupt) || errors.Is(err, verify.ErrChecksum)
}

func (fs *folderStream) read(p []byte) (int, error) {
	if fs.err != nil {
		return 0, fs.err
	}
	n, err := fs.r.Read(p)
	fs.pos += uint64(n)
	if fs.hashAll {
		fs.crc = verify.UpdateCRC32(fs.crc, p[:n])
	}
	if err == io.EOF && fs.pos < fs.f.unpackSize() {
		err = ErrTruncated
	}
	if err != nil && err != io.EOF {
		fs.err = fs.classify(err)
		return n, fs.err
	}
	return n, nil
}

// release frees the stream's buffers; it must not be read afterwards.
func (fs *folderStream) release() {
	if fs != nil && fs.env != nil {
		fs.env.release()
		fs.err = archive.Errorf(archive.ErrCorrupt, "7z: folder stream used after release")
	}
}

// skip decodes and drops n bytes.
func (fs *folderStream) skip(n uint64, buf []byte) error {
	for n > 0 && fs.err == nil {
		k, err := fs.read(buf[:min(uint64(len(buf)), n)])
		n -= uint64(k)
		if err != nil {
			return err
		}
		if k == 0 && n > 0 {
			fs.err = ErrTruncated
		}
	}
	return fs.err
}

// entryReader delivers one entry's bytes from a folder stream and checks
// its CRC at the end.
type entryReader struct {
	fs     *folderStream
	fl     *file
	names  func() []string // the folder's entries, for a folder CRC error
	remain uint64
	crc    uint32
	err    error
}

func (e *entryReader) reset(fs *folderStream, fl *file, names func() []string) {
	*e = entryReader{fs: fs, fl: fl, names: names, remain: fl.size}
}

func (e *entryReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.remain == 0 {
		e.err = e.finish()
		return 0, e.err
	}
	if uint64(len(p)) > e.remain {
		p = p[:e.remain]
	}
	n, err := e.fs.read(p)
	e.crc = verify.UpdateCRC32(e.crc, p[:n])
	e.remain -= uint64(n)
	if err != nil {
		e.err = err
		return n, err
	}
	if e.remain == 0 {
		e.err = e.finish()
		return n, e.err
	}
	return n, nil
}

// finish checks the entry's CRC and, at the folder's end, the folder's.
func (e *entryReader) finish() error {
	fs := e.fs
	if e.fl.crcDefined && e.crc != e.fl.crc {
		return fs.classify(mismatch(e.fl.crc, e.crc))
	}
	if e.fl.crcDefined {
		fs.verified = true
	}
	if fs.hashAll && fs.pos == fs.f.unpackSize() && fs.crc != fs.f.crc {
		return &FolderError{Folder: fs.idx, Entries: e.names(), Err: fs.classify(mismatch(fs.f.crc, fs.crc))}
	}
	return io.EOF
}

func mismatch(want, got uint32) error {
	be := func(v uint32) []byte { return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)} }
	return &verify.MismatchError{Kind: verify.CRC32, Want: be(want), Got: be(got)}
}

// folderNames lists the names of folder idx's entries.
func (r *Reader) folderNames(idx int) []string {
	var names []string
	for i, fi := range r.fileOf {
		if fl := &r.db.files[fi]; fl.hasStream && fl.folder == idx {
			names = append(names, r.entries[i].Name)
		}
	}
	return names
}

// Next returns the next entry. Data left unread in the previous entry is
// only decoded if a later entry of the same folder is read.
func (r *Reader) Next() (*archive.Entry, error) {
	if r.next >= len(r.entries) {
		return nil, io.EOF
	}
	r.cur = r.next
	r.next++
	e := r.entries[r.cur]
	fl := &r.db.files[r.fileOf[r.cur]]
	r.er = entryReader{fl: fl, err: io.EOF}
	if !fl.hasStream {
		return e, nil
	}
	idx := fl.folder
	broken := false
	if r.fs == nil || r.fs.idx != idx || r.fs.pos > fl.offset {
		r.fs.release()
		r.fs = r.openFolderStream(idx)
	} else {
		broken = r.fs.err != nil && r.fs.pos > 0
	}
	r.er.reset(r.fs, fl, func() []string { return r.folderNames(idx) })
	if broken {
		r.er.err = fmt.Errorf("7z: not decoded, the solid block failed before this entry: %w", r.fs.err)
		return e, nil
	}
	if e.Type == archive.TypeSymlink {
		err := io.EOF // the target is the data: nothing more to read
		if e.Linkname == "" {
			var target string
			if target, err = readLink(&r.er, r.discard[:]); err == nil {
				e.Linkname, err = target, io.EOF
			}
		}
		r.er.err = err
	}
	return e, nil
}

// readLink reads a symlink's target (its data) through er.
func readLink(er *entryReader, buf []byte) (string, error) {
	if er.fl.size > maxLinkSize {
		return "", archive.Corruptf("7z: symlink target of %d bytes", er.fl.size)
	}
	if err := er.position(buf); err != nil {
		return "", err
	}
	target := make([]byte, er.fl.size)
	if _, err := io.ReadFull(er, target); err != nil {
		return "", err
	}
	if _, err := er.Read(nil); err != io.EOF {
		return "", err
	}
	return string(target), nil
}

// position brings e's folder stream to the start of its entry (or to
// where its reading stopped), decoding into buf what lies before.
func (e *entryReader) position(buf []byte) error {
	fs := e.fs
	if fs.err != nil {
		return fs.err
	}
	if at := e.fl.offset + e.fl.size - e.remain; fs.pos < at {
		return fs.skip(at-fs.pos, buf)
	}
	return nil
}

// Read reads the current entry's data; at its end it returns the CRC
// mismatch, if any, instead of io.EOF.
func (r *Reader) Read(p []byte) (int, error) {
	if r.cur < 0 {
		return 0, io.EOF
	}
	er := &r.er
	if er.err == nil && er.fs != nil {
		if err := er.position(r.discard[:]); err != nil {
			er.err = err
		}
	}
	return er.Read(p)
}

// Close releases the volumes or the temporary copy of a piped archive.
func (r *Reader) Close() error {
	r.fs.release()
	r.fs = nil
	r.ra.mu.Lock()
	for k, fs := range r.ra.parked {
		fs.release()
		delete(r.ra.parked, k)
	}
	r.ra.mu.Unlock()
	closeAll(r.closers)
	r.closers = nil
	return nil
}
