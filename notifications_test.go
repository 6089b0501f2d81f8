package access_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// fast makes reconnections take milliseconds.
var fast = &access.SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond, IdleTimeout: 10 * time.Second}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// driver runs fn beside the test's loop and waits for it at the end.
func driver(t *testing.T, fn func()) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fn()
	}()
	t.Cleanup(wg.Wait)
}

func doorbell(id string) *access.Notification {
	return &access.Notification{Event: access.NotificationDoorBell, EventObjectID: "door-1",
		Data: json.RawMessage(`{"door_id":"door-1","door_name":"Front Door","request_id":"` + id + `"}`)}
}

// waitGoroutines waits (boundedly) for the goroutine count to come back to
// before: closed connections' goroutines end asynchronously.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left behind:\n%s", n-before, buf[:runtime.Stack(buf, true)])
	}
}

func TestSubscribeWireAndKeepalives(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t, accesstest.WithKeepalive(time.Millisecond))
	c := srv.Client()
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			t.Error(err)
			return
		}
		srv.NotifyRaw([]byte("Hello"))
		srv.NotifyRaw([]byte(`"Hello"`))
		srv.NotifyRaw([]byte(`{"event":"access.base.info","data":{"top_log_count":3}}`))
		if err := srv.Notify(doorbell("r1"), doorbell("r2")); err != nil {
			t.Error(err)
		}
	})
	var got []string
	for n, err := range c.Notifications.Subscribe(ctx, fast) {
		require.NoError(t, err)
		d, err := n.DoorBell()
		require.NoError(t, err)
		got = append(got, d.RequestID)
		if len(got) == 2 {
			break
		}
	}
	assert.Equal(t, []string{"r1", "r2"}, got, "keepalives and handshakes are not yielded")

	reqs := srv.RequestsFor(accesstest.OpNotificationsSubscribe)
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, "GET", r.Method)
	assert.Equal(t, "/api/v1/developer/devices/notifications", r.Path)
	assert.Equal(t, "Bearer REDACTED", r.Header.Get("Authorization"), "sent, and redacted in the record")
	assert.True(t, strings.EqualFold("websocket", r.Header.Get("Upgrade")))
	assert.Contains(t, r.Header.Get("User-Agent"), "access-go/")
	assert.Empty(t, r.Query)
}

func TestSubscribeReconnectsAfterDrop(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t)
	c := srv.Client()
	step := make(chan struct{})
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			t.Error(err)
			return
		}
		_ = srv.Notify(doorbell("before"))
		select {
		case <-step:
		case <-ctx.Done():
			return
		}
		if n := srv.DropNotificationClients(); n != 1 {
			t.Errorf("dropped %d sockets", n)
		}
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			t.Error(err)
			return
		}
		_ = srv.Notify(doorbell("after"))
	})
	var seq []string
	var gap *access.ReconnectedError
	for n, err := range c.Notifications.Subscribe(ctx, fast) {
		if errors.Is(err, access.ErrReconnected) {
			require.True(t, errors.As(err, &gap))
			seq = append(seq, "gap")
			continue
		}
		require.NoError(t, err)
		d, _ := n.DoorBell()
		seq = append(seq, d.RequestID)
		if d.RequestID == "before" {
			close(step)
		} else {
			break
		}
	}
	assert.Equal(t, []string{"before", "gap", "after"}, seq)
	require.NotNil(t, gap)
	assert.Error(t, gap.Cause)
	assert.GreaterOrEqual(t, gap.Attempts, 1)
	assert.False(t, gap.Reconnected.Before(gap.Disconnected))
	assert.Contains(t, gap.Error(), "may have been missed")
	assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 2)
}

