//go:build !unix

package verify

import "time"

// cpuTime is unavailable here; benchmarks then report no CPU-time metric.
func cpuTime() time.Duration { return 0 }
