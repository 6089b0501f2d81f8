package watch_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/access-dev/access"
	"github.com/access-dev/access/monitor"
	"github.com/access-dev/access/monitor/watch"
)

// site makes a site of n doors (all with a position sensor) and m
// devices, as the polls return them.
func site(n, m int) ([]access.Door, []access.Device) {
	doors := make([]access.Door, n)
	for i := range doors {
		doors[i] = access.Door{ID: fmt.Sprintf("door-%04d", i), Name: fmt.Sprintf("Door %d", i), FloorID: fmt.Sprintf("floor-%d", i%10),
			IsBindHub: true, LockRelayStatus: access.DoorLocked, PositionStatus: access.DoorClosed}
	}
	devs := make([]access.Device, m)
	for i := range devs {
		devs[i] = access.Device{ID: fmt.Sprintf("%012x", i), Name: fmt.Sprintf("Reader %d", i), Type: "UA-Reader-Lite",
			LocationID: doors[i%n].ID, IsOnline: true}
	}
	return doors, devs
}

func mustNotification(event access.NotificationEvent, id string, data any) *access.Notification {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return &access.Notification{Event: event, EventObjectID: id, Data: b}
}

// entries returns the frames of k entries at distinct doors, as a console
// sends them: a granted card (access.logs.add), the door unlocked and
// opened, then closed (access.data.v2.location.update).
func entries(doors []access.Door, k int) []*access.Notification {
	var out []*access.Notification
	for i := 0; i < k; i++ {
		d := doors[i%len(doors)]
		grant := access.SystemLog{ID: fmt.Sprint(i), Source: access.SystemLogSource{
			Actor:          access.SystemLogActor{ID: "user-1", Type: "user", DisplayName: "Ada"},
			Event:          access.SystemLogEvent{Type: "access.door.unlock", DisplayMessage: "Access Granted (NFC)", Result: "ACCESS"},
			Authentication: access.SystemLogAuthentication{CredentialProvider: "NFC"},
			Target:         []access.SystemLogTarget{{Type: "door", ID: d.ID, DisplayName: d.Name}}}}
		out = append(out,
			mustNotification(access.NotificationLogsAdd, "", grant),
			mustNotification(access.NotificationLocationUpdateV2, d.ID, access.LocationUpdateV2Data{ID: d.ID, LocationType: "door",
				State: &access.LocationState{Lock: "unlocked", DPS: "open", DPSConnected: true}}),
			mustNotification(access.NotificationLocationUpdateV2, d.ID, access.LocationUpdateV2Data{ID: d.ID, LocationType: "door",
				State: &access.LocationState{Lock: "locked", DPS: "close", DPSConnected: true}}))
	}
	return out
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchWatcher(b *testing.B, withMetrics bool) (*watch.Watcher, *prometheus.Registry) {
	b.Helper()
	reg := prometheus.NewRegistry()
	o := watch.Options{Engine: monitor.Config{Console: "bench"}}
	creg := prometheus.WrapRegistererWith(prometheus.Labels{"console": "bench"}, reg)
	if withMetrics {
		m, err := watch.NewMetrics(creg)
		if err != nil {
			b.Fatal(err)
		}
		o.Metrics = m
	}
	cl, err := access.NewClient("https://127.0.0.1:9", "bench-token")
	if err != nil {
		b.Fatal(err)
	}
	w, err := watch.New(cl, o)
	if err != nil {
		b.Fatal(err)
	}
	if withMetrics {
		if err := creg.Register(w.Collector()); err != nil {
			b.Fatal(err)
		}
	}
	return w, reg
}

// eventMetrics reports the figures of an events benchmark, one op being
// one event: events/s (wall time), cpu-ns/event (CPU time: on a shared
// machine the wall time also counts the waits for a core), and
// allocs/event.
type eventMetrics struct {
	cpu     time.Duration
	mallocs uint64
}

func startEvents(b *testing.B) eventMetrics {
	b.ReportAllocs()
	b.ResetTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return eventMetrics{cpu: cpuTime(), mallocs: ms.Mallocs}
}

// stop reports the metrics and returns the CPU time per event.
func (m eventMetrics) stop(b *testing.B) time.Duration {
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	perEvent := (cpuTime() - m.cpu) / time.Duration(max(b.N, 1))
	b.ReportMetric(float64(perEvent.Nanoseconds()), "cpu-ns/event")
	b.ReportMetric(float64(ms.Mallocs-m.mallocs)/float64(b.N), "allocs/event")
	return perEvent
}

// realSite returns the site of 500 doors and 1,000 devices with the
// doors and devices the recorded frames name added, so that the frames
// reach listed doors and devices as on a console.
func realSite(b *testing.B, msgs [][]byte) ([]access.Door, []access.Device) {
	doors, devs := site(500, 1000)
	for _, m := range msgs {
		n, err := access.ParseNotification(m)
		if err != nil {
			b.Fatal(err)
		}
		switch n.Event {
		case access.NotificationLocationUpdateV2:
			v, err := n.LocationUpdateV2()
			if err != nil {
				b.Fatal(err)
			}
			doors = append(doors, access.Door{ID: v.ID, Name: v.Name, IsBindHub: true, PositionStatus: access.DoorClosed})
		case access.NotificationDeviceUpdate:
			v, err := n.DeviceUpdate()
			if err != nil {
				b.Fatal(err)
			}
			devs = append(devs, access.Device{ID: v.UniqueID, Name: v.Name, IsOnline: true})
		case access.NotificationLogsAdd:
			v, err := n.LogsAdd()
			if err != nil {
				b.Fatal(err)
			}
			if t, ok := v.Target("door"); ok {
				doors = append(doors, access.Door{ID: t.ID, Name: t.DisplayName, IsBindHub: true, PositionStatus: access.DoorClosed})
			}
		}
	}
	return doors, devs
}

// BenchmarkEvents: the recorded real console frames (testdata/notifications,
// published from live consoles) through the monitor's event path, one op
// being one event. "reader" is the SDK's plain notifications reader
// (Notifications.Subscribe over the replayed stream, nothing done with the
// notifications): the baseline of the same run. "monitor" is the same
// reader feeding the watcher (the engine, the metrics, the incident
// outputs), as "access monitor" runs it; its x-reader metric is its rate
// per CPU-second over the reader's of the same run, the last "reader" run
// before it (goal: at least 0.5). The CPU rate is the figure on a shared
// machine: the wall rate (events/s) also counts the waits for a core. "engine" and
// "handle" feed notifications decoded beforehand to the engine alone and
// to the watcher: the monitor's own cost, without the reader.
func BenchmarkEvents(b *testing.B) {
	hello, msgs := loadFrames(b)
	doors, devs := realSite(b, msgs)
	frames := make([]*access.Notification, len(msgs))
	for i, m := range msgs {
		n, err := access.ParseNotification(m)
		if err != nil {
			b.Fatal(err)
		}
		frames[i] = n
	}
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	var readerCPU time.Duration
	b.Run("reader", func(b *testing.B) {
		cl := replayClient(b, hello, msgs)
		var sink *access.Notification
		m := startEvents(b)
		subscribe(b, cl, b.N, func(n *access.Notification) { sink = n })
		readerCPU = m.stop(b)
		_ = sink
	})
	b.Run("monitor", func(b *testing.B) {
		cl := replayClient(b, hello, msgs)
		w, _ := benchWatcher(b, true)
		w.Feed(doors, devs, at)
		m := startEvents(b)
		subscribe(b, cl, b.N, func(n *access.Notification) { w.Handle(n, at) })
		if cpu := m.stop(b); cpu > 0 && readerCPU > 0 {
			b.ReportMetric(float64(readerCPU)/float64(cpu), "x-reader")
		}
	})
	b.Run("engine", func(b *testing.B) {
		eng, err := monitor.New(monitor.Config{Console: "bench"}, at)
		if err != nil {
			b.Fatal(err)
		}
		eng.Doors(doors, at)
		eng.Devices(devs, at)
		m := startEvents(b)
		for i := 0; i < b.N; i++ {
			eng.Notification(frames[i%len(frames)], at)
		}
		m.stop(b)
	})
	b.Run("handle", func(b *testing.B) {
		w, _ := benchWatcher(b, true)
		w.Feed(doors, devs, at)
		m := startEvents(b)
		for i := 0; i < b.N; i++ {
			w.Handle(frames[i%len(frames)], at)
		}
		m.stop(b)
	})
}

// BenchmarkScrape: one /metrics scrape of a site of 500 doors and 1,000
// devices (the handler's whole answer), against a Gather alone.
func BenchmarkScrape(b *testing.B) {
	doors, devs := site(500, 1000)
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	w, reg := benchWatcher(b, true)
	w.Feed(doors, devs, at)
	for _, f := range entries(doors, 1000) {
		w.Handle(f, at)
	}
	b.Run("gather", func(b *testing.B) {
		b.ReportAllocs()
		cpu := cpuTime()
		for i := 0; i < b.N; i++ {
			if _, err := reg.Gather(); err != nil {
				b.Fatal(err)
			}
		}
		if used := cpuTime() - cpu; used > 0 {
			b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
		}
	})
	b.Run("http", func(b *testing.B) {
		h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		b.ReportAllocs()
		var size int
		cpu := cpuTime()
		defer func() {
			if used := cpuTime() - cpu; used > 0 {
				b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
			}
		}()
		for i := 0; i < b.N; i++ {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code)
			}
			size = rec.Body.Len()
		}
		b.ReportMetric(float64(size), "bytes/scrape")
	})
}
