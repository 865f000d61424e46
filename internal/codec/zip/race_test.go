//go:build race

package zip

// raceEnabled: sync.Pool drops items at random under the race detector.
const raceEnabled = true
