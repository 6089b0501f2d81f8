package access

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawServer is an HTTP/1.1 server written on a bare listener: it keeps
// each request's head as it came on the wire (net/http's server would
// canonicalise the header names) and answers with answer(head).
type rawServer struct {
	ln     net.Listener
	mu     sync.Mutex
	heads  []string
	answer func(head string) (status int, contentType, body string)
	wg     sync.WaitGroup
}

func newRawServer(t *testing.T, answer func(head string) (int, string, string)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &rawServer{ln: ln, answer: answer}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			s.serve(conn)
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) serve(conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	var head strings.Builder
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		head.WriteString(line)
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	_, _ = io.CopyN(io.Discard, br, int64(length))
	s.mu.Lock()
	s.heads = append(s.heads, head.String())
	s.mu.Unlock()
	status, ct, body := s.answer(head.String())
	fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), ct, len(body), body)
}

func (s *rawServer) URL() string { return "http://" + s.ln.Addr().String() }

func (s *rawServer) Heads() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.heads...)
}

const doorsJSON = `{"code":"SUCCESS","msg":"success","data":[{"id":"d1","name":"Front","full_name":"Front","floor_id":"f1","type":"door","is_bind_hub":true,"door_lock_relay_status":"lock","door_position_status":""}]}`

// TestGoldenWireConsoleKinds sends one request per row of vendor-notes §7
// (and per credential-header override) to a bare HTTP/1.1 listener and
// checks the request line and the credential header byte for byte, as the
// console kind is reported to expect them: not against accesstest.
func TestGoldenWireConsoleKinds(t *testing.T) {
	t.Parallel()
	const key = "k3y-0f-the-c0nsole"
	cases := []struct {
		name     string
		base     string // appended to the listener's URL
		opts     []Option
		mode     Mode
		line     string // the request line
		header   string // the credential header line, exact
		notIn    string // a header that must not be sent
		authName string
	}{
		{"UNVR/UDM direct", "", nil, ModeDirect,
			"GET /api/v1/developer/doors HTTP/1.1", "Authorization: Bearer " + key, "X-API-KEY", "Authorization"},
		{"UNVR/UDM direct, base with the API path", "/api/v1/developer/", nil, ModeDirect,
			"GET /api/v1/developer/doors HTTP/1.1", "Authorization: Bearer " + key, "X-API-KEY", "Authorization"},
		{"UniFi OS proxy", "/proxy/access/integration/v1/developer", nil, ModeProxy,
			"GET /proxy/access/integration/v1/developer/doors HTTP/1.1", "X-API-KEY: " + key, "Authorization", "X-API-KEY"},
		{"UniFi OS proxy, trailing slash", "/proxy/access/integration/v1/developer/", nil, ModeProxy,
			"GET /proxy/access/integration/v1/developer/doors HTTP/1.1", "X-API-KEY: " + key, "Authorization", "X-API-KEY"},
		{"NVR Pro (older), bearer", "/proxy/access/api/v1/developer", nil, ModeDirect,
			"GET /proxy/access/api/v1/developer/doors HTTP/1.1", "Authorization: Bearer " + key, "X-API-KEY", "Authorization"},
		{"NVR Pro (older), key header", "/proxy/access/api/v1/developer", []Option{WithAuthHeader("X-API-KEY")}, ModeDirect,
			"GET /proxy/access/api/v1/developer/doors HTTP/1.1", "X-API-KEY: " + key, "Authorization", "X-API-KEY"},
		{"proxy, bearer by override", "/proxy/access/integration/v1/developer", []Option{WithAuthHeader("authorization")}, ModeProxy,
			"GET /proxy/access/integration/v1/developer/doors HTTP/1.1", "Authorization: Bearer " + key, "X-API-KEY", "Authorization"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(string) (int, string, string) { return 200, "application/json", doorsJSON })
			c, err := NewClient(srv.URL()+tc.base, key, tc.opts...)
			require.NoError(t, err)
			assert.Equal(t, tc.mode, c.Mode())
			assert.Equal(t, tc.authName, c.AuthHeader())
			doors, _, err := c.Doors.List(context.Background())
			require.NoError(t, err)
			require.Len(t, doors, 1)
			assert.Equal(t, "d1", doors[0].ID)
			heads := srv.Heads()
			require.Len(t, heads, 1)
			lines := strings.Split(heads[0], "\r\n")
			assert.Equal(t, tc.line, lines[0])
			assert.Contains(t, lines, tc.header, "sent exactly so, not canonicalised")
			for _, l := range lines {
				assert.False(t, strings.HasPrefix(strings.ToLower(l), strings.ToLower(tc.notIn)+":"), "no %s header: %q", tc.notIn, l)
			}
			for _, s := range []string{c.String(), fmt.Sprintf("%v %+v %#v", c, c, c)} {
				assert.NotContains(t, s, key)
			}
		})
	}
}