func TestSubscribeIdleWatchdog(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	// Keepalives every 2ms keep a 200ms watchdog quiet; a silenced socket
	// trips it.
	srv := accesstest.New(t, accesstest.WithKeepalive(2*time.Millisecond))
	c := srv.Client()
	step := make(chan struct{})
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			t.Error(err)
			return
		}
		_ = srv.Notify(doorbell("before"))
		select {
		case <-step:
		case <-ctx.Done():
			return
		}
		if n := srv.SilenceNotificationClients(); n != 1 {
			t.Errorf("silenced %d sockets", n)
		}
		_ = srv.Notify(doorbell("lost")) // swallowed by the dead socket
		// The client gives up on the silent socket and connects again.
		if err := srv.WaitNotificationConnections(ctx, 2); err != nil {
			t.Error(err)
			return
		}
		_ = srv.Notify(doorbell("after"))
	})
	opts := *fast
	opts.IdleTimeout = 200 * time.Millisecond
	var seq []string
	var gap *access.ReconnectedError
	var silenced time.Time
	for n, err := range c.Notifications.Subscribe(ctx, &opts) {
		if errors.As(err, &gap) {
			seq = append(seq, "gap")
			continue
		}
		require.NoError(t, err)
		d, _ := n.DoorBell()
		seq = append(seq, d.RequestID)
		if d.RequestID == "before" {
			silenced = time.Now()
			close(step)
		} else {
			break
		}
	}
	assert.Equal(t, []string{"before", "gap", "after"}, seq)
	require.NotNil(t, gap)
	assert.ErrorIs(t, gap, access.ErrStreamIdle)
	assert.ErrorIs(t, gap, access.ErrReconnected)
	assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 2, "keepalives held the first socket until it went silent")
	assert.GreaterOrEqual(t, time.Since(silenced), opts.IdleTimeout, "not before the watchdog")
	t.Logf("next event %v after the socket went silent (watchdog %v)", time.Since(silenced), opts.IdleTimeout)
}

func TestSubscribeEndsOnAuthAndUnsupported(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	srv.AddToken("no-device-tok", accesstest.ViewUser)
	cases := []struct {
		name   string
		client *access.Client
		inject *accesstest.Fault
		want   error
		status int
	}{
		{"unknown token", srv.ClientWithToken("wrong-token-0123"), nil, access.ErrUnauthorized, 401},
		{"no view:device", srv.ClientWithToken("no-device-tok"), nil, access.ErrForbidden, 403},
		{"injected 401", srv.Client(), &accesstest.Fault{Status: 401}, access.ErrUnauthorized, 401},
		{"404", srv.Client(), &accesstest.Fault{Status: 404}, access.ErrUnsupported, 404},
		{"not supported code", srv.Client(), &accesstest.Fault{Status: 400, Code: access.CodeDeviceAPINotSupported}, access.ErrUnsupported, 400},
		{"not supported on 200", srv.Client(), &accesstest.Fault{Code: access.CodeDeviceAPINotSupported}, access.ErrUnsupported, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			if tc.inject != nil {
				f := *tc.inject
				f.Times = 1
				srv.Inject(accesstest.OpNotificationsSubscribe, f)
			}
			var errs []error
			for n, err := range tc.client.Notifications.Subscribe(ctx, fast) {
				assert.Nil(t, n)
				errs = append(errs, err)
			}
			require.Len(t, errs, 1, "one error, then the loop ends")
			err := errs[0]
			assert.ErrorIs(t, err, tc.want)
			var apiErr *access.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, "wss://"+strings.TrimPrefix(srv.URL(), "https://")+"/api/v1/developer/devices/notifications", apiErr.URL)
			for _, s := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err)} {
				assert.NotContains(t, s, srv.Token())
				assert.NotContains(t, s, "wrong-token-0123")
				assert.NotContains(t, s, "no-device-tok")
			}
		})
	}
}

