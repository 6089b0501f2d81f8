// Package sitecmd holds the commands of the site as a file: export, plan
// and apply (with --all-profiles and --profile a,b, several consoles). It
// holds their flags and rendering only: the site document's reading is
// package site/sitefile's, the plan and its application package site's.
//
// It may import the standard library, cobra, the access module's public
// packages and the command line's machinery (internal/cmdutil,
// internal/output); never cmd/access nor another command package
// (TestLayering in cmd/access keeps that).
package sitecmd

import (
	"strings"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
)

// New returns export, plan and apply, built on f.
func New(f *cmdutil.Factory) []*cobra.Command {
	return []*cobra.Command{exportCommand(f), planCommand(f), applyCommand(f)}
}

// oneLine joins the lines and spaces of s into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// lookupEnv is getenv's value of key and whether it is set (not empty).
func lookupEnv(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	return v, v != ""
}
