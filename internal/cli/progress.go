package cli

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"

	"github.com/unpack-dev/unpack/internal/formats"
)

// progressTick is how often the bar is redrawn.
const progressTick = 100 * time.Millisecond

// The bar's line is "NAME  42% [=====>     ] (1.2/2.9 GiB, 12 MiB/s) [3s:4s]":
// the current entry's name, padded or shortened to nameWidth columns, then
// the bar, bytes done and in all, the rate and elapsed:remaining (the bar
// narrows when the line would not fit). progressFixed is the width of
// everything but the name and the bar's inside.
const (
	barWidth      = 30
	progressFixed = 50
	minNameWidth  = 14
	maxNameWidth  = 40
)

// progress shows a bar on stderr while a is read, when stderr is a terminal
// and no other output is wanted: the current entry's name, bytes/s and the
// time left. It follows input bytes consumed over the input size, or counts
// output bytes when the input size is unknown (stdin). Colour is used
// unless NO_COLOR is set or TERM is dumb. The returned function stops and
// clears it.
func (r *runner) progress(a *formats.Archive) func() {
	if !r.f.ErrIsTerminal || r.o.Quiet || r.o.Verbose || r.o.JSON {
		return func() {}
	}
	color := r.f.colorAllowed()
	width := nameWidth(r.f.termWidth())
	theme := progressbar.Theme{Saucer: "=", SaucerHead: ">", SaucerPadding: " ", BarStart: "[", BarEnd: "]"}
	if color {
		theme.Saucer, theme.SaucerHead = "[green]=[reset]", "[green]>[reset]"
	}
	bar := progressbar.NewOptions64(a.Size,
		progressbar.OptionSetWriter(r.f.ErrOut),
		progressbar.OptionSetDescription(barLabel(a.Name, width, color)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(), // and so redraw at every tick, not only when the percentage moves
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionSetWidth(barWidth),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionEnableColorCodes(color),
		progressbar.OptionSetTheme(theme),
	)
	base := r.out.Load()
	r.entryName.Store(nil)
	r.barMu.Lock()
	r.bar = bar
	r.barMu.Unlock()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		var shown *string
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.barMu.Lock()
				// Not throttled by the bar (the ticker is the throttle):
				// Describe draws at once, and Set64 right after it.
				if name := r.entryName.Load(); name != nil && name != shown {
					shown = name
					bar.Describe(barLabel(*name, width, color))
				}
				if a.Size < 0 {
					bar.Set64(r.out.Load() - base)
				} else {
					bar.Set64(a.Consumed())
				}
				r.barMu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		r.barMu.Lock()
		defer r.barMu.Unlock()
		bar.Finish()
		bar.Clear()
		r.bar = nil
	}
}

// aside runs fn, which writes to the terminal (a problem, a warning, the
// password prompt), with the bar cleared and held still; the bar is drawn
// again, below, at the next tick.
func (r *runner) aside(fn func()) {
	r.barMu.Lock()
	defer r.barMu.Unlock()
	if r.bar != nil {
		r.bar.Clear()
	}
	fn()
}

// setEntry names the entry being read, for the progress bar.
func (r *runner) setEntry(name string) { r.entryName.Store(&name) }

// colorAllowed reports whether the bar may use colour: not when NO_COLOR
// is set to anything (https://no-color.org) or TERM is empty or "dumb".
func (f *Factory) colorAllowed() bool {
	if f.Getenv == nil {
		return false
	}
	t := f.Getenv("TERM")
	return f.Getenv("NO_COLOR") == "" && t != "" && t != "dumb"
}

// termWidth is the terminal's width in columns (80 when unknown).
func (f *Factory) termWidth() int {
	if f.TermWidth != nil {
		if w := f.TermWidth(); w > 0 {
			return w
		}
	}
	return 80
}

// nameWidth is how many columns the entry name gets on a terminal of
// width columns.
func nameWidth(width int) int {
	return min(max(width-progressFixed-barWidth, minNameWidth), maxNameWidth)
}

// colorCode matches what the bar would turn into a colour ("[red]").
var colorCode = regexp.MustCompile(`\[[a-z0-9_-]+\]`)

// barLabel is name made safe and exactly width columns wide: control
// characters become '?', a name too long keeps its end after "…" (the
// file name matters more than its folders), a short one is padded so the
// bar does not move. With colour, text that looks like a colour code has
// its bracket replaced so that it is shown, not interpreted.
func barLabel(name string, width int, color bool) string {
	runes := []rune(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) || c == utf8.RuneError {
			return '?'
		}
		return c
	}, name))
	// Count columns as runes: wide characters may make the line a little
	// longer, which the bar absorbs by narrowing.
	if len(runes) > width {
		runes = append([]rune{'…'}, runes[len(runes)-width+1:]...)
	}
	s := string(runes) + strings.Repeat(" ", width-len(runes))
	if color {
		s = colorCode.ReplaceAllStringFunc(s, func(m string) string { return "［" + m[1:] })
	}
	return s
}
