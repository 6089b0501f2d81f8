// Package watch runs the incident engine of package monitor against a
// console: it subscribes to the notifications stream, polls what the
// stream does not carry (doors at start and after a gap, devices, the
// emergency status, the users' statuses), ticks the engine, writes the
// incidents and forwards them as signed webhooks, and exports the
// console's state as Prometheus metrics. "access monitor" is a thin layer
// over it.
package watch

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/access-dev/access"
	"github.com/access-dev/access/monitor"
)

// Defaults of [Options].
const (
	DefaultPollEvery  = time.Minute
	DefaultUsersEvery = 5 * time.Minute
	DefaultTickEvery  = time.Second
)

// The polls, as [Health] and the access_poll_success metric name them.
const (
	PollDoors     = "doors"
	PollDevices   = "devices"
	PollEmergency = "emergency"
	PollUsers     = "users"
)

var pollKinds = []string{PollDoors, PollDevices, PollEmergency, PollUsers}

// usersPageSize is the page size of the users poll.
const usersPageSize = 100

// Options configure a [Watcher].
type Options struct {
	// Engine holds the console's name and the incidents' thresholds.
	Engine monitor.Config
	// PollEvery is how often devices and the emergency status are polled
	// (default [DefaultPollEvery]); doors are polled at start, after a
	// gap in the stream, after a failed poll, and at the next poll once
	// the stream named a door or device the polls did not list (see
	// [Unlisted]). UsersEvery is how often
	// the users' statuses are (default [DefaultUsersEvery]).
	PollEvery, UsersEvery time.Duration
	// TickEvery is how often the engine's thresholds are checked
	// (default [DefaultTickEvery]).
	TickEvery time.Duration
	// Subscribe tunes the stream; its IdleTimeout defaults to the
	// engine's StreamSilent threshold.
	Subscribe access.SubscribeOptions
	// Incident receives each incident line, in order (it must not
	// block for long: the event loop waits for it).
	Incident func(monitor.Incident)
	// Notified, when set, is called once per notification the watcher
	// has handled (fed to the engine, counted, its incidents emitted),
	// from the stream's goroutine, without the watcher's lock; not for
	// the stream's errors. access monitor --events counts with it.
	Notified func()
	// Forward, when set, gets each incident line too, through its
	// bounded queue.
	Forward *Forwarder
	// Metrics, when set, are updated; see [NewMetrics].
	Metrics *Metrics
	// Ready, when set, is called once the first polls are done (failed
	// or not), with
	// the doors' coverage and their names by id.
	Ready func(c monitor.Coverage, doorNames map[string]string)
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Watcher watches one console. Make it with [New], run it with
// [Watcher.Run].
type Watcher struct {
	client *access.Client
	o      Options

	mu       sync.Mutex
	eng      *monitor.Engine
	polls    map[string]bool // the last poll of each kind succeeded (absent: not run yet)
	pollErr  map[string]string
	doorsDue chan struct{}
	// unlisted: the stream named a door or device the last polls did not
	// list; the next poll reads the doors too.
	unlisted bool
}

// New returns a watcher of the console client talks to. The client
// should be built with the metrics' transport wrapper (see
// [Metrics.Transport]) and a rate limit ([access.WithRateLimit]).
func New(client *access.Client, o Options) (*Watcher, error) {
	if client == nil {
		return nil, errors.New("watch: nil client")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollEvery <= 0 {
		o.PollEvery = DefaultPollEvery
	}
	if o.UsersEvery <= 0 {
		o.UsersEvery = DefaultUsersEvery
	}
	if o.TickEvery <= 0 {
		o.TickEvery = DefaultTickEvery
	}
	eng, err := monitor.New(o.Engine, o.Now())
	if err != nil {
		return nil, err
	}
	o.Engine = eng.Config()
	if o.Subscribe.IdleTimeout == 0 {
		o.Subscribe.IdleTimeout = o.Engine.StreamSilent
	}
	return &Watcher{client: client, o: o, eng: eng, polls: map[string]bool{}, pollErr: map[string]string{},
		doorsDue: make(chan struct{}, 1)}, nil
}

// Collector returns the collector of the watcher's mirrored state, to
// register with the console's registerer.
func (w *Watcher) Collector() prometheus.Collector { return collector{w} }

// Upgraded tells the watcher that the stream's upgrade was accepted: pass
// it to [Metrics.Transport].
func (w *Watcher) Upgraded() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emit(w.eng.StreamUp(w.o.Now()))
}

// emit hands incident lines to their outputs. The caller holds w.mu.
func (w *Watcher) emit(ins []monitor.Incident) {
	for _, in := range ins {
		if w.o.Metrics != nil {
			w.o.Metrics.incident(in, w.eng)
		}
		if w.o.Incident != nil {
			w.o.Incident(in)
		}
		if w.o.Forward != nil {
			w.o.Forward.Enqueue(in)
		}
	}
}

func (w *Watcher) snapshot() (monitor.Snapshot, map[string]bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	polls := make(map[string]bool, len(w.polls))
	for k, v := range w.polls {
		polls[k] = v
	}
	return w.eng.Snapshot(), polls
}

func (w *Watcher) queueLen() int {
	if w.o.Forward == nil {
		return 0
	}
	return w.o.Forward.Len()
}

// Health is what /healthz reports of a console.
type Health struct {
	Console string `json:"console"`
	// OK is true when the stream is connected and every poll works.
	OK        bool              `json:"ok"`
	Connected bool              `json:"stream_connected"`
	LastFrame *time.Time        `json:"last_frame,omitempty"`
	Polls     map[string]bool   `json:"polls"`
	Errors    map[string]string `json:"errors,omitempty"`
	// Coverage says which doors held open and forced entry can see.
	Coverage monitor.Coverage `json:"coverage"`
	// Off lists the incidents that are off for the doors without a
	// position sensor.
	Off  []monitor.Kind     `json:"off_without_sensor"`
	Open []monitor.Incident `json:"open_incidents"`
}

// Health reports the stream, the polls and the coverage.
func (w *Watcher) Health() Health {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.eng.Snapshot()
	h := Health{Console: w.o.Engine.Console, Connected: s.Connected, Polls: map[string]bool{}, Coverage: w.eng.Coverage(),
		Off: monitor.Off, Open: s.Open}
	if !s.LastFrame.IsZero() {
		t := s.LastFrame
		h.LastFrame = &t
	}
	h.OK = s.Connected
	for _, p := range pollKinds {
		ok, ran := w.polls[p]
		h.Polls[p] = ok
		h.OK = h.OK && (ok || !ran)
		if e := w.pollErr[p]; e != "" {
			if h.Errors == nil {
				h.Errors = map[string]string{}
			}
			h.Errors[p] = e
		}
	}
	if e := w.pollErr["stream"]; e != "" {
		if h.Errors == nil {
			h.Errors = map[string]string{}
		}
		h.Errors["stream"] = e
	}
	return h
}

// Coverage reports the doors with and without a position sensor.
func (w *Watcher) Coverage() monitor.Coverage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.eng.Coverage()
}

