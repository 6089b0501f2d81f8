package accesstest

import (
	"slices"
	"time"
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
// inspection of door state.

// timer is a state change scheduled on the fake's time.
type timer struct {
	due     time.Time
	seq     uint64 // breaks ties in scheduling order
	f       func()
	stopped bool
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
}

// clockNow is the fake's current time. The caller holds s.mu.
func (s *Server) clockNow() time.Time { return s.now().Add(s.clock.offset) }

// after schedules f to run, with s.mu held, once the fake's time reaches
// now+d. The caller holds s.mu.
func (s *Server) after(d time.Duration, f func()) *timer {
	s.clock.seq++
	t := &timer{due: s.clockNow().Add(d), seq: s.clock.seq, f: f}
	s.clock.timers = append(s.clock.timers, t)
	return t
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
		t.f()
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
	if d < 0 {
		d = 0
	}
	target := s.clockNow().Add(d)
	for t := s.nextDue(target); t != nil; t = s.nextDue(target) {
		if now := s.clockNow(); t.due.After(now) {
			s.clock.offset += t.due.Sub(now)
		}
		t.f()
	}
	if now := s.clockNow(); target.After(now) {
		s.clock.offset += target.Sub(now)
	}
}
