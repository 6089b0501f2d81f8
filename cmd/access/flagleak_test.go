package main

import (
	"context"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeOf builds the command tree of a fresh app, as a run does.
func treeOf(t *testing.T) (*app, *cobra.Command) {
	t.Helper()
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	return a, a.rootCommand()
}

// sharedState is what the app shares between commands, comparable: its
// streams (functions and writers) left out.
func sharedState(a *app) app {
	s := *a
	s.streams = streams{}
	return s
}

// commandFlags is the value of every flag of the tree, by the path of the
// command that declares it and its name.
func commandFlags(root *cobra.Command) map[string]string {
	m := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { m[c.CommandPath()+" --"+f.Name] = f.Value.String() })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return m
}

// localFlags are the flags each command declares for itself alone, by
// command path (the root's persistent flags are shared by design).
func localFlags(root *cobra.Command) map[string][]string {
	m := map[string][]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "completion" && c.Parent() == root {
			// cobra's own: its shells' --no-descriptions share one
			// variable, harmless as only one shell's script is written.
			return
		}
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" {
				m[c.CommandPath()] = append(m[c.CommandPath()], f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return m
}

// commandAt returns the command of the tree at path ("access users import").
func commandAt(root *cobra.Command, path string) *cobra.Command {
	c, _, err := root.Find(strings.Fields(path)[1:])
	if err != nil || c.CommandPath() != path {
		return nil
	}
	return c
}

// setOtherThanDefault sets f to a value other than its default, as the
// command's own flag set parses it; false when no candidate is accepted.
func setOtherThanDefault(f *pflag.Flag) bool {
	var candidates []string
	if n, err := strconv.ParseFloat(f.DefValue, 64); err == nil {
		candidates = append(candidates, strconv.FormatFloat(n+7, 'f', -1, 64))
	}
	candidates = append(candidates, "true", "false", "7", "7m", "leak-probe", "a,b", "k=v", "X-Probe: leak")
	for _, v := range candidates {
		if err := f.Value.Set(v); err == nil && f.Value.String() != f.DefValue {
			f.Changed = true
			return true
		}
	}
	return false
}

// TestNoFlagLeaksIntoAnotherCommand walks the whole tree: for every flag
// a command declares for itself, a fresh tree has that flag set to a value
// other than its default, and then neither the shared app nor any flag of
// any other command may differ from a tree where nothing was set. A flag
// bound to the shared app (issue 34: the bulk commands' --rate written
// into app.rate paced every command, users list --all included) or to a
// variable another command reads fails here (issue 35).
func TestNoFlagLeaksIntoAnotherCommand(t *testing.T) {
	t.Parallel()
	base, baseRoot := treeOf(t)
	wantShared, wantFlags := sharedState(base), commandFlags(baseRoot)
	probed := 0
	for path, names := range localFlags(baseRoot) {
		for _, name := range names {
			a, root := treeOf(t)
			c := commandAt(root, path)
			require.NotNil(t, c, path)
			f := c.Flags().Lookup(name)
			if !setOtherThanDefault(f) {
				t.Logf("%s --%s: no value other than its default (%q) accepted; not probed", path, name, f.DefValue)
				continue
			}
			probed++
			assert.True(t, reflect.DeepEqual(wantShared, sharedState(a)),
				"%s --%s %s changed the app every command shares", path, name, f.Value.String())
			got := commandFlags(root)
			assert.Len(t, got, len(wantFlags), "flags of the tree")
			for k, v := range got {
				if k != path+" --"+name && v != wantFlags[k] {
					t.Errorf("%s --%s %s changed another command's flag: %s is %q, not %q", path, name, f.Value.String(), k, v, wantFlags[k])
				}
			}
		}
	}
	t.Logf("%d flags probed", probed)
	assert.Greater(t, probed, 100, "flags probed")
}

// TestRateIsDeclaredByTheBulkCommandsOnly: the commands that pace their
// client (pacedCommands) declare --rate with the default pace; monitor's
// --rate is its own (per console, with --burst); no other command has one.
func TestRateIsDeclaredByTheBulkCommandsOnly(t *testing.T) {
	t.Parallel()
	_, root := treeOf(t)
	seen := map[string]bool{}
	for path, names := range localFlags(root) {
		for _, name := range names {
			if name != "rate" {
				continue
			}
			switch {
			case pacedCommands[path]:
				seen[path] = true
				assert.Equal(t, strconv.FormatFloat(cmdutil.DefaultRate, 'f', -1, 64), commandAt(root, path).Flags().Lookup("rate").DefValue, path)
			case path == "access monitor":
			default:
				t.Errorf("%s declares --rate", path)
			}
		}
	}
	for path := range pacedCommands {
		assert.True(t, seen[path], "no --rate on %q", path)
	}
}
