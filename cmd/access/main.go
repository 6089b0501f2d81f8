// Stub until the cli branch merges.

// Command access is the UniFi Access command line.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// extraCommands are the subcommands other files add from their init.
var extraCommands []func() *cobra.Command

func main() {
	root := &cobra.Command{Use: "access", Short: "UniFi Access from the command line", SilenceUsage: true, SilenceErrors: true}
	for _, c := range extraCommands {
		root.AddCommand(c())
	}
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "access:", err)
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(1)
	}
}
