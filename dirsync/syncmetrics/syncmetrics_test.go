package syncmetrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access/internal/depstest"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/syncmetrics"
	"github.com/access-dev/access/site"
)

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

type source struct {
	mu   sync.Mutex
	snap *dirsync.Snapshot
	err  error
}

func (s *source) Name() string { return "corp" }

func (s *source) Read(context.Context) (*dirsync.Snapshot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return &dirsync.Snapshot{Source: "corp"}, s.err
	}
	c := *s.snap
	return &c, nil
}

func (s *source) set(snap *dirsync.Snapshot, err error) {
	s.mu.Lock()
	s.snap, s.err = snap, err
	s.mu.Unlock()
}

// directory answers Ada, Ben and Chloe, Ben active or not (modified at
// t0).
func directory(benActive bool) *dirsync.Snapshot {
	return &dirsync.Snapshot{Source: "corp", Complete: true, Finished: t0, People: []dirsync.Person{
		{Key: "E1", FirstName: "Ada", LastName: "Lovelace", Active: true},
		{Key: "E2", FirstName: "Ben", LastName: "Hall", Active: benActive, Modified: t0},
		{Key: "E3", FirstName: "Chloe", LastName: "Martin", Active: true},
	}}
}

type rig struct {
	srv     *accesstest.Server
	r       *dirsync.Runner
	reg     *prometheus.Registry
	results chan dirsync.RunResult
	ticks   chan time.Time
	src     *source
}

// start runs a runner of src (with opts) on a fake console of Ada, Ben, Chloe
// (and Gus, out of scope), its metrics observing each run; the
// acknowledgements are at t0+3s.
func start(t *testing.T, opts *dirsync.ReconcileOptions) *rig {
	t.Helper()
	srv := accesstest.New(t)
	srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace", EmployeeNumber: "E1"})
	srv.AddUser(access.User{FirstName: "Ben", LastName: "Hall", EmployeeNumber: "E2"})
	srv.AddUser(access.User{FirstName: "Chloe", LastName: "Martin", EmployeeNumber: "E3"})
	srv.AddUser(access.User{FirstName: "Gus", LastName: "Guard", UserEmail: "gus@example.com"})
	g := &rig{reg: prometheus.NewRegistry(), results: make(chan dirsync.RunResult, 8), ticks: make(chan time.Time), src: &source{snap: directory(true)}}
	var m *syncmetrics.Metrics
	r, err := dirsync.NewRunner(srv.Client(), dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: g.src, Options: opts}},
		Ticks:   g.ticks,
		Apply:   &dirsync.ApplyOptions{Now: func() time.Time { return t0.Add(3 * time.Second) }},
		OnRun:   func(res dirsync.RunResult) { m.Observe(res); g.results <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = syncmetrics.New(g.reg, r); err != nil {
		t.Fatal(err)
	}
	g.r, g.srv = r, srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return g
}

func (g *rig) next(t *testing.T) dirsync.RunResult {
	t.Helper()
	select {
	case res := <-g.results:
		return res
	case <-time.After(30 * time.Second):
		t.Fatal("no run within 30 s")
		return dirsync.RunResult{}
	}
}

