//go:build unix

package main

import (
	"os"
	"syscall"
)

// interruptSignals end a run: Ctrl-C, a service manager's SIGTERM, the
// SIGHUP of a closed terminal.
var interruptSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
