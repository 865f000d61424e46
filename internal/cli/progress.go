package cli

import (
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/unpack-dev/unpack/internal/formats"
)

// progress shows a bar on stderr while a is read, when stderr is a terminal
// and no other output is wanted. It follows input bytes consumed over the
// input size, or counts output bytes when the input size is unknown
// (stdin). The returned function stops and clears it.
func (r *runner) progress(a *formats.Archive) func() {
	if !r.f.ErrIsTerminal || r.o.Quiet || r.o.Verbose || r.o.JSON {
		return func() {}
	}
	bar := progressbar.NewOptions64(a.Size,
		progressbar.OptionSetWriter(r.f.ErrOut),
		progressbar.OptionSetDescription(a.Name),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
	)
	base := r.out.Load()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if a.Size < 0 {
					bar.Set64(r.out.Load() - base)
				} else {
					bar.Set64(a.Consumed())
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		bar.Finish()
		bar.Clear()
	}
}
