package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/unpack-dev/unpack/internal/formats"
	"github.com/unpack-dev/unpack/internal/termtext"
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
	cols := r.f.termWidth()
	width := nameWidth(cols)
	bar := &progressBar{w: r.f.ErrOut, cols: cols, total: a.Size, color: r.f.colorAllowed(),
		label: barLabel(a.Name, width), start: time.Now()}
	base := r.out.Load()
	r.entry.Store(nil)
	r.named = true
	r.show(bar)
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
				r.mu.Lock()
				if name := r.entry.Load(); name != nil && name != shown {
					shown = name
					bar.label = barLabel(*name, width)
				}
				if a.Size < 0 {
					bar.draw(r.out.Load() - base)
				} else {
					bar.draw(a.Consumed())
				}
				r.mu.Unlock()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		r.named = false
		r.show(nil)
	}
}

// progressBar draws "NAME  42% [=====>     ] (1.2/2.9 GiB, 12 MiB/s) [3s:4s]"
// on one terminal line, redrawn in place; the bar narrows (or goes) so that
// the line stays within the terminal's width. Without a total it shows the
// bytes, the rate and the time so far.
type progressBar struct {
	w     io.Writer
	cols  int   // the terminal's width
	total int64 // bytes in all, or negative when unknown
	color bool
	label string // the entry's name, from barLabel
	start time.Time
	drawn int // columns of the last line drawn, for clear
	line  []byte
}

// draw shows done bytes of the total.
func (b *progressBar) draw(done int64) {
	elapsed := time.Since(b.start)
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	speed := iecSize(int64(rate), int64(rate)) + "/s"
	var head, tail string
	inner := 0 // the bar's inside, in columns
	if b.total > 0 {
		done = min(max(done, 0), b.total)
		left := "?"
		if rate > 0 {
			left = roundDuration(time.Duration(float64(b.total-done) / rate * float64(time.Second))).String()
		}
		head = fmt.Sprintf("%s  %3d%% ", b.label, done*100/b.total)
		tail = fmt.Sprintf(" (%s/%s, %s) [%s:%s]", iecSize(done, b.total), iecSize(b.total, b.total),
			speed, roundDuration(elapsed), left)
		// The last column stays free: writing there makes some terminals
		// wrap, and the next \r would then not reach the bar's line.
		inner = min(barWidth, b.cols-1-utf8.RuneCountInString(head)-utf8.RuneCountInString(tail)-2)
	} else {
		head = fmt.Sprintf("%s  (%s, %s) [%s]", b.label, iecSize(done, done), speed, roundDuration(elapsed))
	}
	l := append(b.line[:0], head...)
	esc := inner >= 5 && b.color // the bar's colour escapes take no columns
	if inner >= 5 {
		fill := int(done * int64(inner) / b.total)
		l = append(l, '[')
		if esc {
			l = append(l, "\x1b[32m"...)
		}
		l = append(l, strings.Repeat("=", fill)...)
		if fill < inner {
			l = append(l, '>')
		}
		if esc {
			l = append(l, "\x1b[0m"...)
		}
		l = append(l, strings.Repeat(" ", max(inner-fill-1, 0))...)
		l = append(l, ']')
	}
	l = append(l, tail...)
	cols := utf8.RuneCount(l)
	if esc {
		cols -= len("\x1b[32m\x1b[0m")
	} else if cols > b.cols-1 { // a terminal too narrow even for the text
		l = []byte(string([]rune(string(l))[:max(b.cols-1, 0)]))
		cols = b.cols - 1
	}
	if pad := b.drawn - cols; pad > 0 {
		l = append(l, strings.Repeat(" ", pad)...)
	}
	b.drawn = max(b.drawn, cols)
	b.line = l
	io.WriteString(b.w, "\r")
	b.w.Write(l)
}

// clear blanks the line the bar was drawn on and returns to its start.
func (b *progressBar) clear() {
	if b.drawn > 0 {
		io.WriteString(b.w, "\r"+strings.Repeat(" ", b.drawn)+"\r")
	}
}

// roundDuration rounds d to what the bar shows: seconds, or tenths under
// ten seconds.
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// iecSize formats n bytes in the unit suited to scale bytes (so that
// "done/total" share one unit): "512 B", "3.4 KiB", "12 MiB".
func iecSize(n, scale int64) string {
	const units = "KMGTPE"
	if scale < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	u, div := 0, int64(1024)
	for scale/div >= 1024 && u < len(units)-1 {
		u++
		div *= 1024
	}
	v := float64(n) / float64(div)
	if v < 10 {
		return fmt.Sprintf("%.1f %ciB", v, units[u])
	}
	return fmt.Sprintf("%.0f %ciB", v, units[u])
}

// screen is the terminal's stderr as the runner shares it: the progress
// bar, when one is drawn, and the lines written beside it, one at a time.
type screen struct {
	mu    sync.Mutex             // held while the bar or a line beside it is drawn
	bar   *progressBar           // nil when none is shown
	entry atomic.Pointer[string] // the entry being read, for the bar
	named bool                   // a bar names the entry (set before the entries are read)
}

// show replaces the bar shown (nil: none), clearing the old one.
func (s *screen) show(bar *progressBar) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil && bar == nil {
		s.bar.clear()
	}
	s.bar = bar
}

// aside runs fn, which writes to the terminal (a problem, a warning, the
// password prompt), with the bar cleared and held still; the bar is drawn
// again, below, at the next tick.
func (s *screen) aside(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bar != nil {
		s.bar.clear()
	}
	fn()
}

// setEntry names the entry being read, for the progress bar.
func (s *screen) setEntry(name string) {
	if s.named {
		n := name // to the heap only here: without a bar, no allocation per entry
		s.entry.Store(&n)
	}
}

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

// barLabel is name escaped (termtext) and exactly width columns wide: a
// name too long keeps its end after "…" (the file name matters more than
// its folders), a short one is padded so the bar does not move. Cutting
// the escaped text never cuts a character: an escape is plain ASCII.
func barLabel(name string, width int) string {
	runes := []rune(termtext.Escape(name))
	// Count columns as runes: wide characters may make the line a little
	// longer, which the bar absorbs by narrowing.
	if len(runes) > width {
		runes = append([]rune{'…'}, runes[len(runes)-width+1:]...)
	}
	return string(runes) + strings.Repeat(" ", width-len(runes))
}
