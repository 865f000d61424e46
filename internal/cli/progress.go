package cli

import (
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/unpack-dev/unpack/internal/formats"
)

// progress shows a bar on stderr while a is read, when stderr is a terminal
// and no other output is wanted. It follows input bytes consumed over the
// input size, or counts them when the size is unknown. The returned
// function stops and clears it.
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
				bar.Set64(a.Consumed())
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
