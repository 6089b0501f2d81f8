package main

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func TestQuickstartOnEmbeddedFake(t *testing.T) {
	t.Setenv("ACCESS_URL", "")
	t.Setenv("ACCESS_TOKEN", "")
	out := captureStdout(t, func() { require.NoError(t, run(context.Background())) })
	// The doors read as words, and a list cut short says how many more
	// there are (issue 34: it printed "lock lock" and 3 of 8 doors).
	assert.Contains(t, out, "\n  Main entrance        locked, closed\n")
	assert.Contains(t, out, "\n  Loading dock         locked, no door position sensor\n")
	assert.Contains(t, out, "\n  … and 5 more\n")
	assert.NotContains(t, out, "lock lock")
}

// captureStdout runs fn with os.Stdout going to a pipe and returns what
// it wrote.
func captureStdout(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	old := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = old }()
	fn()
	os.Stdout = old
	require.NoError(t, w.Close())
	return <-got
}

// TestQuickstartAgainstAConsole runs the console path against a fake
// standing in for a console, in both modes (ACCESS_URL the API port, or a
// UniFi OS console's proxy with the token as an X-API-KEY): pinned
// certificate, read-only by default.
func TestQuickstartAgainstAConsole(t *testing.T) {
	accesstest.ForEachMode(t, quickstartAgainst)
}

func quickstartAgainst(t *testing.T, mode access.Mode) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	t.Setenv("ACCESS_URL", srv.URLFor(mode))
	t.Setenv("ACCESS_TOKEN", srv.Token())
	t.Setenv("ACCESS_FINGERPRINT", srv.Fingerprint())
	t.Setenv("ACCESS_DEVICE_ID", accesstest.DemoDeviceID)
	t.Setenv("ACCESS_SEARCH", "057B")
	t.Setenv("ACCESS_SCHEDULE_ID", accesstest.DemoScheduleID)
	t.Setenv("ACCESS_WRITE", "")
	require.NoError(t, run(context.Background()))
	for _, r := range srv.Requests() {
		assert.Equal(t, "GET", r.Method, "read-only unless ACCESS_WRITE=1: %s %s", r.Method, r.Path)
		assert.Equal(t, mode, r.Mode, "%s %s", r.Method, r.Path)
	}
	assert.NotEmpty(t, srv.RequestsFor(accesstest.OpUsersGet), "the first visitor's inviter is fetched")

	t.Setenv("ACCESS_WRITE", "1")
	t.Setenv("ACCESS_WEBHOOK_URL", "https://receiver.example/hook")
	before, _ := srv.Device(accesstest.DemoDeviceID)
	require.NoError(t, run(context.Background()))
	after, _ := srv.Device(accesstest.DemoDeviceID)
	assert.Equal(t, before, after, "a console's settings are written back unchanged")
	assert.Len(t, srv.RequestsFor(accesstest.OpWebhooksCreate), 1)
	assert.Empty(t, srv.Webhooks(), "and the endpoint is deleted again")
	assert.Empty(t, srv.RequestsFor(accesstest.OpTouchPassesPurchase), "never buys on a console")
}
