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
	head := min(d, len(buf))
	for i := 0; i < head; i++ {
		buf[i] += c.hist[256-d+i]
	}
	for i := d; i < len(buf); i++ {
		buf[i] += buf[i-d]
	}
	if n := len(buf); n >= 256 {
		copy(c.hist[:], buf[n-256:])
	} else {
		copy(c.hist[:], c.hist[n:])
		copy(c.hist[256-n:], buf)
	}
	return len(buf)
}
