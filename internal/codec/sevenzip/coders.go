package sevenzip

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/unpack-dev/unpack/internal/archive"
	"github.com/unpack-dev/unpack/internal/codec/bzip2"
	"github.com/unpack-dev/unpack/internal/codec/inflate"
	"github.com/unpack-dev/unpack/internal/codec/lz4"
	"github.com/unpack-dev/unpack/internal/codec/zstdframe"
	"github.com/unpack-dev/unpack/internal/verify"
)

// Method IDs as 7-Zip stores them (big-endian bytes read as a number).
const (
	mCopy      = 0x00
	mDelta     = 0x03
	mX86       = 0x03030103
	mBCJ2      = 0x0303011B
	mPPC       = 0x03030205
	mIA64      = 0x03030401
	mARM       = 0x03030501
	mARMT      = 0x03030701
	mSPARC     = 0x03030805
	mARM64     = 0x0A
	mRISCV     = 0x0B
	mLZMA      = 0x030101
	mLZMA2     = 0x21
	mPPMD      = 0x030401
	mDeflate   = 0x040108
	mDeflate64 = 0x040109
	mBZip2     = 0x040202
	mZstd      = 0x04F71101
	mBrotli    = 0x04F71102
	mLZ4       = 0x04F71104
	mAES       = 0x06F10701
)

var methodNames = map[uint64]string{
	mCopy: "Copy", mDelta: "Delta", mX86: "BCJ", mBCJ2: "BCJ2", mPPC: "PPC",
	mIA64: "IA64", mARM: "ARM", mARMT: "ARMT", mSPARC: "SPARC", mARM64: "ARM64",
	mRISCV: "RISCV", mLZMA: "LZMA", mLZMA2: "LZMA2", mPPMD: "PPMD",
	mDeflate: "Deflate", mDeflate64: "Deflate64", mBZip2: "BZip2", mZstd: "ZSTD",
	mBrotli: "Brotli", mLZ4: "LZ4", mAES: "7zAES",
}

// methodName names a coder as 7-Zip lists it ("LZMA2:24", "BCJ").
func methodName(c *coder) string {
	name, ok := methodNames[c.id]
	if !ok {
		return fmt.Sprintf("%X", c.id)
	}
	switch c.id {
	case mLZMA:
		if len(c.props) == 5 {
			return name + ":" + dictName(binary.LittleEndian.Uint32(c.props[1:]))
		}
	case mLZMA2:
		if len(c.props) == 1 && c.props[0] <= 40 {
			return name + ":" + dictName(uint32(lzma2Dict(c.props[0])))
		}
	case mDelta:
		if len(c.props) == 1 {
			return name + ":" + strconv.Itoa(int(c.props[0])+1)
		}
	}
	return name
}

func dictName(d uint32) string {
	if d&(d-1) == 0 && d != 0 {
		return strconv.Itoa(bits.TrailingZeros32(d))
	}
	if d%(1<<20) == 0 {
		return strconv.Itoa(int(d>>20)) + "m"
	}
	if d%(1<<10) == 0 {
		return strconv.Itoa(int(d>>10)) + "k"
	}
	return strconv.Itoa(int(d)) + "b"
}

// folderMethod names a folder's coders, first (outermost) first.
func folderMethod(f *folder) string {
	var b strings.Builder
	for i := range f.coders {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(methodName(&f.coders[i]))
	}
	return b.String()
}

// encrypted reports whether any coder of f is AES.
func (f *folder) encrypted() bool {
	for i := range f.coders {
		if f.coders[i].id == mAES {
			return true
		}
	}
	return false
}

// lzma2Dict is the dictionary size an LZMA2 property byte declares.
func lzma2Dict(p byte) int64 {
	if p == 40 {
		return 1<<32 - 1
	}
	return int64(2|p&1) << (p/2 + 11)
}

var (
	bufPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	// Inflaters for deflate and Deflate64.
	inflaterPools = [2]sync.Pool{
		{New: func() any { return inflate.NewInflater(nil, false) }},
		{New: func() any { return inflate.NewInflater(nil, true) }},
	}
)

// decodeEnv is what constructing a coder needs beyond its inputs, and what
// a folder's reader chain holds: pooled buffers and decoders to close.
type decodeEnv struct {
	limit    int64 // memory bound for dictionaries and windows
	threads  int   // for decoders that use several goroutines (0: GOMAXPROCS)
	password string
	havePW   bool
	keys     *keyCache

	bufs    []*bufio.Reader
	closers []io.Closer
	pooled  []func() // return decoders to their pools
}

// byteReader upgrades r to an io.ByteReader with a pooled buffer, once.
func (env *decodeEnv) byteReader(r io.Reader) byteReadReader {
	if br, ok := r.(byteReadReader); ok {
		return br
	}
	b := bufPool.Get().(*bufio.Reader)
	b.Reset(r)
	env.bufs = append(env.bufs, b)
	return b
}

// release closes the chain's decoders and returns its buffers to the pool;
// the chain must not be read afterwards.
func (env *decodeEnv) release() {
	for _, c := range env.closers {
		c.Close()
	}
	for _, b := range env.bufs {
		b.Reset(nil)
		bufPool.Put(b)
	}
	for _, put := range env.pooled {
		put()
	}
	env.bufs, env.closers, env.pooled = nil, nil, nil
}

