package watch_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
	"github.com/access-dev/access/monitor/watch"
)

// newMetrics makes the metrics of console "a" on a pedantic registry,
// and returns them, the registry and the console's registerer.
func newMetrics(t *testing.T) (*watch.Metrics, *prometheus.Registry, prometheus.Registerer) {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	creg := prometheus.WrapRegistererWith(prometheus.Labels{"console": "a"}, reg)
	m, err := watch.NewMetrics(creg)
	require.NoError(t, err)
	return m, reg, creg
}

// demoWatched starts a fake with the demo data and runs a watcher of it
// (watched); faults are injected before the watcher's first polls.
func demoWatched(t *testing.T, o watch.Options, faults map[accesstest.Op]accesstest.Fault) (*watch.Watcher, *prometheus.Registry) {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithDemoData())
	for op, f := range faults {
		srv.Inject(op, f)
	}
	return watched(t, srv, o)
}

// watched runs a watcher of srv registered with a pedantic registry under
// console "a", and returns once its first polls are done.
func watched(t *testing.T, srv *accesstest.Server, o watch.Options) (*watch.Watcher, *prometheus.Registry) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	m, reg, creg := newMetrics(t)
	var w *watch.Watcher
	cl := srv.Client(access.WithRateLimit(100, 20), access.WithTransportWrapper(m.Transport(func() { w.Upgraded() })))
	ready := make(chan struct{})
	o.Engine.Console, o.Metrics = "a", m
	o.Ready = func(monitor.Coverage, map[string]string) { close(ready) }
	w, err := watch.New(cl, o)
	require.NoError(t, err)
	require.NoError(t, creg.Register(w.Collector()))
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the watcher never became ready")
	}
	return w, reg
}

// runForwarder runs f with the drain time drain until cancel is called;
// done is closed once Run has returned.
func runForwarder(f *watch.Forwarder, drain time.Duration) (cancel context.CancelFunc, done <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); f.Run(ctx, drain) }()
	return cancel, ran
}

