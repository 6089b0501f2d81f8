package main

import (
	"bufio"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func TestRunOnTheFake(t *testing.T) {
	t.Setenv("ACCESS_URL", "")
	t.Setenv("ACCESS_TOKEN", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, &out); err != nil {
		t.Fatal(err)
	}
	// Call ids are random: the two doorbell lines must name the same one.
	calls := regexp.MustCompile(`call ([0-9a-f]{8})`).FindAllStringSubmatch(out.String(), -1)
	if len(calls) != 2 || calls[0][1] != calls[1][1] {
		t.Fatalf("doorbell call ids %v in:\n%s", calls, out.String())
	}
	got := strings.ReplaceAll(out.String(), calls[0][1], "CALLID")
	want := `Watching the embedded fake controller (set ACCESS_URL and ACCESS_TOKEN for a console).
doorbell: UA Intercom Main rings at Main entrance (call CALLID)
doorbell: call CALLID cancelled by the visitor
unlocked remotely: Main entrance
  who and how: Front desk (open_api) opened Main entrance, Access Granted (Remote)
emergency: lockdown true, evacuation false
emergency: lockdown false, evacuation false
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunAgainstAConsole runs the console path against a fake standing in
// for a console, in both modes (direct, and through a UniFi OS console's
// proxy): it prints what the console sends until it is stopped.
func TestRunAgainstAConsole(t *testing.T) {
	accesstest.ForEachMode(t, eventsAgainst)
}

func eventsAgainst(t *testing.T, mode access.Mode) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	t.Setenv("ACCESS_URL", srv.URLFor(mode))
	t.Setenv("ACCESS_TOKEN", srv.Token())
	t.Setenv("ACCESS_FINGERPRINT", srv.Fingerprint())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	lines := bufio.NewScanner(pr)
	require.True(t, lines.Scan())
	assert.Equal(t, "Watching "+srv.URLFor(mode)+"; Ctrl-C to stop.", lines.Text())
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	require.NoError(t, srv.Notify(&access.Notification{Event: access.NotificationSettingUpdate, Data: []byte(`{"evacuation":true,"lockdown":false}`)}))
	require.True(t, lines.Scan())
	assert.Equal(t, "emergency: lockdown false, evacuation true", lines.Text())
	cancel()
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	assert.ErrorIs(t, <-done, context.Canceled)
}