// newCoder returns a reader of coder c's output given readers of its inputs
// and the declared output size.
func newCoder(c *coder, in []io.Reader, size uint64, env *decodeEnv) (io.Reader, error) {
	if c.numOut != 1 || (c.id != mBCJ2 && c.numIn != 1) || (c.id == mBCJ2 && c.numIn != 4) {
		return nil, archive.Unsupportedf("7z: method %s with %d inputs and %d outputs", methodName(c), c.numIn, c.numOut)
	}
	switch c.id {
	case mCopy:
		return in[0], nil
	case mLZMA:
		return newLZMA(c.props, env.byteReader(in[0]), size, env)
	case mLZMA2:
		return newLZMA2(c.props, env.byteReader(in[0]), size, env)
	case mBCJ2:
		return newBCJ2(in, size)
	case mAES:
		if !env.havePW {
			return nil, archive.Errorf(archive.ErrNeedPassword, "7z: encrypted data needs a password")
		}
		return newAESReader(c.props, in[0], env.password, env.keys)
	case mDeflate, mDeflate64:
		// The packed stream bounds the input: the inflater may read ahead.
		pool := &inflaterPools[0]
		if c.id == mDeflate64 {
			pool = &inflaterPools[1]
		}
		d := pool.Get().(*inflate.Inflater)
		d.Reset(in[0])
		env.pooled = append(env.pooled, func() { pool.Put(d) })
		return d, nil
	case mBZip2:
		d, err := bzip2.NewReader(in[0], bzip2.Config{Threads: env.threads, MemLimit: env.limit})
		if err != nil {
			return nil, corrupt(err)
		}
		env.closers = append(env.closers, d)
		return d, nil
	case mZstd:
		d, err := zstdframe.NewReader(in[0], zstdframe.Config{MaxWindow: uint64(min(env.limit, 1<<31))})
		if err != nil {
			return nil, corrupt(err)
		}
		env.closers = append(env.closers, d)
		return d, nil
	case mLZ4:
		d, err := lz4.NewReader(in[0], lz4.Config{MemLimit: env.limit})
		if err != nil {
			return nil, corrupt(err)
		}
		env.closers = append(env.closers, d)
		return d, nil
	case mBrotli:
		return newBrotli(env.byteReader(in[0]), env.limit), nil
	case mDelta, mX86, mPPC, mIA64, mARM, mARMT, mSPARC, mARM64, mRISCV:
		return newFilter(c, in[0], env)
	case mPPMD:
		return newPPMd(c.props, env.byteReader(in[0]), size, env)
	}
	return nil, &archive.MethodError{Format: "7z", Method: fmt.Sprintf("%X", c.id)}
}

// sizedReader delivers exactly n bytes of r: io.EOF after n, ErrTruncated
// when r ends before.
type sizedReader struct {
	r io.Reader
	n uint64
}

func (s *sizedReader) Read(p []byte) (int, error) {
	if s.n == 0 {
		return 0, io.EOF
	}
	if uint64(len(p)) > s.n {
		p = p[:s.n]
	}
	n, err := s.r.Read(p)
	s.n -= uint64(n)
	if err == io.EOF {
		if s.n > 0 {
			return n, ErrTruncated
		}
		return n, nil
	}
	if err != nil {
		err = corrupt(err)
	}
	return n, err
}

// folderSource is where a folder's pack streams come from.
type folderSource struct {
	ra       io.ReaderAt
	base     int64    // file offset where pack positions start (after the signature header)
	packSize []uint64 // sizes of all pack streams of the archive

	packCRC        []uint32 // their CRCs, where the header gives them
	packCRCDefined []bool
}

// openFolder builds the reader chain of folder f and returns its final
// output, limited to the folder's unpack size.
func openFolder(f *folder, src *folderSource, env *decodeEnv) (io.Reader, error) {
	packOff := make([]int64, len(f.packed))
	off := src.base + f.packStart
	for i := range f.packed {
		packOff[i] = off
		off += int64(src.packSize[f.firstPack+i])
	}
	var build func(out int) (io.Reader, error)
	build = func(out int) (io.Reader, error) {
		ci := f.coderOfOut(out)
		c := &f.coders[ci]
		first := f.firstIn(ci)
		ins := make([]io.Reader, c.numIn)
		for k := range ins {
			in := first + k
			if j := f.bindOfIn(in); j >= 0 {
				r, err := build(f.bindPairs[j].out)
				if err != nil {
					return nil, err
				}
				ins[k] = r
				continue
			}
			p := f.packOfIn(in)
			k2 := f.firstPack + p
			size := src.packSize[k2]
			var pr io.Reader = &sizedReader{r: io.NewSectionReader(src.ra, packOff[p], int64(size)), n: size}
			if k2 < len(src.packCRCDefined) && src.packCRCDefined[k2] {
				pr = &crcReader{r: pr, left: size, want: src.packCRC[k2]}
			}
			ins[k] = pr
		}
		r, err := newCoder(c, ins, f.unpackSizes[out], env)
		if err != nil {
			return nil, err
		}
		return &sizedReader{r: r, n: f.unpackSizes[out]}, nil
	}
	return build(f.mainOut)
}

// crcReader checks a pack stream's CRC when its last byte has been read.
type crcReader struct {
	r    io.Reader
	left uint64
	crc  uint32
	want uint32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc = verify.UpdateCRC32(c.crc, p[:n])
	c.left -= uint64(n)
	if c.left == 0 && n > 0 && c.crc != c.want {
		return n, fmt.Errorf("7z: pack stream: %w", mismatch(c.want, c.crc))
	}
	return n, err
}
