package accesstest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

var quick = &access.SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, IdleTimeout: 10 * time.Second}

func consoleCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func ring(id string) *access.Notification {
	return &access.Notification{Event: access.NotificationDoorBell, EventObjectID: "door-1",
		Data: json.RawMessage(`{"door_id":"door-1","door_name":"Front Door","request_id":"` + id + `"}`)}
}

// TestBothLayoutsOnOneListener: the same server answers the direct layout
// with a bearer token and the proxy layout with an X-API-KEY, records the
// layout of each request and redacts both credentials.
func TestBothLayoutsOnOneListener(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	_, ok := srv.ModeUsed()
	assert.False(t, ok, "no request yet")
	for _, mode := range []access.Mode{access.ModeDirect, access.ModeProxy} {
		t.Run(mode.String(), func(t *testing.T) {
			only := accesstest.New(t, accesstest.WithDemoData())
			_, _, err := only.ClientFor(mode).Doors.List(consoleCtx(t))
			require.NoError(t, err)
			used, ok := only.ModeUsed()
			assert.True(t, ok)
			assert.Equal(t, mode, used, "every request in one mode")

			c := srv.ClientFor(mode)
			assert.Equal(t, mode, c.Mode())
			doors, _, err := c.Doors.List(consoleCtx(t))
			require.NoError(t, err)
			assert.NotEmpty(t, doors)
		})
	}
	direct, proxy := srv.RequestsByMode()
	assert.Equal(t, 1, direct)
	assert.Equal(t, 1, proxy)
	_, ok = srv.ModeUsed()
	assert.False(t, ok, "requests in both modes")
	reqs := srv.RequestsFor(accesstest.OpDoorsList)
	require.Len(t, reqs, 2)
	assert.Equal(t, access.ModeDirect, reqs[0].Mode)
	assert.Equal(t, "/api/v1/developer/doors", reqs[0].Path)
	assert.Equal(t, "Bearer REDACTED", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, access.ModeProxy, reqs[1].Mode)
	assert.Equal(t, "/proxy/access/integration/v1/developer/doors", reqs[1].Path)
	assert.Equal(t, "REDACTED", reqs[1].Header.Get("X-API-KEY"))
	assert.Empty(t, reqs[1].Header.Get("Authorization"))
}

// TestCredentialInTheOtherLayoutsHeader: a token sent as a bearer where a
// key is expected, and a key sent as X-API-KEY on the direct port, are
// refused, and the error says which header was used.
func TestCredentialInTheOtherLayoutsHeader(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	for _, tc := range []struct {
		mode   access.Mode
		header string
	}{{access.ModeProxy, "Authorization"}, {access.ModeDirect, "X-API-KEY"}} {
		c := srv.ClientFor(tc.mode, access.WithAuthHeader(tc.header))
		_, _, err := c.Doors.List(consoleCtx(t))
		require.ErrorIs(t, err, access.ErrUnauthorized, tc.mode)
		assert.ErrorContains(t, err, "(credential sent in the "+tc.header+" header)")
		assert.NotContains(t, fmt.Sprintf("%v %+v", err, err), srv.Token())
	}
}

// TestOlderProxySocket: firmware that serves the socket only at the older
// proxy path; the client finds it after a 404 and says which it used.
func TestOlderProxySocket(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithOlderProxySocket())
	c := srv.ProxyClient()
	ctx := consoleCtx(t)
	go func() {
		if srv.WaitNotificationClients(ctx, 1) == nil {
			_ = srv.Notify(ring("r1"))
		}
	}()
	for n, err := range c.Notifications.Subscribe(ctx, quick) {
		require.NoError(t, err)
		assert.Equal(t, access.NotificationDoorBell, n.Event)
		break
	}
	assert.Equal(t, "/proxy/access/api/v1/developer/devices/notifications", c.Notifications.SocketPath())
	var paths []string
	for _, r := range srv.RequestsFor(accesstest.OpNotificationsSubscribe) {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{
		"/proxy/access/integration/v1/developer/devices/notifications",
		"/proxy/access/api/v1/developer/devices/notifications",
	}, paths)

	// The direct path still serves it.
	d := srv.Client()
	go func() {
		if srv.WaitNotificationConnections(ctx, 2) == nil {
			_ = srv.Notify(ring("r2"))
		}
	}()
	for _, err := range d.Notifications.Subscribe(ctx, quick) {
		require.NoError(t, err)
		break
	}
	assert.Equal(t, "/api/v1/developer/devices/notifications", d.Notifications.SocketPath())
}

// statusSpy observes the notifications upgrades' statuses and moves the
// server's clock on when it sees one, so that a restart's phases end
// exactly when the client has met them.
type statusSpy struct {
	rt  http.RoundTripper
	mu  sync.Mutex
	saw []int
	on  func(status int)
}

func (s *statusSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.rt.RoundTrip(r)
	if err == nil && resp.StatusCode != http.StatusSwitchingProtocols {
		s.mu.Lock()
		s.saw = append(s.saw, resp.StatusCode)
		s.mu.Unlock()
		s.on(resp.StatusCode)
	}
	return resp, err
}

