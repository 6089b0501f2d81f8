package watch

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/access-dev/access"
)

// Handle exposes handle to the benchmarks.
func (w *Watcher) Handle(n *access.Notification, now time.Time) { w.handle(n, now) }

// Feed hands poll results to the watcher's engine, as its polls do.
func (w *Watcher) Feed(doors []access.Door, devs []access.Device, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emit(w.eng.Doors(doors, now))
	w.emit(w.eng.Devices(devs, now))
	w.emit(w.eng.StreamUp(now))
	if w.o.Metrics != nil {
		w.o.Metrics.forget(w.eng) // as a poll does
	}
}

// Entries reports how many doors and devices the watcher's engine holds.
func (w *Watcher) Entries() (doors, devices int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.eng.Snapshot()
	return len(s.Doors), len(s.Devices)
}

// RemoteUnlocks is the counter of remote unlocks labelled door.
func (m *Metrics) RemoteUnlocks(door string) prometheus.Counter {
	return m.remoteUnlocks.WithLabelValues(door)
}
