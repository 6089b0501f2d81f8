package accesstest

import (
	"slices"
	"strconv"
	"time"

	"github.com/access-dev/access"
)

// The fake's time
//
// The server's time is its base clock (time.Now, or what [WithClock] or
// [Server.SetNow] gave) plus an offset that [Server.Advance] grows. Every
// time the fake reports (request times, webhook signatures, lock-rule end
// times, door relocks) is read from it. Timed state changes (a door
// relocking after an unlock, a lock rule expiring, a doorbell ring timing
// out) are timers on that time: they run when [Server.Advance] moves the
// time past them, in time order, synchronously and without goroutines, so
// tests are deterministic. With a base clock that moves by itself
// (time.Now) a timer that has fallen due also runs at the next request or
// inspection of door state; with [WithLiveTimers] (a fake served to other
// processes, as `access fake` does) a goroutine also runs each timer when
// it falls due, with no request needed.

// timer is a state change scheduled on the fake's time. What it does is
// named by its key (see [Server.fire]) rather than held as a closure, so
// that pending timers can be saved with the state ([Server.WriteState]).
type timer struct {
	due     time.Time
	seq     uint64 // breaks ties in scheduling order
	key     timerKey
	stopped bool
}

// timerKind names what a timer does when it falls due.
type timerKind string

const (
	timerRelock        timerKind = "relock"         // ID: a door; the remote unlock ends
	timerRuleEnd       timerKind = "rule_end"       // ID: a door; its custom lock rule ends
	timerRingTimeout   timerKind = "ring_timeout"   // ID: a device; its doorbell stops ringing
	timerSessionExpiry timerKind = "session_expiry" // ID: an NFC enrollment session
	timerVisit         timerKind = "visit"          // ID: a visitor; Arg: its new status, as a number
	timerDoorClose     timerKind = "door_close"     // ID: a door held open (HoldDoorOpen); it closes
)

// timerKey says what a timer does: its kind, the record it acts on, and
// an argument.
type timerKey struct {
	Kind timerKind `json:"kind"`
	ID   string    `json:"id"`
	Arg  string    `json:"arg,omitempty"`
}

// stop cancels the timer; a nil timer is fine. The caller holds s.mu.
func (t *timer) stop() {
	if t != nil {
		t.stopped = true
	}
}

// clockState is the offset and the pending timers.
type clockState struct {
	offset time.Duration
	timers []*timer
	seq    uint64
	// firing, while a timer runs, is its due time: the time the clock
	// reads then, also when the timer is noticed late.
	firing time.Time
	// wake tells the live-timer goroutine ([WithLiveTimers]) that the
	// timers or the time changed; nil without it.
	wake chan struct{}
}

// minTimerWait is the shortest the live-timer goroutine sleeps, so that
// a base clock that stands still (WithClock of a fixed time) with a
// timer just ahead does not make it spin.
const minTimerWait = time.Millisecond

// WithLiveTimers runs the fake's timers (door relocks, lock-rule ends,
// doorbell ring timeouts, enrollment-session expiry, visitor status
// changes) on a goroutine as they fall due on the server's time, with no
// request or inspection needed, as a console does: a WebSocket subscriber
// then gets, say, the access.remote_view.change of a doorbell that timed
// out without anyone calling the API. Each runs with the clock reading its
// due time, also when it is noticed late. The goroutine sleeps until the
// next timer's due time, measured on the real clock from the server's
// time; scheduling a timer, [Server.Advance], [Server.SetNow] and
// [Server.ReadState] wake it to look again. [Server.Close] stops it and
// waits for it.
//
// It is meant for a fake served on the real clock (`access fake` uses it);
// tests that move the time with [Server.Advance] on a fixed base clock do
// not need it, and without it nothing runs a timer behind a test's back.
func WithLiveTimers() Option {
	return func(s *Server) { s.clock.wake = make(chan struct{}, 1) }
}

// wakeTimers tells the live-timer goroutine to look at the timers again;
// without [WithLiveTimers] it does nothing. It never blocks.
func (s *Server) wakeTimers() {
	if s.clock.wake == nil {
		return
	}
	select {
	case s.clock.wake <- struct{}{}:
	default:
	}
}

// runLiveTimers is the goroutine of [WithLiveTimers]: it runs the timers
// that fell due, then sleeps until the next one is due, until it is
// woken, or until the server closes.
func (s *Server) runLiveTimers() {
	for {
		s.mu.Lock()
		s.runDue()
		wait, pending := s.untilNext()
		s.mu.Unlock()
		var (
			sleep *time.Timer
			due   <-chan time.Time
		)
		if pending {
			sleep = time.NewTimer(max(wait, minTimerWait))
			due = sleep.C
		}
		select {
		case <-s.closing:
		case <-s.clock.wake:
		case <-due:
		}
		if sleep != nil {
			sleep.Stop()
		}
		select {
		case <-s.closing:
			return
		default:
		}
	}
}

