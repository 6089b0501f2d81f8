package access

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayClient is a client whose notifications come from a recorded
// stream (see replayTransport); dials counts the upgrades.
func replayClient(t *testing.T, hello, cycle []byte) (*Client, *atomic.Int32) {
	t.Helper()
	c, dials, _ := replayClientSilent(t, hello, cycle)
	return c, dials
}

// replayClientSilent is replayClient whose connections also tell when a
// read waits on a silent stream.
func replayClientSilent(t *testing.T, hello, cycle []byte) (*Client, *atomic.Int32, <-chan struct{}) {
	t.Helper()
	var dials atomic.Int32
	silent := make(chan struct{}, 1)
	c, err := NewClient("https://console.test:12445", testToken,
		WithHTTPClient(&http.Client{Transport: replayTransport(hello, cycle, &dials, silent)}))
	require.NoError(t, err)
	return c, &dials, silent
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// publishedFrames are the payloads of replayFrames, decoded as the
// reference decoding reads them.
func publishedFrames(t *testing.T) []*Notification {
	t.Helper()
	var out []*Notification
	for _, name := range replayFrames {
		raw, err := os.ReadFile(filepath.Join("testdata", "notifications", name))
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, json.Compact(&buf, raw))
		n, err := referenceParse(buf.Bytes())
		require.NoError(t, err)
		out = append(out, n)
	}
	return out
}

// TestSubscribeYieldsIntactNotifications keeps every notification a
// subscription yields while the stream goes on: each still holds its own
// frame's values (the read buffer is reused; nothing yielded points into
// it), and the handshake is not yielded.
func TestSubscribeYieldsIntactNotifications(t *testing.T) {
	t.Parallel()
	hello, cycle, frames := replayStream(t)
	want := publishedFrames(t)
	c, dials := replayClient(t, hello, cycle)
	var got []*Notification
	for n, err := range c.Notifications.Subscribe(testContext(t), nil) {
		require.NoError(t, err)
		if got = append(got, n); len(got) == 5*frames {
			break
		}
	}
	for i, n := range got {
		assert.Equal(t, want[i%frames], n, "notification %d", i)
	}
	assert.Equal(t, int32(1), dials.Load())
}

// TestSubscribeAllocationsPerNotification reads the recorded stream of
// published frames through Subscribe: at most 8 allocations per
// notification (the reader this replaced made 52: a context per message,
// a new buffer per message, and about 35 in decoding the envelope).
func TestSubscribeAllocationsPerNotification(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	// Not parallel: it counts the process's allocations. The least of five
	// windows counts: goroutines other tests left behind can only add.
	hello, cycle, _ := replayStream(t)
	c, _ := replayClient(t, hello, cycle)
	const warm, window, windows = 100, 1000, 5
	var ms runtime.MemStats
	var mallocs, bytes uint64
	perEvent, perEventBytes := 1e9, 0.0
	n := 0
	for _, err := range c.Notifications.Subscribe(testContext(t), nil) {
		require.NoError(t, err)
		n++
		if n >= warm && (n-warm)%window == 0 {
			runtime.ReadMemStats(&ms)
			if n > warm {
				if pe := float64(ms.Mallocs-mallocs) / window; pe < perEvent {
					perEvent, perEventBytes = pe, float64(ms.TotalAlloc-bytes)/window
				}
			}
			mallocs, bytes = ms.Mallocs, ms.TotalAlloc
			if n == warm+windows*window {
				break
			}
		}
	}
	t.Logf("%.2f allocations, %.0f bytes per notification", perEvent, perEventBytes)
	assert.LessOrEqual(t, perEvent, 8.0)
}