// Run watches the console until ctx ends; it returns nil then. A console
// that cannot be reached, or that refuses the token, is retried: Run never
// gives up on its own, and its metrics and health say what fails.
func (w *Watcher) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); w.stream(ctx) }()
	go func() { defer wg.Done(); w.ticks(ctx) }()
	w.poll(ctx, PollDoors, PollEmergency, PollDevices, PollUsers)
	if w.o.Ready != nil && ctx.Err() == nil {
		w.mu.Lock()
		c, names := w.eng.Coverage(), map[string]string{}
		for _, d := range w.eng.Snapshot().Doors {
			if d.Listed {
				names[d.ID] = d.Name
			}
		}
		w.mu.Unlock()
		w.o.Ready(c, names)
	}
	go func() { defer wg.Done(); w.polling(ctx) }()
	wg.Wait()
	return nil
}

func (w *Watcher) ticks(ctx context.Context) {
	t := time.NewTicker(w.o.TickEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.mu.Lock()
			w.emit(w.eng.Tick(w.o.Now()))
			w.mu.Unlock()
		}
	}
}

func (w *Watcher) polling(ctx context.Context) {
	t := time.NewTicker(w.o.PollEvery)
	defer t.Stop()
	lastUsers := w.o.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.doorsDue:
			w.poll(ctx, PollDoors, PollDevices, PollEmergency)
		case <-t.C:
			kinds := []string{PollDevices, PollEmergency}
			w.mu.Lock()
			if !w.polls[PollDoors] || w.unlisted {
				// After a failed doors poll, or when the stream named a
				// door or device the polls did not list (one added
				// since, listed now, or one the console does not have,
				// dropped now).
				kinds = append(kinds, PollDoors)
				w.unlisted = false
			}
			if !w.polls[PollUsers] || w.o.Now().Sub(lastUsers) >= w.o.UsersEvery {
				kinds = append(kinds, PollUsers)
			}
			w.mu.Unlock()
			if len(kinds) > 0 && kinds[len(kinds)-1] == PollUsers {
				lastUsers = w.o.Now()
			}
			w.poll(ctx, kinds...)
		}
	}
}

