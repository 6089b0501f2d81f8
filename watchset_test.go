package access

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchSetArmsItsTimerOncePerBusyPeriod: a client's attempts join
// and leave its watch set without a timer operation of their own; the
// set's timer is armed once while attempts keep coming.
func TestWatchSetArmsItsTimerOncePerBusyPeriod(t *testing.T) {
	t.Parallel()
	s := &watchSet{limit: time.Hour}
	for range 1000 {
		var w idleWatch
		w.start(s, func() { t.Error("an attempt that kept flowing was cut") })
		w.waiting()
		w.arrived()
		w.waiting()
		w.arrived()
		w.stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Equal(t, 1, s.arms)
	assert.Nil(t, s.head, "watches left in the set")
}

// TestWatchSetActsOnlyOnWaitsThatRanOut: when the timer fires, only a
// watch whose current wait has lasted the limit is acted on (once) and
// leaves the set; a wait that began later, and a watch whose consumer
// holds what it read, stay, and the timer is armed again for the earliest
// moment one of them could run out.
func TestWatchSetActsOnlyOnWaitsThatRanOut(t *testing.T) {
	t.Parallel()
	const limit = time.Hour
	s := &watchSet{limit: limit}
	var calls [3]atomic.Int32
	ws := make([]*idleWatch, 3)
	for i := range ws {
		ws[i] = new(idleWatch)
		ws[i].start(s, func() { calls[i].Add(1) })
	}
	now := time.Since(idleEpoch)
	ws[0].since.Store(int64(now - limit - time.Second)) // waited longer than the limit
	ws[1].since.Store(int64(now - limit/2))             // waited half of it
	// ws[2] holds what it read: no wait on.
	s.check()
	s.check() // a second firing acts on nothing more
	assert.Equal(t, []int32{1, 0, 0}, []int32{calls[0].Load(), calls[1].Load(), calls[2].Load()})
	assert.True(t, ws[0].fired.Load())
	assert.False(t, ws[1].fired.Load())
	s.mu.Lock()
	assert.False(t, ws[0].linked)
	assert.True(t, ws[1].linked && ws[2].linked)
	assert.True(t, s.armed, "the timer is armed for the watches left")
	s.mu.Unlock()
	ws[0].stop() // a watch that fired stops without harm
	ws[1].stop()
	ws[2].stop()
	s.check()
	s.mu.Lock()
	assert.False(t, s.armed, "an empty set lets its timer run out")
	s.mu.Unlock()
}

// TestWatchSetTimerCutsAStalledWait: with a short limit, the set's own
// timer acts on a wait that does not end, and not on one of the same
// set whose consumer holds what it read.
func TestWatchSetTimerCutsAStalledWait(t *testing.T) {
	t.Parallel()
	s := &watchSet{limit: 20 * time.Millisecond}
	cut := make(chan struct{})
	var stalled, holding idleWatch
	holding.start(s, func() { t.Error("a watch with no wait on was cut") })
	stalled.start(s, func() { close(cut) })
	stalled.waiting()
	select {
	case <-cut:
	case <-time.After(10 * time.Second):
		require.Fail(t, "the stalled wait was never cut")
	}
	assert.True(t, stalled.fired.Load())
	assert.False(t, holding.fired.Load())
	holding.stop()
}

// TestAClientsCallsShareOneTimer: the request pipeline's attempts go
// through the client's watch set: 200 calls, each reading its answer,
// arm its timer once, and leave no watch behind.
func TestAClientsCallsShareOneTimer(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(time.Minute))
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"`+r.PathValue("id")+`"}}`)
	})
	for range 200 {
		u, _, err := c.Users.Get(context.Background(), "u1", nil)
		require.NoError(t, err)
		require.Equal(t, "u1", u.ID)
	}
	s := c.cfg.rc.HTTPClient.Transport.(*attemptTransport).watches
	require.NotNil(t, s)
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Equal(t, 1, s.arms, "timer armings for 200 calls")
	assert.Nil(t, s.head, "watches left in the set")
}
