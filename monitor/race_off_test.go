//go:build !race

package monitor_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
