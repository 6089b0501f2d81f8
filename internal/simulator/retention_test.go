package simulator_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// deadWebhookUnlocks registers a webhook endpoint that refuses every
// connection and unlocks the demo door n times.
func deadWebhookUnlocks(t testing.TB, c *access.Client, n int) {
	t.Helper()
	ctx := context.Background()
	_, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: "http://127.0.0.1:1/dead", Name: "dead",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	for range n {
		_, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
		require.NoError(t, err)
	}
}

// TestSiteKeepsItsHistoryBounded: the simulator's fake keeps the newest
// entries, deliveries and requests Config.Retention allows.
func TestSiteKeepsItsHistoryBounded(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, Retention: &accesstest.Retention{SystemLogs: 3, Deliveries: 2, Requests: 4}})
	deadWebhookUnlocks(t, sdkClient(t, st), 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, st.Fake.WaitDeliveries(ctx))
	assert.Len(t, st.Fake.SystemLogs(), 3)
	assert.Len(t, st.Fake.Deliveries(), 2)
	assert.Len(t, st.Fake.Requests(), 4)
}

// TestKeepFlagsBoundTheStateFile: `access fake --keep-logs 5` saves the
// newest five system-log entries, however many changes were made.
func TestKeepFlagsBoundTheStateFile(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state.json")
	p := startFake(t, "--state", state, "--keep-logs", "5", "--keep-log-days", "0", "--keep-requests", "1", "--keep-deliveries", "1")
	c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
	require.NoError(t, err)
	deadWebhookUnlocks(t, c, 20)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		require.NoError(t, err, "stderr: %s", p.stderr)
		p.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("access fake did not stop on SIGTERM")
	}
	b, err := os.ReadFile(state)
	require.NoError(t, err)
	var f struct {
		SystemLogs []struct {
			Entry access.SystemLog `json:"entry"`
		} `json:"system_logs"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.Len(t, f.SystemLogs, 5)
	unlocks := 0
	for _, e := range f.SystemLogs {
		if e.Entry.Source.Event.Type == "access.door.unlock" {
			unlocks++
		}
	}
	assert.GreaterOrEqual(t, unlocks, 4, "the newest entries: the last unlocks (and at most one relock)")
}
