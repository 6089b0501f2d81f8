package watch

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/access-dev/access"
	"github.com/access-dev/access/monitor"
)

// The metrics of one console. Occurrences (frames, decisions, reconnects,
// incidents, deliveries, API calls) are counters and a histogram updated
// as they happen; the mirrored state (doors, devices, emergency, stream)
// is read from the engine's snapshot by a collector at each scrape, never
// by an API call. Every series carries the console label, added by the
// registerer the metrics are registered with.

// Unlisted is the label value under which the metrics count a door or a
// device that the last poll did not list (one the stream names that the
// console does not list, or added since the last poll): only listed ids
// are label values, so a stream naming ever new ids makes no new series.
const Unlisted = "unlisted"

// maxUnrecognised caps the event names the unrecognised-frames counter
// keeps as label values; later names count as "other".
const maxUnrecognised = 32

// Metrics are one console's metrics.
type Metrics struct {
	events        *prometheus.CounterVec
	unrecognised  *prometheus.CounterVec
	decisions     *prometheus.CounterVec
	remoteUnlocks *prometheus.CounterVec
	doorbells     *prometheus.CounterVec
	reconnects    prometheus.Counter
	gaps          prometheus.Counter
	incidents     *prometheus.CounterVec
	deliveries    *prometheus.CounterVec
	apiRequests   *prometheus.CounterVec
	apiErrors     *prometheus.CounterVec
	apiLatency    *prometheus.HistogramVec

	mu        sync.Mutex
	unrecSeen map[string]bool
	// labelled holds the door (or device) ids that label a series of
	// decisions, remote unlocks, doorbells or incidents.
	labelled map[string]bool
}

// listing tells which doors and devices the last polls listed (the
// engine).
type listing interface {
	DoorListed(id string) bool
	DeviceListed(id string) bool
}

// apiOperations are the operations the monitor calls, whose series start
// at 0.
var apiOperations = []string{opDoorsList, opDevicesList, opEmergency, opUsersList, opSubscribe}

// The operations, as the API metrics label them.
const (
	opDoorsList   = "Doors.List"
	opDevicesList = "Devices.List"
	opEmergency   = "Doors.GetEmergency"
	opUsersList   = "Users.All"
	opSubscribe   = "Notifications.Subscribe"
)

// NewMetrics makes the metrics and registers them, with the collector of
// w's snapshot, with reg (which adds the console label: see
// prometheus.WrapRegistererWith).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		events: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_events_total",
			Help: "Notifications received, by event name (names the monitor does not know count as \"unrecognised\")."}, []string{"event"}),
		unrecognised: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_stream_frames_unrecognised_total",
			Help: "Messages of the stream that the monitor does not recognise, by event name (the first 32 names; then \"other\")."}, []string{"event"}),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_decisions_total",
			Help: "Access decisions from the access logs, by result, method and door id (\"unlisted\": a door the last poll did not list)."}, []string{"result", "method", "door"}),
		remoteUnlocks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_remote_unlocks_total",
			Help: "Remote unlocks (access.data.device.remote_unlock), by door id (\"unlisted\": a door the last poll did not list)."}, []string{"door"}),
		doorbells: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_doorbells_total",
			Help: "Doorbell rings, by door id (\"unlisted\": a door or device the last polls did not list)."}, []string{"door"}),
		reconnects: prometheus.NewCounter(prometheus.CounterOpts{Name: "access_stream_reconnects_total",
			Help: "Times the notifications stream was replaced after a loss (notifications may have been missed)."}),
		gaps: prometheus.NewCounter(prometheus.CounterOpts{Name: "access_stream_gaps_total",
			Help: "Outages of the notifications stream (a lost connection that could not be replaced at once)."}),
		incidents: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_incidents_total",
			Help: "Incidents opened, by kind and door id (\"unlisted\": a door the last poll did not list; empty when the incident concerns no door)."}, []string{"kind", "door"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_webhook_deliveries_total",
			Help: "Incident webhook deliveries, by result (ok, failed after the retries, dropped because the queue was full)."}, []string{"result"}),
		apiRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_api_requests_total",
			Help: "Requests to the console's API (every attempt), by operation and HTTP status class."}, []string{"operation", "code"}),
		apiErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "access_api_errors_total",
			Help: "Requests to the console's API that failed (no answer, or HTTP 4xx/5xx), by operation."}, []string{"operation"}),
		apiLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "access_api_request_duration_seconds",
			Help: "Latency of the requests to the console's API, by operation.", Buckets: prometheus.DefBuckets}, []string{"operation"}),
		unrecSeen: map[string]bool{},
		labelled:  map[string]bool{},
	}
	for _, c := range []prometheus.Collector{m.events, m.unrecognised, m.decisions, m.remoteUnlocks, m.doorbells, m.reconnects, m.gaps,
		m.incidents, m.deliveries, m.apiRequests, m.apiErrors, m.apiLatency} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	// Known label sets start at 0.
	for _, k := range monitor.Kinds {
		m.incidents.WithLabelValues(string(k), "")
	}
	for _, r := range []string{"ok", "failed", "dropped"} {
		m.deliveries.WithLabelValues(r)
	}
	for _, op := range apiOperations {
		m.apiErrors.WithLabelValues(op)
		m.apiLatency.WithLabelValues(op)
	}
	return m, nil
}

