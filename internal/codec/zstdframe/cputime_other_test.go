//go:build !unix

package zstdframe

import "time"

// cpuTime is unavailable here; benchmarks then report no CPU-time metric.
func cpuTime() time.Duration { return 0 }
