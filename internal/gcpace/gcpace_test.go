package gcpace

import (
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// inChild runs the test named name in a fresh process with the
// environment env, so that the collector's settings start as the
// runtime's own; it reports whether the child is the one to run it.
func inChild(t *testing.T, name string, env ...string) bool {
	if os.Getenv("GCPACE_CHILD") == name {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), append(env, "GCPACE_CHILD="+name)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return false
}

// gcPercent reads GOGC's current value.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestDelayFirst: no cycle runs while the heap stays under the minimum,
// the first one runs once it is passed, and the pacing is GOGC=100 again
// after it.
func TestDelayFirst(t *testing.T) {
	if !inChild(t, "TestDelayFirst", "GOGC=", "GOMEMLIMIT=") {
		return
	}
	os.Unsetenv("GOGC")
	os.Unsetenv("GOMEMLIMIT")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	start := ms.NumGC
	DelayFirst(32 << 20)
	if p := gcPercent(); p != 800 {
		t.Fatalf("GOGC %d after DelayFirst(32 MiB), want 800", p)
	}
	var keep [][]byte
	for i := 0; i < 16; i++ { // 16 MiB of garbage
		keep = append(keep, make([]byte, 1<<20))
		keep = keep[:0]
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC != start {
		t.Fatalf("%d cycles under the minimum", ms.NumGC-start)
	}
	for i := 0; i < 64; i++ { // 64 MiB more
		keep = append(keep, make([]byte, 1<<20))
		keep = keep[:0]
	}
	runtime.ReadMemStats(&ms)
	if ms.NumGC == start {
		t.Fatal("no cycle past the minimum")
	}
	deadline := time.Now().Add(10 * time.Second)
	for gcPercent() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("GOGC %d after the first cycle, want 100", gcPercent())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDelayFirstUserSetting: GOGC from the environment stands.
func TestDelayFirstUserSetting(t *testing.T) {
	if !inChild(t, "TestDelayFirstUserSetting", "GOGC=50") {
		return
	}
	DelayFirst(32 << 20)
	if p := gcPercent(); p != 50 {
		t.Fatalf("GOGC %d, want the user's 50", p)
	}
}
