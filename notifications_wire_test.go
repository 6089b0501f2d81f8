package access

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
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
