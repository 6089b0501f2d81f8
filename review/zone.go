package review

import (
	"context"
	"sync"
	"time"

	"github.com/access-dev/access"
)

// ZoneOf returns the time zone a notification names: the "timezone" of
// the place of a location update (access.data.location.update) or of a
// remote unlock, the one place the console's zone travels (no REST
// operation returns it). It is nil for any other notification, or a zone
// this machine does not know.
func ZoneOf(n *access.Notification) *time.Location {
	if n == nil {
		return nil
	}
	var loc *access.NotificationLocation
	switch n.Event {
	case access.NotificationLocationUpdate:
		loc, _ = n.LocationUpdate()
	case access.NotificationRemoteUnlock:
		loc, _ = n.RemoteUnlock()
	}
	if loc == nil || loc.Timezone == "" || loc.Timezone == "Local" {
		return nil
	}
	z, err := time.LoadLocation(loc.Timezone)
	if err != nil {
		return nil
	}
	return z
}

// ZoneWatch listens to a console's notifications for its time zone
// while a review reads the console, so that waiting for it costs no time
// of its own. Start one with [WatchZone].
type ZoneWatch struct {
	mu     sync.Mutex
	loc    *time.Location
	found  chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// WatchZone subscribes to c's notifications until Stop (or ctx ends) and
// keeps the zone of the first that names one ([ZoneOf]).
func WatchZone(ctx context.Context, c *access.Client) *ZoneWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &ZoneWatch{found: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for n, err := range c.Notifications.Subscribe(ctx, nil) {
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				continue
			}
			if z := ZoneOf(n); z != nil {
				w.mu.Lock()
				w.loc = z
				w.mu.Unlock()
				close(w.found)
				return
			}
		}
	}()
	return w
}

// Found is closed once a zone has been seen.
func (w *ZoneWatch) Found() <-chan struct{} { return w.found }

// Stop ends the subscription and returns the zone seen, or nil.
func (w *ZoneWatch) Stop() *time.Location {
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.loc
}
