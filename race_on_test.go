//go:build race

package access

// raceEnabled: the race detector makes every test several times slower,
// so TestMain leaves go test's parallelism as it is.
const raceEnabled = true
