package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

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
