// Package syncmetrics exports a dirsync.Runner's state as Prometheus
// metrics and serves /metrics and /healthz, for the sync daemon. It is apart
// from package dirsync so that a program that only reads a directory does
// not take the Prometheus client.
//
// The state of each source (its last successful run, its people, the
// leavers pending, its guard trips and hold, whether its directory and the
// console could be read) is read from Runner.Status by a collector at each
// scrape; the revocation latencies are a histogram that Metrics.Observe
// fills from each run's evidence records (call it from
// RunnerOptions.OnRun). Every series carries the source label; the names
// start with access_sync_, as the monitor's start with access_.
package syncmetrics

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// LatencyBuckets are the revocation latency histogram's buckets, in
// seconds: from a SCIM push's second to FedRAMP's four hours.
var LatencyBuckets = []float64{0.25, 0.5, 1, 2.5, 5, 10, 30, 35, 60, 120, 300, 900, 2400, 3600, 14400}

// Metrics are a runner's metrics.
type Metrics struct {
	r       *dirsync.Runner
	latency *prometheus.HistogramVec
	runs    *prometheus.CounterVec
}

// syncDescs are the descriptions of the metrics the collector makes at
// each scrape.
type syncDescs struct {
	descLastSuccess, descPeople, descOutOfScope, descPending *prometheus.Desc
	descTrips, descHeld, descSourceUp, descConsoleUp         *prometheus.Desc
}

// theDescs are the descriptions, made when first used: a program that
// links the package without serving a sync's metrics (every start of
// access) makes none.
var theDescs = sync.OnceValue(func() *syncDescs {
	return &syncDescs{
		descLastSuccess: prometheus.NewDesc("access_sync_last_success_timestamp_seconds",
			"When the last run that left the console equal to the source finished (Unix time; 0 before the first).", []string{"source"}, nil),
		descPeople: prometheus.NewDesc("access_sync_people",
			"Active people of the source's last complete read: the people in scope kept on the console.", []string{"source"}, nil),
		descOutOfScope: prometheus.NewDesc("access_sync_out_of_scope_users",
			"Console users outside the source's scope at the last plan, left alone.", []string{"source"}, nil),
		descPending: prometheus.NewDesc("access_sync_pending_leavers",
			"Leavers the last plan would deactivate that are not deactivated yet (held by the guard, or failed).", []string{"source"}, nil),
		descTrips: prometheus.NewDesc("access_sync_guard_trips_total",
			"Times the guard refused a plan and held the source.", []string{"source"}, nil),
		descHeld: prometheus.NewDesc("access_sync_held",
			"1 while the source is held after a guard trip, waiting for an operator.", []string{"source"}, nil),
		descSourceUp: prometheus.NewDesc("access_sync_source_up",
			"1 when the last read of the source succeeded (complete, not empty).", []string{"source"}, nil),
		descConsoleUp: prometheus.NewDesc("access_sync_console_up",
			"1 when the console could be read at the source's last run.", []string{"source"}, nil),
	}
})

// New makes the metrics of r and registers them with reg.
func New(reg prometheus.Registerer, r *dirsync.Runner) (*Metrics, error) {
	m := &Metrics{r: r,
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "access_sync_revocation_latency_seconds",
			Help:    "Time from the source's change (or the read that saw it) to the console's acknowledgement of a leaver's deactivation.",
			Buckets: LatencyBuckets}, []string{"source"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_sync_runs_total",
			Help: "Runs, by source and result (ok, source_failed, console_failed, guard, held, failed)."}, []string{"source", "result"}),
	}
	for _, c := range []prometheus.Collector{m.latency, m.runs, collector{m}} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	for _, s := range r.Status() {
		m.latency.WithLabelValues(s.Source)
		for _, res := range []string{"ok", "source_failed", "console_failed", "guard", "held", "failed"} {
			m.runs.WithLabelValues(s.Source, res)
		}
	}
	return m, nil
}

// Observe counts a run and observes the latency of each leaver it
// deactivated (or deleted). Call it from RunnerOptions.OnRun.
func (m *Metrics) Observe(res dirsync.RunResult) {
	m.runs.WithLabelValues(res.Source, result(res)).Inc()
	if res.Report == nil {
		return
	}
	for _, rec := range res.Report.Records {
		if (rec.Action == dirsync.ActionDeactivate || rec.Action == dirsync.ActionDelete) && rec.Status == "done" {
			m.latency.WithLabelValues(res.Source).Observe(rec.LatencySeconds)
		}
	}
}

func result(res dirsync.RunResult) string {
	switch {
	case res.Err == nil:
		return "ok"
	case res.SourceFailed:
		return "source_failed"
	case res.ConsoleFailed:
		return "console_failed"
	case errors.Is(res.Err, dirsync.ErrHeld):
		return "held"
	case errors.Is(res.Err, site.ErrGuard):
		return "guard"
	default:
		return "failed"
	}
}

type collector struct{ m *Metrics }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ds := theDescs()
	for _, d := range []*prometheus.Desc{ds.descLastSuccess, ds.descPeople, ds.descOutOfScope, ds.descPending, ds.descTrips, ds.descHeld, ds.descSourceUp, ds.descConsoleUp} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	ds := theDescs()
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for _, s := range c.m.r.Status() {
		last := 0.0
		if !s.LastSuccess.IsZero() {
			last = float64(s.LastSuccess.UnixNano()) / 1e9
		}
		ch <- prometheus.MustNewConstMetric(ds.descLastSuccess, prometheus.GaugeValue, last, s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descPeople, prometheus.GaugeValue, float64(s.People), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descOutOfScope, prometheus.GaugeValue, float64(s.OutOfScope), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descPending, prometheus.GaugeValue, float64(s.PendingLeavers), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descTrips, prometheus.CounterValue, float64(s.GuardTrips), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descHeld, prometheus.GaugeValue, b(s.Held != nil), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descSourceUp, prometheus.GaugeValue, b(s.SourceOK), s.Source)
		ch <- prometheus.MustNewConstMetric(ds.descConsoleUp, prometheus.GaugeValue, b(s.ConsoleOK), s.Source)
	}
}

// SourceHealth is what /healthz reports of a source.
type SourceHealth struct {
	Source    string `json:"source"`
	SourceOK  bool   `json:"source_ok"`
	ConsoleOK bool   `json:"console_ok"`
	Held      bool   `json:"held"`
	LastError string `json:"last_error,omitempty"`
}

// Health is the body of /healthz: OK is false when a source or the
// console could not be read at a source's last run (a hold is reported,
// not a failure).
type Health struct {
	OK      bool           `json:"ok"`
	Sources []SourceHealth `json:"sources"`
}

// HealthOf returns r's health.
func HealthOf(r *dirsync.Runner) Health {
	h := Health{OK: true, Sources: []SourceHealth{}}
	for _, s := range r.Status() {
		h.OK = h.OK && s.SourceOK && s.ConsoleOK
		h.Sources = append(h.Sources, SourceHealth{Source: s.Source, SourceOK: s.SourceOK, ConsoleOK: s.ConsoleOK,
			Held: s.Held != nil, LastError: s.LastError})
	}
	return h
}

// Handler serves GET /metrics from g and GET /healthz of r: 200 with the
// Health as JSON, 503 when a source or the console cannot be read.
func Handler(g prometheus.Gatherer, r *dirsync.Runner) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		h := HealthOf(r)
		w.Header().Set("Content-Type", "application/json")
		if !h.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(h)
	})
	return mux
}
