package access

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// opCall runs one operation against the test server.
type opCall struct {
	name, pattern string
	call          func(ctx context.Context, c *Client) (*Response, error)
}

var retryOps = map[string]opCall{
	"GET": {"Users.Get", "GET /api/v1/developer/users/{id}", func(ctx context.Context, c *Client) (*Response, error) {
		_, r, err := c.Users.Get(ctx, "u1", nil)
		return r, err
	}},
	"PUT": {"Devices.UpdateSettings", "PUT /api/v1/developer/devices/{id}/settings", func(ctx context.Context, c *Client) (*Response, error) {
		return c.Devices.UpdateSettings(ctx, "d1", &DeviceSettingsUpdate{NFC: &AccessMethod{Enabled: Yes}})
	}},
	"DELETE": {"Webhooks.Delete", "DELETE /api/v1/developer/webhooks/endpoints/{id}", func(ctx context.Context, c *Client) (*Response, error) {
		return c.Webhooks.Delete(ctx, "w1")
	}},
	"POST": {"Webhooks.Create", "POST /api/v1/developer/webhooks/endpoints", func(ctx context.Context, c *Client) (*Response, error) {
		_, r, err := c.Webhooks.Create(ctx, &WebhookEndpointRequest{Endpoint: "http://h/", Name: "n", Events: []EventType{"access.door.unlock"}})
		return r, err
	}},
	"PURCHASE": {"TouchPasses.Purchase", "POST /api/v1/developer/credentials/touch_passes", func(ctx context.Context, c *Client) (*Response, error) {
		_, r, err := c.TouchPasses.Purchase(ctx, 1)
		return r, err
	}},
}

// successBody answers every operation above.
const successBody = `{"code":"SUCCESS","msg":"success","data":{"id":"x"}}`

func TestRetryMatrix(t *testing.T) {
	t.Parallel()
	type tc struct {
		op       string
		statuses []int // answers in order; the last repeats
		policy   func(*RetryPolicy)
		attempts int
		ok       bool
		is       error
	}
	cases := map[string]tc{
		"GET 503 exhausted":           {op: "GET", statuses: []int{503}, attempts: 3, is: ErrServer},
		"GET 503 then ok":             {op: "GET", statuses: []int{503, 200}, attempts: 2, ok: true},
		"GET 502 504 ok":              {op: "GET", statuses: []int{502, 504, 200}, attempts: 3, ok: true},
		"GET 429 exhausted":           {op: "GET", statuses: []int{429}, attempts: 3, is: ErrRateLimited},
		"GET 500 not retried":         {op: "GET", statuses: []int{500}, attempts: 1, is: ErrServer},
		"GET 500 opt-in":              {op: "GET", statuses: []int{500}, policy: func(p *RetryPolicy) { p.RetryInternalServerError = true }, attempts: 3, is: ErrServer},
		"GET 501 never":               {op: "GET", statuses: []int{501}, policy: func(p *RetryPolicy) { p.RetryInternalServerError = true }, attempts: 1, is: ErrServer},
		"GET 404 never":               {op: "GET", statuses: []int{404}, attempts: 1, is: ErrServer}, // the body says CODE_SYSTEM_ERROR
		"GET no retries":              {op: "GET", statuses: []int{503}, policy: func(p *RetryPolicy) { p.MaxRetries = 0 }, attempts: 1, is: ErrServer},
		"GET five retries":            {op: "GET", statuses: []int{503}, policy: func(p *RetryPolicy) { p.MaxRetries = 5 }, attempts: 6, is: ErrServer},
		"PUT 502 retried":             {op: "PUT", statuses: []int{502, 200}, attempts: 2, ok: true},
		"DELETE 504 retried":          {op: "DELETE", statuses: []int{504}, attempts: 3, is: ErrServer},
		"POST 503 not retried":        {op: "POST", statuses: []int{503}, attempts: 1, is: ErrServer},
		"POST 429 not retried":        {op: "POST", statuses: []int{429}, attempts: 1, is: ErrRateLimited},
		"POST opt-in RetryWrites":     {op: "POST", statuses: []int{503, 200}, policy: func(p *RetryPolicy) { p.RetryWrites = true }, attempts: 2, ok: true},
		"PURCHASE never retried":      {op: "PURCHASE", statuses: []int{503}, attempts: 1, is: ErrServer},
		"PURCHASE even with opt-in":   {op: "PURCHASE", statuses: []int{503}, policy: func(p *RetryPolicy) { p.RetryWrites = true }, attempts: 1, is: ErrServer},
		"PURCHASE 502 even with 500s": {op: "PURCHASE", statuses: []int{502}, policy: func(p *RetryPolicy) { p.RetryWrites, p.RetryInternalServerError = true, true }, attempts: 1, is: ErrServer},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := fastRetry()
			if tc.policy != nil {
				tc.policy(&p)
			}
			c, mux, _ := setup(t, WithRetryPolicy(p))
			op := retryOps[tc.op]
			var n atomic.Int32
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				i := int(n.Add(1)) - 1
				status := tc.statuses[min(i, len(tc.statuses)-1)]
				if status == 200 {
					writeRaw(w, 200, "application/json", successBody)
					return
				}
				writeRaw(w, status, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			})
			resp, err := op.call(context.Background(), c)
			assert.Equal(t, tc.attempts, int(n.Load()), "attempts seen by the server")
			require.NotNil(t, resp)
			if tc.ok {
				require.NoError(t, err)
				assert.Equal(t, 200, resp.StatusCode)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.is)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.attempts, apiErr.Attempts)
			assert.Equal(t, tc.statuses[len(tc.statuses)-1], apiErr.StatusCode)
		})
	}
}

