package simulator_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/capture"
)

// TestFakeReplaysACapture: access fake --replay FILE --speed max serves
// the captured answer of GET /doors and, from the first subscription,
// plays the captured frames, which the SDK reads as captured; a bad
// --speed, or --speed without --replay, is a usage error.
func TestFakeReplaysACapture(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.Answer("Doors.List", "GET", "/doors", 200,
		[]byte(`{"code":"SUCCESS","msg":"success","data":[{"id":"d-1","name":"Back gate","type":"door"}]}`)))
	for i, ev := range []string{"access.hw.door_bell", "access.data.device.update", "access.hw.door_bell"} {
		require.NoError(t, w.Frame(time.Duration(i)*time.Hour, []byte(`{"event":"`+ev+`","event_object_id":"o-`+string(rune('1'+i))+`","data":{"device_id":"dev-1","door_name":"Back gate"}}`)))
	}
	require.NoError(t, w.Flush())
	file := filepath.Join(dir, "console.capture")
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o600))

	p := startFake(t, "--no-ui", "--replay", file, "--speed", "max")
	c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	doors, _, err := c.Doors.List(ctx)
	require.NoError(t, err)
	require.Len(t, doors, 1)
	assert.Equal(t, "d-1", doors[0].ID)
	assert.Regexp(t, `^name [0-9a-f]{8}$`, doors[0].Name, "as captured: pseudonymised")
	var events []string
	for n, err := range c.Notifications.Subscribe(ctx, nil) {
		require.NoError(t, err)
		events = append(events, string(n.Event)+" "+n.EventObjectID)
		if len(events) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"access.hw.door_bell o-1", "access.data.device.update o-2", "access.hw.door_bell o-3"}, events)

	for _, args := range [][]string{{"--replay", file, "--speed", "0"}, {"--replay", file, "--speed", "fast"}, {"--speed", "max"},
		{"--replay", filepath.Join(dir, "none")}} {
		code, stderr := runFake(t, append([]string{"--addr", "127.0.0.1:0"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, stderr)
	}
}
