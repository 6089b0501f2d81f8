package main

import (
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTreeBranch checks which branch of the tree a run's arguments make
// it build: the whole tree whenever a flag or word leaves it unsure.
func TestTreeBranch(t *testing.T) {
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	pf := a.rootCommand().PersistentFlags()
	for _, tc := range []struct {
		args []string
		all  bool
		word string
	}{
		{nil, true, ""},
		{[]string{"--version"}, false, ""},
		{[]string{"-v"}, false, ""},
		{[]string{"--version", "--help"}, true, ""},
		{[]string{"doors", "list"}, false, "doors"},
		{[]string{"--url", "https://x", "-o", "json", "--fake", "users", "list"}, false, "users"},
		{[]string{"--url=https://x", "-ojson", "monitor"}, false, "monitor"},
		{[]string{"--insecure", "dors"}, false, "dors"},
		{[]string{"--nosuch", "doors"}, true, ""},
		{[]string{"-x", "doors"}, true, ""},
		{[]string{"help", "doors"}, true, ""},
		{[]string{"completion", "bash"}, true, ""},
		{[]string{"__complete", "do"}, true, ""},
		{[]string{"--", "doors"}, true, ""},
		{[]string{"-h"}, true, ""},
	} {
		all, word := treeBranch(pf, tc.args)
		assert.Equal(t, tc.all, all, "%q", tc.args)
		assert.Equal(t, tc.word, word, "%q", tc.args)
	}
}

// TestBranchRunsAsWholeTree runs command lines with the branch they name
// and with the whole tree: the same output, errors and exit codes (help,
// typo suggestions, usage errors).
func TestBranchRunsAsWholeTree(t *testing.T) {
	runWith := func(args []string, whole bool) (string, string, int) {
		var out, errOut bytes.Buffer
		a := newApp(context.Background(), strings.NewReader(""), &out, &errOut, func(string) string { return "" })
		defer a.close()
		if !whole {
			a.args = args // a.args nil: the whole tree, as before issue 38
		}
		root := a.rootCommand()
		root.SetArgs(args)
		cmd, err := root.ExecuteC()
		if err == nil {
			return out.String(), errOut.String(), 0
		}
		return out.String(), errOut.String() + err.Error() + typoSuggestion(cmd, err), exitCode(context.Background(), err)
	}
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	var lines [][]string
	for _, c := range a.rootCommand().Commands() {
		lines = append(lines, []string{c.Name(), "--help"}, []string{c.Name(), "nosuch"}, []string{"--fake", c.Name(), "--nosuchflag"})
	}
	lines = append(lines, []string{"--version"}, []string{"dors"}, []string{"doors", "lst"}, []string{"--fake", "doors", "list", "-o", "json"})
	require.Greater(t, len(lines), 60)
	for _, args := range lines {
		o1, e1, c1 := runWith(args, false)
		o2, e2, c2 := runWith(args, true)
		assert.Equal(t, o2, o1, "%q: stdout", args)
		assert.Equal(t, e2, e1, "%q: stderr", args)
		assert.Equal(t, c2, c1, "%q: exit code", args)
	}
}

// rootOf is the tree a run of args builds (nil: the whole tree).
func rootOf(args []string) *cobra.Command {
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	a.args = args
	return a.rootCommand()
}

// commandNames are the names and aliases of cs.
func commandNames(cs []*cobra.Command) []string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
		names = append(names, c.Aliases...)
	}
	slices.Sort(names)
	return names
}

// TestVersionBuildsNoCommand: `access --version` (or -v, after global
// flags) makes no command at all, not even completion, and still prints
// the version as the whole tree does (TestBranchRunsAsWholeTree).
func TestVersionBuildsNoCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--fake", "-o", "json", "--version"}} {
		assert.Empty(t, commandNames(rootOf(args).Commands()), "%q", args)
		var out bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &out, io.Discard, func(string) string { return "" })
		assert.Equal(t, 0, code, "%q", args)
		assert.Equal(t, buildVersion(), out.String(), "%q", args)
	}
	// The whole tree made 6,400 allocations, the branch of --version
	// 1,507 while it made the commands outside the registry (issue 38).
	allocs := testing.AllocsPerRun(20, func() { rootOf([]string{"--version"}) })
	assert.Less(t, allocs, 400.0, "allocations of the tree of --version")
}

// TestOtherCommandNames: the names the branch logic knows for the
// commands outside the registry (otherCommands) are exactly those of the
// whole tree's commands that are neither a service nor cobra's own (help,
// completion), and each entry makes the commands of its names, no other:
// a command added to root without its names here fails.
func TestOtherCommandNames(t *testing.T) {
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	services := map[string]bool{"help": true, "completion": true}
	for _, name := range commandNames(a.serviceCommandsOf(true, "")) {
		services[name] = true
	}
	var want []string
	for _, name := range commandNames(rootOf(nil).Commands()) {
		if !services[name] {
			want = append(want, name)
		}
	}
	var known []string
	for _, o := range a.otherCommands() {
		names := slices.Clone(o.names)
		slices.Sort(names)
		assert.Equal(t, names, commandNames(o.build()), "the commands an entry makes are its names")
		known = append(known, o.names...)
	}
	slices.Sort(known)
	assert.Equal(t, want, known)
	assert.Greater(t, len(known), 10)
}

// TestNamedRunBuildsItsCommandOnly: a run that names a top-level command
// (after global flags) builds that command, or the entry of
// otherCommands it belongs to, and completion; no other service and no
// other command outside the registry.
func TestNamedRunBuildsItsCommandOnly(t *testing.T) {
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	entry := map[string][]string{}
	for _, o := range a.otherCommands() {
		for _, name := range o.names {
			entry[name] = o.names
		}
	}
	tried := 0
	for _, name := range commandNames(rootOf(nil).Commands()) {
		if name == "help" || name == "completion" {
			continue
		}
		want := []string{name, "completion"}
		if names, ok := entry[name]; ok {
			want = append(slices.Clone(names), "completion")
		}
		slices.Sort(want)
		for _, args := range [][]string{{name}, {"--fake", "-o", "json", name, "--nosuch"}} {
			assert.Equal(t, want, commandNames(rootOf(args).Commands()), "%q", args)
		}
		tried++
	}
	assert.Greater(t, tried, 30)
}
