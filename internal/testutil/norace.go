//go:build !race

package testutil

// RaceEnabled reports whether the race detector is on: sync.Pool then drops
// items at random, so allocation guards do not hold.
const RaceEnabled = false
