package simulator_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// insecureHTTP is a client for the console's page in these tests (the
// SDK pins the certificate; a browser would be told to trust it).
func insecureHTTP() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback test server
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestPermissionsLimitTheToken: --permissions view:space lets the token
// list doors and nothing else (403 with the API's error code).
func TestPermissionsLimitTheToken(t *testing.T) {
	t.Parallel()
	perms, err := simulator.ParsePermissions("view:space, view:space")
	require.NoError(t, err)
	assert.Equal(t, []accesstest.Permission{accesstest.ViewSpace}, perms)
	st := startSim(t, simulator.Config{Demo: true, Permissions: perms})
	c := sdkClient(t, st)
	ctx := context.Background()
	doors, _, err := c.Doors.List(ctx)
	require.NoError(t, err)
	assert.Len(t, doors, 8)
	_, _, err = c.Users.List(ctx, nil)
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	assert.ErrorIs(t, err, access.ErrForbidden)

	_, err = simulator.ParsePermissions("view:space,edit:everything")
	var ue *simulator.UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, 2, ue.ExitCode())
}

// TestPortOnlyAddrIsLoopback: --addr :0 picks a free port on loopback,
// as the default address does, so it needs no --ui-password; every
// interface is asked for with 0.0.0.0 (TestBadInputExitsTwo).
func TestPortOnlyAddrIsLoopback(t *testing.T) {
	t.Parallel()
	sim, err := simulator.Start(simulator.Config{Addr: ":0"})
	require.NoError(t, err)
	defer sim.Close()
	require.Len(t, sim.Sites, 1)
	assert.Regexp(t, `^https://127\.0\.0\.1:[1-9][0-9]*$`, sim.Sites[0].URL)
	_, _, err = sdkClient(t, sim.Sites[0]).Doors.List(context.Background())
	require.NoError(t, err)
}

// TestSeveralSites: --sites 3 serves three separate consoles on their own
// ports; a change at one is not seen at the others, and the export lines
// name each.
func TestSeveralSites(t *testing.T) {
	t.Parallel()
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Sites: 3, Token: "shared-token", NoUI: true})
	require.NoError(t, err)
	defer sim.Close()
	require.Len(t, sim.Sites, 3)
	seen := map[string]bool{}
	ctx := context.Background()
	for i, st := range sim.Sites {
		assert.False(t, seen[st.URL], "own port")
		seen[st.URL] = true
		c := sdkClient(t, st)
		_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Site", LastName: string(rune('A' + i))})
		require.NoError(t, err)
	}
	for i, st := range sim.Sites {
		users := st.Fake.Users()
		require.Len(t, users, 1, "site %d has only its own user", i+1)
		assert.Equal(t, string(rune('A'+i)), users[0].LastName)
	}
	var env bytes.Buffer
	sim.PrintEnv(&env)
	out := env.String()
	assert.Contains(t, out, "export ACCESS_URL='"+sim.Sites[0].URL+"'\n")
	assert.Contains(t, out, "export ACCESS_URL_2='"+sim.Sites[1].URL+"'\n")
	assert.Contains(t, out, "export ACCESS_TOKEN_3='shared-token'\n")
	assert.Contains(t, out, "export ACCESS_PROXY_URL_2='"+sim.Sites[1].URL+"/proxy/access/integration/v1/developer'\n")
	assert.Equal(t, 15, strings.Count(out, "\n"))
}

// TestConsoleShowsTheMode: the page says how many requests came in each
// layout, direct and through the proxy, and the proxy layout serves the
// same site with the token as an X-API-KEY. The page's own subscription
// (its live feed) is no client: the counts and the journal leave it out.
func TestConsoleShowsTheMode(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 1), "the page's live feed subscribes")
	assert.Empty(t, st.Fake.Requests(), "the journal holds the page's own subscription")
	direct, proxied := st.Fake.RequestsByMode()
	assert.Equal(t, [2]int{0, 0}, [2]int{direct, proxied}, "the page's own subscription is counted")

	proxy, err := access.NewClient(st.URL+access.ProxyPrefix, st.Token(), access.WithPinnedCertificate(st.Fingerprint),
		access.WithRetryPolicy(accesstest.RetryPolicy()))
	require.NoError(t, err)
	for range 2 {
		_, _, err = proxy.Doors.List(ctx)
		require.NoError(t, err)
	}
	resp, err := insecureHTTP().Get(st.URL + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	modes := regexp.MustCompile(`<div id="modes"[^>]*>(.*)</div>`).FindSubmatch(page)
	require.NotNil(t, modes, "no modes line on the page")
	assert.Equal(t, "Clients used: <strong data-direct>0</strong> direct (Bearer) · <strong data-proxy>2</strong> through the proxy (X-API-KEY)", string(modes[1]))
	reqs := st.Fake.Requests()
	require.Len(t, reqs, 2, "the journal holds the proxy client's requests alone")
	for _, r := range reqs {
		assert.Equal(t, access.ModeProxy, r.Mode)
	}
}

