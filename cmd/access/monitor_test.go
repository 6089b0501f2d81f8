package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
)

// lineLog collects the lines of a stream as they come, for waiting on.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced at each line
	eof   bool
}

func newLineLog(r io.Reader) *lineLog {
	l := &lineLog{more: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, r)
		l.mu.Lock()
		l.eof = true
		close(l.more)
		l.mu.Unlock()
	}()
	return l
}

// wait returns the first line from index from that matches, and its
// index.
func (l *lineLog) wait(ctx context.Context, from int, match func(string) bool) (string, int, error) {
	for i := from; ; {
		l.mu.Lock()
		for ; i < len(l.lines); i++ {
			if match(l.lines[i]) {
				s := l.lines[i]
				l.mu.Unlock()
				return s, i, nil
			}
		}
		more, eof := l.more, l.eof
		l.mu.Unlock()
		if eof {
			return "", 0, io.EOF
		}
		select {
		case <-more:
		case <-ctx.Done():
			return "", 0, ctx.Err()
		}
	}
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// monitorRun is an in-process access monitor.
type monitorRun struct {
	t        *testing.T
	ctx      context.Context
	stop     context.CancelFunc
	code     chan int
	out, err *lineLog
	addr     string
	seen     int // incident lines already consumed by next
}

var listenLine = regexp.MustCompile(`metrics at http://([^/]+)/metrics`)

// startMonitor runs access monitor with args, env, until the test ends,
// and waits until it has read the doors of every console.
func startMonitor(t *testing.T, consoles int, env func(string) string, args ...string) *monitorRun {
	t.Helper()
	tctx, tcancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(tcancel)
	ctx, stop := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	m := &monitorRun{t: t, ctx: tctx, stop: stop, code: make(chan int, 1), out: newLineLog(outR), err: newLineLog(errR)}
	go func() {
		code := run(ctx, append([]string{"monitor", "--listen", "127.0.0.1:0"}, args...), strings.NewReader(""), outW, errW, env)
		outW.Close()
		errW.Close()
		m.code <- code
	}()
	t.Cleanup(func() { m.end() })
	line, _, err := m.err.wait(tctx, 0, listenLine.MatchString)
	require.NoError(t, err, "stderr: %s", m.err)
	m.addr = listenLine.FindStringSubmatch(line)[1]
	ready := 0
	_, _, err = m.err.wait(tctx, 0, func(s string) bool {
		if strings.Contains(s, "doors have a position sensor") {
			ready++
		}
		return ready == consoles
	})
	require.NoError(t, err, "stderr: %s", m.err)
	return m
}

// end stops the monitor and returns its exit code.
func (m *monitorRun) end() int {
	m.stop()
	select {
	case c := <-m.code:
		m.code <- c
		return c
	case <-time.After(30 * time.Second):
		m.t.Fatalf("the monitor did not stop; stderr: %s", m.err)
		return -1
	}
}

// next waits for the next incident line of that type and kind.
func (m *monitorRun) next(typ string, k monitor.Kind) monitor.Incident {
	m.t.Helper()
	var in monitor.Incident
	_, i, err := m.out.wait(m.ctx, m.seen, func(s string) bool {
		in = monitor.Incident{}
		return json.Unmarshal([]byte(s), &in) == nil && in.Type == typ && in.Kind == k
	})
	require.NoError(m.t, err, "waiting for %s %s; stdout:\n%s\nstderr:\n%s", typ, k, m.out, m.err)
	m.seen = i + 1
	return in
}

// resolvedOf waits for the resolved line of an incident.
func (m *monitorRun) resolvedOf(opened monitor.Incident) monitor.Incident {
	m.t.Helper()
	var in monitor.Incident
	_, _, err := m.out.wait(m.ctx, 0, func(s string) bool {
		in = monitor.Incident{}
		return json.Unmarshal([]byte(s), &in) == nil && in.Type == monitor.TypeResolved && in.ID == opened.ID
	})
	require.NoError(m.t, err, "waiting for the resolution of %s; stdout:\n%s", opened.ID, m.out)
	assert.Equal(m.t, opened.Kind, in.Kind)
	return in
}

func (m *monitorRun) url(path string) string { return "http://" + m.addr + path }

// metrics asserts the scrape's series of the named metrics.
func (m *monitorRun) metrics(expected string, names ...string) {
	m.t.Helper()
	assert.NoError(m.t, testutil.ScrapeAndCompare(m.url("/metrics"), strings.NewReader(expected), names...))
}

func (m *monitorRun) scrape() string {
	m.t.Helper()
	resp, err := http.Get(m.url("/metrics"))
	require.NoError(m.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(m.t, err)
	require.Equal(m.t, http.StatusOK, resp.StatusCode, "%s", b)
	return string(b)
}

// serverRoom is the demo's server room, a door with a position sensor on
// the eight-door hub.
const serverRoom = "5c496423-6d25-4e4f-8cdf-95ad5135188a"

// TestMonitorEndToEnd plays each physical act on the fake against a
// running access monitor with short thresholds: each produces its
// incident (opened, then resolved with the same id), and the metrics
// follow, asserted through a scrape of the real listener.
func TestMonitorEndToEnd(t *testing.T) {
	t.Parallel()
	// Keepalives every 100 ms, so that a stream silent for 1 s is one.
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithKeepalive(100*time.Millisecond))
	// A user deactivated while still holding a card.
	res, err := srv.PresentCard(accesstest.DemoDeviceID, "REVOKED-1")
	require.NoError(t, err)
	revoked := srv.AddUser(access.User{FirstName: "Rev", LastName: "Oked", Status: access.UserStatusDeactivated,
		NFCCards: []access.NFCCard{{Token: res.Token}}})

	const secret = "whsec_monitor_test"
	hooks := make(chan *access.WebhookEvent, 64)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := access.ConstructEvent(body, r.Header.Get(access.SignatureHeader), secret)
		if err != nil || r.Header.Get("Webhook-Id") == "" {
			http.Error(w, fmt.Sprint(err), http.StatusBadRequest)
			return
		}
		hooks <- ev
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)

	m := startMonitor(t, 1, fakeEnv(srv, map[string]string{"ACCESS_WEBHOOK_SECRET": secret}),
		"--held-open", "2s", "--device-offline", "1s", "--stream-silent", "1s", "--stream-mute", "2s",
		"--poll-every", "200ms", "--rate", "50", "--burst", "20", "--forward-to", receiver.URL)
	require.NoError(t, srv.WaitNotificationClients(m.ctx, 1))
	assert.NotContains(t, m.err.String(), srv.Token())

	// Known label sets start at 0; the stream is up, nothing is open.
	m.metrics(`
# HELP access_incidents_total Incidents opened, by kind and door id ("unlisted": a door the last poll did not list; empty when the incident concerns no door).
# TYPE access_incidents_total counter
access_incidents_total{console="default",door="",kind="device_offline"} 0
access_incidents_total{console="default",door="",kind="emergency"} 0
access_incidents_total{console="default",door="",kind="forced_entry"} 0
access_incidents_total{console="default",door="",kind="held_open"} 0
access_incidents_total{console="default",door="",kind="inactive_credential"} 0
access_incidents_total{console="default",door="",kind="stream_mute"} 0
access_incidents_total{console="default",door="",kind="stream_silent"} 0
# HELP access_stream_connected 1 when the notifications stream is connected.
# TYPE access_stream_connected gauge
access_stream_connected{console="default"} 1
# HELP access_console_up 1 when the console answered the monitor's polls, 0 when the last poll of a kind failed.
# TYPE access_console_up gauge
access_console_up{console="default"} 1
`, "access_incidents_total", "access_stream_connected", "access_console_up")

	// A door opened without an unlock: forced at once, held open after 2 s.
	require.NoError(t, srv.SetDoorPosition(serverRoom, true))
	forced := m.next(monitor.TypeOpened, monitor.KindForcedEntry)
	assert.Equal(t, serverRoom, forced.Door)
	assert.Equal(t, "default", forced.Console)
	held := m.next(monitor.TypeOpened, monitor.KindHeldOpen)
	assert.Equal(t, serverRoom, held.Door)
	assert.GreaterOrEqual(t, held.At.Sub(held.Start), 2*time.Second)
	assert.Contains(t, m.scrape(), `access_door_open{console="default",door="`+serverRoom+`"} 1`)
	assert.Contains(t, m.scrape(), `access_incident_start_timestamp_seconds{console="default",kind="held_open",subject="`+serverRoom+`"}`)
	require.NoError(t, srv.SetDoorPosition(serverRoom, false))
	m.resolvedOf(forced)
	m.resolvedOf(held)
	assert.Contains(t, m.scrape(), `access_door_open{console="default",door="`+serverRoom+`"} 0`)

	// A device cut off.
	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoDeviceID, false))
	off := m.next(monitor.TypeOpened, monitor.KindDeviceOffline)
	assert.Equal(t, accesstest.DemoDeviceID, off.Device)
	assert.Contains(t, m.scrape(), `access_device_online{console="default",device="`+accesstest.DemoDeviceID+`"} 0`)
	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoDeviceID, true))
	m.resolvedOf(off)

	// A revoked card let in from a reader's cache.
	_, err = srv.PresentCardFromCache(accesstest.DemoDeviceID, "REVOKED-1")
	require.NoError(t, err)
	ic := m.next(monitor.TypeOpened, monitor.KindInactiveCredential)
	assert.Equal(t, accesstest.DemoDoorID, ic.Door)
	assert.Equal(t, revoked.ID, ic.User)
	require.NoError(t, srv.SetDoorPosition(accesstest.DemoDoorID, true))
	require.NoError(t, srv.SetDoorPosition(accesstest.DemoDoorID, false))
	m.resolvedOf(ic)
	m.metrics(`
# HELP access_decisions_total Access decisions from the access logs, by result, method and door id ("unlisted": a door the last poll did not list).
# TYPE access_decisions_total counter
access_decisions_total{console="default",door="`+accesstest.DemoDoorID+`",method="nfc",result="granted"} 1
`, "access_decisions_total")
	assert.NotContains(t, m.scrape(), "REVOKED-1", "a credential is never a label")
	assert.NotContains(t, m.scrape(), revoked.ID, "a person is never a label")

	// An emergency.
	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	em := m.next(monitor.TypeOpened, monitor.KindEmergency)
	assert.Equal(t, "lockdown", em.Mode)
	m.metrics(`
# HELP access_emergency 1 when the emergency mode (lockdown or evacuation) is in force.
# TYPE access_emergency gauge
access_emergency{console="default",mode="evacuation"} 0
access_emergency{console="default",mode="lockdown"} 1
`, "access_emergency")
	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{}))
	m.resolvedOf(em)

	// The stream dropped, and the console refusing it for a while.
	srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: http.StatusServiceUnavailable})
	srv.DropNotificationClients()
	silent := m.next(monitor.TypeOpened, monitor.KindStreamSilent)
	m.metrics(`
# HELP access_stream_connected 1 when the notifications stream is connected.
# TYPE access_stream_connected gauge
access_stream_connected{console="default"} 0
# HELP access_stream_gaps_total Outages of the notifications stream (a lost connection that could not be replaced at once).
# TYPE access_stream_gaps_total counter
access_stream_gaps_total{console="default"} 1
`, "access_stream_connected", "access_stream_gaps_total")
	resp, err := http.Get(m.url("/healthz"))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	srv.ClearFaults()
	m.resolvedOf(silent)

	// A connection that goes silent: replaced after the idle timeout.
	require.NoError(t, srv.WaitNotificationClients(m.ctx, 1))
	srv.SilenceNotificationClients()
	silent2 := m.next(monitor.TypeOpened, monitor.KindStreamSilent)
	m.resolvedOf(silent2)

	// Frames nothing recognises.
	mctx, stopMute := context.WithCancel(m.ctx)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			srv.NotifyRaw([]byte(`{"event":"access.data.v9.renamed","data":{}}`))
			select {
			case <-mctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	mute := m.next(monitor.TypeOpened, monitor.KindStreamMute)
	stopMute()
	_, err = srv.RingDoorbell(accesstest.DemoIntercomID) // a frame the monitor knows
	require.NoError(t, err)
	m.resolvedOf(mute)
	assert.Contains(t, m.scrape(), `access_stream_frames_unrecognised_total{console="default",event="access.data.v9.renamed"}`)

	m.metrics(`
# HELP access_incidents_total Incidents opened, by kind and door id ("unlisted": a door the last poll did not list; empty when the incident concerns no door).
# TYPE access_incidents_total counter
access_incidents_total{console="default",door="",kind="device_offline"} 0
access_incidents_total{console="default",door="",kind="emergency"} 1
access_incidents_total{console="default",door="",kind="forced_entry"} 0
access_incidents_total{console="default",door="",kind="held_open"} 0
access_incidents_total{console="default",door="",kind="inactive_credential"} 0
access_incidents_total{console="default",door="",kind="stream_mute"} 1
access_incidents_total{console="default",door="",kind="stream_silent"} 2
access_incidents_total{console="default",door="5c496423-6d25-4e4f-8cdf-95ad5135188a",kind="forced_entry"} 1
access_incidents_total{console="default",door="5c496423-6d25-4e4f-8cdf-95ad5135188a",kind="held_open"} 1
access_incidents_total{console="default",door="6ff875d2-af87-470b-9cb5-774c6596afc8",kind="device_offline"} 1
access_incidents_total{console="default",door="6ff875d2-af87-470b-9cb5-774c6596afc8",kind="inactive_credential"} 1
`, "access_incidents_total")

	// Every incident line reached the webhook receiver, signed.
	got := map[string]bool{}
	for len(got) < 16 {
		select {
		case ev := <-hooks:
			var obj monitor.Incident
			require.NoError(t, json.Unmarshal(ev.Data.Object, &obj))
			assert.Equal(t, ev.EventObjectID, obj.ID)
			assert.Equal(t, "access.monitor."+obj.Type, string(ev.Event))
			got[obj.ID+obj.Type] = true
		case <-m.ctx.Done():
			t.Fatalf("webhooks received: %d of 16", len(got))
		}
	}
	assert.Equal(t, 0, m.end())
	assert.NotContains(t, m.out.String()+m.err.String(), secret)
}