// TestGoldenWireSocketPaths checks the notifications socket's upgrade
// requests per console kind on the bare listener, which answers 404: the
// direct path, and through the proxy the current then the older path,
// named in the error.
func TestGoldenWireSocketPaths(t *testing.T) {
	t.Parallel()
	const key = "k3y-0f-the-c0nsole"
	cases := []struct {
		name   string
		base   string
		lines  []string
		header string
	}{
		{"direct", "", []string{"GET /api/v1/developer/devices/notifications HTTP/1.1"}, "Authorization: Bearer " + key},
		{"proxy", "/proxy/access/integration/v1/developer", []string{
			"GET /proxy/access/integration/v1/developer/devices/notifications HTTP/1.1",
			"GET /proxy/access/api/v1/developer/devices/notifications HTTP/1.1",
		}, "X-API-KEY: " + key},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(string) (int, string, string) {
				return 404, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"Not found."}`
			})
			c, err := NewClient(srv.URL()+tc.base, key)
			require.NoError(t, err)
			var errs []error
			for _, err := range c.Notifications.Subscribe(testContext(t), nil) {
				errs = append(errs, err)
			}
			require.Len(t, errs, 1)
			assert.ErrorIs(t, errs[0], ErrUnsupported)
			heads := srv.Heads()
			require.Len(t, heads, len(tc.lines))
			for i, h := range heads {
				lines := strings.Split(h, "\r\n")
				assert.Equal(t, tc.lines[i], lines[0])
				assert.Contains(t, lines, tc.header)
				assert.Contains(t, errs[0].Error(), strings.Fields(tc.lines[i])[1], "the error names every path tried")
			}
			assert.NotContains(t, fmt.Sprintf("%v %+v", errs[0], errs[0]), key)
			assert.Equal(t, "", c.Notifications.SocketPath())
		})
	}
}

func TestModeFromBaseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, base string
		mode     Mode
	}{
		{"https://10.0.0.1:12445", "https://10.0.0.1:12445", ModeDirect},
		{"https://10.0.0.1:12445/api/v1/developer", "https://10.0.0.1:12445", ModeDirect},
		{"https://10.0.0.1/proxy/access/api/v1/developer", "https://10.0.0.1/proxy/access", ModeDirect},
		{"https://10.0.0.1/proxy/access/integration/v1/developer", "https://10.0.0.1/proxy/access/integration/v1/developer", ModeProxy},
		{"https://10.0.0.1/proxy/access/integration/v1/developer/", "https://10.0.0.1/proxy/access/integration/v1/developer", ModeProxy},
		{"https://gw.example/site1/proxy/access/integration/v1/developer", "https://gw.example/site1/proxy/access/integration/v1/developer", ModeProxy},
	} {
		c, err := NewClient(tc.in, "tok")
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.base, c.BaseURL(), tc.in)
		assert.Equal(t, tc.mode, c.Mode(), tc.in)
	}
	assert.Equal(t, "proxy", ModeProxy.String())
	assert.Equal(t, "direct", ModeDirect.String())
	for _, bad := range []string{"", "X API KEY", "X-API-KEY\r\n", "Ä"} {
		_, err := NewClient("https://10.0.0.1", "tok", WithAuthHeader(bad))
		assert.ErrorIs(t, err, ErrValidation, "%q", bad)
	}
}

// TestUnauthorizedNamesTheHeader: a token sent where a key is expected (or
// the reverse) fails with a 401 whose message says which header carried
// it, never its value.
func TestUnauthorizedNamesTheHeader(t *testing.T) {
	t.Parallel()
	const key = "s3cret-key-value"
	srv := newRawServer(t, func(string) (int, string, string) {
		return 401, "application/json", `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`
	})
	for base, header := range map[string]string{"": "Authorization", ProxyPrefix: "X-API-KEY"} {
		c, err := NewClient(srv.URL()+base, key)
		require.NoError(t, err)
		_, _, err = c.Doors.List(context.Background())
		require.ErrorIs(t, err, ErrUnauthorized)
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, header, ae.AuthHeader)
		assert.Contains(t, err.Error(), "(credential sent in the "+header+" header)")
		assert.NotContains(t, fmt.Sprintf("%v %+v %#v", err, err, err), key)
	}
}

// TestHTMLPageWhereTheAPIWasExpected: a UniFi OS console without Access
// answers the proxy path with its own page.
func TestHTMLPageWhereTheAPIWasExpected(t *testing.T) {
	t.Parallel()
	const page = "<!DOCTYPE html><html><head><title>UniFi OS</title></head><body></body></html>"
	for _, status := range []int{200, 404} {
		srv := newRawServer(t, func(string) (int, string, string) { return status, "text/html; charset=utf-8", page })
		c, err := NewClient(srv.URL()+ProxyPrefix, "key")
		require.NoError(t, err)
		_, _, err = c.Doors.List(context.Background())
		require.ErrorIs(t, err, ErrInvalidResponse, "HTTP %d", status)
		assert.ErrorContains(t, err, "this address serves a UniFi OS page: is Access installed, and is the path right?")
		var errs []error
		for _, err := range c.Notifications.Subscribe(testContext(t), nil) {
			errs = append(errs, err)
		}
		require.Len(t, errs, 1)
		assert.ErrorIs(t, errs[0], ErrInvalidResponse, "HTTP %d", status)
		assert.ErrorContains(t, errs[0], "is Access installed")
	}
}

// TestGatewayPageIsAServerError: a 5xx answered with an HTML page is the
// proxy's error page while Access restarts behind it: an ErrServer that
// says so, not an invalid response blaming the path.
func TestGatewayPageIsAServerError(t *testing.T) {
	t.Parallel()
	const page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
	for _, status := range []int{502, 503, 504} {
		srv := newRawServer(t, func(string) (int, string, string) { return status, "text/html", page })
		c, err := NewClient(srv.URL()+ProxyPrefix, "key", WithRetryPolicy(RetryPolicy{}))
		require.NoError(t, err)
		_, _, err = c.Doors.List(context.Background())
		require.ErrorIs(t, err, ErrServer, "HTTP %d", status)
		assert.NotErrorIs(t, err, ErrInvalidResponse, "HTTP %d", status)
		assert.ErrorContains(t, err, "is the console restarting?")
		assert.NotContains(t, err.Error(), "is Access installed")
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, status, ae.StatusCode)
	}
}

// socketServer serves the notifications WebSocket on the given paths,
// answering every connection with a notification and then holding it
// until the server tells it to drop (drop) or the client goes; refuse,
// when set, answers an upgrade instead.
type socketServer struct {
	*httptest.Server
	drop   chan struct{}
	paths  chan string
	refuse atomic.Pointer[func(w http.ResponseWriter) bool]
}

func newSocketServer(t *testing.T, paths ...string) *socketServer {
	t.Helper()
	s := &socketServer{drop: make(chan struct{}, 8), paths: make(chan string, 64)}
	mux := http.NewServeMux()
	for _, p := range paths {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, r *http.Request) {
			s.paths <- r.URL.Path
			if f := s.refuse.Load(); f != nil && (*f)(w) {
				return
			}
			conn, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer conn.CloseNow()
			_ = conn.Write(r.Context(), websocket.MessageText, []byte(`{"event":"access.data.setting.update","data":{"lockdown":true,"evacuation":null}}`))
			select {
			case <-s.drop:
			case <-r.Context().Done():
			}
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.paths <- r.URL.Path
		writeRaw(w, 404, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"Not found."}`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func (s *socketServer) takePaths() []string {
	var out []string
	for {
		select {
		case p := <-s.paths:
			out = append(out, p)
		default:
			return out
		}
	}
}

// TestSubscribeOlderProxySocketPath: firmware that serves the socket only
// at the older path is found on 404, and remembered by the client.
func TestSubscribeOlderProxySocketPath(t *testing.T) {
	t.Parallel()
	const older = "/proxy/access/api/v1/developer/devices/notifications"
	srv := newSocketServer(t, older)
	c, err := NewClient(srv.URL+ProxyPrefix, "key")
	require.NoError(t, err)
	for i := range 2 {
		for n, err := range c.Notifications.Subscribe(testContext(t), nil) {
			require.NoError(t, err)
			require.Equal(t, NotificationSettingUpdate, n.Event)
			break
		}
		if i == 0 {
			assert.Equal(t, []string{ProxyPrefix + "/devices/notifications", older}, srv.takePaths())
		} else {
			assert.Equal(t, []string{older}, srv.takePaths(), "the path that worked is tried first")
		}
		assert.Equal(t, older, c.Notifications.SocketPath())
	}
}

// TestSubscribeRestartWindow: after the stream was established, the
// console's proxy answers 502 and then 401 while it restarts; the
// subscription keeps reconnecting, reports the outage once with its
// cause, and resumes with the gap signal.
func TestSubscribeRestartWindow(t *testing.T) {
	t.Parallel()
	srv := newSocketServer(t, ProxyPrefix+"/devices/notifications")
	c, err := NewClient(srv.URL+ProxyPrefix, "key")
	require.NoError(t, err)
	var refusals atomic.Int32
	refuse := func(w http.ResponseWriter) bool {
		switch n := refusals.Add(1); {
		case n <= 2:
			writeRaw(w, 502, "text/plain", "Bad Gateway")
		case n <= 5:
			writeRaw(w, 401, "application/json", `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`)
		default:
			return false
		}
		return true
	}
	var got []string
	first := true
	for n, err := range c.Notifications.Subscribe(testContext(t), &SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond}) {
		switch {
		case errors.Is(err, ErrDisconnected):
			var de *DisconnectedError
			require.ErrorAs(t, err, &de)
			got = append(got, fmt.Sprintf("down: %d", de.Cause.(*APIError).StatusCode))
			continue
		case errors.Is(err, ErrReconnected):
			var re *ReconnectedError
			require.ErrorAs(t, err, &re)
			got = append(got, fmt.Sprintf("gap: %d attempts", re.Attempts))
			continue
		}
		require.NoError(t, err)
		got = append(got, string(n.Event))
		if !first {
			break
		}
		first = false
		srv.refuse.Store(&refuse)
		srv.drop <- struct{}{} // the console goes down
	}
	assert.Equal(t, []string{string(NotificationSettingUpdate), "down: 502", "gap: 6 attempts", string(NotificationSettingUpdate)}, got)
	assert.Equal(t, int32(6), refusals.Load())
}

// TestSubscribeRestartGraceEnds: past the restart grace a 401 on
// reconnection ends the sequence; on the very first connection it is
// final at once.
func TestSubscribeRestartGraceEnds(t *testing.T) {
	t.Parallel()
	srv := newSocketServer(t, "/api/v1/developer/devices/notifications")
	c, err := NewClient(srv.URL, "tok")
	require.NoError(t, err)
	unauthorized := func(w http.ResponseWriter) bool {
		writeRaw(w, 401, "application/json", `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`)
		return true
	}
	var errs []error
	connected := false
	for n, err := range c.Notifications.Subscribe(testContext(t), &SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond, RestartGrace: time.Nanosecond}) {
		if n != nil {
			connected = true
			srv.refuse.Store(&unauthorized)
			srv.drop <- struct{}{}
			continue
		}
		errs = append(errs, err)
	}
	require.True(t, connected)
	require.Len(t, errs, 1, "past the grace, the 401 ends the sequence")
	assert.ErrorIs(t, errs[0], ErrUnauthorized)
	assert.ErrorContains(t, errs[0], "still refused")

	// A new client, refused from the start: final at once.
	c2, err := NewClient(srv.URL, "tok")
	require.NoError(t, err)
	errs = nil
	for _, err := range c2.Notifications.Subscribe(testContext(t), nil) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrUnauthorized)
	assert.NotContains(t, errs[0].Error(), "still refused")
}