// TestSubscribeSlowConsumerIsNotIdle: the time a consumer spends on a
// notification is not silence. The consumer below holds one for three idle
// timeouts (the sleep is the slow consumer, not a synchronisation); the
// stream goes on, on the same connection, without a gap.
func TestSubscribeSlowConsumerIsNotIdle(t *testing.T) {
	t.Parallel()
	hello, cycle, _ := replayStream(t)
	c, dials := replayClient(t, hello, cycle)
	opts := &SubscribeOptions{MinBackoff: time.Millisecond, IdleTimeout: 30 * time.Millisecond}
	n := 0
	for _, err := range c.Notifications.Subscribe(testContext(t), opts) {
		require.NoError(t, err)
		if n++; n == 3 {
			time.Sleep(3 * opts.IdleTimeout)
		}
		if n == 10 {
			break
		}
	}
	assert.Equal(t, int32(1), dials.Load(), "connections")
}

// TestSubscribeIdleOnASilentStream: a connection that goes silent after
// the handshake is dropped by the watchdog and replaced.
func TestSubscribeIdleOnASilentStream(t *testing.T) {
	t.Parallel()
	hello, _, _ := replayStream(t)
	c, dials := replayClient(t, hello, nil)
	opts := &SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, IdleTimeout: 20 * time.Millisecond}
	for _, err := range c.Notifications.Subscribe(testContext(t), opts) {
		var gap *ReconnectedError
		require.ErrorAs(t, err, &gap)
		assert.ErrorIs(t, gap, ErrStreamIdle)
		break
	}
	assert.Equal(t, int32(2), dials.Load(), "the silent connection was replaced")
}

// TestSubscribeCancelEndsASilentRead: cancelling ctx ends a read that is
// waiting on a silent connection at once, not at the idle timeout.
func TestSubscribeCancelEndsASilentRead(t *testing.T) {
	t.Parallel()
	hello, _, _ := replayStream(t)
	c, _, silent := replayClientSilent(t, hello, nil)
	opts := &SubscribeOptions{IdleTimeout: 5 * time.Second}
	ctx, cancel := context.WithCancel(testContext(t))
	var cancelled time.Time
	go func() {
		<-silent // the reader waits for the message after the handshake
		cancelled = time.Now()
		cancel()
	}()
	var errs []error
	for _, err := range c.Notifications.Subscribe(ctx, opts) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], context.Canceled), "%v", errs[0])
	assert.Less(t, time.Since(cancelled), opts.IdleTimeout, "the cancellation, not the watchdog, ended the read")
}

// TestReplayReadersReadTheSameNotifications keeps BenchmarkNotificationsReplay
// honest: its two readers, given the same recorded stream, read the same
// notifications in the same order (the handshake skipped by both), so that
// their rates compare the same work.
func TestReplayReadersReadTheSameNotifications(t *testing.T) {
	t.Parallel()
	hello, cycle, frames := replayStream(t)
	hc := &http.Client{Transport: replayTransport(hello, cycle, nil, nil)}
	const want = 3
	var base []*baselineNotification
	n, err := baselineReplayReader(testContext(t), hc, "https://console.test:12445", want*frames, func(v *baselineNotification) {
		c := *v
		base = append(base, &c)
	})
	require.NoError(t, err)
	require.Equal(t, want*frames, n)
	c, err := NewClient("https://console.test:12445", testToken, WithHTTPClient(hc))
	require.NoError(t, err)
	var sdk []*Notification
	for ev, err := range c.Notifications.Subscribe(testContext(t), nil) {
		require.NoError(t, err)
		if sdk = append(sdk, ev); len(sdk) == want*frames {
			break
		}
	}
	require.Len(t, base, len(sdk))
	for i, v := range base {
		s := sdk[i]
		assert.Equal(t, v.Event, string(s.Event), "notification %d", i)
		assert.NotEqual(t, "access.base.info", v.Event, "notification %d", i)
		assert.Equal(t, v.ReceiverID, s.ReceiverID, "notification %d", i)
		assert.Equal(t, v.EventObjectID, s.EventObjectID, "notification %d", i)
		assert.Equal(t, v.SaveToHistory, s.SaveToHistory, "notification %d", i)
		assert.Equal(t, string(v.Data), string(s.Data), "notification %d", i)
		assert.Equal(t, string(v.Meta), string(s.Meta), "notification %d", i)
	}
	// Every published frame is among them, in the recorded order.
	for i := range frames {
		assert.Equal(t, sdk[i].Event, sdk[i+frames].Event)
	}
}
