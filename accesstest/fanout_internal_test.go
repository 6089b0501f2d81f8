package accesstest

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
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
	msgs := make([]qmsg, notifyQueue+10)
	for i := range msgs {
		msgs[i] = qmsg{b: []byte(strconv.Itoa(i))}
	}
	returned := make(chan struct{})
	go func() { s.notifyQueued(msgs); close(returned) }()
	<-slow.wake
	var got []qmsg
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
	assert.Equal(t, "0", string(got[0].b))
	assert.Equal(t, "9", string(got[9].b))
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
			var batch []qmsg
			b.ReportAllocs()
			for range b.N {
				s.NotifyRaw(msg)
				for _, sub := range subs {
					batch = sub.pop(batch[:0], notifyBatch)
					for _, m := range batch {
						m.raw.release()
					}
				}
			}
		})
	}
}

// NotifyRaw copies its caller's message into a pooled buffer that goes
// back only once every subscriber has written it: two sockets, one read
// slowly, get every message intact and in order while the caller reuses
// its own buffer and later messages reuse the pooled ones.
func TestNotifyRawBuffersGoBackOnlyOnceWritten(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := NewServer(WithKeepalive(0))
	defer s.Close()
	dial := func() *websocket.Conn {
		conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(s.URL(), "https")+apiPrefix+"/devices/notifications",
			&websocket.DialOptions{HTTPClient: s.HTTPClient(), HTTPHeader: http.Header{"Authorization": {"Bearer " + s.Token()}}})
		require.NoError(t, err)
		conn.SetReadLimit(1 << 20)
		_, _, err = conn.Read(ctx) // the handshake
		require.NoError(t, err)
		return conn
	}
	fast, slow := dial(), dial()
	defer fast.CloseNow()
	defer slow.CloseNow()
	require.NoError(t, s.WaitNotificationClients(ctx, 2))

	const n = 3000
	body := func(i int) string { return strconv.Itoa(i) + " " + strings.Repeat(string(rune('a'+i%26)), 50+i%700) }
	read := func(conn *websocket.Conn, pause func(int)) <-chan error {
		errs := make(chan error, 1)
		go func() {
			for i := range n {
				_, msg, err := conn.Read(ctx)
				if err != nil {
					errs <- err
					return
				}
				if string(msg) != body(i) {
					errs <- fmt.Errorf("message %d: got %.40q…", i, msg)
					return
				}
				pause(i)
			}
			errs <- nil
		}()
		return errs
	}
	fastDone := read(fast, func(int) {})
	slowDone := read(slow, func(i int) {
		if i%100 == 0 { // let the other socket and the sender run ahead
			runtime.Gosched()
		}
	})
	var buf []byte
	for i := range n {
		buf = append(buf[:0], body(i)...)
		s.NotifyRaw(buf)
		clear(buf) // the caller's buffer is its own again
	}
	require.NoError(t, <-fastDone)
	require.NoError(t, <-slowDone)
}

// A flood from NotifyRaw makes no garbage of its own once the pool is
// warm: its buffers come back when the subscribers have taken them.
func TestNotifyRawMakesNoGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	s := NewServer(WithKeepalive(0))
	defer s.Close()
	sub := newSub()
	s.notify.add(sub)
	defer close(sub.done)
	msg := []byte(`{"event":"access.logs.add","data":{"x":"` + strings.Repeat("y", 1000) + `"}}`)
	var batch []qmsg
	send := func() {
		s.NotifyRaw(msg)
		batch = sub.pop(batch[:0], notifyBatch)
		for _, m := range batch {
			m.raw.release()
		}
	}
	send()
	assert.Zero(t, testing.AllocsPerRun(1000, send))
}
