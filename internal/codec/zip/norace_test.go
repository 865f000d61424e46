//go:build !race

package zip

const raceEnabled = false
