// Package authcmd holds the commands of the console and its credential:
// login (a console's way in found and saved as a profile), logout, config
// (list, use, show: the profiles of the config file) and auth status (the
// console and token the next command would use). It holds their flags and
// rendering only: the config file, the connection and the ways into a
// console are package connect's.
//
// It may import the standard library, cobra, the access module's public
// packages and the command line's machinery (internal/cmdutil,
// internal/connect, internal/output); never cmd/access nor another
// command package (TestLayering in cmd/access keeps that).
package authcmd

import (
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
)

// New returns login, logout, config and auth, built on f.
func New(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{loginCommand(f), logoutCommand(f), configCommand(f), authCommand(f)}
}

// groupCommand makes a command that only holds subcommands; an unknown
// subcommand is a usage error.
func groupCommand(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return c.Help()
			}
			return cmdutil.UsageErrorf("unknown command %q for %q", args[0], c.CommandPath())
		},
	}
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
