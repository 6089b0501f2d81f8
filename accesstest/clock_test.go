package accesstest_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
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
