package bzip2

import "github.com/unpack-dev/unpack/internal/verify"

// outCap is how much RLE1 output a block keeps expanded. A block whose
// output is larger (long runs: up to 46 MB from 900 kB) is kept in its
// compact BWT form and expanded again as it is read, so memory per block
// stays bounded.
const outCap = 2 << 20

// A job is one block: its compressed window, and once decoded, its output.
// Jobs are owned by the Reader and reused; a worker owns a job between
// receiving it and signalling done.
type job struct {
	// The window: in holds the input from the byte containing the block
	// magic's first bit (shift bits into in[0]) to at least limitBits bits
	// after it.
	in        []byte
	shift     uint
	limitBits int64
	start     int64 // absolute bit position of the block magic
	final     bool  // the window cannot grow: running past it is an error
	atEOF     bool  // the window ends at the end of the input
	maxBlock  int   // the stream's block size limit when dispatched

	// Results.
	err        error
	needMore   bool   // ran past a window that was not final
	tooBig     bool   // exceeded maxBlock (wrong guess if the stream changed)
	end        int64  // absolute bit position after the block
	storedCRC  uint32 // the block's CRC as stored
	origPtr    int    // the BWT row of the original string
	randomised bool   // the block was randomised (bzip2 0.9.0)
	crc        uint32 // as computed
	pre        []byte // BWT output, before RLE1
	out        []byte // RLE1 output when expanded
	expanded   bool   // out holds the whole output; otherwise rle expands pre
	off        int    // read position in out
	rle        rle1

	done chan struct{} // a worker signals a finished decode
}

func newJob() *job { return &job{done: make(chan struct{}, 1)} }

// run decodes the job's block with d.
func (j *job) run(d *blockDecoder) {
	if d.decodeSymbols(j) {
		d.inverseBWT(j.pre, j.origPtr)
		j.finish()
	}
}

// finish derandomises the block if needed, undoes RLE1 and checks the
// block CRC.
func (j *job) finish() {
	if j.randomised {
		derandomise(j.pre)
	}
	// Room for the usual expansion; past it (or outCap) the block is
	// expanded again as it is read.
	if want := min(outCap, len(j.pre)+len(j.pre)/2+4096); cap(j.out) < want {
		j.out = make([]byte, want)
	}
	out := j.out[:cap(j.out)]
	j.rle.reset(j.pre)
	n := j.rle.expand(out)
	crc := verify.UpdateCRC32BZIP2(0, out[:n])
	j.expanded = j.rle.done()
	if j.expanded {
		j.out = out[:n]
	} else {
		for !j.rle.done() {
			n = j.rle.expand(out)
			crc = verify.UpdateCRC32BZIP2(crc, out[:n])
		}
	}
	j.off = 0
	if j.rle.bad {
		j.err = ErrBlock
		return
	}
	if !j.expanded {
		j.rle.reset(j.pre)
	}
	j.crc = crc
	if j.crc != j.storedCRC {
		j.err = crcMismatch(false, j.start/8, j.storedCRC, j.crc)
	}
}

// read copies the block's output into p.
func (j *job) read(p []byte) int {
	if j.expanded {
		n := copy(p, j.out[j.off:])
		j.off += n
		return n
	}
	return j.rle.expand(p)
}

// chunk returns the next piece of the block's output, empty once all of
// it has been read: the rest of out, or (a block kept in BWT form) as much
// as expands into out's buffer.
func (j *job) chunk() []byte {
	if j.expanded {
		b := j.out[j.off:]
		j.off = len(j.out)
		return b
	}
	buf := j.out[:cap(j.out)]
	return buf[:j.rle.expand(buf)]
}

// drained reports whether all of the block's output has been read.
func (j *job) drained() bool {
	if j.expanded {
		return j.off >= len(j.out)
	}
	return j.rle.done()
}
