package accesstest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// A timer noticed late (the base clock moved by itself, no Advance) runs
// with the clock at its due time: its event and log entry carry that
// time, not the time it was noticed.
func TestLateTimerFiresAtItsDueTime(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	var now atomic.Int64
	now.Store(t0.UnixNano())
	st.srv.SetNow(func() time.Time { return time.Unix(0, now.Load()).UTC() })

	_, err := st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 1})
	require.NoError(t, err)
	due := t0.Add(time.Minute)
	now.Store(t0.Add(time.Hour).UnixNano()) // an hour passes unnoticed
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA), "the read notices the expired rule")

	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventTemporaryUnlockStart, access.EventTemporaryUnlockEnd}, names(evs))
	assert.JSONEq(t, `{"lock_rule":"custom","ended_time":`+jsonInt(due.Unix())+`}`, string(evs[1].Data.Object))
	logs := st.srv.SystemLogs()
	require.Len(t, logs, 2)
	assert.True(t, logs[1].Time().Equal(due), "logged at %v, due %v", logs[1].Time(), due)
	assert.True(t, st.srv.Now().Equal(t0.Add(time.Hour)), "the clock reads the base clock again")
}

// waitFor reads notifications until one satisfies ok, failing the test
// if none does within 10 seconds.
func waitFor(t *testing.T, ch <-chan *access.Notification, what string, ok func(*access.Notification) bool) *access.Notification {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case n := <-ch:
			if ok(n) {
				return n
			}
		case <-deadline.C:
			t.Fatalf("no %s within 10 s", what)
			return nil
		}
	}
}

// With WithLiveTimers an unanswered doorbell times out on its own, on the
// real clock: the subscriber gets access.remote_view.change although no
// request reaches the fake after the ring. Advance brings the timeout to
// 50 ms ahead and wakes the timer goroutine, which then sleeps until it
// falls due.
func TestLiveTimersRunWithoutARequest(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithLiveTimers())
	ws := subscribe(t, srv)
	id, err := srv.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	requests := len(srv.Requests())

	srv.Advance(accesstest.DoorbellRingTimeout - 50*time.Millisecond)
	n := waitFor(t, ws, "access.remote_view.change", func(n *access.Notification) bool {
		return n.Event == access.NotificationRemoteViewChange
	})
	v, err := n.RemoteViewChange()
	require.NoError(t, err)
	assert.Equal(t, id, v.RemoteCallRequestID)
	assert.Equal(t, access.RemoteViewReason(105), v.ReasonCode, "timed out")
	assert.Len(t, srv.Requests(), requests, "no request ran the timer")
	_, ringing := srv.Ringing(accesstest.DemoIntercomID)
	assert.False(t, ringing)
}

// The timer goroutine is woken when a timer is scheduled: with no timer
// pending it sleeps with no deadline, and a visitor created through the
// API to arrive at the next whole second but one becomes VISITING at that
// time, with its access.logs.add notification, and no further request.
func TestLiveTimersWakeForANewTimer(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithLiveTimers())
	ws := subscribe(t, srv)
	start := time.Now().Truncate(time.Second).Add(2 * time.Second)
	v, _, err := srv.Client().Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Vera", LastName: "Visitor",
		StartTime: start, EndTime: start.Add(time.Hour), VisitReason: access.VisitReasonBusiness})
	require.NoError(t, err)
	assert.Equal(t, access.VisitorStatusUpcoming.String(), v.Status)
	requests := len(srv.Requests())

	n := waitFor(t, ws, "the visitor's status change", func(n *access.Notification) bool {
		e, err := n.LogsAdd()
		return n.Event == access.NotificationLogsAdd && err == nil && e.Source.Event.Type == string(access.EventVisitorStatusChanged)
	})
	e, err := n.LogsAdd()
	require.NoError(t, err)
	assert.Equal(t, start.UnixMilli(), int64(e.Source.Event.Published), "logged at the start time")
	assert.Len(t, srv.Requests(), requests, "no request ran the timer")
	vs := srv.Visitors()
	require.Len(t, vs, 1)
	assert.Equal(t, access.VisitorStatusVisiting.String(), vs[0].Status)
}
