package accesstest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func dialNotifications(t *testing.T, ctx context.Context, srv *accesstest.Server, token string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	u := "wss://" + strings.TrimPrefix(srv.URL(), "https://") + "/api/v1/developer/devices/notifications"
	h := http.Header{}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: srv.HTTPClient(), HTTPHeader: h})
}

// TestNotificationsSocket speaks to the fake's WebSocket directly: the
// handshake first, then what Notify and NotifyRaw send, in order, and the
// keepalives.
func TestNotificationsSocket(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithKeepalive(time.Millisecond))
	conn, _, err := dialNotifications(t, ctx, srv, srv.Token())
	require.NoError(t, err)
	defer conn.CloseNow()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	assert.Equal(t, 1, srv.NotificationClients())
	assert.Equal(t, 1, srv.NotificationConnections())

	typ, msg, err := conn.Read(ctx)
	require.NoError(t, err)
	assert.Equal(t, websocket.MessageText, typ)
	first, err := access.ParseNotification(msg)
	require.NoError(t, err)
	assert.Equal(t, access.NotificationBaseInfo, first.Event, "the handshake comes first")
	assert.NotEmpty(t, first.EventObjectID)

	require.NoError(t, srv.Notify(&access.Notification{Event: access.NotificationSettingUpdate, Data: json.RawMessage(`{"lockdown":true}`)}))
	srv.NotifyRaw([]byte("raw"))
	var got []string
	hellos := 0
	for len(got) < 2 || hellos == 0 {
		_, msg, err := conn.Read(ctx)
		require.NoError(t, err)
		if string(msg) == "Hello" {
			hellos++
			continue
		}
		got = append(got, string(msg))
	}
	assert.Equal(t, []string{`{"event":"access.data.setting.update","receiver_id":"","event_object_id":"","save_to_history":false,"data":{"lockdown":true}}`, "raw"}, got)

	assert.Error(t, srv.Notify(nil))
	assert.Error(t, srv.Notify(&access.Notification{Event: "x", Data: json.RawMessage(`{bad`)}))

	assert.Equal(t, 1, srv.DropNotificationClients())
	assert.Equal(t, 0, srv.NotificationClients(), "dropped sockets stop counting at once")
	for {
		if _, _, err := conn.Read(ctx); err != nil {
			break // keepalives queued before the drop may still arrive
		}
	}
	require.NoError(t, ctx.Err(), "the socket was closed, not timed out")

	rs := srv.RequestsFor(accesstest.OpNotificationsSubscribe)
	require.Len(t, rs, 1)
	assert.Equal(t, "Bearer REDACTED", rs[0].Header.Get("Authorization"))
	assert.Equal(t, "/api/v1/developer/devices/notifications", rs[0].Path)
}

func TestNotificationsSocketAuth(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t)
	srv.AddToken("users-only", accesstest.ViewUser)
	srv.AddToken("devices", accesstest.ViewDevice)
	for token, status := range map[string]int{"": 401, "unknown": 401, "users-only": 403} {
		_, resp, err := dialNotifications(t, ctx, srv, token)
		require.Error(t, err, token)
		require.NotNil(t, resp, token)
		assert.Equal(t, status, resp.StatusCode, token)
	}
	conn, _, err := dialNotifications(t, ctx, srv, "devices")
	require.NoError(t, err, "view:device is enough")
	conn.CloseNow()
	require.NoError(t, srv.WaitNotificationClients(ctx, 0))
	assert.Equal(t, 0, srv.NotificationClients())

	// Injected faults apply to the upgrade.
	srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: 503, Times: 1})
	_, resp, err := dialNotifications(t, ctx, srv, srv.Token())
	require.Error(t, err)
	assert.Equal(t, 503, resp.StatusCode)

	// A wrong method on the path is refused as for other operations.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/api/v1/developer/devices/notifications", nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	res, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

// TestNotificationsSilence: a silenced socket stays open and sends nothing.
func TestNotificationsSilence(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithKeepalive(0)) // no keepalives
	conn, _, err := dialNotifications(t, ctx, srv, srv.Token())
	require.NoError(t, err)
	defer conn.CloseNow()
	_, _, err = conn.Read(ctx) // handshake
	require.NoError(t, err)
	assert.Equal(t, 1, srv.SilenceNotificationClients())
	srv.NotifyRaw([]byte("swallowed"))
	rctx, rcancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer rcancel()
	_, _, err = conn.Read(rctx)
	assert.Error(t, err, "nothing arrives")
	assert.ErrorIs(t, rctx.Err(), context.DeadlineExceeded)
}

// TestNotificationsBurstKeepsOrderAndMessages sends a burst far larger
// than one network write gathers (notifications queued behind each other
// leave a subscriber's socket together): each still arrives as a message
// of its own, in order, large ones included, to every subscriber.
func TestNotificationsBurstKeepsOrderAndMessages(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithKeepalive(0))
	const subscribers, burst = 3, 3000
	conns := make([]*websocket.Conn, subscribers)
	for i := range conns {
		conn, _, err := dialNotifications(t, ctx, srv, srv.Token())
		require.NoError(t, err)
		defer conn.CloseNow()
		conn.SetReadLimit(1 << 20)
		conns[i] = conn
	}
	require.NoError(t, srv.WaitNotificationClients(ctx, subscribers))
	big := strings.Repeat("x", 100<<10) // larger than a batch
	ns := make([]*access.Notification, burst)
	for i := range ns {
		data := `{"i":` + strconv.Itoa(i) + `}`
		if i%1000 == 500 {
			data = `{"big":"` + big + `"}`
		}
		ns[i] = &access.Notification{Event: "test.burst", EventObjectID: strconv.Itoa(i), Data: json.RawMessage(data)}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Notify(ns...) }()
	for _, conn := range conns {
		_, msg, err := conn.Read(ctx)
		require.NoError(t, err)
		first, err := access.ParseNotification(msg)
		require.NoError(t, err)
		require.Equal(t, access.NotificationBaseInfo, first.Event)
		for i := range burst {
			typ, msg, err := conn.Read(ctx)
			require.NoError(t, err)
			require.Equal(t, websocket.MessageText, typ)
			n, err := access.ParseNotification(msg)
			require.NoError(t, err, "message %d is one whole notification", i)
			require.Equal(t, strconv.Itoa(i), n.EventObjectID, "in order")
			if i%1000 == 500 {
				require.Len(t, msg, len(`{"event":"test.burst","receiver_id":"","event_object_id":"","save_to_history":false,"data":{"big":""}}`)+len(big)+len(strconv.Itoa(i)))
			}
		}
	}
	require.NoError(t, <-errc)
}
