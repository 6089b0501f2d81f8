package simulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// rawControl sends a control API request as a script in another language
// would: the headers given, a JSON body, and the raw answer back.
func rawControl(t *testing.T, ctx context.Context, st *simulator.Site, hdr http.Header, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, st.URL+simulator.ControlPrefix+path, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header[k] = v // as given, not canonicalised
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := insecureHTTP().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// TestControlConsoleRestart: POST /console/restart, from raw HTTP, makes
// an SDK client subscribed through the proxy see the console restart: the
// stream reports ErrDisconnected with the proxy's HTTP 502, and, once the
// fake's clock has gone through the 401 phase (POST /clock/advance),
// resumes with its gap signal (ErrReconnected, last refusal the 401) and
// receives what happens next. Meanwhile the proxy answers REST requests
// 502 and the direct layout serves.
func TestControlConsoleRestart(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, NoUI: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bearer := http.Header{"Authorization": {"Bearer " + st.Token()}}
	act := func(path, body string) map[string]any {
		t.Helper()
		code, b := rawControl(t, ctx, st, bearer, "POST", path, body)
		require.Equal(t, http.StatusOK, code, "%s", b)
		var out map[string]any
		require.NoError(t, json.Unmarshal(b, &out))
		return out
	}

	c, err := access.NewClient(st.URL+access.ProxyPrefix, st.Token(), access.WithPinnedCertificate(st.Fingerprint))
	require.NoError(t, err)
	require.Equal(t, access.ModeProxy, c.Mode())
	got := make(chan string, 16)
	go func() {
		defer close(got)
		opts := &access.SubscribeOptions{MinBackoff: time.Millisecond, MaxBackoff: 4 * time.Millisecond}
		for n, err := range c.Notifications.Subscribe(ctx, opts) {
			var de *access.DisconnectedError
			var re *access.ReconnectedError
			var ae *access.APIError
			switch {
			case errors.As(err, &de) && errors.As(de.Cause, &ae):
				got <- "down: HTTP " + itoa(ae.StatusCode)
			case errors.As(err, &re) && errors.As(re.LastAttemptErr, &ae):
				got <- "back; last refusal HTTP " + itoa(ae.StatusCode)
			case err != nil:
				got <- "error: " + err.Error()
				return
			case n.Event == access.NotificationRemoteView:
				got <- "ring " + n.EventObjectID
			}
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case s := <-got:
			return s
		case <-ctx.Done():
			t.Fatal("the subscription reported nothing")
			return ""
		}
	}
	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 1))
	ring := act("/doorbell/ring", `{"device":"UA Intercom Main"}`)["result"].(map[string]any)
	assert.Equal(t, "ring "+ring["request_id"].(string), next())
	_ = act("/doorbell/cancel", `{"device":"UA Intercom Main"}`)

	before := st.Fake.Now()
	out := act("/console/restart", `{"bad_gateway":"1h","unauthorized":"30m"}`)
	res := out["result"].(map[string]any)
	assert.EqualValues(t, 1, res["sockets_dropped"], "the subscriber's socket")
	badUntil, err := time.Parse(time.RFC3339Nano, res["bad_gateway_until"].(string))
	require.NoError(t, err)
	unauthUntil, err := time.Parse(time.RFC3339Nano, res["unauthorized_until"].(string))
	require.NoError(t, err)
	assert.WithinRange(t, badUntil, before.Add(time.Hour), st.Fake.Now().Add(time.Hour))
	assert.Equal(t, 30*time.Minute, unauthUntil.Sub(badUntil))
	var caused accesstest.Effects
	b, _ := json.Marshal(out["caused"])
	require.NoError(t, json.Unmarshal(b, &caused))
	assert.Empty(t, caused.Events, "a restart publishes nothing")
	assert.Empty(t, caused.SystemLogs)
	assert.Equal(t, "down: HTTP 502", next())

	// Through the proxy, REST is answered 502 too; the direct port serves.
	for _, tc := range []struct {
		url  string
		hdr  http.Header
		want int
	}{
		{st.URL + access.ProxyPrefix + "/doors", http.Header{"X-API-KEY": {st.Token()}}, http.StatusBadGateway},
		{st.URL + "/api/v1/developer/doors", bearer, http.StatusOK},
	} {
		req, err := http.NewRequestWithContext(ctx, "GET", tc.url, nil)
		require.NoError(t, err)
		req.Header = tc.hdr
		resp, err := insecureHTTP().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, tc.want, resp.StatusCode, tc.url)
	}

	// Past the 502s: wait until the subscription has been refused with a
	// 401 (a reconnection journaled at or after the advanced time), then
	// move past the 401s.
	advanced := act("/clock/advance", `{"by":"1h"}`)
	since := int(advanced["caused"].(map[string]any)["requests_since"].(float64))
	for seen := false; !seen; {
		code, b := rawControl(t, ctx, st, bearer, "GET", "/requests?wait=true&timeout=10s&since="+itoa(since), "")
		require.Equal(t, http.StatusOK, code, "%s", b)
		var j struct {
			Items []struct {
				Op   string    `json:"op"`
				Time time.Time `json:"time"`
			} `json:"items"`
			Next     int  `json:"next"`
			TimedOut bool `json:"timed_out"`
		}
		require.NoError(t, json.Unmarshal(b, &j))
		require.False(t, j.TimedOut, "the subscription keeps reconnecting")
		for _, it := range j.Items {
			seen = seen || it.Op == string(accesstest.OpNotificationsSubscribe) && !it.Time.Before(badUntil)
		}
		since = j.Next
	}
	_ = act("/clock/advance", `{"by":"30m"}`)
	assert.Equal(t, "back; last refusal HTTP 401", next(), "the gap signal")

	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 1))
	ring = act("/doorbell/ring", `{"device":"UA Intercom Main"}`)["result"].(map[string]any)
	assert.Equal(t, "ring "+ring["request_id"].(string), next(), "the stream resumed")
}

