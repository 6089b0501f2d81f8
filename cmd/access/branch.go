package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A run builds the branch of the command tree that its arguments name
// (issue 38): the whole tree (every operation's command, flags and help
// examples) is most of a start's own work, and `access doors list` needs
// the doors only, `access sync` the sync command only (others.go), and
// `access --version` no command at all.

// treeBranch reads args as cobra will, with the root's persistent flags
// pf, up to the first argument that is not a flag: the top-level command
// they name. all is true when the run needs the whole tree, or when it is
// not sure: help, completion (and cobra's hidden __complete), no command
// without --version, a flag it does not know. Otherwise word is the
// command's name ("" for a flag-only run of --version).
func treeBranch(pf *pflag.FlagSet, args []string) (all bool, word string) {
	version := false
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--", arg == "-h", arg == "--help", strings.HasPrefix(arg, "--help="):
			return true, ""
		case arg == "-v", arg == "--version":
			version = true
		case strings.HasPrefix(arg, "--"):
			name, _, hasValue := strings.Cut(arg[2:], "=")
			f := pf.Lookup(name)
			if f == nil {
				return true, ""
			}
			if !hasValue && f.NoOptDefVal == "" {
				i++ // its value is the next argument
			}
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			f := pf.ShorthandLookup(arg[1:2])
			if f == nil || (f.NoOptDefVal != "" && len(arg) > 2) {
				return true, ""
			}
			if len(arg) == 2 && f.NoOptDefVal == "" {
				i++
			}
		default:
			if arg == "help" || arg == "completion" || strings.HasPrefix(arg, "__") {
				return true, ""
			}
			return false, arg
		}
	}
	return !version, ""
}

// unknownWord reports whether the run's word names a command that is
// neither a service nor one of root's other commands (a typo): the run
// then needs the whole registry, so that its suggestions are made from
// the whole tree, as before.
func unknownWord(root *cobra.Command, all bool, word string) bool {
	if all || word == "" {
		return false
	}
	for _, c := range root.Commands() {
		if c.Name() == word || c.HasAlias(word) {
			return false
		}
	}
	return true
}
