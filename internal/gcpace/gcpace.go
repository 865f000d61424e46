// Package gcpace delays the Go collector's first cycle: most runs of unpack
// take a few milliseconds and end before their heap is worth collecting,
// and a cycle then costs more than the run's own work (its stop-the-world
// phases, its workers' threads).
package gcpace

import (
	"os"
	"runtime"
	"runtime/debug"
)

// defaultHeapMinimum is the heap size of the runtime's first cycle at
// GOGC=100; at GOGC=p it is this times p/100.
const defaultHeapMinimum = 4 << 20

// DelayFirst moves the collector's first cycle to a heap of about minHeap
// bytes (the runtime's own is 4 MB), then hands the pacing back to GOGC=100
// at the end of that cycle, whatever started it (the heap, runtime.GC). It
// does nothing when GOGC or GOMEMLIMIT is set: the user's choice stands.
func DelayFirst(minHeap int64) {
	if minHeap <= defaultHeapMinimum || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(int(minHeap * 100 / defaultHeapMinimum))
	runtime.SetFinalizer(&sentinel{}, release)
}

// sentinel is unreachable from the moment it is made, so the first cycle
// finds it and queues its finalizer. It holds a pointer and is larger than
// the tiny allocator's blocks, which would share it with other objects.
type sentinel struct {
	_ *int
	_ [24]byte
}

// release restores the runtime's pacing after the first cycle.
func release(*sentinel) { debug.SetGCPercent(100) }
