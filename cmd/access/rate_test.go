package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
)

// pacedCommands are the commands that declare --rate: only they are
// paced (access.WithRateLimit), by default at defaultRate.
var pacedCommands = map[string]bool{
	"access users import":     true,
	"access nfc-cards import": true,
	"access apply":            true,
}

// TestOnlyCommandsWithRateArePaced: as each command is about to run, the
// pace of its client is the default --rate for the commands that declare
// it and none for every other (issue 34: cobra wrote the bulk commands'
// default into the field every command read, so that users list --all of
// 10,000 users took 40 s instead of 0.4 s).
func TestOnlyCommandsWithRateArePaced(t *testing.T) {
	t.Parallel()
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	root := a.rootCommand()
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() {
			return
		}
		path := c.CommandPath()
		require.NoError(t, root.PersistentPreRunE(c, nil), path)
		want := 0.0
		if pacedCommands[path] {
			want, seen[path] = defaultRate, true
		}
		assert.Equal(t, want, a.rate, "the pace of %q", path)
	}
	walk(root)
	for path := range pacedCommands {
		assert.True(t, seen[path], "no command %q", path)
	}
}

// TestListsAndPlansAreNotPaced: the client that users list --all, export
// and plan build has no rate limit; users import's has the default --rate,
// apply's the one given.
func TestListsAndPlansAreNotPaced(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	dir := t.TempDir()
	doc := filepath.Join(dir, "site.yaml")
	csv := filepath.Join(dir, "none.csv")
	require.NoError(t, os.WriteFile(csv, []byte("first_name,last_name,email\n"), 0o600))
	for _, tc := range []struct {
		args []string
		per  float64
	}{
		{[]string{"users", "list", "--all", "-o", "jsonl"}, 0},
		{[]string{"doors", "list"}, 0},
		{[]string{"export", "-O", doc}, 0},
		{[]string{"plan", "-f", doc}, 0},
		{[]string{"users", "import", csv, "--dry-run"}, defaultRate},
		{[]string{"apply", "-f", doc, "--yes", "--rate", "5"}, 5},
	} {
		var stdout, stderr bytes.Buffer
		a := newApp(context.Background(), strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
		require.Equal(t, 0, a.execute(tc.args), "%v: %s", tc.args, stderr.String())
		require.NotNil(t, a.client, tc.args)
		per, _ := a.client.RateLimit()
		assert.Equal(t, tc.per, per, "requests per second of %v", tc.args)
	}
}
