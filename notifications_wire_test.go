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
