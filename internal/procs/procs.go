// Package procs lowers GOMAXPROCS to one while a run's Go code keeps only
// one processor busy, and raises it again if goroutines come to wait for
// one.
//
// With two or more processors the runtime preempts a goroutine that has
// run for 10 ms, puts it on the global run queue and wakes an idle
// processor's thread, which often takes it over on another core: a
// decoder whose model or window lives in L1 and L2 (PPMd, LZMA) finds
// them cold after every move, a few times a second. On one processor it
// stays where it is. A run that asks for one thread sets GOMAXPROCS(1)
// itself; Govern is for runs whose work may or may not be parallel (one
// sequential stream, or blocks decoded side by side).
package procs

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// Govern looks at the process once, after the given time: if its CPU
// time has grown by less than 1.3 processors' worth since the call, it
// sets GOMAXPROCS(1) and from then on samples the run queue every
// interval: once two or more goroutines have waited to run (the busy one,
// preempted for the sampler, and another) in raiseNeed samples in a row,
// it sets GOMAXPROCS back and stops. A run that keeps more than one
// processor busy at first is left alone, with no timer pending after the
// look (a pending timer has the runtime's idle processors sleep in the
// network poller, and each wake-up of a parallel decoder's goroutine
// costs more). Govern does nothing where GOMAXPROCS is 1 or the process's
// CPU time cannot be read. Stop ends the watch and leaves GOMAXPROCS as
// it is.
func Govern(after, interval time.Duration) (stop func()) {
	all := runtime.GOMAXPROCS(0)
	cpu0, ok := cpuTime()
	if all <= 1 || !ok {
		return func() {}
	}
	t0 := time.Now()
	done := make(chan struct{})
	timer := time.AfterFunc(after, func() {
		cpu, _ := cpuTime()
		if !lowered(float64(cpu-cpu0) / float64(time.Since(t0))) {
			return
		}
		select {
		case <-done:
			return
		default:
		}
		runtime.GOMAXPROCS(1)
		go watch(all, interval, done)
	})
	return func() {
		timer.Stop()
		close(done)
	}
}

// lowered reports whether a run that kept util processors busy goes to one.
func lowered(util float64) bool { return util < 1.3 }

// raiseNeed is how many samples in a row with goroutines waiting give
// the processors back.
const raiseNeed = 3

// watch samples the run queue every interval until goroutines wait
// (raised), then sets GOMAXPROCS(all); or until done.
func watch(all int, interval time.Duration, done chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	sample := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	var w waiting
	for {
		select {
		case <-done:
			return
		case <-t.C:
			metrics.Read(sample)
			runnable := 0
			if sample[0].Value.Kind() == metrics.KindUint64 {
				runnable = int(sample[0].Value.Uint64())
			}
			if w.raised(runnable) {
				runtime.GOMAXPROCS(all)
				return
			}
		}
	}
}

// waiting counts the samples in a row, at one processor, with goroutines
// waiting for another.
type waiting int

// raised takes a sample's runnable goroutines (the sampler not counted)
// and reports whether the processors go back up. The busy goroutine,
// preempted so that the sampler runs, is one of them: two or more mean
// work for another processor.
func (w *waiting) raised(runnable int) bool {
	if runnable >= 2 {
		*w++
	} else {
		*w = 0
	}
	return *w >= raiseNeed
}
