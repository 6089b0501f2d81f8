package accesstest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
)

// arrival is a notification read from a replay and when it was read.
type arrival struct {
	event string
	at    time.Time
}

// readArrivals subscribes to srv's stream and sends each notification
// read, with the real time it was read; it returns once subscribed.
func readArrivals(ctx context.Context, t *testing.T, srv *accesstest.Server) <-chan arrival {
	t.Helper()
	got := make(chan arrival, 64)
	go func() {
		for n, err := range srv.Client().Notifications.Subscribe(ctx, nil) {
			if err == nil {
				got <- arrival{string(n.Event), time.Now()}
			}
		}
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	return got
}

// framesEvery is a capture of n frames, events f0, f1, …, one every gap.
func framesEvery(n int, gap time.Duration) *capture.Capture {
	c := &capture.Capture{}
	for i := range n {
		c.Frames = append(c.Frames, capture.Record{Kind: capture.KindFrame, Offset: time.Duration(i) * gap,
			Frame: fmt.Appendf(nil, `{"event":"f%d","data":null}`, i)})
	}
	return c
}

// TestPlayCaptureSendsEachFrameWhenDue: at recorded speed on the real
// clock, the frames arrive in order and none before its offset from the
// play's start (an arrival follows its send, and the play starts after
// t0), and the lateness ReplayStats reports is no more than the reader
// saw. On a clock that only the test moves, each frame is sent once the
// clock reaches it and not before, and ReplayStats tells exactly how
// late: a frame sent early would show a negative lateness, and change
// the median or the maximum. A cancelled context ends the play in
// whichever step of its wait it is. Nothing here depends on how loaded
// the machine is.
func TestPlayCaptureSendsEachFrameWhenDue(t *testing.T) {
	t.Parallel()
	t.Run("real clock", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		const n, gap = 20, 2 * time.Millisecond
		c := framesEvery(n, gap)
		srv := accesstest.New(t, accesstest.WithCapture(c))
		got := readArrivals(ctx, t, srv)
		t0 := time.Now()
		st, err := srv.PlayCapture(ctx, 1)
		require.NoError(t, err)
		var seen time.Duration // the latest arrival past its offset from t0
		for i, f := range c.Frames {
			a := <-got
			require.Equal(t, fmt.Sprintf("f%d", i), a.event, "in order")
			require.GreaterOrEqual(t, a.at.Sub(t0), f.Offset, "frame %d arrived before it was due", i)
			seen = max(seen, a.at.Sub(t0)-f.Offset)
		}
		assert.Equal(t, n, st.Frames)
		assert.GreaterOrEqual(t, st.LateP50, time.Duration(0))
		assert.LessOrEqual(t, st.LateP50, st.LateP99)
		assert.LessOrEqual(t, st.LateP99, st.Late)
		assert.LessOrEqual(t, st.Late, seen, "sent no later than read")
	})

	t.Run("moved clock", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		base := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
		c := framesEvery(3, 10*time.Millisecond) // due at 0, 10 and 20 ms
		srv := accesstest.New(t, accesstest.WithCapture(c), accesstest.WithClock(func() time.Time { return base }))
		got := readArrivals(ctx, t, srv)
		done := make(chan accesstest.ReplayStats, 1)
		go func() {
			st, err := srv.PlayCapture(ctx, 1)
			assert.NoError(t, err)
			done <- st
		}()
		// Each is read before the clock moves on.
		assert.Equal(t, "f0", (<-got).event) // due at the start: 0 late
		srv.Advance(12 * time.Millisecond)
		assert.Equal(t, "f1", (<-got).event) // 2 ms late
		srv.Advance(13 * time.Millisecond)
		assert.Equal(t, "f2", (<-got).event) // 5 ms late
		st := <-done
		assert.Equal(t, 3, st.Frames)
		assert.Equal(t, 2*time.Millisecond, st.LateP50)
		assert.Equal(t, 5*time.Millisecond, st.LateP99)
		assert.Equal(t, 5*time.Millisecond, st.Late)
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// f1 is due 1 ms on, on a clock that stands still: the play waits
		// in short sleeps and yields, then on its timer, over and over.
		base := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
		c := framesEvery(2, time.Millisecond)
		srv := accesstest.New(t, accesstest.WithCapture(c), accesstest.WithClock(func() time.Time { return base }))
		got := readArrivals(ctx, t, srv)
		play, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			st, err := srv.PlayCapture(play, 1)
			assert.Equal(t, 1, st.Frames)
			done <- err
		}()
		assert.Equal(t, "f0", (<-got).event)
		stop()
		assert.ErrorIs(t, <-done, context.Canceled)
	})
}
