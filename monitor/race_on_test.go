//go:build race

package monitor_test

// raceEnabled: the race detector makes the normal day several times
// slower; it then plays fewer entries (the race detector looks for
// races, which a shorter day shows as well).
const raceEnabled = true
