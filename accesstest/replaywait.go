package accesstest

import (
	"context"
	"runtime"
	"slices"
	"time"
)

// Waking on time
//
// A Go timer wakes its goroutine a millisecond or more after its time:
// the runtime waits for timers in epoll with a millisecond's resolution,
// and the kernel's timer slack and the scheduler add to it. A replay at
// recorded speed is asked to keep each frame within a millisecond of its
// offset, so [Server.PlayCapture] waits for each due time in three
// steps: on a timer until wakeEarly before it, then in short sleeps of
// the thread (nanosleep on Linux, see shortSleep) until spinFor before
// it, then yielding the processor (runtime.Gosched) until the real clock
// reaches it. The last step keeps the play's goroutine runnable for at
// most spinFor a frame; a cancelled context or a moved clock is noticed
// between the short sleeps and at every yield, so neither waits more
// than maxShortSleep.
const (
	wakeEarly     = 1500 * time.Microsecond
	spinFor       = 200 * time.Microsecond
	maxShortSleep = 500 * time.Microsecond
)

// waitDue returns nil once the server's time reached due, or ctx's
// error once it ended. t is the play's timer, made on first use. The
// wait is counted on the real clock from the server's time, which moves
// with it unless a test set a clock of its own ([WithClock],
// [Server.SetNow]) or moved it ([Server.Advance]); a moved clock
// (s.replay.moved) makes it count again. If the server's time has not
// reached due once the real clock has, the clock does not follow the
// real one, and the rest of the wait is on the timer alone, as the
// precise steps would only spin until a test moves it.
func (s *Server) waitDue(ctx context.Context, due time.Time, t **time.Timer) error {
	precise := true
	for {
		wait := due.Sub(s.Now())
		if wait <= 0 {
			return nil
		}
		var err error
		if precise {
			err = s.sleepUntil(ctx, time.Now().Add(wait), t)
		} else {
			err = s.sleepFor(ctx, wait, t)
		}
		switch err {
		case nil:
			precise = false
		case errMoved:
			precise = true
		default:
			return err
		}
	}
}

// errMoved is sleepFor's and sleepUntil's answer when the server's clock
// was moved while they waited.
var errMoved = movedError{}

type movedError struct{}

func (movedError) Error() string { return "accesstest: the clock was moved" }

// sleepFor waits d on the timer t (made on first use): nil once it
// fired, errMoved if the clock was moved first, ctx's error if it ended.
func (s *Server) sleepFor(ctx context.Context, d time.Duration, t **time.Timer) error {
	if *t == nil {
		*t = time.NewTimer(d)
	} else {
		(*t).Reset(d)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-(*t).C:
		return nil
	case <-s.replay.moved:
		(*t).Stop() // Go 1.23: no stale tick is left in t.C
		return errMoved
	}
}

// sleepUntil waits until the real clock reads deadline, in the three
// steps told above: nil once it does, errMoved if the server's clock was
// moved first, ctx's error if it ended.
func (s *Server) sleepUntil(ctx context.Context, deadline time.Time, t **time.Timer) error {
	if d := time.Until(deadline) - wakeEarly; d > 0 {
		if err := s.sleepFor(ctx, d, t); err != nil {
			return err
		}
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		select {
		case <-s.replay.moved:
			return errMoved
		default:
		}
		if left > spinFor {
			shortSleep(min(left-spinFor, maxShortSleep))
		}
		// Also between short sleeps: what became runnable while this
		// goroutine's thread slept in the kernel (the stream's writer
		// and readers) runs first.
		runtime.Gosched()
	}
}

// lateness gathers how far past its due time each frame was sent.
type lateness []time.Duration

// summary sorts l once and returns its maximum, 50th and 99th
// percentiles, all 0 for none.
func (l lateness) summary() (max, p50, p99 time.Duration) {
	if len(l) == 0 {
		return 0, 0, 0
	}
	slices.Sort(l)
	return l[len(l)-1], l[len(l)*50/100], l[len(l)*99/100]
}
