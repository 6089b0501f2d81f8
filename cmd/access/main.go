// Command access is a command-line tool over the whole UniFi Access
// developer API, built on the SDK github.com/access-dev/access.
//
// Install it with
//
//	go install github.com/access-dev/access/cmd/access@latest
//
// and run "access --help" for the commands, the configuration and the exit
// codes. "access --fake ..." runs any command against an embedded demo
// console, so every example works without one.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	os.Exit(mainExit())
}

// mainExit runs the command line of the process and returns its exit code.
// Ctrl-C (or SIGTERM, SIGHUP) cancels the running command, which then
// exits with 130; a second one ends the process at once.
func mainExit() int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, interruptSignals...)
	defer signal.Stop(sigs)
	go onSignals(ctx, sigs, cancel, os.Exit)
	return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}
