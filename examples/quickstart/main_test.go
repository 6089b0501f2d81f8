package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func TestQuickstartOnEmbeddedFake(t *testing.T) {
	t.Setenv("ACCESS_URL", "")
	t.Setenv("ACCESS_TOKEN", "")
	require.NoError(t, run(context.Background()))
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