// TestMonitorEndsCleanlyOnSignals runs access monitor as a process (the
// test binary under the name access, as testscript does) and stops it
// with SIGINT, SIGTERM and SIGHUP: each ends it cleanly, exit status 0.
func TestMonitorEndsCleanlyOnSignals(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "access")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Skipf("no symlink: %v", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			srv := accesstest.New(t, accesstest.WithDemoData())
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "monitor", "--listen", "127.0.0.1:0")
			cmd.Env = append(os.Environ(), "ACCESS_URL="+srv.URL(), "ACCESS_TOKEN="+srv.Token(), "ACCESS_FINGERPRINT="+srv.Fingerprint(),
				"ACCESS_CONFIG_DIR="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			lines := newLineLog(stderr)
			_, _, err = lines.wait(ctx, 0, func(s string) bool { return strings.Contains(s, "doors have a position sensor") })
			require.NoError(t, err, "stderr: %s", lines)
			require.NoError(t, srv.WaitNotificationClients(ctx, 1))
			require.NoError(t, cmd.Process.Signal(sig))
			_, _, err = lines.wait(ctx, 0, func(s string) bool { return s == "monitor: stopped" })
			require.NoError(t, err, "stderr: %s", lines)
			require.NoError(t, cmd.Wait(), "stderr: %s", lines)
			assert.Equal(t, 0, cmd.ProcessState.ExitCode())
			require.NoError(t, srv.WaitNotificationClients(ctx, 0), "the subscription is closed")
		})
	}
}