// closeConn answers by dropping the connection: a transport error.
func closeConn(t *testing.T, w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	require.True(t, ok)
	conn, _, err := hj.Hijack()
	require.NoError(t, err)
	conn.Close()
}

func TestTransportErrorsRetriedOnlyWhenIdempotent(t *testing.T) {
	t.Parallel()
	for opName, want := range map[string]int{"GET": 3, "PUT": 3, "DELETE": 3, "POST": 1, "PURCHASE": 1} {
		t.Run(opName, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			op := retryOps[opName]
			var n atomic.Int32
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				closeConn(t, w)
			})
			resp, err := op.call(context.Background(), c)
			require.Error(t, err)
			assert.Nil(t, resp)
			var reqErr *RequestError
			require.ErrorAs(t, err, &reqErr)
			assert.Equal(t, want, reqErr.Attempts)
			assert.Equal(t, want, int(n.Load()))
			assert.NotContains(t, err.Error(), testToken)
		})
	}
}

func TestOnRetryHook(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []RetryEvent
	p := fastRetry()
	p.OnRetry = func(e RetryEvent) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	c, mux, _ := setup(t, WithRetryPolicy(p))
	var n atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			closeConn(t, w)
			return
		}
		if n.Load() == 2 {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		writeRaw(w, 200, "application/json", successBody)
	})
	_, _, err := c.Users.Get(context.Background(), "u1", nil)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, 2, events[0].Attempt)
	assert.Equal(t, 0, events[0].StatusCode)
	assert.Error(t, events[0].Err)
	assert.Equal(t, 3, events[1].Attempt)
	assert.Equal(t, 429, events[1].StatusCode)
	assert.Equal(t, "GET", events[1].Method)
	assert.Contains(t, events[1].URL, "/api/v1/developer/users/u1")
}

func TestCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	p := DefaultRetryPolicy()
	p.WaitMin, p.WaitMax = time.Hour, time.Hour
	c, mux, _ := setup(t, WithRetryPolicy(p))
	first := make(chan struct{})
	var n atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			close(first)
		}
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-first
		cancel()
	}()
	start := time.Now()
	_, _, err := c.Users.Get(ctx, "u1", nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	var reqErr *RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 1, reqErr.Attempts)
	assert.Equal(t, int32(1), n.Load())
	assert.Less(t, time.Since(start), time.Minute, "the hour-long backoff was not waited out")
}

func TestDeadlineWhileServerHangs(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // released when the client gives up
	})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, resp, err := c.Users.Get(ctx, "u1", nil)
	assert.Nil(t, resp)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestPerAttemptTimeout checks that the per-attempt timeout ends an
