//go:build !linux

package extract

// fdBatch is Linux's: files are closed one by one here.
type fdBatch struct{}

func (b *fdBatch) flush() {}

// closeFile closes f.
func (d *Dir) closeFile(f *wfile) error { return f.Close() }
