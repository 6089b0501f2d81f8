//go:build race

package accesstest

// raceEnabled: under the race detector sync.Pool drops what it is given
// at random, so allocation counts that rely on it do not hold.
const raceEnabled = true