// TestMetricsLintAndGolden: the exposition passes the linter and the
// mirrored state reads as the golden text says.
func TestMetricsLintAndGolden(t *testing.T) {
	t.Parallel()
	_, reg := demoWatched(t, watch.Options{}, nil)
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)

	const golden = `
# HELP access_door_position_sensor 1 when a door has a position sensor: held open and forced entry can be seen only then.
# TYPE access_door_position_sensor gauge
access_door_position_sensor{console="a",door="5c496423-6d25-4e4f-8cdf-95ad5135188a"} 1
access_door_position_sensor{console="a",door="6ff875d2-af87-470b-9cb5-774c6596afc8"} 1
access_door_position_sensor{console="a",door="7e34cfc1-743e-40b2-ac93-8073944abd21"} 0
access_door_position_sensor{console="a",door="7fc08579-0553-4bf0-a1fc-45ccece96231"} 0
access_door_position_sensor{console="a",door="db7ff47f-eea5-4287-a5fd-f52d414c51ac"} 1
access_door_position_sensor{console="a",door="e2256f9a-7822-4599-ac0e-792b8565d042"} 1
access_door_position_sensor{console="a",door="ecbacb6d-72d2-4d2b-a991-f35a56394e8e"} 0
access_door_position_sensor{console="a",door="f3f6414f-fbc9-410e-a41e-c98a090c7274"} 1
# HELP access_door_open 1 when a door is open, 0 when closed (doors with a position sensor only).
# TYPE access_door_open gauge
access_door_open{console="a",door="5c496423-6d25-4e4f-8cdf-95ad5135188a"} 0
access_door_open{console="a",door="6ff875d2-af87-470b-9cb5-774c6596afc8"} 0
access_door_open{console="a",door="db7ff47f-eea5-4287-a5fd-f52d414c51ac"} 0
access_door_open{console="a",door="e2256f9a-7822-4599-ac0e-792b8565d042"} 0
access_door_open{console="a",door="f3f6414f-fbc9-410e-a41e-c98a090c7274"} 0
# HELP access_door_info A door's name and floor, by door id (always 1).
# TYPE access_door_info gauge
access_door_info{console="a",door="5c496423-6d25-4e4f-8cdf-95ad5135188a",floor="41054514-a2af-4c86-adc8-006ba7001259",name="Server room"} 1
access_door_info{console="a",door="6ff875d2-af87-470b-9cb5-774c6596afc8",floor="dbd676d4-15d0-4f0f-af7b-4471aa45cd50",name="Main entrance"} 1
access_door_info{console="a",door="7e34cfc1-743e-40b2-ac93-8073944abd21",floor="41054514-a2af-4c86-adc8-006ba7001259",name="Garage"} 1
access_door_info{console="a",door="7fc08579-0553-4bf0-a1fc-45ccece96231",floor="4190a174-6750-4c48-a613-10539cb54424",name="Roof hatch"} 1
access_door_info{console="a",door="db7ff47f-eea5-4287-a5fd-f52d414c51ac",floor="4190a174-6750-4c48-a613-10539cb54424",name="Office 2"} 1
access_door_info{console="a",door="e2256f9a-7822-4599-ac0e-792b8565d042",floor="dbd676d4-15d0-4f0f-af7b-4471aa45cd50",name="Visitor lobby"} 1
access_door_info{console="a",door="ecbacb6d-72d2-4d2b-a991-f35a56394e8e",floor="dbd676d4-15d0-4f0f-af7b-4471aa45cd50",name="Loading dock"} 1
access_door_info{console="a",door="f3f6414f-fbc9-410e-a41e-c98a090c7274",floor="7cda1f02-1a0e-4566-afce-3dfbd9ef8a9f",name="Office 1"} 1
# HELP access_emergency 1 when the emergency mode (lockdown or evacuation) is in force.
# TYPE access_emergency gauge
access_emergency{console="a",mode="evacuation"} 0
access_emergency{console="a",mode="lockdown"} 0
# HELP access_api_errors_total Requests to the console's API that failed (no answer, or HTTP 4xx/5xx), by operation.
# TYPE access_api_errors_total counter
access_api_errors_total{console="a",operation="Devices.List"} 0
access_api_errors_total{console="a",operation="Doors.GetEmergency"} 0
access_api_errors_total{console="a",operation="Doors.List"} 0
access_api_errors_total{console="a",operation="Notifications.Subscribe"} 0
access_api_errors_total{console="a",operation="Users.All"} 0
`
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(golden),
		"access_door_position_sensor", "access_door_open", "access_door_info", "access_emergency", "access_api_errors_total"))
}

// TestAPIMetricsByOperation: a failing poll counts as an API error of its
// operation and takes access_console_up to 0; /healthz-style health says
// which poll fails.
func TestAPIMetricsByOperation(t *testing.T) {
	t.Parallel()
	w, reg := demoWatched(t, watch.Options{}, map[accesstest.Op]accesstest.Fault{
		accesstest.OpDevicesList: {Status: http.StatusInternalServerError}})
	// The first polls are done when watched returns.
	assert.Contains(t, w.Health().Errors[watch.PollDevices], "500")
	n, err := testutil.GatherAndCount(reg, "access_api_errors_total")
	require.NoError(t, err)
	assert.Equal(t, 5, n)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	values := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.Metric {
			key := mf.GetName()
			for _, l := range m.Label {
				if l.GetName() == "operation" || l.GetName() == "poll" {
					key += "/" + l.GetValue()
				}
			}
			switch {
			case m.Counter != nil:
				values[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				values[key] = m.Gauge.GetValue()
			}
		}
	}
	// The SDK retries a 500 on a GET: every attempt counts.
	assert.GreaterOrEqual(t, values["access_api_errors_total/Devices.List"], 1.0)
	assert.Equal(t, 0.0, values["access_api_errors_total/Doors.List"])
	assert.Equal(t, 0.0, values["access_console_up"])
	assert.Equal(t, 0.0, values["access_poll_success/devices"])
	assert.Equal(t, 1.0, values["access_poll_success/doors"])
	assert.False(t, w.Health().OK)
}

