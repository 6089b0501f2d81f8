package accesstest

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A subscriber that does not read is dropped once its queue is full; the
// fan-out never waits for it, and a subscriber that reads receives every
// message, in order.
func TestFanOutDropsASubscriberThatDoesNotRead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := NewServer(WithKeepalive(0))
	defer s.Close()
	s.notify.backlog = 64 << 10
	conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(s.URL(), "https")+apiPrefix+"/devices/notifications",
		&websocket.DialOptions{HTTPClient: s.HTTPClient(), HTTPHeader: http.Header{"Authorization": {"Bearer " + s.Token()}}})
	require.NoError(t, err)
	defer conn.CloseNow()
	require.NoError(t, s.WaitNotificationClients(ctx, 1))
	// The sleeper has no socket: nothing ever takes its messages.
	sleeper := newSub()
	s.notify.add(sleeper)
	defer close(sleeper.done)

	_, _, err = conn.Read(ctx) // the handshake
	require.NoError(t, err)
	const n = 100
	pad := strings.Repeat("x", 4<<10)
	for i := range n { // 400 KiB in all, past the sleeper's 64 KiB
		s.mu.Lock()
		s.fanOut([]byte(strconv.Itoa(i) + " " + pad))
		s.mu.Unlock()
		// The reader gets each message while the sleeper's queue grows,
		// and after it is dropped.
		_, msg, err := conn.Read(ctx)
		require.NoError(t, err)
		num, _, _ := strings.Cut(string(msg), " ")
		require.Equal(t, strconv.Itoa(i), num, "every message, in order")
	}
	select {
	case <-sleeper.kill:
	default:
		t.Fatal("the subscriber that does not read was not dropped")
	}
	assert.Equal(t, 1, s.NotificationClients(), "only the reader is left")
	s.notify.mu.Lock()
	assert.Equal(t, 1, s.notify.lagged)
	s.notify.mu.Unlock()
	sleeper.mu.Lock()
	assert.Zero(t, sleeper.queued, "its queue is let go")
	sleeper.mu.Unlock()
}

// Notify keeps a flood at the pace of its slowest reader: it returns once
// no subscriber has more than notifyQueue messages waiting.
func TestNotifyWaitsForRoom(t *testing.T) {
	s := NewServer(WithKeepalive(0))
	defer s.Close()
	slow := newSub()
	s.notify.add(slow)
	defer close(slow.done)
	msgs := make([][]byte, notifyQueue+10)
	for i := range msgs {
		msgs[i] = []byte(strconv.Itoa(i))
	}
	returned := make(chan struct{})
	go func() { s.notifyQueued(msgs); close(returned) }()
	<-slow.wake
	var got [][]byte
	for len(got) < 10 {
		got = slow.pop(got, 1)
		select {
		case <-returned:
			if len(got) < 10 {
				t.Fatalf("Notify returned with %d messages waiting", len(msgs)-len(got))
			}
		default:
		}
	}
	<-returned
	assert.Equal(t, "0", string(got[0]))
	assert.Equal(t, "9", string(got[9]))
}

// BenchmarkNotifyRaw hands one message to subs subscribers per op, their
// queues emptied as their sockets would (without the sockets): the
// fan-out's own cost.
func BenchmarkNotifyRaw(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := NewServer(WithKeepalive(0))
			defer s.Close()
			subs := make([]*wsSub, n)
			for i := range subs {
				subs[i] = newSub()
				s.notify.add(subs[i])
				defer close(subs[i].done)
			}
			msg := []byte(`{"event":"access.logs.add","data":{}}`)
			var batch [][]byte
			b.ReportAllocs()
			for range b.N {
				s.NotifyRaw(msg)
				for _, sub := range subs {
					batch = sub.pop(batch[:0], notifyBatch)
				}
			}
		})
	}
}