// attempt whose answer never comes: a GET is tried three times, a POST
// once. Every attempt runs on a connection dialled and handshaken before
// the call, so the timer only covers writing the request and waiting for
// the answer: on a loaded machine a slow TLS handshake cannot use up the
// timeout before the request reaches the server. Each attempt needs a
// connection of its own (a timed-out one is closed), and the dialer hands
// out exactly as many as attempts are expected, so an extra attempt fails
// to dial and shows in Attempts.
func TestPerAttemptTimeout(t *testing.T) {
	t.Parallel()
	for opName, want := range map[string]int{"GET": 3, "POST": 1} {
		t.Run(opName, func(t *testing.T) {
			t.Parallel()
			op := retryOps[opName]
			mux := http.NewServeMux()
			arrived := make(chan struct{}, 8)
			release := make(chan struct{})
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
				select {
				case <-r.Context().Done():
				case <-release:
				}
			})
			srv := testlog.NewTLSServer(t, mux)
			var closeOnce sync.Once
			closeSrv := func() { closeOnce.Do(func() { close(release); srv.Close() }) }
			t.Cleanup(closeSrv)

			base := srv.Client().Transport.(*http.Transport)
			conns := make(chan net.Conn, want)
			for range want {
				conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), base.TLSClientConfig)
				require.NoError(t, err)
				require.NoError(t, conn.Handshake())
				conns <- conn
			}
			tr := base.Clone()
			tr.DialTLSContext = func(context.Context, string, string) (net.Conn, error) {
				select {
				case conn := <-conns:
					return conn, nil
				default:
					return nil, errors.New("test: no pre-dialled connection left")
				}
			}
			c, err := NewClient(srv.URL, testToken, WithHTTPClient(&http.Client{Transport: tr}),
				WithRetryPolicy(fastRetry()), WithTimeout(50*time.Millisecond))
			require.NoError(t, err)

			_, err = op.call(context.Background(), c)
			require.Error(t, err)
			var reqErr *RequestError
			require.ErrorAs(t, err, &reqErr)
			assert.Equal(t, want, reqErr.Attempts)
			assert.True(t, isTimeout(err), "%v", err)
			assert.False(t, errors.Is(err, context.DeadlineExceeded) && !isTimeout(err))
			// Every attempt's request was written before its timer ran out;
			// the server may read it a little later.
			for i := range want {
				select {
				case <-arrived:
				case <-time.After(10 * time.Second): // a guard, not a synchronisation
					t.Fatalf("request %d of %d never reached the server", i+1, want)
				}
			}
			closeSrv() // waits for every handler
			assert.Empty(t, arrived, "more requests than attempts")
			assert.Empty(t, conns, "attempts without a connection of their own")
		})
	}
}

func isTimeout(err error) bool {
	var te interface{ Timeout() bool }
	return errors.As(err, &te) && te.Timeout()
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	lo, hi := 100*time.Millisecond, time.Second
	for attempt := 0; attempt < 64; attempt++ {
		for range 20 {
			d := backoff(lo, hi, attempt, nil)
			// Jitter first, then clamp: never below WaitMin, never above WaitMax.
			assert.GreaterOrEqual(t, d, lo, "attempt %d", attempt)
			assert.LessOrEqual(t, d, hi, "attempt %d", attempt)
			if attempt < 3 {
				base := lo << attempt
				assert.GreaterOrEqual(t, d, max(base/2, lo), "attempt %d", attempt)
				assert.LessOrEqual(t, d, base*3/2, "attempt %d", attempt)
			}
		}
	}
	// WaitMin 0 retries at once instead of jittering around WaitMax.
	for attempt := range 5 {
		assert.Equal(t, time.Duration(0), backoff(0, 4*time.Second, attempt, nil), "attempt %d", attempt)
	}
	assert.Equal(t, hi, backoff(hi, hi, 0, nil))
	resp := &http.Response{Header: http.Header{}}
	for v, want := range map[string]time.Duration{
		"3600":                 hi,
		"0":                    lo,
		"1":                    hi,
		"99999999999999999999": -1, // unparseable as int and date: exponential
		time.Now().Add(time.Hour).UTC().Format(http.TimeFormat): hi,
		"Mon, 02 Jan 2006 15:04:05 GMT":                         lo, // in the past
	} {
		resp.Header.Set("Retry-After", v)
		d := backoff(lo, hi, 0, resp)
		if want < 0 {
			assert.GreaterOrEqual(t, d, lo, v)
			assert.LessOrEqual(t, d, lo*3/2, v)
			continue
		}
		assert.Equal(t, want, d, v)
	}
	_, ok := retryAfter("-5", time.Now())
	assert.False(t, ok)
	assert.Equal(t, time.Duration(0), backoff(0, 0, 3, nil))
}
