package sitecmd

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// factory is a Factory of a test: the streams given, one console (srv),
// text output; every other member refuses to be called.
func factory(srv *accesstest.Server, stdout, stderr *bytes.Buffer) *cmdutil.Factory {
	client := func(float64) (*access.Client, error) { return srv.Client(), nil }
	unused := errors.New("not part of this test")
	return &cmdutil.Factory{
		IOStreams:   cmdutil.IOStreams{In: strings.NewReader(""), Out: stdout, ErrOut: stderr},
		Getenv:      func(string) string { return "" },
		Client:      func() (*access.Client, error) { return client(0) },
		PacedClient: client,
		Output:      func() (string, string) { return "", "" },
		ConsoleName: func() string { return "" },
		Consoles:    func(bool) (*cmdutil.Consoles, error) { return nil, nil },
		IsTerminal:  func(any) bool { return false },
		PrintAs:     func(w io.Writer, format string, v any, cols []string) error { return unused },
	}
}

func commandNamed(cmds []*cobra.Command, name string) *cobra.Command {
	for _, c := range cmds {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

// TestPlanOnAFactoryOfItsOwn: the site commands need nothing of package
// main: plan built on a Factory a test made prints the plan of a document
// against the console the factory gives, and --detailed-exitcode ends
// with exit code 5 (cmdutil.ExitChanges).
func TestPlanOnAFactoryOfItsOwn(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	doc := filepath.Join(t.TempDir(), "site.yaml")
	require.NoError(t, os.WriteFile(doc, []byte("user_groups:\n  - name: Crew\n"), 0o600))
	var stdout, stderr bytes.Buffer
	plan := commandNamed(New(factory(srv, &stdout, &stderr)), "plan")
	require.NotNil(t, plan)
	plan.SetArgs([]string{"-f", doc, "--detailed-exitcode"})
	plan.SetOut(&stdout)
	plan.SetErr(&stderr)
	plan.SilenceUsage, plan.SilenceErrors = true, true // as the root does
	err := plan.ExecuteContext(context.Background())
	var ec *cmdutil.ExitError
	require.ErrorAs(t, err, &ec, "stderr: %s", stderr.String())
	assert.Equal(t, cmdutil.ExitChanges, ec.ExitCode())
	assert.Equal(t, "user_groups:\n  + Crew\n\n1 to create, 0 to change.\n", stdout.String())
}
