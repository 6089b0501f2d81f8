package access

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLimiter is a rateLimiter on a frozen clock that records the waits
// it would make instead of sleeping.
func fakeLimiter(perSecond float64, burst int) (*rateLimiter, *time.Time, func() []time.Duration) {
	l := newRateLimiter(perSecond, burst)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	var waits []time.Duration
	l.now = func() time.Time { return now }
	l.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return l, &now, func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(waits)
	}
}

func TestRateLimiterBucket(t *testing.T) {
	t.Parallel()
	l, now, waits := fakeLimiter(10, 3)
	ctx := context.Background()
	for range 5 {
		require.NoError(t, l.wait(ctx))
	}
	// A burst of 3 goes at once; then one every 100 ms, reserved in turn.
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, waits())
	// After a second the bucket is full again, not fuller: 3 at once.
	*now = now.Add(10 * time.Second)
	for range 4 {
		require.NoError(t, l.wait(ctx))
	}
	assert.Equal(t, []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 100 * time.Millisecond}, waits())
}

// TestRateLimiterShared: goroutines share one budget; each waits for its
// own turn, none twice.
func TestRateLimiterShared(t *testing.T) {
	t.Parallel()
	l, _, waits := fakeLimiter(10, 5)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, l.wait(context.Background()))
		}()
	}
	wg.Wait()
	got := waits()
	slices.Sort(got)
	var want []time.Duration
	for i := 1; i <= 15; i++ {
		want = append(want, time.Duration(i)*100*time.Millisecond)
	}
	assert.Equal(t, want, got, "5 at once, then 15 turns 100 ms apart")
}

// TestRateLimiterCancelledWaitReturnsItsToken: a wait given up returns its
// reservation; a cancelled context waits for nothing.
func TestRateLimiterCancelledWaitReturnsItsToken(t *testing.T) {
	t.Parallel()
	l, _, waits := fakeLimiter(1, 1)
	require.NoError(t, l.wait(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, l.wait(ctx), context.Canceled)
	assert.Empty(t, waits(), "a cancelled context reserves nothing")
	l.sleep = func(context.Context, time.Duration) error { return context.DeadlineExceeded }
	assert.ErrorIs(t, l.wait(context.Background()), context.DeadlineExceeded)
	assert.Equal(t, float64(0), l.tokens, "the given-up reservation was returned")
}

// TestWithRateLimitPacesTheClient: a client with a budget sends no faster
// than it allows, across goroutines, and validates its arguments.
func TestWithRateLimitPacesTheClient(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var last time.Time // when the last attempt left the limiter
	spy := WithTransportWrapper(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			mu.Lock()
			if now := time.Now(); now.After(last) {
				last = now
			}
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	})
	c, mux, _ := setup(t, WithRateLimit(50, 1), spy)
	var served atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/doors", func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		writeRaw(w, 200, "application/json", doorsJSON)
	})
	per, burst := c.RateLimit()
	assert.Equal(t, 50.0, per)
	assert.Equal(t, 1, burst)
	start := time.Now()
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := c.Doors.List(context.Background())
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(6), served.Load())
	// 6 requests at 50/s with a burst of 1: the last may leave 100 ms
	// after the first could, not before.
	assert.GreaterOrEqual(t, last.Sub(start), 100*time.Millisecond)

	for _, bad := range []Option{WithRateLimit(0, 1), WithRateLimit(-1, 1), WithRateLimit(10, 0), WithRateLimit(1e-6, 1), WithRateLimit(math.NaN(), 1), WithRateLimit(math.Inf(1), 1)} {
		_, err := NewClient("https://10.0.0.1", "tok", bad)
		assert.ErrorIs(t, err, ErrValidation)
	}
	d, err := NewClient("https://10.0.0.1", "tok")
	require.NoError(t, err)
	per, burst = d.RateLimit()
	assert.Zero(t, per)
	assert.Zero(t, burst)
}

// TestRateLimitHonoursRetryAfter: with a budget, a 429's Retry-After is
// still waited for before the retry.
func TestRateLimitHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	p := DefaultRetryPolicy()
	p.WaitMin, p.WaitMax = time.Millisecond, 2*time.Second
	c, mux, _ := setup(t, WithRateLimit(1000, 10), WithRetryPolicy(p))
	var calls atomic.Int32
	var first, second time.Time
	mux.HandleFunc("GET /api/v1/developer/doors", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			writeRaw(w, 429, "application/json", `{"code":"","msg":"Too many requests"}`)
			return
		}
		second = time.Now()
		writeRaw(w, 200, "application/json", doorsJSON)
	})
	_, _, err := c.Doors.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int32(2), calls.Load())
	assert.GreaterOrEqual(t, second.Sub(first), time.Second, "Retry-After honoured")
}

// BenchmarkRateLimit shows what the budget costs: a call without it
// ("off", the default), with one that never makes it wait ("on"), and the
// same request through a plain net/http client ("baseline"), in the same
// run, against one loopback server.
func BenchmarkRateLimit(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", doorsJSON)
	}))
	b.Cleanup(srv.Close)
	hc := &http.Client{Transport: srv.Client().Transport, Timeout: defaultTimeout}
	off, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(b, err)
	on, err := NewClient(srv.URL, testToken, WithHTTPClient(hc), WithRateLimit(1e9, 1<<30))
	require.NoError(b, err)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		client *Client
	}{{"off", off}, {"on", on}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, _, err := c.client.Doors.List(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/developer/doors", nil)
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := hc.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
