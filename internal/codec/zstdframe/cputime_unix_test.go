//go:build unix

package zstdframe

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, so that benchmarks can
// report throughput per CPU-second, which load on a shared machine disturbs
// far less than wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