func TestSubscribeRetriesServerErrors(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t)
	srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: 503, Times: 2})
	srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{DropConnection: true, Times: 1})
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err == nil {
			_ = srv.Notify(doorbell("r1"))
		}
	})
	var seq []string
	for n, err := range srv.Client().Notifications.Subscribe(ctx, fast) {
		var down *access.DisconnectedError
		var back *access.ReconnectedError
		switch {
		case errors.As(err, &down):
			// Yielded at the first failed attempt, once for the outage.
			assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 1)
			assert.Equal(t, 1, down.Attempts)
			var apiErr *access.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, 503, apiErr.StatusCode)
			assert.Nil(t, down.Lost, "never connected")
			assert.True(t, down.LastMessage.IsZero())
			assert.Contains(t, err.Error(), "no message received yet")
			seq = append(seq, "down")
			continue
		case errors.As(err, &back):
			assert.Nil(t, back.Cause, "the first connection: nothing was lost")
			// 4, or 3 when net/http replays the GET whose reused
			// connection was dropped.
			assert.GreaterOrEqual(t, back.Attempts, 3)
			assert.Error(t, back.LastAttemptErr)
			seq = append(seq, "back")
			continue
		}
		require.NoError(t, err)
		d, _ := n.DoorBell()
		seq = append(seq, d.RequestID)
		break
	}
	assert.Equal(t, []string{"down", "back", "r1"}, seq)
	assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 4)
}

func TestSubscribeInvalidAndOversizedMessages(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t)
	exact := notificationOfSize(t, access.MaxNotificationSize)
	step := make(chan struct{})
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			return
		}
		srv.NotifyRaw([]byte(`{not json`))
		srv.NotifyRaw(exact)
		srv.NotifyRaw(notificationOfSize(t, access.MaxNotificationSize+1))
		select {
		case <-step:
		case <-ctx.Done():
			return
		}
		if err := srv.WaitNotificationConnections(ctx, 2); err == nil {
			_ = srv.Notify(doorbell("after"))
		}
	})
	var seq []string
	for n, err := range srv.Client().Notifications.Subscribe(ctx, fast) {
		var ne *access.NotificationError
		var gap *access.ReconnectedError
		switch {
		case errors.As(err, &ne):
			assert.ErrorIs(t, err, access.ErrInvalidNotification)
			assert.Equal(t, "{not json", string(ne.Message))
			seq = append(seq, "invalid")
		case errors.As(err, &gap):
			assert.ErrorIs(t, err, access.ErrNotificationTooLarge)
			seq = append(seq, "gap")
		case err != nil:
			t.Fatal(err)
		case n.Event == "test.size":
			assert.Equal(t, len(exact), access.MaxNotificationSize)
			seq = append(seq, "1MiB")
			close(step)
		default:
			seq = append(seq, "after")
		}
		if len(seq) == 4 {
			break
		}
	}
	assert.Equal(t, []string{"invalid", "1MiB", "gap", "after"}, seq)
}

// notificationOfSize returns a notification of exactly size bytes.
func notificationOfSize(t *testing.T, size int) []byte {
	head, tail := `{"event":"test.size","data":{"pad":"`, `"}}`
	pad := size - len(head) - len(tail)
	require.Positive(t, pad)
	return []byte(head + strings.Repeat("x", pad) + tail)
}

