//go:build !unix

package procs

// cpuTime is not read here: Govern does nothing.
func cpuTime() (int64, bool) { return 0, false }