// frame counts one notification; the doors and devices l does not list
// count as [Unlisted].
func (m *Metrics) frame(f monitor.Frame, l listing) {
	if f.Recognised {
		m.events.WithLabelValues(string(f.Event)).Inc()
	} else {
		m.events.WithLabelValues("unrecognised").Inc()
		m.unrecognisedFrame(string(f.Event))
	}
	if d := f.Decision; d != nil {
		m.decisions.WithLabelValues(d.Result, string(d.Method), m.label(d.Door, l.DoorListed(d.Door))).Inc()
	}
	if f.RemoteUnlock != "" {
		m.remoteUnlocks.WithLabelValues(m.label(f.RemoteUnlock, l.DoorListed(f.RemoteUnlock))).Inc()
	}
	if f.IsDoorbell {
		id := f.Doorbell
		m.doorbells.WithLabelValues(m.label(id, l.DoorListed(id) || l.DeviceListed(id))).Inc()
	}
}

// label returns the label value of a door or device id: the id when it
// is listed (recorded, for forget), [Unlisted] otherwise; "" stays "" (a
// decision that names no door).
func (m *Metrics) label(id string, listed bool) string {
	switch {
	case id == "":
		return ""
	case !listed:
		return Unlisted
	}
	m.mu.Lock()
	m.labelled[id] = true
	m.mu.Unlock()
	return id
}

// forget deletes the series of the doors and devices that l no longer
// lists (removed from the console), after a poll.
func (m *Metrics) forget(l listing) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id := range m.labelled {
		if l.DoorListed(id) || l.DeviceListed(id) {
			continue
		}
		delete(m.labelled, id)
		for _, v := range []*prometheus.CounterVec{m.decisions, m.remoteUnlocks, m.doorbells, m.incidents} {
			v.DeletePartialMatch(prometheus.Labels{"door": id})
		}
	}
}

func (m *Metrics) unrecognisedFrame(name string) {
	m.mu.Lock()
	if !m.unrecSeen[name] {
		if len(m.unrecSeen) >= maxUnrecognised {
			name = "other"
		} else {
			m.unrecSeen[name] = true
		}
	}
	m.mu.Unlock()
	m.unrecognised.WithLabelValues(name).Inc()
}

// incident counts an opened incident by kind and door: the door's id
// when l lists it (alerts take its name from access_door_info),
// [Unlisted] when not, "" when it concerns no door (a device offline
// carries its device's door).
func (m *Metrics) incident(in monitor.Incident, l listing) {
	if in.Type == monitor.TypeOpened {
		m.incidents.WithLabelValues(string(in.Kind), m.label(in.Door, l.DoorListed(in.Door))).Inc()
	}
}

