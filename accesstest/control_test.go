package accesstest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func TestHoldDoorOpenClosesOnTheClock(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	eff, err := srv.Caused(func() error { return srv.HoldDoorOpen(accesstest.DemoDoorID, 90*time.Second) })
	require.NoError(t, err)
	require.Len(t, eff.Events, 1)
	assert.Equal(t, access.EventDeviceDPSStatus, eff.Events[0].Event)
	assert.Len(t, eff.SystemLogs, 1)
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorOpen, d.PositionStatus)
	srv.Advance(89 * time.Second)
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorOpen, d.PositionStatus)
	eff, err = srv.Caused(func() error { srv.Advance(time.Second); return nil })
	require.NoError(t, err)
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorClosed, d.PositionStatus)
	require.Len(t, eff.Events, 1)
	assert.Equal(t, access.EventDeviceDPSStatus, eff.Events[0].Event)
	assert.Error(t, srv.HoldDoorOpen(accesstest.DemoDoorID, 0))
	assert.ErrorIs(t, srv.HoldDoorOpen("nope", time.Second), accesstest.ErrNoDoor)
}

func TestOfflineDeviceRingsNoDoorbell(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoIntercomID, false))
	_, err := srv.RingDoorbell(accesstest.DemoIntercomID)
	assert.ErrorIs(t, err, accesstest.ErrNotSupported)
	dev := findDevice(t, srv, accesstest.DemoIntercomID)
	assert.False(t, dev.IsOnline)
	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoIntercomID, true))
	assert.True(t, findDevice(t, srv, accesstest.DemoIntercomID).IsOnline)
	_, err = srv.RingDoorbell(accesstest.DemoIntercomID)
	assert.NoError(t, err)
	assert.ErrorIs(t, srv.SetDeviceOnline("nope", true), accesstest.ErrNoDevice)
}

func findDevice(t *testing.T, srv *accesstest.Server, id string) access.Device {
	t.Helper()
	for _, d := range srv.DeviceList().Devices() {
		if d.ID == id {
			return d
		}
	}
	t.Fatalf("no device %s", id)
	return access.Device{}
}

func TestResetKeepsTheTokenAndForgetsTheRest(t *testing.T) {
	srv := accesstest.New(t)
	srv.AddUser(access.User{FirstName: "Ada"})
	srv.Inject(accesstest.OpDoorsList, accesstest.Fault{Status: 503})
	require.NoError(t, srv.Reset(true))
	assert.Len(t, srv.Users(), accesstest.DemoUserCount)
	doors, _, err := srv.Client().Doors.List(context.Background())
	require.NoError(t, err, "the token stays and the fault is gone")
	assert.NotEmpty(t, doors)
	require.NoError(t, srv.Reset(false))
	assert.Empty(t, srv.Users())
	assert.Empty(t, srv.Doors())
}

func TestDeliveriesSinceWaitsForTheNext(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	got := make(chan *http.Request, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got <- r }))
	t.Cleanup(recv.Close)
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Events: []access.EventType{access.EventDeviceDPSStatus}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan accesstest.Journal[accesstest.Delivery], 1)
	go func() {
		j, _ := srv.DeliveriesSince(ctx, 0, true)
		done <- j
	}()
	eff, err := srv.Caused(func() error { return srv.SetDoorPosition(accesstest.DemoDoorID, true) })
	require.NoError(t, err)
	assert.Equal(t, 0, eff.DeliveriesSince)
	j := <-done
	require.Len(t, j.Items, 1)
	assert.Equal(t, 1, j.First)
	assert.Equal(t, 1, j.Next)
	assert.Equal(t, http.StatusOK, j.Items[0].StatusCode)
	r := <-got
	assert.Equal(t, r.Header.Get(access.SignatureHeader), j.Items[0].Signature)
	// Nothing after the cursor: a short wait ends with the context.
	short, cancel2 := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel2()
	j, err = srv.DeliveriesSince(short, j.Next, true)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Empty(t, j.Items)
	assert.Equal(t, 1, j.Next)
}