// TestRestartWindow: the console restarts while a subscription streams;
// its proxy answers 502 and then 401; the subscription reports the outage
// once and resumes with its gap signal, in proxy mode.
func TestRestartWindow(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	spy := &statusSpy{}
	spy.on = func(status int) {
		if status == http.StatusBadGateway || status == http.StatusUnauthorized {
			srv.Advance(time.Hour) // to the next phase
		}
	}
	c := srv.ProxyClient(access.WithTransportWrapper(func(rt http.RoundTripper) http.RoundTripper { spy.rt = rt; return spy }))
	ctx := consoleCtx(t)
	go func() {
		if srv.WaitNotificationClients(ctx, 1) == nil {
			_ = srv.Notify(ring("before"))
		}
	}()
	var got []string
	for n, err := range c.Notifications.Subscribe(ctx, quick) {
		var de *access.DisconnectedError
		var re *access.ReconnectedError
		switch {
		case errors.As(err, &de):
			var ae *access.APIError
			require.ErrorAs(t, de.Cause, &ae)
			got = append(got, fmt.Sprintf("down: HTTP %d", ae.StatusCode))
			continue
		case errors.As(err, &re):
			var ae *access.APIError
			require.ErrorAs(t, re.LastAttemptErr, &ae)
			got = append(got, fmt.Sprintf("back; last refusal HTTP %d", ae.StatusCode))
			go func() {
				// The client may see the upgrade before the server has
				// registered the connection: wait for it.
				if srv.WaitNotificationConnections(ctx, 2) == nil {
					_ = srv.Notify(ring("after"))
				}
			}()
			continue
		}
		require.NoError(t, err)
		v, err := n.DoorBell()
		require.NoError(t, err)
		got = append(got, v.RequestID)
		if v.RequestID == "after" {
			break
		}
		srv.Restart(time.Hour, time.Hour)
	}
	assert.Equal(t, []string{"before", "down: HTTP 502", "back; last refusal HTTP 401", "after"}, got)
	assert.Equal(t, []int{502, 401}, spy.saw)
}

// TestConsoleWithoutAccess: the proxy path answers with the console's own
// page, which the client reports as such; the direct port answers nothing.
func TestConsoleWithoutAccess(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithoutAccess())
	_, _, err := srv.ProxyClient().Doors.List(consoleCtx(t))
	require.ErrorIs(t, err, access.ErrInvalidResponse)
	assert.ErrorContains(t, err, "this address serves a UniFi OS page: is Access installed, and is the path right?")
	var errs []error
	for _, err := range srv.ProxyClient().Notifications.Subscribe(consoleCtx(t), quick) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], access.ErrInvalidResponse)

	_, _, err = srv.Client().Doors.List(consoleCtx(t))
	var re *access.RequestError
	assert.ErrorAs(t, err, &re, "nothing answers on the direct port")
}

// TestUnjournaledClient: the requests and the notifications subscription
// of UnjournaledClient are served but neither journaled nor counted by
// mode; an ordinary client's, on the same listener and at the same time,
// are.
func TestUnjournaledClient(t *testing.T) {
	t.Parallel()
	ctx := consoleCtx(t)
	srv := accesstest.New(t, accesstest.WithDemoData())
	own := srv.UnjournaledClient()
	doors, _, err := own.Doors.List(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, doors)
	sub, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		for range own.Notifications.Subscribe(sub, quick) {
		}
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	assert.Empty(t, srv.Requests())
	direct, proxy := srv.RequestsByMode()
	assert.Equal(t, [2]int{0, 0}, [2]int{direct, proxy})

	_, _, err = srv.Client().Doors.List(ctx)
	require.NoError(t, err)
	_, _, err = own.Doors.List(ctx)
	require.NoError(t, err)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, accesstest.OpDoorsList, reqs[0].Op)
	direct, proxy = srv.RequestsByMode()
	assert.Equal(t, [2]int{1, 0}, [2]int{direct, proxy})

	// A fault is for the clients under test: the view does not spend it.
	srv.Inject(accesstest.OpDoorsList, accesstest.Fault{Status: 503, Times: 1})
	_, _, err = own.Doors.List(ctx)
	require.NoError(t, err, "the view is not faulted")
	noRetry := srv.Client(access.WithRetryPolicy(access.RetryPolicy{}))
	_, _, err = noRetry.Doors.List(ctx)
	assert.ErrorIs(t, err, access.ErrServer, "the fault waited for a client under test")
	_, _, err = noRetry.Doors.List(ctx)
	assert.NoError(t, err, "and was spent there")
}

// recordingTB is a testing.TB that keeps what a check reported.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// CheckModeUsed passes when every request came the way the test wants
// and says how many came each way otherwise; ForEachMode runs a subtest
// per mode, named after it.
func TestCheckModeUsedAndForEachMode(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	rec := &recordingTB{TB: t}
	srv.CheckModeUsed(rec, access.ModeDirect)
	assert.Equal(t, []string{"0 requests direct, 0 through the proxy: want every one in direct mode"}, rec.errs, "no request yet")

	_, _, err := srv.ClientFor(access.ModeDirect).Doors.List(consoleCtx(t))
	require.NoError(t, err)
	rec.errs = nil
	srv.CheckModeUsed(rec, access.ModeDirect)
	assert.Empty(t, rec.errs)
	srv.CheckModeUsed(rec, access.ModeProxy)
	assert.Equal(t, []string{"1 requests direct, 0 through the proxy: want every one in proxy mode"}, rec.errs)

	_, _, err = srv.ClientFor(access.ModeProxy).Doors.List(consoleCtx(t))
	require.NoError(t, err)
	rec.errs = nil
	srv.CheckModeUsed(rec, access.ModeProxy)
	assert.Equal(t, []string{"1 requests direct, 1 through the proxy: want every one in proxy mode"}, rec.errs, "a mix is neither")

	var ran []string
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		ran = append(ran, t.Name()+" "+mode.String())
	})
	assert.Equal(t, []string{
		"TestCheckModeUsedAndForEachMode/direct direct",
		"TestCheckModeUsedAndForEachMode/proxy proxy",
	}, ran)
}
