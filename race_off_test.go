//go:build !race

package access

// raceEnabled: see race_on_test.go.
const raceEnabled = false
