//go:build !race

package accesstest

// raceEnabled: see race_on_internal_test.go.
const raceEnabled = false