func TestSubscribeCancelAndBreakLeaveNoGoroutine(t *testing.T) {
	// Not parallel: it counts goroutines.
	ctx := testCtx(t)
	srv := accesstest.New(t, accesstest.WithKeepalive(time.Millisecond))
	c := srv.Client()
	before := runtime.NumGoroutine()

	t.Run("break", func(t *testing.T) {
		driver(t, func() {
			if srv.WaitNotificationClients(ctx, 1) == nil {
				_ = srv.Notify(doorbell("r1"))
			}
		})
		for n, err := range c.Notifications.Subscribe(ctx, fast) {
			require.NoError(t, err)
			require.NotNil(t, n)
			break
		}
		require.NoError(t, srv.WaitNotificationClients(ctx, 0), "the socket is closed")
	})
	t.Run("cancel while reading", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		driver(t, func() {
			if srv.WaitNotificationClients(ctx, 1) == nil {
				cancel()
			}
		})
		var errs []error
		for _, err := range c.Notifications.Subscribe(cctx, fast) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], context.Canceled)
		require.NoError(t, srv.WaitNotificationClients(ctx, 0))
	})
	t.Run("cancel while backing off", func(t *testing.T) {
		srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: 503})
		defer srv.ClearFaults()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		opts := *fast
		opts.MinBackoff, opts.MaxBackoff = time.Hour, time.Hour // only the cancel ends the wait
		var errs []error
		for _, err := range c.Notifications.Subscribe(cctx, &opts) {
			errs = append(errs, err)
			cancel() // the first failed attempt was reported; the wait follows
		}
		require.Len(t, errs, 2)
		assert.ErrorIs(t, errs[0], access.ErrDisconnected, "the failed attempt, before the wait")
		assert.ErrorIs(t, errs[1], context.Canceled)
	})
	t.Run("break at a gap", func(t *testing.T) {
		driver(t, func() {
			if srv.WaitNotificationClients(ctx, 1) == nil {
				srv.DropNotificationClients()
			}
		})
		for _, err := range c.Notifications.Subscribe(ctx, fast) {
			require.ErrorIs(t, err, access.ErrReconnected)
			break
		}
		require.NoError(t, srv.WaitNotificationClients(ctx, 0))
	})

	t.Run("break at a disconnection", func(t *testing.T) {
		driver(t, func() {
			if srv.WaitNotificationClients(ctx, 1) == nil {
				srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: 503, Times: 1})
				srv.DropNotificationClients()
			}
		})
		for _, err := range c.Notifications.Subscribe(ctx, fast) {
			require.ErrorIs(t, err, access.ErrDisconnected)
			break
		}
		require.NoError(t, srv.WaitNotificationClients(ctx, 0))
	})

	// The refused upgrades' keep-alive connections idle in the client's
	// pool, as after any call; they are not the stream's.
	c.CloseIdleConnections()
	waitGoroutines(t, before)
}

func TestSubscribePinnedCertificate(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t)
	driver(t, func() {
		if srv.WaitNotificationClients(ctx, 1) == nil {
			_ = srv.Notify(doorbell("pinned"))
		}
	})
	// No root CA: only the pin makes the certificate acceptable.
	good, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(srv.Fingerprint()))
	require.NoError(t, err)
	for n, err := range good.Notifications.Subscribe(ctx, fast) {
		require.NoError(t, err)
		d, _ := n.DoorBell()
		assert.Equal(t, "pinned", d.RequestID)
		break
	}

	wrong := bytes.Repeat([]byte("ab"), 32)
	bad, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(string(wrong)))
	require.NoError(t, err)
	var errs []error
	for _, err := range bad.Notifications.Subscribe(ctx, fast) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1, "a certificate mismatch is not retried")
	assert.ErrorIs(t, errs[0], access.ErrCertificateMismatch)
	var reqErr *access.RequestError
	assert.ErrorAs(t, errs[0], &reqErr)
	assert.NotContains(t, errs[0].Error(), srv.Token())

	// Without a pin or a root CA, the self-signed certificate is refused.
	plain, err := access.NewClient(srv.URL(), srv.Token())
	require.NoError(t, err)
	errs = nil
	for _, err := range plain.Notifications.Subscribe(ctx, fast) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorAs(t, errs[0], &reqErr)
	assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 1, "no request got past TLS")
}

func TestSubscribeValidation(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	//nolint:staticcheck // a nil context on purpose
	for _, tc := range []struct {
		ctx  context.Context
		opts *access.SubscribeOptions
	}{{nil, nil}, {context.Background(), &access.SubscribeOptions{IdleTimeout: -1}}} {
		var errs []error
		for _, err := range c.Notifications.Subscribe(tc.ctx, tc.opts) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], access.ErrValidation)
	}
	assert.Empty(t, srv.Requests(), "nothing sent")
}
