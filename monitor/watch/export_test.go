package watch

import (
	"time"

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
}