// untilNext is how long until the earliest live timer falls due, and
// whether there is one. The caller holds s.mu.
func (s *Server) untilNext() (time.Duration, bool) {
	var first *timer
	for _, t := range s.clock.timers {
		if !t.stopped && (first == nil || t.due.Before(first.due)) {
			first = t
		}
	}
	if first == nil {
		return 0, false
	}
	return first.due.Sub(s.clockNow()), true
}

// clockNow is the fake's current time. The caller holds s.mu.
func (s *Server) clockNow() time.Time {
	if !s.clock.firing.IsZero() {
		return s.clock.firing
	}
	return s.now().Add(s.clock.offset)
}

// after schedules the timer k to run, with s.mu held, once the fake's time
// reaches now+d. The caller holds s.mu.
func (s *Server) after(d time.Duration, k timerKey) *timer {
	s.clock.seq++
	t := &timer{due: s.clockNow().Add(d), seq: s.clock.seq, key: k}
	s.clock.timers = append(s.clock.timers, t)
	s.wakeTimers()
	return t
}

// run runs t with the clock reading its due time: a change of state (the
// timer is gone), also when what it does publishes nothing. The caller
// holds s.mu.
func (s *Server) run(t *timer) {
	s.mu.touch()
	s.clock.firing = t.due
	defer func() { s.clock.firing = time.Time{} }()
	s.fire(t.key)
}

// fire does what a timer that fell due does. The caller holds s.mu.
func (s *Server) fire(k timerKey) {
	switch k.Kind {
	case timerRelock:
		if d := s.sp().door(k.ID); d != nil {
			d.unlocked, d.relock = false, nil
		}
	case timerRuleEnd:
		if d := s.sp().door(k.ID); d != nil {
			d.ruleEnd = nil
			s.endTemporaryUnlock(d)
		}
	case timerRingTimeout:
		s.ringTimedOut(k.ID)
	case timerSessionExpiry:
		delete(s.cr().sessions, k.ID)
	case timerDoorClose:
		_ = s.setDoorPosition(k.ID, false) // a door gone or already closed: nothing to do
	case timerVisit:
		st, _ := strconv.Atoi(k.Arg)
		if x := s.visitor(k.ID); x != nil && x.Status != access.VisitorStatusCancelled.String() && access.VisitorStatus(st).Valid() {
			s.setVisitorStatus(x, access.VisitorStatus(st), false)
		}
	}
}

// nextDue removes and returns the earliest live timer due at or before
// limit, or nil. The caller holds s.mu.
func (s *Server) nextDue(limit time.Time) *timer {
	s.clock.timers = slices.DeleteFunc(s.clock.timers, func(t *timer) bool { return t.stopped })
	best := -1
	for i, t := range s.clock.timers {
		if t.due.After(limit) {
			continue
		}
		if best < 0 || t.due.Before(s.clock.timers[best].due) || (t.due.Equal(s.clock.timers[best].due) && t.seq < s.clock.timers[best].seq) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	t := s.clock.timers[best]
	s.clock.timers = slices.Delete(s.clock.timers, best, best+1)
	return t
}

// runDue runs every timer that has fallen due, in time order. The caller
// holds s.mu.
func (s *Server) runDue() {
	for t := s.nextDue(s.clockNow()); t != nil; t = s.nextDue(s.clockNow()) {
		s.run(t)
	}
}

// Advance moves the fake's time forward by d (a negative d is ignored)
// and runs, in time order, every timer that falls due on the way: door
// relocks after an unlock ([DoorUnlockDuration]), lock-rule expiry,
// doorbell ring timeouts ([DoorbellRingTimeout]). Each runs with the
// clock at its due time, so the events it publishes carry that time.
// Webhook deliveries those changes cause are made afterwards, in order;
// wait for them with [Server.WaitDeliveries].
func (s *Server) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	if d < 0 {
		d = 0
	}
	target := s.clockNow().Add(d)
	for t := s.nextDue(target); t != nil; t = s.nextDue(target) {
		if now := s.clockNow(); t.due.After(now) {
			s.clock.offset += t.due.Sub(now)
		}
		s.run(t)
	}
	if now := s.clockNow(); target.After(now) {
		s.clock.offset += target.Sub(now)
	}
	s.wakeTimers()
	s.clockMoved()
}
