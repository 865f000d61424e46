package bcj

// Delta decodes the delta filter (xz filter ID 0x03, 7-Zip Delta): each
// byte was stored as its difference from the byte Dist positions earlier.
type Delta struct {
	dist int
	hist [256]byte // the last 256 decoded bytes, oldest first
}

// NewDelta returns a delta decoder for distance dist (1 to 256).
func NewDelta(dist int) *Delta {
	c := &Delta{}
	c.Reset(dist)
	return c
}

// Reset restarts c with distance dist (1 to 256; other values are clamped).
func (c *Delta) Reset(dist int) {
	c.dist = min(max(dist, 1), 256)
	c.hist = [256]byte{}
}

// Convert implements Converter; it always decodes the whole buffer.
func (c *Delta) Convert(buf []byte) int {
	d := c.dist
	if d == 1 { // a running sum: keep it in a register
		acc := c.hist[255]
		for i, b := range buf {
			acc += b
			buf[i] = acc
		}
		c.keep(buf)
		return len(buf)
	}
	head := min(d, len(buf))
	for i := 0; i < head; i++ {
		buf[i] += c.hist[256-d+i]
	}
	for i := d; i < len(buf); i++ {
		buf[i] += buf[i-d]
	}
	c.keep(buf)
	return len(buf)
}

// keep appends the decoded buf to the history.
func (c *Delta) keep(buf []byte) {
	if n := len(buf); n >= 256 {
		copy(c.hist[:], buf[n-256:])
	} else {
		copy(c.hist[:], c.hist[n:])
		copy(c.hist[256-n:], buf)
	}
}
