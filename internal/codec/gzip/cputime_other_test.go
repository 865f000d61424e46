//go:build !unix

package gzip

import "time"

// cpuTime is not measured here: benchmarks then report no cpu-MB/s.
func cpuTime() time.Duration { return 0 }