// opKey carries the operation of a request in its context.
type opKey struct{}

// withOp labels the requests made with ctx as operation op.
func withOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
}

// Transport returns a transport wrapper for [access.WithTransportWrapper]
// that counts and times every attempt by operation. upgraded, when not
// nil, is called when the notifications WebSocket's upgrade is accepted
// (the stream is connected).
func (m *Metrics) Transport(upgraded func()) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			op, _ := r.Context().Value(opKey{}).(string)
			if op == "" {
				op = "other"
			}
			start := time.Now()
			resp, err := next.RoundTrip(r)
			m.apiLatency.WithLabelValues(op).Observe(time.Since(start).Seconds())
			code := "error"
			if err == nil {
				code = strconv.Itoa(resp.StatusCode/100) + "xx"
				if resp.StatusCode == http.StatusSwitchingProtocols && upgraded != nil {
					upgraded()
				}
			}
			m.apiRequests.WithLabelValues(op, code).Inc()
			if err != nil || resp.StatusCode >= 400 {
				m.apiErrors.WithLabelValues(op).Inc()
			}
			return resp, err
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// ---- the mirrored state ----

// stateDescs are the descriptions of the metrics the collector makes at
// each scrape.
type stateDescs struct {
	descUp, descConnected, descLastFrame                       *prometheus.Desc
	descDoorInfo, descDoorLocked, descDoorOpen, descDoorSensor *prometheus.Desc
	descDeviceInfo, descDeviceOnline, descEmergency            *prometheus.Desc
	descOpen, descIncStart, descPoll, descQueue                *prometheus.Desc
}

// theDescs are the descriptions, made when first used: a program that
// links the package without watching a site (every start of access) makes
// none.
var theDescs = sync.OnceValue(func() *stateDescs {
	return &stateDescs{
		descUp:           prometheus.NewDesc("access_console_up", "1 when the console answered the monitor's polls, 0 when the last poll of a kind failed.", nil, nil),
		descConnected:    prometheus.NewDesc("access_stream_connected", "1 when the notifications stream is connected.", nil, nil),
		descLastFrame:    prometheus.NewDesc("access_stream_last_frame_timestamp_seconds", "When the last notification arrived (Unix time; 0 before the first).", nil, nil),
		descDoorInfo:     prometheus.NewDesc("access_door_info", "A door's name and floor, by door id (always 1).", []string{"door", "name", "floor"}, nil),
		descDoorLocked:   prometheus.NewDesc("access_door_locked", "1 when a door's lock is locked, 0 when unlocked (doors whose lock state is known).", []string{"door"}, nil),
		descDoorOpen:     prometheus.NewDesc("access_door_open", "1 when a door is open, 0 when closed (doors with a position sensor only).", []string{"door"}, nil),
		descDoorSensor:   prometheus.NewDesc("access_door_position_sensor", "1 when a door has a position sensor: held open and forced entry can be seen only then.", []string{"door"}, nil),
		descDeviceInfo:   prometheus.NewDesc("access_device_info", "A device's name, type and door, by device id (always 1).", []string{"device", "name", "type", "door"}, nil),
		descDeviceOnline: prometheus.NewDesc("access_device_online", "1 when a device is online, 0 when offline.", []string{"device"}, nil),
		descEmergency:    prometheus.NewDesc("access_emergency", "1 when the emergency mode (lockdown or evacuation) is in force.", []string{"mode"}, nil),
		descOpen:         prometheus.NewDesc("access_incidents_open", "Incidents open now, by kind.", []string{"kind"}, nil),
		descIncStart:     prometheus.NewDesc("access_incident_start_timestamp_seconds", "When an open incident began (Unix time), by kind and the door, device or mode it concerns.", []string{"kind", "subject"}, nil),
		descPoll:         prometheus.NewDesc("access_poll_success", "1 when the last poll of that kind succeeded.", []string{"poll"}, nil),
		descQueue:        prometheus.NewDesc("access_webhook_queue_length", "Incident deliveries waiting in the webhook queue.", nil, nil),
	}
})