// poll runs the polls of those kinds and feeds their results.
func (w *Watcher) poll(ctx context.Context, kinds ...string) {
	for _, k := range kinds {
		if ctx.Err() != nil {
			return
		}
		var feed func() []monitor.Incident
		var err error
		switch k {
		case PollDoors:
			var doors []access.Door
			if doors, _, err = w.client.Doors.List(withOp(ctx, opDoorsList)); err == nil {
				feed = func() []monitor.Incident { return w.eng.Doors(doors, w.o.Now()) }
			}
		case PollDevices:
			var groups access.DeviceGroups
			if groups, _, err = w.client.Devices.List(withOp(ctx, opDevicesList), nil); err == nil {
				devs := groups.Devices()
				feed = func() []monitor.Incident { return w.eng.Devices(devs, w.o.Now()) }
			}
		case PollEmergency:
			var st *access.EmergencyStatus
			if st, _, err = w.client.Doors.GetEmergency(withOp(ctx, opEmergency)); err == nil {
				feed = func() []monitor.Incident { return w.eng.Emergency(*st, w.o.Now()) }
			}
		case PollUsers:
			status := map[string]string{}
			for u, e := range w.client.Users.All(withOp(ctx, opUsersList), &access.UserListOptions{PageSize: usersPageSize}) {
				if e != nil {
					err = e
					break
				}
				status[u.ID] = string(u.Status)
			}
			if err == nil {
				feed = func() []monitor.Incident { w.eng.Users(status); return nil }
			}
		}
		if ctx.Err() != nil {
			return
		}
		w.mu.Lock()
		w.polls[k] = err == nil
		if err != nil {
			w.pollErr[k] = err.Error()
		} else {
			delete(w.pollErr, k)
			w.emit(feed())
			if m := w.o.Metrics; m != nil && (k == PollDoors || k == PollDevices) {
				m.forget(w.eng)
			}
		}
		w.mu.Unlock()
	}
}

// stream runs the subscription until ctx ends, subscribing again after an
// error that ended it.
func (w *Watcher) stream(ctx context.Context) {
	opts := w.o.Subscribe
	sctx := withOp(ctx, opSubscribe)
	for ctx.Err() == nil {
		for n, err := range w.client.Notifications.Subscribe(sctx, &opts) {
			now := w.o.Now()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				w.streamError(err, now)
				continue
			}
			w.handle(n, now)
			if w.o.Notified != nil {
				w.o.Notified()
			}
		}
		if ctx.Err() != nil {
			return
		}
		// The subscription ended (a refused token, a console without the
		// socket): the stream is down; try again after a poll interval.
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.o.PollEvery):
		}
	}
}

func (w *Watcher) streamError(err error, now time.Time) {
	if m := w.o.Metrics; m != nil {
		switch {
		case errors.Is(err, access.ErrReconnected):
			m.reconnects.Inc()
		case errors.Is(err, access.ErrDisconnected):
			m.gaps.Inc()
		}
	}
	w.mu.Lock()
	var ne *access.NotificationError
	if errors.As(err, &ne) && w.o.Metrics != nil {
		w.o.Metrics.frame(monitor.Frame{Event: "(not a notification)"}, w.eng)
	}
	if !errors.Is(err, access.ErrReconnected) && !errors.Is(err, access.ErrDisconnected) && !errors.As(err, &ne) {
		// It ends the subscription: the stream is down.
		w.emit(w.eng.StreamDown(now, now))
		w.pollErr["stream"] = err.Error()
	} else {
		w.emit(w.eng.StreamError(err, now))
		delete(w.pollErr, "stream")
	}
	w.mu.Unlock()
	if errors.Is(err, access.ErrReconnected) {
		// Notifications may have been missed: read the doors again.
		select {
		case w.doorsDue <- struct{}{}:
		default:
		}
	}
}

// handle feeds one notification to the engine, counts it and emits the
// incidents it causes.
func (w *Watcher) handle(n *access.Notification, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, ins := w.eng.Notification(n, now)
	if w.o.Metrics != nil {
		w.o.Metrics.frame(f, w.eng)
	}
	if f.Unlisted {
		w.unlisted = true
	}
	w.emit(ins)
}
