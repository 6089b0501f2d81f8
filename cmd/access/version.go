package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// versionText is what "access --version" prints: the tool's and the SDK's
// versions, then what the Go toolchain stamped into the binary: the
// module's version (a tag for "go install …@v1.2.3", a pseudo-version or
// "(devel)" for a build from a checkout), the VCS commit and whether the
// working tree had changes, and the toolchain and target. A binary built
// without build information (or with -buildvcs=false) says so.
func versionText(info *debug.BuildInfo, ok bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "access %s (SDK %s)\n", version, access.Version)
	if !ok || info == nil {
		b.WriteString("build: no build information in this binary\n")
		return b.String()
	}
	mod := info.Main.Version
	if mod == "" {
		mod = "(devel)"
	}
	fmt.Fprintf(&b, "module: %s %s\n", info.Main.Path, mod)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	switch rev := settings["vcs.revision"]; {
	case rev == "":
		b.WriteString("commit: unknown (built without VCS information)\n")
	default:
		state := "clean tree"
		if settings["vcs.modified"] == "true" {
			state = "modified tree"
		}
		line := rev + " (" + state
		if t := settings["vcs.time"]; t != "" {
			line += ", committed " + t
		}
		fmt.Fprintf(&b, "commit: %s)\n", line)
	}
	target := settings["GOOS"] + "/" + settings["GOARCH"]
	if target == "/" {
		target = "unknown target"
	}
	fmt.Fprintf(&b, "go: %s %s\n", info.GoVersion, target)
	return b.String()
}

// buildVersion is versionText of this binary.
func buildVersion() string { return versionText(debug.ReadBuildInfo()) }

// versionCommand is access version: the text of --version.
func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of access and of its SDK (as --version)",
		Example: "  access --fake version",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			fmt.Fprint(a.stdout, buildVersion())
			return nil
		},
	}
}
