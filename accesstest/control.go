package accesstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/access-dev/access"
)

// The acts of the control API
//
// `access fake` serves these methods to other processes (its control API
// under /_fake/v1/); Go tests call them directly. They are the same
// acts: one path.

// Effects is what an act caused ([Server.Caused]): the webhook events it
// published (each also a system-log entry, WebSocket notifications and
// one delivery per subscribed endpoint), the system-log entries, and
// the cursors of the deliveries and requests journals before it, so that
// [Server.DeliveriesSince] from DeliveriesSince reads the deliveries it
// caused. DeliveriesSince counts the deliveries caused before the act,
// made or still queued, so that it does not depend on how fast receivers
// answer: with one endpoint and no retries, the act's first delivery has
// the cursor DeliveriesSince+1 (with several endpoints, one endpoint's
// delivery can be made before another's earlier one: match the events'
// ids).
type Effects struct {
	// Events are the events published, in order.
	Events []CausedEvent `json:"events"`
	// SystemLogs are the ids of the system-log entries added.
	SystemLogs []string `json:"system_logs"`
	// DeliveriesSince is the deliveries journal's cursor once the
	// deliveries caused before the act are made (those made, and those
	// still queued or in flight); RequestsSince is the requests journal's
	// cursor when the act began.
	DeliveriesSince int `json:"deliveries_since"`
	RequestsSince   int `json:"requests_since"`
}

// CausedEvent is one event an act published: its name and the
// event_object_id its webhook payload carries.
type CausedEvent struct {
	Event access.EventType `json:"event"`
	ID    string           `json:"id"`
}

// actState records what the act running now causes; publish reports to
// it. Guarded by s.mu, except run, which serialises the acts.
type actState struct {
	run sync.Mutex
	now *Effects
}

func (a *actState) event(ev access.EventType, id string) {
	if a.now != nil {
		a.now.Events = append(a.now.Events, CausedEvent{Event: ev, ID: id})
	}
}

func (a *actState) systemLog(id string) {
	if a.now != nil {
		a.now.SystemLogs = append(a.now.SystemLogs, id)
	}
}

// Caused runs act and returns what the state changes made while it ran
// caused. Acts run through Caused one at a time; a change made at the
// same time by a request or a timer is counted too.
func (s *Server) Caused(act func() error) (Effects, error) {
	s.acts.run.Lock()
	defer s.acts.run.Unlock()
	eff := &Effects{Events: []CausedEvent{}, SystemLogs: []string{}}
	s.mu.Lock()
	s.journal.mu.Lock()
	eff.DeliveriesSince, eff.RequestsSince = s.hub.done.total+s.hub.unmade, s.journal.requests.total
	s.journal.mu.Unlock()
	s.acts.now = eff
	s.mu.Unlock()
	err := act()
	s.mu.Lock()
	s.acts.now = nil
	s.mu.Unlock()
	return *eff, err
}

// HoldDoorOpen acts out a door held (propped) open for d on the fake's
// clock: it opens as with [Server.SetDoorPosition], and closes by itself
// when d has passed ([Server.Advance], or the wall clock with
// [WithLiveTimers]) unless it was closed before.
func (s *Server) HoldDoorOpen(doorID string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("accesstest: HoldDoorOpen: a duration of %s", d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	if err := s.setDoorPosition(doorID, true); err != nil {
		return err
	}
	s.after(d, timerKey{Kind: timerDoorClose, ID: doorID})
	return nil
}

// Reset replaces the whole site with an empty one, or with the demo
// site ([Server.LoadDemoData]) when demo is set; the tokens stay, and
// the faults, the request journal and the deliveries are forgotten
// (their cursors keep counting). The clock goes back to the base clock.
func (s *Server) Reset(demo bool) error {
	fresh := NewServer()
	if demo {
		fresh.LoadDemoData()
	}
	var buf bytes.Buffer
	err := fresh.WriteState(&buf)
	fresh.Close()
	if err != nil {
		return err
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &f); err != nil {
		return err
	}
	s.mu.Lock()
	tok, _ := json.Marshal(s.token)
	toks, err := json.Marshal(s.tokens)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	f["token"], f["tokens"] = tok, toks
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	if err := s.ReadState(bytes.NewReader(b)); err != nil {
		return err
	}
	s.mu.Lock()
	s.faults = nil
	s.journal.mu.Lock()
	s.journal.requests.reset()
	s.journal.mu.Unlock()
	s.hub.done.reset()
	s.mu.Unlock()
	return nil
}

// Journal is a part of a bounded history read with a cursor: the items
// after the cursor given, oldest first.
type Journal[T any] struct {
	// Items are the items; Items[i] has the cursor First+i.
	Items []T
	First int
	// Next is the cursor to read on from.
	Next int
	// Dropped is how many items after the cursor given were no longer
	// kept (Retention).
	Dropped int
}

// DeliveriesSince returns the webhook deliveries ([Server.Deliveries])
// after cursor since (0: from the first). With wait it waits, until ctx
// ends, for at least one; at ctx's end it returns what there is and
// ctx's error.
func (s *Server) DeliveriesSince(ctx context.Context, since int, wait bool) (Journal[Delivery], error) {
	return readSince(ctx, s, &s.mu, &s.hub.done, since, wait)
}

// RequestsSince returns the requests received ([Server.Requests]) after
// cursor since (0: from the first), waiting as [Server.DeliveriesSince]
// does.
func (s *Server) RequestsSince(ctx context.Context, since int, wait bool) (Journal[Request], error) {
	return readSince(ctx, s, &s.journal.mu, &s.journal.requests, since, wait)
}

// readSince reads r under mu, the lock that guards it.
func readSince[T any](ctx context.Context, s *Server, mu sync.Locker, r *ring[T], since int, wait bool) (Journal[T], error) {
	for {
		mu.Lock()
		j := r.since(since)
		var wake chan struct{}
		if wait && len(j.Items) == 0 {
			if r.wake == nil {
				r.wake = make(chan struct{})
			}
			wake = r.wake
		}
		mu.Unlock()
		if wake == nil {
			return j, nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return j, ctx.Err()
		case <-s.closing:
			return j, errServerClosed
		}
	}
}

// since is the part of the ring after cursor n. The caller holds the
// ring's lock.
func (r *ring[T]) since(n int) Journal[T] {
	first := r.total - len(r.list) + 1 // the cursor of list[0]
	n = max(n, 0)
	start := min(max(n+1-first, 0), len(r.list))
	j := Journal[T]{Items: append([]T{}, r.list[start:]...), First: first + start, Next: r.total}
	if n < r.total {
		j.Dropped = max(first-1-n, 0)
	}
	if n > r.total {
		j.Next = n
	}
	return j
}