func TestRequestsSinceCountsDropped(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithRetention(accesstest.Retention{Requests: 2}))
	c := srv.Client()
	for range 5 {
		_, _, _ = c.Doors.List(context.Background())
	}
	j, err := srv.RequestsSince(context.Background(), 1, false)
	require.NoError(t, err)
	assert.Len(t, j.Items, 2)
	assert.Equal(t, 4, j.First)
	assert.Equal(t, 5, j.Next)
	assert.Equal(t, 2, j.Dropped)
}

func TestInjectOpAny(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	srv.Inject(accesstest.OpAny, accesstest.Fault{Status: 503, Times: 2})
	c := srv.Client(access.WithRetryPolicy(access.RetryPolicy{}))
	_, _, err := c.Doors.List(context.Background())
	assert.ErrorIs(t, err, access.ErrServer)
	_, _, err = c.Users.List(context.Background(), nil)
	assert.ErrorIs(t, err, access.ErrServer)
	_, _, err = c.Users.List(context.Background(), nil)
	assert.NoError(t, err, "times: 2")
}

func TestWithSeedReplaysIDs(t *testing.T) {
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	run := func(opts ...accesstest.Option) (string, string, string, []byte) {
		srv := accesstest.New(t, append([]accesstest.Option{accesstest.WithDemoData(),
			accesstest.WithClock(func() time.Time { return start })}, opts...)...)
		req, err := srv.RingDoorbell(accesstest.DemoIntercomID)
		require.NoError(t, err)
		u := srv.AddUser(access.User{FirstName: "Seed"})
		logs := srv.SystemLogs()
		b, err := json.Marshal(logs[len(logs)-1])
		require.NoError(t, err)
		return srv.Token(), req, u.ID, b
	}
	tok1, req1, id1, log1 := run(accesstest.WithSeed(42))
	tok2, req2, id2, log2 := run(accesstest.WithSeed(42))
	assert.Equal(t, tok1, tok2)
	assert.Equal(t, req1, req2)
	assert.Equal(t, id1, id2)
	assert.Equal(t, string(log1), string(log2))
	_, req3, id3, _ := run(accesstest.WithSeed(43))
	assert.NotEqual(t, req1, req3)
	assert.NotEqual(t, id1, id3)
	_, req4, _, _ := run()
	assert.NotEqual(t, req1, req4)
}

// TestCausedCursorIgnoresDeliveryTiming: an act's DeliveriesSince counts
// the deliveries caused before it, made or not, so that it does not
// depend on how fast the receiver answers; read from it, the journal
// starts with the act's own delivery.
func TestCausedCursorIgnoresDeliveryTiming(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	release := make(chan struct{})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	t.Cleanup(recv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Events: []access.EventType{access.EventDeviceDPSStatus}})
	var effs []accesstest.Effects
	for _, open := range []bool{true, false, true} {
		eff, err := srv.Caused(func() error { return srv.SetDoorPosition(accesstest.DemoDoorID, open) })
		require.NoError(t, err)
		require.Len(t, eff.Events, 1)
		effs = append(effs, eff)
	}
	// The receiver has answered nothing yet: the first delivery hangs.
	assert.Equal(t, 0, effs[0].DeliveriesSince)
	assert.Equal(t, 1, effs[1].DeliveriesSince, "one delivery caused before, not yet made")
	assert.Equal(t, 2, effs[2].DeliveriesSince)
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	j, err := srv.DeliveriesSince(ctx, effs[2].DeliveriesSince, true)
	require.NoError(t, err)
	require.Len(t, j.Items, 1)
	assert.Equal(t, 3, j.First)
	assert.Contains(t, string(j.Items[0].Payload), effs[2].Events[0].ID, "the act's own delivery")
}
