package access

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// TestSubscribeUpgradeRequest checks the upgrade on the wire: path, the
// bearer token in the Authorization header only, and an error that does
// not repeat it.
func TestSubscribeUpgradeRequest(t *testing.T) {
	t.Parallel()
	c, mux, srv := setup(t)
	seen := make(chan *http.Request, 1)
	mux.HandleFunc("GET /api/v1/developer/devices/notifications", func(w http.ResponseWriter, r *http.Request) {
		seen <- r
		writeRaw(w, http.StatusUnauthorized, "application/json", `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	for _, err := range c.Notifications.Subscribe(ctx, nil) {
		errs = append(errs, err)
	}
	r := <-seen
	assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
	assert.Equal(t, "websocket", r.Header.Get("Upgrade"))
	assert.Equal(t, "", r.URL.RawQuery, "no token in the URL")
	require.Len(t, errs, 1)
	err := errs[0]
	assert.ErrorIs(t, err, ErrUnauthorized)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, CodeAccessTokenInvalid, apiErr.Code)
	assert.Equal(t, "The provided access token is invalid.", apiErr.Message)
	assert.Equal(t, "wss://"+srv.Listener.Addr().String()+"/api/v1/developer/devices/notifications", apiErr.URL)
	for _, s := range []string{err.Error(), fmt.Sprintf("%v %+v %#v", err, err, err)} {
		assert.NotContains(t, s, testToken)
	}
}

// TestSubscribePlainHTTP dials ws:// for an http base URL.
func TestSubscribePlainHTTP(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer conn.CloseNow()
		ctx := r.Context()
		_ = conn.Write(ctx, websocket.MessageText, []byte(`{"event":"access.base.info","data":{}}`))
		_ = conn.Write(ctx, websocket.MessageText, []byte(`{"event":"access.data.setting.update","data":{"lockdown":true,"evacuation":null}}`))
		_, _, _ = conn.Read(ctx) // until the client goes
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, testToken)
	require.NoError(t, err)
	assert.Equal(t, "ws://"+srv.Listener.Addr().String()+"/api/v1/developer/devices/notifications", wsURL(c.cfg.base+notificationsPath))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for n, err := range c.Notifications.Subscribe(ctx, nil) {
		require.NoError(t, err)
		s, err := n.SettingUpdate()
		require.NoError(t, err)
		assert.Equal(t, SettingUpdateData{Lockdown: true}, *s)
		break
	}
}

// rwcBody is the connection of an accepted upgrade; Close is recorded.
type rwcBody struct {
	io.ReadWriter
	closed chan struct{}
}

func (b *rwcBody) Close() error { close(b.closed); return nil }

// TestUpgradeGuard checks the transport layer of the stream's dial: a 101
// whose body is not the connection is refused with an UnusableUpgradeError
// (and closed), and an accepted connection is closed when the
// subscription's ctx ends before the dial returns, so that the WebSocket
// library's 3-second read of a rejected upgrade honours ctx.
func TestUpgradeGuard(t *testing.T) {
	t.Parallel()
	req := httptest.NewRequest(http.MethodGet, "https://console/x", nil)

	t.Run("wrapped body", func(t *testing.T) {
		body := &rwcBody{ReadWriter: new(bytes.Buffer), closed: make(chan struct{})}
		g := &upgradeGuard{ctx: context.Background(), next: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusSwitchingProtocols, Body: struct{ io.ReadCloser }{body}}, nil
		})}
		resp, err := g.RoundTrip(req)
		assert.Nil(t, resp)
		var ue *UnusableUpgradeError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, "struct { io.ReadCloser }", ue.BodyType)
		<-body.closed // closed at once
	})
	t.Run("ctx ends during the dial", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		body := &rwcBody{ReadWriter: new(bytes.Buffer), closed: make(chan struct{})}
		g := &upgradeGuard{ctx: ctx, next: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusSwitchingProtocols, Body: body}, nil
		})}
		resp, err := g.RoundTrip(req)
		require.NoError(t, err)
		assert.Same(t, body, resp.Body, "the connection itself, unwrapped")
		select {
		case <-body.closed:
			t.Fatal("closed before ctx ended")
		default:
		}
		cancel()
		<-body.closed // the library's read of a rejected upgrade ends now
		g.done()
	})
	t.Run("after the dial", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		body := &rwcBody{ReadWriter: new(bytes.Buffer), closed: make(chan struct{})}
		g := &upgradeGuard{ctx: ctx, next: roundTripFunc(func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusSwitchingProtocols, Body: body}, nil
		})}
		_, err := g.RoundTrip(req)
		require.NoError(t, err)
		g.done()
		assert.False(t, g.stop(), "the watch had already been stopped: the stream owns the connection")
	})
	t.Run("other answers pass through", func(t *testing.T) {
		want := &http.Response{StatusCode: http.StatusServiceUnavailable, Body: io.NopCloser(strings.NewReader("x"))}
		g := &upgradeGuard{ctx: context.Background(), next: roundTripFunc(func(*http.Request) (*http.Response, error) { return want, nil })}
		resp, err := g.RoundTrip(req)
		require.NoError(t, err)
		assert.Same(t, want, resp)
		g.done()
	})
}

// End to end through Subscribe: a console answers the upgrade with a 101
// the WebSocket library rejects (a wrong Sec-WebSocket-Accept) and keeps
// the connection open. The library would read that connection for 3 s
// before giving up; the subscription ends as soon as ctx does.
func TestSubscribeDeadUpgradeHonoursCtx(t *testing.T) {
	t.Parallel()
	served := make(chan struct{}, 16)
	release := make(chan struct{})
	srv := testlog.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: wrong\r\n\r\n")
		buf.Flush()
		served <- struct{}{}
		<-release // the connection stays open until the test ends
	}))
	defer srv.Close()
	defer close(release)
	upgraded := make(chan struct{}, 16)
	hc := srv.Client()
	inner := hc.Transport
	hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := inner.RoundTrip(r)
		if err == nil && resp.StatusCode == http.StatusSwitchingProtocols {
			upgraded <- struct{}{} // the library now verifies the answer and reads the connection
		}
		return resp, err
	})
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan time.Time, 1)
	go func() {
		for range c.Notifications.Subscribe(ctx, &SubscribeOptions{MinBackoff: time.Hour, MaxBackoff: time.Hour}) {
		}
		ended <- time.Now()
	}()
	<-served
	<-upgraded // the 101 reached the client; the library is reading the dead connection
	cancelled := time.Now()
	cancel()
	select {
	case at := <-ended:
		assert.Less(t, at.Sub(cancelled), 2*time.Second, "the 3 s read of the dead upgrade ended with ctx")
	case <-time.After(10 * time.Second):
		t.Fatal("Subscribe did not end after ctx was cancelled")
	}
}