// TestMonitorManyConsolesOneDown: three profiles, one of them a console
// that does not answer: the other two are watched and served, the third
// is reported down, in the metrics and in /healthz.
func TestMonitorManyConsolesOneDown(t *testing.T) {
	t.Parallel()
	a := accesstest.New(t, accesstest.WithDemoData())
	b := accesstest.New(t, accesstest.WithDemoData())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	downURL := "https://" + ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	dir := t.TempDir()
	cfg := fmt.Sprintf(`profiles:
  site-a: {url: %q, token: %q, fingerprint: %q}
  site-b: {url: %q, token: %q, fingerprint: %q}
  site-c: {url: %q, token: "t0ken-c"}
`, a.URL(), a.Token(), a.Fingerprint(), b.URL(), b.Token(), b.Fingerprint(), downURL)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600))
	env := func(k string) string { return map[string]string{"ACCESS_CONFIG_DIR": dir, "TZ": "UTC"}[k] }

	for _, args := range [][]string{{"--profile", "site-a,site-b,site-c"}, {"--all-profiles"}} {
		m := startMonitor(t, 3, func(k string) string {
			if k == "ACCESS_PROFILE" {
				return ""
			}
			return env(k)
		}, append(args, "--rate", "50", "--burst", "20")...)
		require.NoError(t, a.WaitNotificationClients(m.ctx, 1))
		require.NoError(t, b.WaitNotificationClients(m.ctx, 1))
		body := m.scrape()
		assert.Contains(t, body, `access_console_up{console="site-a"} 1`)
		assert.Contains(t, body, `access_console_up{console="site-b"} 1`)
		assert.Contains(t, body, `access_console_up{console="site-c"} 0`)
		assert.Contains(t, body, `access_poll_success{console="site-c",poll="doors"} 0`)
		assert.NotContains(t, body, "t0ken-c")

		// The consoles that answer are watched.
		require.NoError(t, b.SetDoorPosition(serverRoom, true))
		in := m.next(monitor.TypeOpened, monitor.KindForcedEntry)
		assert.Equal(t, "site-b", in.Console)
		require.NoError(t, b.SetDoorPosition(serverRoom, false))
		m.resolvedOf(in)

		resp, err := http.Get(m.url("/healthz"))
		require.NoError(t, err)
		var h struct {
			OK       bool `json:"ok"`
			Consoles []struct {
				Console string            `json:"console"`
				OK      bool              `json:"ok"`
				Errors  map[string]string `json:"errors"`
			} `json:"consoles"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&h))
		resp.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		require.Len(t, h.Consoles, 3)
		assert.Equal(t, "site-a", h.Consoles[0].Console)
		assert.True(t, h.Consoles[0].OK)
		assert.True(t, h.Consoles[1].OK)
		assert.Equal(t, "site-c", h.Consoles[2].Console)
		assert.False(t, h.Consoles[2].OK)
		assert.NotEmpty(t, h.Consoles[2].Errors["doors"])
		assert.NotContains(t, m.err.String(), "t0ken-c")
		assert.Equal(t, 0, m.end())
		require.NoError(t, a.WaitNotificationClients(m.ctx, 0))
		require.NoError(t, b.WaitNotificationClients(m.ctx, 0))
	}
}

// TestMonitorConnectionNames: one console is named after the profile it
// comes from (the current one included; "default" when the environment
// gives its URL), several after theirs; an unknown profile is a usage
// error.
func TestMonitorConnectionNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(`current: hq
profiles:
  hq: {url: "https://127.0.0.1:1", token: "t1"}
  lab: {url: "https://127.0.0.1:2", token: "t2"}
`), 0o600))
	names := func(profile, envURL string, all bool) ([]string, error) {
		env := map[string]string{"ACCESS_CONFIG_DIR": dir, "ACCESS_URL": envURL}
		if envURL != "" {
			env["ACCESS_TOKEN"] = "t3" // a console of the environment brings its own token
		}
		a := newApp(context.Background(), nil, io.Discard, io.Discard, func(k string) string { return env[k] })
		a.profile = profile
		conns, err := a.monitorConnections(all)
		var out []string
		for _, c := range conns {
			out = append(out, c.name+"="+c.conn.URL)
		}
		return out, err
	}
	got, err := names("", "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"hq=https://127.0.0.1:1"}, got)
	got, err = names("lab", "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"lab=https://127.0.0.1:2"}, got)
	got, err = names("", "https://127.0.0.1:3", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"default=https://127.0.0.1:3"}, got, "a console of the environment is no profile's")
	got, err = names("lab,hq", "", false)
	require.NoError(t, err)
	assert.Equal(t, []string{"lab=https://127.0.0.1:2", "hq=https://127.0.0.1:1"}, got, "in the order given, as plan and apply")
	got, err = names("", "", true)
	require.NoError(t, err)
	assert.Equal(t, []string{"hq=https://127.0.0.1:1", "lab=https://127.0.0.1:2"}, got)
	_, err = names("hq,nope", "", false)
	assert.Equal(t, 2, exitCode(context.Background(), err))
	_, err = names("hq", "", true)
	assert.Equal(t, 2, exitCode(context.Background(), err))
}
