package procs

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestDecisions: under 1.3 processors busy lowers; at one, raiseNeed
// samples in a row with two or more goroutines waiting raise, and a
// sample with fewer starts the count again.
func TestDecisions(t *testing.T) {
	for _, c := range []struct {
		util float64
		want bool
	}{{0.3, true}, {1.0, true}, {1.29, true}, {1.3, false}, {1.9, false}} {
		if got := lowered(c.util); got != c.want {
			t.Errorf("lowered(%.2f) = %v, want %v", c.util, got, c.want)
		}
	}
	var w waiting
	for i, r := range []int{1, 2, 2, 1, 0, 2, 5, 0, 2, 2} {
		if w.raised(r) {
			t.Fatalf("raised at sample %d (%d runnable): %d in a row", i, r, w)
		}
	}
	if !w.raised(3) {
		t.Fatalf("not raised after %d samples with goroutines waiting", raiseNeed)
	}
}

// spin keeps a processor busy until quit.
func spin(quit *atomic.Bool) {
	for !quit.Load() {
	}
}

// TestGovern: one busy goroutine brings the process down to one
// processor; more busy goroutines bring it back up.
func TestGovern(t *testing.T) {
	all := runtime.GOMAXPROCS(0)
	if all < 2 {
		t.Skip("one processor here")
	}
	defer runtime.GOMAXPROCS(all)
	if _, ok := cpuTime(); !ok {
		t.Skip("no process CPU time here")
	}
	var quit atomic.Bool
	defer quit.Store(true)
	go spin(&quit)
	stop := Govern(50*time.Millisecond, 5*time.Millisecond)
	defer stop()
	waitFor(t, func() bool { return runtime.GOMAXPROCS(0) == 1 }, "one processor with one busy goroutine")
	for range 3 {
		go spin(&quit)
	}
	waitFor(t, func() bool { return runtime.GOMAXPROCS(0) == all }, "all processors with four busy goroutines")
}

// waitFor polls cond for up to ten seconds (the tests of other packages
// share the machine).
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("no %s in ten seconds (GOMAXPROCS %d)", what, runtime.GOMAXPROCS(0))
}
