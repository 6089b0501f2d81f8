// Package clierr holds the usage error that the command line (cmd/access)
// and the simulator (internal/simulator) share: it exits with status 2.
package clierr

import (
	"fmt"
	"strings"
)

// UsageError is a problem with how a command was called (a flag, an
// argument, the address, the state file). It reads as one line, and the
// command exits with status 2.
type UsageError struct{ msg string }

// Error implements error.
func (e *UsageError) Error() string { return e.msg }

// ExitCode is 2, the exit status of a usage error.
func (e *UsageError) ExitCode() int { return 2 }

// UsageErrorf formats a UsageError; its white space (newlines included)
// is folded to single spaces.
func UsageErrorf(format string, args ...any) error {
	return &UsageError{msg: strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")}
}
