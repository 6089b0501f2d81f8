//go:build race

package simulator_test

// raceEnabled: the race detector slows this process (the simulator of the
// browser tests runs in it) several times over.
const raceEnabled = true