func TestForwarderQueueNeverBlocks(t *testing.T) {
	t.Parallel()
	m, reg, _ := newMetrics(t)
	f := watch.NewForwarder("http://127.0.0.1:9/never", func() string { return "s" }, 2, nil, m)
	in := monitor.Incident{Type: monitor.TypeOpened, ID: "x", Kind: monitor.KindHeldOpen}
	// No worker runs: the queue fills, and Enqueue drops rather than
	// blocking.
	assert.True(t, f.Enqueue(in))
	assert.True(t, f.Enqueue(in))
	assert.False(t, f.Enqueue(in))
	assert.False(t, f.Enqueue(in))
	assert.Equal(t, 2, f.Len())
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP access_webhook_deliveries_total Incident webhook deliveries, by result (ok, failed after the retries, dropped because the queue was full).
# TYPE access_webhook_deliveries_total counter
access_webhook_deliveries_total{console="a",result="dropped"} 2
access_webhook_deliveries_total{console="a",result="failed"} 0
access_webhook_deliveries_total{console="a",result="ok"} 0
`), "access_webhook_deliveries_total"))
}

// TestForwarderSignsAndRetries: a delivery refused once is sent again
// with the same event id, signed so that access.ConstructEvent verifies
// it.
func TestForwarderSignsAndRetries(t *testing.T) {
	t.Parallel()
	const secret = "whsec_forward"
	var mu sync.Mutex
	var ids []string
	var events []*access.WebhookEvent
	calls := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		calls++
		ids = append(ids, r.Header.Get(watch.WebhookIDHeader))
		if calls == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		ev, err := access.ConstructEvent(body, r.Header.Get(access.SignatureHeader), secret)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		events = append(events, ev)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	f := watch.NewForwarder(recv.URL, func() string { return secret }, 10, recv.Client(), nil)
	f.Backoff = time.Millisecond
	cancel, done := runForwarder(f, time.Second)
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	require.True(t, f.Enqueue(monitor.Incident{Type: monitor.TypeOpened, ID: "abc", Kind: monitor.KindForcedEntry, Console: "a", Door: "d1",
		Start: start, At: start, Threshold: monitor.Duration(45 * time.Second)}))
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	require.NoError(t, f.Wait(wctx))
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"abc.incident.opened", "abc.incident.opened"}, ids)
	require.Len(t, events, 1)
	assert.Equal(t, access.EventType("access.monitor.incident.opened"), events[0].Event)
	assert.Equal(t, "abc", events[0].EventObjectID)
	assert.JSONEq(t, `{"type":"incident.opened","id":"abc","kind":"forced_entry","console":"a","door":"d1",
		"start":"2026-03-02T08:00:00Z","at":"2026-03-02T08:00:00Z","threshold":"45s","detail":""}`, string(events[0].Data.Object))
}

// TestForwarderDrainsOnShutdown: what is in flight or queued when the
// monitor stops is still delivered, within the drain time.
func TestForwarderDrainsOnShutdown(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 4)
	release := make(chan struct{})
	var mu sync.Mutex
	delivered := 0
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		mu.Lock()
		delivered++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	m, reg, _ := newMetrics(t)
	f := watch.NewForwarder(recv.URL, func() string { return "s" }, 10, recv.Client(), m)
	cancel, done := runForwarder(f, 10*time.Second)
	require.True(t, f.Enqueue(monitor.Incident{Type: monitor.TypeOpened, ID: "one"}))
	require.True(t, f.Enqueue(monitor.Incident{Type: monitor.TypeOpened, ID: "two"}))
	<-arrived // the first is in flight
	cancel()  // the monitor stops
	close(release)
	<-done
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, delivered)
	assert.Equal(t, 0, f.Len())
	// Both acknowledged by the receiver, none given up.
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP access_webhook_deliveries_total Incident webhook deliveries, by result (ok, failed after the retries, dropped because the queue was full).
# TYPE access_webhook_deliveries_total counter
access_webhook_deliveries_total{console="a",result="dropped"} 0
access_webhook_deliveries_total{console="a",result="failed"} 0
access_webhook_deliveries_total{console="a",result="ok"} 2
`), "access_webhook_deliveries_total"))
}
