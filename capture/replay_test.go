package capture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
)

// wantNotifications are the notifications the SDK yields for the frames
// of a capture: every frame it parses, but keepalives and handshakes.
func wantNotifications(t *testing.T, c *capture.Capture) []*access.Notification {
	t.Helper()
	var out []*access.Notification
	for _, f := range c.Frames {
		if f.Frame == nil {
			continue // a keepalive
		}
		n, err := access.ParseNotification(f.Frame)
		require.NoError(t, err)
		if n.Event != access.NotificationBaseInfo {
			out = append(out, n)
		}
	}
	return out
}

// TestCaptureReplaysTheSameNotifications: the simulator captured while a
// scenario plays, then replayed by accesstest.WithCapture: the SDK reads
// the notifications of the capture as written (pseudonymised), in order;
// the deliveries reach the endpoint registered on the replay, signed with
// its secret; the captured answers are served for their requests.
func TestCaptureReplaysTheSameNotifications(t *testing.T) {
	t.Parallel()
	st, c := startSite(t)
	got := captureScenario(t, st, c, shippedScenario(t, "fire-evacuation.yaml"))
	capt, err := capture.Read(bytes.NewReader(got.file))
	require.NoError(t, err)
	want := wantNotifications(t, capt)
	require.Greater(t, len(want), 5)
	require.NotEmpty(t, capt.Deliveries)

	srv := accesstest.New(t, accesstest.WithCapture(capt))
	// A receiver registered on the replay, with its own secret.
	const secret = "replay-secret"
	var mu sync.Mutex
	var bodies []string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if access.VerifySignature(b, r.Header.Get(access.SignatureHeader), secret) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
	}))
	defer recv.Close()
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "replay", Secret: secret, Events: access.AllEvents()})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := srv.Client()
	read := make(chan []*access.Notification, 1)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		var ns []*access.Notification
		for n, err := range client.Notifications.Subscribe(sctx, nil) {
			if err != nil {
				continue
			}
			ns = append(ns, n)
			if n.Event == "test.end" {
				break
			}
		}
		read <- ns
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	stats, err := srv.PlayCapture(ctx, math.Inf(1))
	require.NoError(t, err)
	assert.Equal(t, len(capt.Frames), stats.Frames)
	ns := <-read
	require.Len(t, ns, len(want))
	for i := range want {
		assert.Equal(t, want[i].Event, ns[i].Event, "notification %d", i)
		assert.Equal(t, want[i].EventObjectID, ns[i].EventObjectID, "notification %d", i)
		assert.JSONEq(t, string(orNull(want[i].Data)), string(orNull(ns[i].Data)), "notification %d", i)
	}
	mu.Lock()
	require.Len(t, bodies, len(capt.Deliveries), "every delivery, signed with the replay's secret")
	for i, d := range capt.Deliveries {
		assert.JSONEq(t, string(d.Body), bodies[i])
	}
	mu.Unlock()

	// The captured answers are served: the doors as captured (pseudonymised).
	doors, _, err := client.Doors.List(ctx)
	require.NoError(t, err)
	var captured struct {
		Data []access.Door `json:"data"`
	}
	for _, a := range capt.Answers {
		if a.Operation == "Doors.List" {
			require.NoError(t, json.Unmarshal(a.Body, &captured))
		}
	}
	require.NotEmpty(t, captured.Data)
	assert.Equal(t, captured.Data, doors)
	assert.Regexp(t, `^name [0-9a-f]{8}$`, doors[0].Name)
}

func orNull(b []byte) []byte {
	if b == nil {
		return []byte("null")
	}
	return b
}

// TestReplayKeepsTheRecordedSpacing: at speed 10 a frame recorded 200 ms
// after the first is sent no sooner than 20 ms after the play starts; advancing the
// fake's clock brings a frame forward.
func TestReplayKeepsTheRecordedSpacing(t *testing.T) {
	t.Parallel()
	c := &capture.Capture{Frames: []capture.Record{
		{Kind: capture.KindFrame, Offset: 0, Frame: []byte(`{"event":"a","data":null}`)},
		{Kind: capture.KindFrame, Offset: 200 * time.Millisecond, Frame: []byte(`{"event":"b","data":null}`)},
		{Kind: capture.KindFrame, Offset: time.Hour, Frame: []byte(`{"event":"c","data":null}`)},
	}}
	srv := accesstest.New(t, accesstest.WithCapture(c))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	type arrival struct {
		ev string
		at time.Time
	}
	got := make(chan arrival, 3)
	go func() {
		for n, err := range srv.Client().Notifications.Subscribe(ctx, nil) {
			if err == nil {
				got <- arrival{string(n.Event), time.Now()}
			}
		}
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	done := make(chan error, 1)
	// The play's clock starts inside PlayCapture, after t0: b is due 20 ms
	// after it at the earliest. (Measured from t0, not from a's arrival,
	// which a loaded machine may delay more than b's.)
	t0 := time.Now()
	go func() { _, err := srv.PlayCapture(ctx, 10); done <- err }()
	a := <-got
	b := <-got
	assert.Equal(t, "a", a.ev)
	assert.Equal(t, "b", b.ev)
	assert.GreaterOrEqual(t, b.at.Sub(t0), 20*time.Millisecond)
	srv.Advance(time.Hour) // the third is due 6 minutes on: now
	cc := <-got
	assert.Equal(t, "c", cc.ev)
	require.NoError(t, <-done)
}