// TestConsolePassword: with --ui-password the page needs basic auth; the
// API still takes only the token.
func TestConsolePassword(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{UIPassword: "s3cret"})
	hc := insecureHTTP()
	resp, err := hc.Get(st.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("WWW-Authenticate"), "Basic")

	req, _ := http.NewRequest(http.MethodGet, st.URL+"/", nil)
	req.SetBasicAuth("anyone", "s3cret")
	resp, err = hc.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), "access fake")

	_, _, err = sdkClient(t, st).Doors.List(context.Background())
	assert.NoError(t, err)
}

// TestNoUI: --no-ui serves only the API; / answers like the API's
// unknown paths.
func TestNoUI(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{NoUI: true})
	resp, err := insecureHTTP().Get(st.URL + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(body), "CODE_RESOURCE_NOT_FOUND")
}

// TestConsoleNeverShowsTheToken: neither the page nor its live stream
// carries the token, and the site's printed form leaves it out.
func TestConsoleNeverShowsTheToken(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	hc := insecureHTTP()
	resp, err := hc.Get(st.URL + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.NotContains(t, string(page), st.Token())

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, st.URL+"/ui/events", nil)
	resp, err = hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	_, err = sdkClient(t, st).Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	// Read until the door's section arrives with the unlock in it.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var stream strings.Builder
	for sc.Scan() {
		stream.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `relay unlocked`) {
			break
		}
	}
	assert.Contains(t, stream.String(), "event: section")
	assert.NotContains(t, stream.String(), st.Token())
	assert.NotContains(t, st.String(), st.Token())
}

// TestConsolePageFormActionsGone: the page's own form endpoint is gone
// (its buttons call the control API): a form post, from the page's
// origin or another, changes nothing.
func TestConsolePageFormActionsGone(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	hc := insecureHTTP()
	for _, origin := range []string{"", st.URL, "https://evil.example"} {
		req, _ := http.NewRequest(http.MethodPost, st.URL+"/ui/act", strings.NewReader(url.Values{"do": {"lockdown"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		if origin == "https://evil.example" {
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
		} else {
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, origin)
		}
	}
	assert.Equal(t, access.EmergencyStatus{}, st.Fake.Emergency())
}

// TestConsoleShowsWebhookDeliveries: a delivery to an endpoint registered
// through the API shows on the page with its event, endpoint, status and
// time.
func TestConsoleShowsWebhookDeliveries(t *testing.T) {
	t.Parallel()
	got := make(chan string, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get(access.SignatureHeader)
		w.WriteHeader(http.StatusAccepted)
	}))
	defer recv.Close()
	st := startSim(t, simulator.Config{Demo: true})
	c := sdkClient(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: recv.URL + "/hook", Name: "test",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	select {
	case sig := <-got:
		assert.NotEmpty(t, sig, "signed")
	case <-ctx.Done():
		t.Fatal("no delivery")
	}
	require.NoError(t, st.Fake.WaitDeliveries(ctx))
	resp, err := insecureHTTP().Get(st.URL + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(page), "<code>access.door.unlock</code>")
	assert.Contains(t, string(page), recv.URL+"/hook")
	assert.Contains(t, string(page), "<td data-status>202</td><td data-attempt>1</td>")
	assert.Contains(t, string(page), "<th title=\"attempt of this delivery: 1, then the retries\">Try</th>")
	assert.Contains(t, string(page), "One attempt each")
	assert.Len(t, st.Fake.Deliveries(), 1)
}

// TestConsoleShowsWebhookRetries: with WebhookRetries (--webhook-retries)
// a receiver that fails twice and then answers gets three deliveries of
// the same signed body, and the page lists each attempt with its number
// and status, newest first.
func TestConsoleShowsWebhookRetries(t *testing.T) {
	t.Parallel()
	type hit struct {
		body []byte
		sig  string
	}
	got := make(chan hit, 8)
	var calls atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- hit{b, r.Header.Get(access.SignatureHeader)}
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()
	st := startSim(t, simulator.Config{Demo: true, WebhookRetries: 2})
	c := sdkClient(t, st)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: recv.URL + "/hook", Name: "test",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.NoError(t, st.Fake.WaitDeliveries(ctx), "the retries end")
	require.Len(t, got, 3)
	first := <-got
	for i := 2; i <= 3; i++ {
		h := <-got
		assert.Equal(t, first.body, h.body, "attempt %d: the same body", i)
		assert.Regexp(t, `^t=\d+,v1=[0-9a-f]{64}$`, h.sig, "attempt %d", i)
	}
	var tries []int
	for _, d := range st.Fake.Deliveries() {
		tries = append(tries, d.Attempt)
	}
	assert.Equal(t, []int{1, 2, 3}, tries)

	resp, err := insecureHTTP().Get(st.URL + "/")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	html := string(page)
	a3 := strings.Index(html, "<td data-status>200</td><td data-attempt>3</td>")
	a2 := strings.Index(html, "<td data-status>500</td><td data-attempt>2</td>")
	a1 := strings.Index(html, "<td data-status>500</td><td data-attempt>1</td>")
	require.True(t, a3 >= 0 && a2 >= 0 && a1 >= 0, "every attempt is listed: %s", html)
	assert.True(t, a3 < a2 && a2 < a1, "newest first")
	assert.Contains(t, html, "at most 2 more times")
}

// TestPrintedValuesHideTheToken: %v, %+v and %#v of a Config or a Site
// leave the token and the console's password out.
func TestPrintedValuesHideTheToken(t *testing.T) {
	t.Parallel()
	cfg := simulator.Config{Addr: "127.0.0.1:0", Token: "tok-0123456789", UIPassword: "pw-0123456789", NoUI: true}
	st := startSim(t, cfg)
	for _, v := range []any{cfg, &cfg, *st, st} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			out := fmt.Sprintf(verb, v)
			assert.NotContains(t, out, "tok-0123456789", verb)
			assert.NotContains(t, out, "pw-0123456789", verb)
		}
	}
	assert.Contains(t, fmt.Sprint(cfg), "Token:REDACTED")
}

