package accesstest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// Close returns only once the delivery goroutine (here in the middle of a
// delivery to a receiver that never answers) and every WebSocket
// connection's goroutine have ended.
func TestCloseWaitsForItsGoroutines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := NewServer()
	var once sync.Once
	inFlight := make(chan struct{})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server notices the client going away
		once.Do(func() { close(inFlight) })
		<-r.Context().Done() // never answers
	}))
	defer recv.Close()
	s.AddFloor("f1", "Floor")
	s.AddDoor(access.Door{ID: "d1", Name: "Door", FloorID: "f1", IsBindHub: true})
	s.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "slow", Events: access.AllEvents()})

	for range 2 {
		conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(s.URL(), "https")+apiPrefix+"/devices/notifications",
			&websocket.DialOptions{HTTPClient: s.HTTPClient(), HTTPHeader: http.Header{"Authorization": {"Bearer " + s.Token()}}})
		require.NoError(t, err)
		defer conn.CloseNow()
	}
	require.NoError(t, s.WaitNotificationClients(ctx, 2))
	_, err := s.Client().Doors.Unlock(ctx, "d1", nil)
	require.NoError(t, err)
	select {
	case <-inFlight:
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	assert.Equal(t, int32(3), s.life.live.Load(), "the delivery goroutine and two sockets")

	s.Close()
	assert.Equal(t, int32(0), s.life.live.Load(), "Close waited for all of them")
	d := s.Deliveries()
	require.Len(t, d, 1)
	assert.Error(t, d[0].Err, "the delivery was cut off")

	// After Close nothing starts: a notification is dropped at once.
	assert.NoError(t, s.Notify(&access.Notification{Event: "test.after"}))
	s.mu.Lock()
	s.publish(change{Log: "after close"})
	s.mu.Unlock()
	assert.NoError(t, s.WaitDeliveries(ctx))
	assert.Equal(t, int32(0), s.life.live.Load())
}

// The live-timer goroutine of WithLiveTimers counts as the server's own:
// Close stops it, with a timer pending, and waits for it.
func TestCloseStopsTheLiveTimers(t *testing.T) {
	s := NewServer(WithDemoData(), WithLiveTimers())
	assert.Equal(t, int32(1), s.life.live.Load(), "the timer goroutine")
	_, err := s.RingDoorbell(DemoIntercomID)
	require.NoError(t, err)
	s.Close()
	assert.Equal(t, int32(0), s.life.live.Load(), "Close waited for it")
	_, ringing := s.Ringing(DemoIntercomID)
	assert.True(t, ringing, "the pending timer did not run")
}

// Without WithLiveTimers there is no timer goroutine.
func TestNoLiveTimersByDefault(t *testing.T) {
	s := NewServer()
	defer s.Close()
	assert.Equal(t, int32(0), s.life.live.Load())
	assert.Nil(t, s.clock.wake)
}