// TestNotificationsCheck connects once and says which path answered.
func TestNotificationsCheck(t *testing.T) {
	t.Parallel()
	const older = "/proxy/access/api/v1/developer/devices/notifications"
	srv := newSocketServer(t, older, "/api/v1/developer/devices/notifications")
	c, err := NewClient(srv.URL+ProxyPrefix, "key")
	require.NoError(t, err)
	path, err := c.Notifications.Check(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, older, path)
	assert.Equal(t, older, c.Notifications.SocketPath())
	assert.Equal(t, []string{ProxyPrefix + "/devices/notifications", older}, srv.takePaths())

	d, err := NewClient(srv.URL, "tok")
	require.NoError(t, err)
	path, err = d.Notifications.Check(testContext(t))
	require.NoError(t, err)
	assert.Equal(t, "/api/v1/developer/devices/notifications", path)

	gone := newSocketServer(t)
	e, err := NewClient(gone.URL+ProxyPrefix, "key")
	require.NoError(t, err)
	_, err = e.Notifications.Check(testContext(t))
	assert.ErrorIs(t, err, ErrUnsupported)
	assert.ErrorContains(t, err, older)
}

// TestProxyKeyNeverLogged: in proxy mode the key travels only in its
// header: not in the retry layer's log, the errors, the client's
// printed forms.
func TestProxyKeyNeverLogged(t *testing.T) {
	t.Parallel()
	const key = "pr0xy-k3y-never-shown"
	var n atomic.Int32
	srv := newRawServer(t, func(head string) (int, string, string) {
		if n.Add(1) == 1 {
			return 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`
		}
		return 401, "application/json", `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`
	})
	var logs strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient(srv.URL()+ProxyPrefix, key, WithLogger(logger), WithRetryPolicy(fastRetry()))
	require.NoError(t, err)
	_, _, err = c.Doors.List(context.Background())
	require.ErrorIs(t, err, ErrUnauthorized)
	mu.Lock()
	logged := logs.String()
	mu.Unlock()
	assert.NotEmpty(t, logged, "the retry was logged")
	for _, s := range []string{logged, err.Error(), fmt.Sprintf("%v %+v %#v", err, err, err), fmt.Sprintf("%v %+v %#v", c, c, c)} {
		assert.NotContains(t, s, key)
	}
	heads := srv.Heads()
	require.Len(t, heads, 2)
	assert.Contains(t, heads[1], "\r\nX-API-KEY: "+key+"\r\n", "the retry carries the key, as named")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