// TestSeveralSitesKeepTheirState: with --sites 2 --state FILE, site 2
// keeps its state in FILE.2; a restart gives each site its own back,
// with the clients' generated token.
func TestSeveralSitesKeepTheirState(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	cfg := simulator.Config{Addr: "127.0.0.1:0", Sites: 2, StatePath: path, NoUI: true}
	sim, err := simulator.Start(cfg)
	require.NoError(t, err)
	st2 := sim.Sites[1]
	assert.Equal(t, path+".2", st2.StatePath)
	_, _, err = sdkClient(t, st2).Users.Create(context.Background(), &access.UserRequest{FirstName: "Only", LastName: "Two"})
	require.NoError(t, err)
	token2 := st2.Token()
	require.NoError(t, sim.Close())

	sim, err = simulator.Start(cfg)
	require.NoError(t, err)
	defer sim.Close()
	assert.Empty(t, sim.Sites[0].Fake.Users())
	users := sim.Sites[1].Fake.Users()
	require.Len(t, users, 1)
	assert.Equal(t, "Only", users[0].FirstName)
	assert.Equal(t, token2, sim.Sites[1].Token(), "the generated token survives the restart")
	_, _, err = sdkClient(t, sim.Sites[1]).Users.List(context.Background(), nil)
	assert.NoError(t, err)
}

// TestTimersFireWithoutARequest: in the running simulator (no web console,
// so no page reads the doors) a doorbell that nobody answers times out on
// its own, and a WebSocket subscriber gets its access.remote_view.change
// with no request after the ring. Advance brings the timeout to 50 ms
// ahead of the real clock.
func TestTimersFireWithoutARequest(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true, NoUI: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan *access.Notification, 64)
	client := sdkClient(t, st)
	go func() {
		for n, err := range client.Notifications.Subscribe(ctx, nil) {
			if err == nil && n.Event == access.NotificationRemoteViewChange {
				got <- n
			}
		}
	}()
	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 1))
	id, err := st.Fake.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	st.Fake.ResetRequests()

	st.Fake.Advance(accesstest.DoorbellRingTimeout - 50*time.Millisecond)
	select {
	case n := <-got:
		v, err := n.RemoteViewChange()
		require.NoError(t, err)
		assert.Equal(t, id, v.RemoteCallRequestID)
		assert.Equal(t, access.RemoteViewReason(105), v.ReasonCode, "timed out")
	case <-ctx.Done():
		t.Fatal("no access.remote_view.change: the timeout did not fire by itself")
	}
	assert.Empty(t, st.Fake.Requests(), "no request ran the timer")
}

