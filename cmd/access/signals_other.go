//go:build !unix

package main

import "os"

// interruptSignals end a run: Ctrl-C.
var interruptSignals = []os.Signal{os.Interrupt}
