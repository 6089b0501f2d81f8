package access

import (
	"context"
	"sync"
	"time"
)

// rateLimiter is a token bucket shared by every goroutine of a client
// ([WithRateLimit]). A caller that finds the bucket empty reserves the
// next token (the count goes below zero) and waits until it is due, so
// waiters are served in the order they came, and a wait given up (its
// context ended) returns its token.
type rateLimiter struct {
	rate  float64 // tokens per second
	burst int

	mu     sync.Mutex
	tokens float64 // may be negative: tokens reserved by waiters
	last   time.Time

	// Replaced by tests.
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
}

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	return &rateLimiter{rate: perSecond, burst: burst, tokens: float64(burst), now: time.Now, sleep: sleepCtx}
}

// reserve takes a token and returns how long to wait before using it.
func (l *rateLimiter) reserve() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if !l.last.IsZero() {
		if dt := now.Sub(l.last).Seconds(); dt > 0 {
			l.tokens = min(float64(l.burst), l.tokens+dt*l.rate)
		}
	}
	l.last = now
	l.tokens--
	if l.tokens >= 0 {
		return 0
	}
	return time.Duration(-l.tokens / l.rate * float64(time.Second))
}

// wait blocks until the caller may send a request, or ctx ends.
func (l *rateLimiter) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := l.reserve()
	if d <= 0 {
		return nil
	}
	if err := l.sleep(ctx, d); err != nil {
		l.mu.Lock()
		l.tokens = min(float64(l.burst), l.tokens+1)
		l.mu.Unlock()
		return err
	}
	return nil
}