// collector reads a watcher's snapshot at each scrape.
type collector struct{ w *Watcher }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ds := theDescs()
	for _, d := range []*prometheus.Desc{ds.descUp, ds.descConnected, ds.descLastFrame, ds.descDoorInfo, ds.descDoorLocked, ds.descDoorOpen, ds.descDoorSensor,
		ds.descDeviceInfo, ds.descDeviceOnline, ds.descEmergency, ds.descOpen, ds.descIncStart, ds.descPoll, ds.descQueue} {
		ch <- d
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	ds := theDescs()
	s, polls := c.w.snapshot()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	up := true
	for _, p := range pollKinds {
		ok, ran := polls[p]
		up = up && (ok || !ran) // a poll not run yet has not failed
		gauge(ds.descPoll, b2f(ok), p)
	}
	gauge(ds.descUp, b2f(up))
	gauge(ds.descConnected, b2f(s.Connected))
	var last float64
	if !s.LastFrame.IsZero() {
		last = float64(s.LastFrame.UnixNano()) / 1e9
	}
	gauge(ds.descLastFrame, last)
	// Only what the last polls listed is a label value.
	listed := map[string]bool{}
	for _, d := range s.Doors {
		if !d.Listed {
			continue
		}
		listed[d.ID] = true
		gauge(ds.descDoorInfo, 1, d.ID, d.Name, d.Floor)
		gauge(ds.descDoorSensor, b2f(d.Sensor), d.ID)
		if d.Lock != monitor.LockUnknown {
			gauge(ds.descDoorLocked, b2f(d.Lock == monitor.LockLocked), d.ID)
		}
		if d.Sensor && d.Position != monitor.PositionUnknown {
			gauge(ds.descDoorOpen, b2f(d.Position == monitor.PositionOpen), d.ID)
		}
	}
	for _, d := range s.Devices {
		if !d.Listed {
			continue
		}
		listed[d.ID] = true
		gauge(ds.descDeviceInfo, 1, d.ID, d.Name, d.Type, d.Door)
		if d.Known {
			gauge(ds.descDeviceOnline, b2f(d.Online), d.ID)
		}
	}
	gauge(ds.descEmergency, b2f(s.Lockdown), "lockdown")
	gauge(ds.descEmergency, b2f(s.Evacuation), "evacuation")
	open := map[monitor.Kind]int{}
	// The incidents at doors or devices not listed share one series per
	// kind: the earliest start.
	unlisted := map[monitor.Kind]time.Time{}
	for _, in := range s.Open {
		open[in.Kind]++
		subject := firstOf(in.Device, in.Door)
		if subject != "" && !listed[subject] {
			if t, ok := unlisted[in.Kind]; !ok || in.Start.Before(t) {
				unlisted[in.Kind] = in.Start
			}
			continue
		}
		gauge(ds.descIncStart, float64(in.Start.UnixNano())/1e9, string(in.Kind), firstOf(subject, in.Mode))
	}
	for _, k := range monitor.Kinds {
		if t, ok := unlisted[k]; ok {
			gauge(ds.descIncStart, float64(t.UnixNano())/1e9, string(k), Unlisted)
		}
	}
	for _, k := range monitor.Kinds {
		gauge(ds.descOpen, float64(open[k]), string(k))
	}
	gauge(ds.descQueue, float64(c.w.queueLen()))
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// compile-time check that the operations name SDK methods.
var _ = []any{(*access.DoorsService).List, (*access.DevicesService).List, (*access.DoorsService).GetEmergency,
	(*access.UsersService).All, (*access.NotificationsService).Subscribe}