// TestConsoleRestartsAndOtherConsoles: a restart of the site's console
// makes the proxy layout answer 502, then 401, on the site's clock, and
// leaves the direct layout alone; --older-proxy-socket and --without-access act out
// older firmware and a UniFi OS console without Access.
func TestConsoleRestartsAndOtherConsoles(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	client := func(base string) *access.Client {
		c, err := access.NewClient(base, st.Token(), access.WithPinnedCertificate(st.Fingerprint), access.WithRetryPolicy(access.RetryPolicy{}))
		require.NoError(t, err)
		return c
	}
	proxy, direct := client(st.URL+access.ProxyPrefix), client(st.URL)
	ctx := context.Background()
	st.Fake.Restart(10*time.Second, 20*time.Second)

	status := func() int {
		_, _, err := proxy.Doors.List(ctx)
		var apiErr *access.APIError
		if errors.As(err, &apiErr) {
			return apiErr.StatusCode
		}
		require.NoError(t, err)
		return 200
	}
	assert.Equal(t, http.StatusBadGateway, status())
	_, _, err := direct.Doors.List(ctx)
	assert.NoError(t, err, "the direct layout is not behind the proxy")
	st.Fake.Advance(10 * time.Second)
	assert.Equal(t, http.StatusUnauthorized, status())
	st.Fake.Advance(20 * time.Second)
	assert.Equal(t, http.StatusOK, status())

	older := startSim(t, simulator.Config{Demo: true, NoUI: true, OlderProxySocket: true})
	c, err := access.NewClient(older.URL+access.ProxyPrefix, older.Token(), access.WithPinnedCertificate(older.Fingerprint))
	require.NoError(t, err)
	path, err := c.Notifications.Check(ctx)
	require.NoError(t, err)
	assert.Equal(t, "/proxy/access/api/v1/developer/devices/notifications", path)

	bare := startSim(t, simulator.Config{NoUI: true, WithoutAccess: true})
	c, err = access.NewClient(bare.URL+access.ProxyPrefix, bare.Token(), access.WithPinnedCertificate(bare.Fingerprint))
	require.NoError(t, err)
	_, _, err = c.Doors.List(ctx)
	assert.ErrorIs(t, err, access.ErrInvalidResponse)
	assert.ErrorContains(t, err, "is Access installed")
}

// TestConsoleAnswersToItsNamesOnly: on loopback the web console answers
// only to the names it serves (its certificate's and its address), so a
// page of another site whose name resolves to 127.0.0.1 (DNS rebinding)
// reads nothing and presses no button; the API, which needs the token,
// is not concerned.
func TestConsoleAnswersToItsNamesOnly(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{})
	u, err := url.Parse(st.URL)
	require.NoError(t, err)
	port := u.Port()
	hc := insecureHTTP()
	get := func(host, path string) int {
		req, err := http.NewRequest(http.MethodGet, st.URL+path, nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, h := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "[::1]:" + port, "127.0.0.1"} {
		assert.Equal(t, http.StatusOK, get(h, "/"), "Host %s", h)
	}
	for _, h := range []string{"evil.example:" + port, "evil.example", "127.0.0.1.evil.example:" + port, "10.0.0.1:" + port, "localhost.evil.example"} {
		assert.Equal(t, http.StatusMisdirectedRequest, get(h, "/"), "Host %s", h)
		assert.Equal(t, http.StatusMisdirectedRequest, get(h, "/ui/events"), "Host %s", h)
	}
	req, err := http.NewRequest(http.MethodPost, st.URL+"/ui/act", strings.NewReader("do=lockdown"))
	require.NoError(t, err)
	req.Host = "evil.example:" + port
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example:"+port) // the rebound page's own origin
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	assert.False(t, st.Fake.Emergency().Lockdown, "no button pressed")

	// The control API, even with the token, answers to the same names.
	for host, want := range map[string]int{"evil.example:" + port: http.StatusMisdirectedRequest, "localhost:" + port: http.StatusOK} {
		req, err = http.NewRequest(http.MethodPost, st.URL+simulator.ControlPrefix+"/emergency", strings.NewReader(`{"mode":"none"}`))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+st.Token())
		resp, err = hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, host)
	}
}

// TestStartLinesExplainTheBrowserWarning: the start lines say why a
// browser warns about the web console's certificate and how to trust it
// (the --cert-out file); with a certificate of one's own (--cert), or
// without the web console, they say nothing of it.
func TestStartLinesExplainTheBrowserWarning(t *testing.T) {
	t.Parallel()
	pem := filepath.Join(t.TempDir(), "fake.pem")
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Demo: true, CertOut: pem})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	var out bytes.Buffer
	sim.PrintInfo(&out, true)
	assert.Contains(t, out.String(), "  web console: "+sim.Sites[0].URL+"/\n"+
		"  a browser warns about its certificate, the fake's own (self-signed): check that the SHA-256\n"+
		"  fingerprint it shows is ACCESS_FINGERPRINT and accept it for this address, or trust "+pem+"\n"+
		"  (docs/simulator.md, \"The web console in a browser\")\n")
	out.Reset()
	sim.PrintInfo(&out, false)
	assert.NotContains(t, out.String(), "browser")
}