// TestControlRestartRefusals: durations the act refuses, with 400.
func TestControlRestartRefusals(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, NoUI: true})
	bearer := http.Header{"Authorization": {"Bearer " + st.Token()}}
	for body, want := range map[string]string{
		`{"bad_gateway":"0s","unauthorized":"0s"}`: "not both zero",
		`{"bad_gateway":"-1s"}`:                    "give one such as 90s or 5m",
		`{"unauthorized":"25h"}`:                   "up to 24h0m0s",
		`{"bad_gateway":30}`:                       "a duration is a string",
		`{"colour":"red"}`:                         "unknown field",
	} {
		code, b := rawControl(t, context.Background(), st, bearer, "POST", "/console/restart", body)
		assert.Equal(t, http.StatusBadRequest, code, body)
		assert.Contains(t, string(b), want, body)
	}
	assert.Equal(t, http.StatusOK, proxyStatus(t, st), "nothing refused took effect")

	code, b := rawControl(t, context.Background(), st, bearer, "POST", "/console/restart", `{}`)
	require.Equal(t, http.StatusOK, code, "%s", b)
	var out struct {
		Result struct {
			BadGatewayUntil   time.Time `json:"bad_gateway_until"`
			UnauthorizedUntil time.Time `json:"unauthorized_until"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(b, &out))
	assert.Equal(t, 30*time.Second, out.Result.UnauthorizedUntil.Sub(out.Result.BadGatewayUntil), "the defaults: 30s, then 30s")
}

// TestControlAcceptsTheKeyInEitherHeader: the control API takes the API
// token as a Bearer token or, as a script in proxy layout sends it, as an
// X-API-KEY; a wrong one in either is refused with 401, and the answer
// holds neither the key sent nor the token.
func TestControlAcceptsTheKeyInEitherHeader(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, NoUI: true})
	ctx := context.Background()
	const wrong = "wrong-key-0123456789abcdef"
	position := func() access.DoorPositionStatus {
		d, _ := st.Fake.Door(accesstest.DemoDoorID)
		return d.PositionStatus
	}
	for _, tc := range []struct {
		name string
		hdr  http.Header
		ok   bool
	}{
		{"bearer", http.Header{"Authorization": {"Bearer " + st.Token()}}, true},
		{"X-API-KEY", http.Header{"X-API-KEY": {st.Token()}}, true},
		{"x-api-key lower case", http.Header{"x-api-key": {st.Token()}}, true},
		{"wrong X-API-KEY", http.Header{"X-API-KEY": {wrong}}, false},
		{"wrong bearer", http.Header{"Authorization": {"Bearer " + wrong}}, false},
		{"the token without Bearer", http.Header{"Authorization": {st.Token()}}, false},
		{"empty X-API-KEY", http.Header{"X-API-KEY": {""}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := rawControl(t, ctx, st, tc.hdr, "POST", "/door/open", `{"door":"Main entrance"}`)
			if !tc.ok {
				assert.Equal(t, http.StatusUnauthorized, code, "%s", b)
				assert.JSONEq(t, `{"error":{"code":"unauthorized","message":"send the API token (Authorization: Bearer, or X-API-KEY) or the page's credential"}}`, string(b))
				assert.NotContains(t, string(b), wrong)
				assert.NotContains(t, string(b), st.Token())
				assert.Equal(t, access.DoorClosed, position(), "nothing refused took effect")
				return
			}
			require.Equal(t, http.StatusOK, code, "%s", b)
			assert.Equal(t, access.DoorOpen, position())
			code, b = rawControl(t, ctx, st, tc.hdr, "POST", "/door/close", `{"door":"Main entrance"}`)
			require.Equal(t, http.StatusOK, code, "%s", b)
			assert.Equal(t, access.DoorClosed, position())
		})
	}
}

// proxyStatus is the status a request through the site's proxy layout is
// answered with.
func proxyStatus(t *testing.T, st *simulator.Site) int {
	t.Helper()
	req, err := http.NewRequest("GET", st.URL+access.ProxyPrefix+"/doors", nil)
	require.NoError(t, err)
	req.Header["X-API-KEY"] = []string{st.Token()}
	resp, err := insecureHTTP().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

// TestScenarioSchedulesARestart: a scenario step (do: console/restart)
// restarts the console at its time on the site's clock.
func TestScenarioSchedulesARestart(t *testing.T) {
	t.Parallel()
	sc, err := simulator.ParseScenario("restart.yaml", []byte(`version: 1
steps:
  - at: 10s
    do: console/restart
    with: {bad_gateway: 1m, unauthorized: 1m}
  - at: 1m30s
    do: door/open
    with: {door: Main entrance}
`))
	require.NoError(t, err)
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	st := startSim(t, simulator.Config{Demo: true, NoUI: true, ClockStart: start, FrozenClock: true})
	assert.Equal(t, http.StatusOK, proxyStatus(t, st))
	var out strings.Builder
	require.NoError(t, st.Play(context.Background(), sc, true, &out))
	assert.Contains(t, out.String(), `"at":"10s","step":"line-3","do":"console/restart"`)
	assert.Contains(t, out.String(), `"unauthorized_until":"2026-03-02T08:02:10Z"`)
	assert.Equal(t, http.StatusUnauthorized, proxyStatus(t, st), "at 1m30s: the 401 phase")
	st.Fake.Advance(40 * time.Second)
	assert.Equal(t, http.StatusOK, proxyStatus(t, st), "at 2m10s: back")
}
