package access_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestSubscribeDisconnected loses a working connection and makes the first
// reconnection fail (a refused upgrade, a dropped connection): the loop
// sees one DisconnectedError at that first failure, then ErrReconnected
// when the stream is back, then the notifications again.
func TestSubscribeDisconnected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fault  accesstest.Fault
		failed int // failed reconnections
		check  func(t *testing.T, cause error)
	}{
		{"refused upgrade", accesstest.Fault{Status: 503, Times: 3}, 3, func(t *testing.T, cause error) {
			var apiErr *access.APIError
			require.ErrorAs(t, cause, &apiErr)
			assert.Equal(t, 503, apiErr.StatusCode)
			assert.Equal(t, access.CodeSystemError, apiErr.Code)
		}},
		{"dropped connection", accesstest.Fault{DropConnection: true, Times: 1}, 1, func(t *testing.T, cause error) {
			var reqErr *access.RequestError
			require.ErrorAs(t, cause, &reqErr)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			srv := accesstest.New(t)
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
				// The fault first, so that no reconnection can slip past it.
				srv.Inject(accesstest.OpNotificationsSubscribe, tc.fault)
				if n := srv.DropNotificationClients(); n != 1 {
					t.Errorf("dropped %d sockets", n)
				}
				if err := srv.WaitNotificationClients(ctx, 1); err != nil {
					t.Error(err)
					return
				}
				_ = srv.Notify(doorbell("after"))
			})
			var (
				seq  []string
				down *access.DisconnectedError
				back *access.ReconnectedError
				got  time.Time
			)
			for n, err := range srv.Client().Notifications.Subscribe(ctx, fast) {
				switch {
				case errors.As(err, &down):
					assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 2,
						"yielded within the first failed reconnection")
					seq = append(seq, "down")
					continue
				case errors.As(err, &back):
					seq = append(seq, "back")
					continue
				}
				require.NoError(t, err)
				d, _ := n.DoorBell()
				seq = append(seq, d.RequestID)
				if d.RequestID == "before" {
					got = time.Now()
					close(step)
					continue
				}
				break
			}
			assert.Equal(t, []string{"before", "down", "back", "after"}, seq, "one DisconnectedError per outage")
			require.NotNil(t, down)
			require.NotNil(t, back)

			assert.ErrorIs(t, down, access.ErrDisconnected)
			assert.NotErrorIs(t, down, access.ErrReconnected)
			tc.check(t, down.Cause)
			assert.Error(t, down.Lost, "why the working connection ended")
			assert.Equal(t, 1, down.Attempts)
			assert.False(t, down.LastMessage.After(got), "the doorbell was the last message")
			assert.False(t, down.LastMessage.IsZero())
			assert.False(t, down.Disconnected.Before(down.LastMessage))
			assert.GreaterOrEqual(t, down.SinceLastMessage, down.Disconnected.Sub(down.LastMessage))
			msg := down.Error()
			assert.Contains(t, msg, "notifications stream is down")
			assert.Contains(t, msg, "connection lost")
			assert.Contains(t, msg, "ago")
			for _, s := range []string{msg, fmt.Sprintf("%+v %#v", down, down)} {
				assert.NotContains(t, s, srv.Token())
			}

			assert.Equal(t, down.Lost, back.Cause)
			assert.Equal(t, down.Disconnected, back.Disconnected)
			assert.Equal(t, tc.failed+1, back.Attempts)
			assert.Equal(t, down.Cause.Error(), back.LastAttemptErr.Error(), "every failed attempt failed alike")
			assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), tc.failed+2)
		})
	}
}

// wrapBodies is a logging-style transport that wraps every response body.
type wrapBodies struct{ next http.RoundTripper }

func (w wrapBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	if err == nil {
		resp.Body = struct{ io.ReadCloser }{resp.Body}
	}
	return resp, err
}

// TestSubscribeUnusableUpgrade accepts the upgrade through a transport
// that wraps the body: the WebSocket cannot use it, and the loop ends at
// once with an error that says why, instead of reconnecting forever.
func TestSubscribeUnusableUpgrade(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	srv := accesstest.New(t)
	hc := srv.HTTPClient()
	hc.Transport = wrapBodies{next: hc.Transport}
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithHTTPClient(hc))
	require.NoError(t, err)

	// REST calls work through such a transport.
	_, _, err = c.Doors.List(ctx)
	require.NoError(t, err)

	var errs []error
	for n, err := range c.Notifications.Subscribe(ctx, fast) {
		assert.Nil(t, n)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1, "fatal: one error, then the loop ends")
	err = errs[0]
	var reqErr *access.RequestError
	require.ErrorAs(t, err, &reqErr)
	var unusable *access.UnusableUpgradeError
	require.ErrorAs(t, err, &unusable)
	assert.Equal(t, "struct { io.ReadCloser }", unusable.BodyType)
	assert.NotErrorIs(t, err, access.ErrDisconnected)
	for _, want := range []string{"101", "io.ReadWriteCloser", "WithHTTPClient", "wss://"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), srv.Token())
	assert.Len(t, srv.RequestsFor(accesstest.OpNotificationsSubscribe), 1, "not retried")
	assert.True(t, strings.HasPrefix(err.Error(), "access: GET wss://"))
}

// TestSubscribeDisconnectedUnreachable shuts the console down: the first
// reconnection is refused at the TCP level, and the loop sees one
// DisconnectedError with the network error, then keeps trying until ctx
// ends.
func TestSubscribeDisconnectedUnreachable(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := accesstest.New(t)
	step := make(chan struct{})
	driver(t, func() {
		if err := srv.WaitNotificationClients(ctx, 1); err != nil {
			t.Error(err)
			return
		}
		_ = srv.Notify(doorbell("before"))
		select {
		case <-step:
			srv.Close()
		case <-ctx.Done():
		}
	})
	var seq []string
	var down *access.DisconnectedError
	for n, err := range srv.Client().Notifications.Subscribe(cctx, fast) {
		switch {
		case errors.As(err, &down):
			seq = append(seq, "down")
			cancel() // e.g. fall back to polling; here: stop
			continue
		case errors.Is(err, context.Canceled):
			seq = append(seq, "canceled")
			continue
		}
		require.NoError(t, err)
		d, _ := n.DoorBell()
		seq = append(seq, d.RequestID)
		close(step)
	}
	assert.Equal(t, []string{"before", "down", "canceled"}, seq)
	require.NotNil(t, down)
	var reqErr *access.RequestError
	require.ErrorAs(t, down.Cause, &reqErr, "a network error, not an HTTP answer")
	var apiErr *access.APIError
	assert.False(t, errors.As(down.Cause, &apiErr))
	assert.Error(t, down.Lost)
	assert.False(t, down.LastMessage.IsZero())
}
