package accesstest

import (
	"sync"
	"time"
)

// Reads that share the lock
//
// Requests that only read the state (a door, the users list, a group)
// hold s.mu shared (readLock), so that many clients' reads run at once
// instead of one after another. What a shared holder may do is read:
// no timer run, no lazily made part of the state, no cache dropped
// (table.peek rather than get). What every request writes, the journal
// of requests, is under its own lock; faults are consumed under s.mu
// held exclusively (record).

// reqJournal is the journal of the requests received and the count of
// requests per layout (direct or through the proxy). Its lock is taken
// after s.mu when both are held, never before.
type reqJournal struct {
	mu       sync.Mutex
	requests ring[Request] // retention.go: bounded by retention.Requests
	modes    [2]int        // requests per access.Mode
}

// readLock takes s.mu for a read that changes nothing: shared, unless a
// part of the state made on first use is missing or, with timers (a
// read that runs the timers due first, as the doors' do), a timer has
// fallen due; then it takes s.mu exclusively and makes those parts and
// runs those timers first, as the read did when it always held s.mu
// exclusively. It reports whether it took the lock exclusively; pass
// that to readUnlock.
func (s *Server) readLock(timers bool) (exclusive bool) {
	s.mu.RLock()
	if !s.readNeedsWrite(timers) {
		return false
	}
	s.mu.RUnlock()
	s.mu.Lock()
	if timers {
		s.runDue()
		s.sp()
	}
	s.ppl()
	return true
}

// readUnlock releases what readLock took.
func (s *Server) readUnlock(exclusive bool) {
	if exclusive {
		s.mu.Unlock()
		return
	}
	s.mu.RUnlock()
}

// readNeedsWrite reports whether a read would have to change the state
// first: the avatars not made yet, or, with timers (the doors' reads),
// the building or the doorbells' map not made yet or a timer due. Only
// the reads that made the building before their lock was shared make it
// now: making it draws an id from a seeded server's sequence, so a read
// of users or groups must not shift the ids that follow. The caller
// holds s.mu, shared or not.
func (s *Server) readNeedsWrite(timers bool) bool {
	sp, p := &s.space, &s.people
	return p.avatars == nil || timers && (sp.buildingID == "" || sp.rings == nil || s.hasDue(s.clockNow()))
}

// hasDue reports whether a timer not stopped has fallen due by now,
// changing nothing (nextDue drops the stopped timers as it looks). The
// caller holds s.mu, shared or not.
func (s *Server) hasDue(now time.Time) bool {
	for _, t := range s.clock.timers {
		if !t.stopped && !t.due.After(now) {
			return true
		}
	}
	return false
}
