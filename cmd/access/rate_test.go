package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

// pacedCommands are the commands that declare --rate: only they are
// paced (access.WithRateLimit), by default at cmdutil.DefaultRate
// (TestRateIsDeclaredByTheBulkCommandsOnly, TestListsAndPlansAreNotPaced).
var pacedCommands = map[string]bool{
	"access users import":     true,
	"access nfc-cards import": true,
	"access apply":            true,
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
		{[]string{"users", "import", csv, "--dry-run"}, cmdutil.DefaultRate},
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
