package accesstest_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// unlockMany unlocks the demo door n times through the SDK, with a
// webhook endpoint that refuses every connection, and waits for the
// deliveries.
func unlockMany(t *testing.T, srv *accesstest.Server, n int) {
	t.Helper()
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: "http://127.0.0.1:1/dead", Name: "dead", Events: []access.EventType{access.EventDoorUnlock}})
	c := srv.Client(noRetry())
	for range n {
		_, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
		require.NoError(t, err)
	}
	require.NoError(t, srv.WaitDeliveries(ctx))
}

// TestRetentionBoundsHistory: with a Retention, the system log, the
// deliveries and the requests keep their newest entries only, and the
// API, the inspection methods and the state file all see the same
// bounded log.
func TestRetentionBoundsHistory(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return t0 }),
		accesstest.WithRetention(accesstest.Retention{SystemLogs: 5, Deliveries: 3, Requests: 4}))
	unlockMany(t, srv, 12)

	logs := srv.SystemLogs()
	require.Len(t, logs, 5)
	for _, e := range logs {
		assert.Equal(t, "access.door.unlock", e.Source.Event.Type, "the newest entries are the unlocks")
	}
	d := srv.Deliveries()
	require.Len(t, d, 3)
	for _, x := range d {
		assert.Error(t, x.Err, "the endpoint refuses")
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, accesstest.OpDoorsUnlock, reqs[3].Op)

	page, resp, err := srv.Client().SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageSize: 2})
	require.NoError(t, err)
	assert.Equal(t, 5, resp.Pagination.Total)
	require.Len(t, page, 2)
	assert.Equal(t, logs[4].ID, page[0].ID, "newest first")
	assert.Equal(t, logs[3].ID, page[1].ID)

	var buf bytes.Buffer
	require.NoError(t, srv.WriteState(&buf))
	var st struct {
		SystemLogs []json.RawMessage `json:"system_logs"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &st))
	assert.Len(t, st.SystemLogs, 5, "the state file keeps the bounded log")

	// A state with more entries than the bound is trimmed on reading.
	big := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return t0 }))
	unlockMany(t, big, 8)
	var bigState bytes.Buffer
	require.NoError(t, big.WriteState(&bigState))
	require.Greater(t, len(big.SystemLogs()), 5)
	require.NoError(t, srv.ReadState(&bigState))
	assert.Equal(t, logIDs(big.SystemLogs()[len(big.SystemLogs())-5:]), logIDs(srv.SystemLogs()), "the newest five")
}

// TestRetentionByAge: entries older than SystemLogAge on the fake's clock
// are dropped, from the list and its total.
func TestRetentionByAge(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return t0 }),
		accesstest.WithRetention(accesstest.Retention{SystemLogAge: 24 * time.Hour}))
	unlockMany(t, srv, 3)
	before := len(srv.SystemLogs())
	require.GreaterOrEqual(t, before, 3)
	srv.Advance(25 * time.Hour)
	_, resp, err := srv.Client().SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings})
	require.NoError(t, err)
	assert.Zero(t, resp.Pagination.Total, "a day later the unlocks are gone")
	for _, e := range srv.SystemLogs() {
		assert.False(t, e.Source.Event.Published.Time().Before(t0.Add(time.Hour)), "only what happened in the last day: %s", e.Source.Event.Type)
	}
}

// TestNoRetentionKeepsEverything: by default a test server keeps every
// entry, delivery and request.
func TestNoRetentionKeepsEverything(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	unlockMany(t, srv, 30)
	assert.GreaterOrEqual(t, len(srv.SystemLogs()), 30)
	assert.Len(t, srv.Deliveries(), 30)
	assert.Len(t, srv.RequestsFor(accesstest.OpDoorsUnlock), 30)
}

func logIDs(es []accesstest.SystemLogEntry) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].ID
	}
	return out
}
