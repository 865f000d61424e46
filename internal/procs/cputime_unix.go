//go:build unix

package procs

import "golang.org/x/sys/unix"

// cpuTime is the process's user and system time so far, in nanoseconds.
func cpuTime() (int64, bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
