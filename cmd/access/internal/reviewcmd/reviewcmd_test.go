package reviewcmd

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

func TestLookBackAndTimes(t *testing.T) {
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":           90 * 24 * time.Hour,
		"30d":        30 * 24 * time.Hour,
		"36h":        36 * time.Hour,
		"2026-11-30": 58 * time.Hour,
	} {
		got, err := lookBack(in, at, time.UTC)
		if err != nil || got != want {
			t.Errorf("--since %q: %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"soon", "-3d", "0d", "2026-12-03"} {
		if _, err := lookBack(bad, at, time.UTC); exitCode(err) != cmdutil.ExitUsage {
			t.Errorf("--since %q: %v, want a usage error", bad, err)
		}
	}
	zurich, err := time.LoadLocation("Europe/Zurich")
	if err != nil {
		t.Skip(err)
	}
	for in, want := range map[string]string{
		"2026-12-06 03:00":          "2026-12-06T03:00:00+01:00",
		"2026-12-06T03:00:30":       "2026-12-06T03:00:30+01:00",
		"2026-12-06":                "2026-12-06T00:00:00+01:00",
		"2026-12-06T03:00:00Z":      "2026-12-06T03:00:00Z",
		"2026-07-01 12:00":          "2026-07-01T12:00:00+02:00",
		"2026-12-06T03:00:00+05:00": "2026-12-06T03:00:00+05:00",
	} {
		got, err := parseTime(in, zurich)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("--at %q: %v, %v; want %s", in, got, err, want)
		}
	}
}

// TestRunWithAFactory runs "review doors" on a Factory a test fills, as
// package main fills it: the rows of the demo's main entrance, the zone of
// --tz, and --jq refused.
func TestRunWithAFactory(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	var out, errb bytes.Buffer
	f := &cmdutil.Factory{IOStreams: cmdutil.IOStreams{Out: &out, ErrOut: &errb},
		Getenv: func(string) string { return "" },
		Client: func() (*access.Client, error) { return srv.Client(), nil },
	}
	cmd := New(f)
	cmd.SetArgs([]string{"doors", "-o", "csv", "--tz", "Europe/Zurich", "--at", "2026-12-06 03:00"})
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v (%s)", err, errb.String())
	}
	if !strings.Contains(out.String(), ",Europe/Zurich,2026-12-06T03:00:00+01:00,Main entrance,"+accesstest.DemoDoorID+",Ada Lovelace,") {
		t.Errorf("no row of Ada at the main entrance, in Zurich:\n%.600s", out.String())
	}
	out.Reset()
	cmd = New(f)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetArgs([]string{"doors", "-o", "xml"})
	if err := cmd.Execute(); exitCode(err) != cmdutil.ExitUsage {
		t.Errorf("-o xml: %v, want a usage error", err)
	}
}

// exitCode is the exit code an error carries, 1 without one.
func exitCode(err error) int {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}