// value returns the value of the series name{labels} ("k=v,k=v"), -1 when
// absent; a histogram's value is its sample count.
func value(t *testing.T, reg *prometheus.Registry, name, labels string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			if strings.Join(ls, ",") != labels {
				continue
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				return m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				return m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

func noGuard() *dirsync.ReconcileOptions {
	return &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}
}

// TestMetricsOfRuns: the state series follow the runs; a leaver's
// deactivation is one latency sample (3 s, from the directory's change to
// the acknowledgement).
func TestMetricsOfRuns(t *testing.T) {
	g := start(t, noGuard())
	g.next(t)
	src := "source=corp"
	for name, want := range map[string]float64{
		"access_sync_people": 3, "access_sync_out_of_scope_users": 1, "access_sync_pending_leavers": 0,
		"access_sync_guard_trips_total": 0, "access_sync_held": 0, "access_sync_source_up": 1, "access_sync_console_up": 1,
		"access_sync_revocation_latency_seconds": 0,
	} {
		if got := value(t, g.reg, name, src); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if v := value(t, g.reg, "access_sync_last_success_timestamp_seconds", src); v <= 0 {
		t.Errorf("last success %v", v)
	}
	g.src.set(directory(false), nil)
	g.ticks <- t0
	if res := g.next(t); res.Err != nil || res.Report.Deactivated != 1 {
		t.Fatalf("run: %+v", res)
	}
	if v := value(t, g.reg, "access_sync_revocation_latency_seconds", src); v != 1 {
		t.Errorf("latency samples %v", v)
	}
	mfs, _ := g.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "access_sync_revocation_latency_seconds" {
			if s := mf.GetMetric()[0].GetHistogram().GetSampleSum(); s != 3 {
				t.Errorf("latency sum %v, want 3", s)
			}
		}
	}
	if v := value(t, g.reg, "access_sync_people", src); v != 2 {
		t.Errorf("people %v", v)
	}
	if v := value(t, g.reg, "access_sync_runs_total", "result=ok,source=corp"); v != 2 {
		t.Errorf("ok runs %v", v)
	}
}

// TestMetricsGuardTrip: a guard trip is counted once and holds the
// source; the leavers it keeps are pending.
func TestMetricsGuardTrip(t *testing.T) {
	g := start(t, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: 0, MaxDeactivateShare: 10})
	g.next(t)
	gone := directory(false)
	gone.People[0].Active = false // Ada and Ben leave: 2 of 3, over 10 %
	g.src.set(gone, nil)
	g.ticks <- t0
	g.next(t)
	g.ticks <- t0
	g.next(t)
	src := "source=corp"
	for name, want := range map[string]float64{"access_sync_guard_trips_total": 1, "access_sync_held": 1, "access_sync_pending_leavers": 2} {
		if got := value(t, g.reg, name, src); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if v := value(t, g.reg, "access_sync_runs_total", "result=guard,source=corp"); v != 1 {
		t.Errorf("guard runs %v", v)
	}
	if v := value(t, g.reg, "access_sync_runs_total", "result=held,source=corp"); v != 1 {
		t.Errorf("held runs %v", v)
	}
}

// TestHealthz: /healthz answers 503 while the source cannot be read, 200
// once it can, 503 again while the console cannot be read; /metrics
// serves the series.
func TestHealthz(t *testing.T) {
	g := start(t, noGuard())
	g.next(t)
	h := syncmetrics.Handler(g.reg, g.r)
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/healthz"); code != http.StatusOK || !strings.Contains(body, `"ok":true`) {
		t.Errorf("healthy: %d %s", code, body)
	}
	g.src.set(nil, fmt.Errorf("%w: connection refused", dirsync.ErrUnavailable))
	g.ticks <- t0
	g.next(t)
	code, body := get("/healthz")
	var hb syncmetrics.Health
	if err := json.Unmarshal([]byte(body), &hb); err != nil || code != http.StatusServiceUnavailable || hb.OK ||
		len(hb.Sources) != 1 || hb.Sources[0].SourceOK || !hb.Sources[0].ConsoleOK || hb.Sources[0].LastError == "" {
		t.Errorf("source down: %d %s (%v)", code, body, err)
	}
	if v := value(t, g.reg, "access_sync_source_up", "source=corp"); v != 0 {
		t.Errorf("source_up %v", v)
	}
	code, body = get("/metrics")
	if code != http.StatusOK || !strings.Contains(body, `access_sync_people{source="corp"} 3`) {
		t.Errorf("/metrics: %d\n%s", code, body)
	}
	g.src.set(directory(true), nil)
	g.ticks <- t0
	g.next(t)
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("recovered: %d", code)
	}
	g.srv.Inject(accesstest.OpUsersList, accesstest.Fault{Status: http.StatusForbidden, Times: 1})
	g.ticks <- t0
	if res := g.next(t); !res.ConsoleFailed {
		t.Fatalf("console down: %+v", res)
	}
	code, body = get("/healthz")
	hb = syncmetrics.Health{}
	if err := json.Unmarshal([]byte(body), &hb); err != nil || code != http.StatusServiceUnavailable || hb.OK ||
		!hb.Sources[0].SourceOK || hb.Sources[0].ConsoleOK {
		t.Errorf("console down: %d %s (%v)", code, body, err)
	}
	if v := value(t, g.reg, "access_sync_console_up", "source=corp"); v != 0 {
		t.Errorf("console_up %v", v)
	}
	if v := value(t, g.reg, "access_sync_runs_total", "result=console_failed,source=corp"); v != 1 {
		t.Errorf("console_failed runs %v", v)
	}
}

// TestSyncmetricsDependencies: the package adds the Prometheus client
// (and what it brings) to dirsync's modules, nothing of the command's.
func TestSyncmetricsDependencies(t *testing.T) {
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
	allowed := append(mods("github.com/access-dev/access/dirsync"), mods("github.com/prometheus/client_golang/prometheus/promhttp")...)
	got := mods("github.com/access-dev/access/dirsync/syncmetrics")
	for _, m := range got {
		if !slices.Contains(allowed, m) {
			t.Errorf("package syncmetrics depends on module %s", m)
		}
	}
	for _, m := range []string{"github.com/spf13/cobra", "go.yaml.in/yaml/v3", "github.com/stretchr/testify"} {
		if slices.Contains(got, m) {
			t.Errorf("package syncmetrics depends on %s", m)
		}
	}
}

// TestMetricsPassPromtoolLint: the exposition passes "promtool check
// metrics" (names, units, help). Without promtool the test skips, except
// in CI (CI=true), whose .ci/run installs Debian's prometheus package.
func TestMetricsPassPromtoolLint(t *testing.T) {
	tool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no promtool in CI: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	g := start(t, noGuard())
	g.next(t)
	g.src.set(directory(false), nil)
	g.ticks <- t0
	g.next(t)
	rec := httptest.NewRecorder()
	syncmetrics.Handler(g.reg, g.r).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	cmd := exec.Command(tool, "check", "metrics")
	cmd.Stdin = strings.NewReader(rec.Body.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\n%s", err, out, rec.Body)
	}
}
