package access

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// faultCase is one misbehaviour of the server, checked against every
// operation in TestFaultMatrix.
type faultCase struct {
	name  string
	serve func(w http.ResponseWriter, r *http.Request)
	opts  []Option
	// retried: whether an idempotent operation retries this fault (a POST
	// never does).
	retried bool
	// notActed: the fault proves that the console did not act on the
	// request, so an operation that acts on the physical site (physicalOps)
	// retries it too; after any other fault it is sent once.
	notActed bool
	// cancelAfterFirstResponse cancels the call's context as soon as the
	// first response has arrived, i.e. during the backoff wait.
	cancelAfterFirstResponse bool
	// timesOut: every attempt waits for the per-attempt timeout. Where
	// the timeout lands depends on the scheduler: waiting for the answer
	// (the handler saw the attempt), in the TLS handshake on a loaded
	// machine (it did not), or, rarely, while connecting (the request was
	// never sent, so that even a physical act is tried again).
	timesOut bool
	// silentTLS: the server accepts connections and never says a word, so
	// every attempt times out in its TLS handshake, as on a machine loaded
	// enough that no handshake ends within the timeout.
	silentTLS bool
	check     func(t *testing.T, op anOp, err error, resp *Response)
}

func answer(status int, ctype, body string, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// resetConn closes the connection with a TCP reset.
func resetConn(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		if tcp, ok := nc.NetConn().(*net.TCPConn); ok {
			_ = tcp.SetLinger(0)
		}
	}
	conn.Close()
}

// closeMidBody promises 1000 bytes and sends 20.
func closeMidBody(w http.ResponseWriter, _ *http.Request) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"code\":\"SUCCESS\",\"d")
	buf.Flush()
	conn.Close()
}

func wantAPI(status int, code ErrorCode, is ...error) func(*testing.T, anOp, error, *Response) {
	return func(t *testing.T, op anOp, err error, resp *Response) {
		var e *APIError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, status, e.StatusCode)
		assert.Equal(t, code, e.Code)
		assert.Equal(t, op.method, e.Method)
		assert.Contains(t, e.URL, "/api/v1/developer/")
		for _, target := range is {
			assert.ErrorIs(t, err, target)
		}
		require.NotNil(t, resp, "a response existed")
		assert.Equal(t, status, resp.StatusCode)
	}
}

func wantRetryAfter(status int, d time.Duration, is ...error) func(*testing.T, anOp, error, *Response) {
	return func(t *testing.T, op anOp, err error, resp *Response) {
		wantAPI(status, "", is...)(t, op, err, resp)
		var e *APIError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, d, e.RetryAfter)
	}
}

func wantRequestError(is error) func(*testing.T, anOp, error, *Response) {
	return func(t *testing.T, op anOp, err error, _ *Response) {
		var e *RequestError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, op.method, e.Method)
		if is != nil {
			assert.ErrorIs(t, err, is)
		}
	}
}

func faultCases() []faultCase {
	const html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
	big := `{"code":"SUCCESS","msg":"success","data":{"id":"` + strings.Repeat("x", 2000) + `"}}`
	return []faultCase{
		{name: "500", serve: answer(500, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"An error occurred on the server's end."}`),
			check: wantAPI(500, CodeSystemError, ErrServer)},
		{name: "502", serve: answer(502, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"x"}`), retried: true,
			check: wantAPI(502, CodeSystemError, ErrServer)},
		{name: "503", serve: answer(503, "", ""), retried: true, notActed: true, check: wantAPI(503, "", ErrServer)},
		{name: "429", serve: answer(429, "application/json", `{"code":"","msg":"Too Many Requests"}`), retried: true, notActed: true,
			check: wantAPI(429, "", ErrRateLimited)},
		{name: "429 Retry-After 0", serve: answer(429, "", "", "Retry-After", "0"), retried: true, notActed: true, check: wantAPI(429, "", ErrRateLimited)},
		// A wait beyond WaitMax (2ms here) ends the call at once.
		{name: "429 Retry-After 1", serve: answer(429, "", "", "Retry-After", "1"), check: wantRetryAfter(429, time.Second, ErrRateLimited)},
		{name: "429 Retry-After huge", serve: answer(429, "", "", "Retry-After", "360000000"), check: wantRetryAfter(429, 24*time.Hour, ErrRateLimited)},
		{name: "503 Retry-After date", serve: answer(503, "", "", "Retry-After", "Wed, 21 Oct 2099 07:28:00 GMT"), check: func(t *testing.T, op anOp, err error, resp *Response) {
			wantAPI(503, "", ErrServer, ErrRateLimited)(t, op, err, resp)
			var e *APIError
			require.ErrorAs(t, err, &e)
			assert.Greater(t, e.RetryAfter, time.Hour)
		}},
		{name: "connection reset", serve: resetConn, retried: true, check: wantRequestError(nil)},
		// The connection fails after the headers: retried like any other
		// connection failure, and a RequestError when every attempt fails.
		{name: "closed mid-body", serve: closeMidBody, retried: true, check: wantRequestError(io.ErrUnexpectedEOF)},
		{name: "truncated JSON", serve: answer(200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"x"`),
			check: wantAPI(200, "", ErrInvalidResponse)},
		{name: "HTML on 502", serve: answer(502, "text/html", html), retried: true, check: func(t *testing.T, op anOp, err error, resp *Response) {
			wantAPI(502, "", ErrServer)(t, op, err, resp)
			var e *APIError
			require.ErrorAs(t, err, &e)
			assert.Equal(t, html, string(e.Body), "the body is kept for diagnosis")
			assert.Equal(t, "Bad Gateway", e.Message)
		}},
		{name: "HTML on 200", serve: answer(200, "text/html", html), check: func(t *testing.T, op anOp, err error, resp *Response) {
			wantAPI(200, "", ErrInvalidResponse)(t, op, err, resp)
			assert.ErrorContains(t, err, "not JSON")
		}},
		{name: "empty 200", serve: answer(200, "application/json", ""), check: wantAPI(200, "", ErrInvalidResponse)},
		{name: "wrong envelope", serve: answer(200, "application/json", `{"result":"ok","items":[]}`), check: wantAPI(200, "", ErrInvalidResponse)},
		{name: "error code on 200", serve: answer(200, "application/json", `{"code":"CODE_USER_WORKER_NOT_EXISTS","msg":"The user does not exist.","data":null}`),
			check: func(t *testing.T, op anOp, err error, resp *Response) {
				wantAPI(200, CodeUserWorkerNotExists, ErrNotFound)(t, op, err, resp)
				assert.Equal(t, CodeUserWorkerNotExists, resp.Code)
				assert.Equal(t, "The user does not exist.", resp.Message)
			}},
		// Busy and offline devices answer on HTTP 200; safe methods retry.
		{name: "device offline on 200", serve: answer(200, "application/json", `{"code":"CODE_DEVICE_DEVICE_OFFLINE","msg":"The device is currently offline.","data":null}`),
			retried: true, notActed: true, check: func(t *testing.T, op anOp, err error, resp *Response) {
				wantAPI(200, CodeDeviceDeviceOffline, ErrUnavailable)(t, op, err, resp)
				assert.Equal(t, CodeDeviceDeviceOffline, resp.Code)
				assert.Equal(t, "The device is currently offline.", resp.Message)
			}},
		{name: "over the size cap", serve: answer(200, "application/json", big), opts: []Option{WithMaxResponseSize(512)},
			check: func(t *testing.T, op anOp, err error, resp *Response) {
				wantAPI(200, "", ErrInvalidResponse)(t, op, err, resp)
				assert.ErrorIs(t, err, errBodyTooLarge)
			}},
		{name: "slower than the timeout", serve: func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			panic(http.ErrAbortHandler) // never answer, not even with an empty 200
		},
			opts: []Option{WithTimeout(100 * time.Millisecond)}, retried: true, timesOut: true,
			check: func(t *testing.T, op anOp, err error, _ *Response) {
				wantRequestError(nil)(t, op, err, nil)
				assert.True(t, isTimeout(err), "%v", err)
			}},
		{name: "handshake slower than the timeout", silentTLS: true,
			opts: []Option{WithTimeout(100 * time.Millisecond)}, retried: true, timesOut: true,
			check: func(t *testing.T, op anOp, err error, _ *Response) {
				wantRequestError(nil)(t, op, err, nil)
				assert.True(t, isTimeout(err), "%v", err)
			}},
		{name: "unsupported on 200", serve: answer(200, "application/json", `{"code":"CODE_DEVICE_API_NOT_SUPPORTED","msg":"API not supported."}`),
			check: wantAPI(200, CodeDeviceAPINotSupported, ErrUnsupported)},
		{name: "cancel during backoff", serve: answer(503, "", ""), cancelAfterFirstResponse: true,
			// A POST has no backoff; its cancel lands while the body is read.
			check: wantRequestError(context.Canceled)},
	}
}

// cancelOnResponse cancels a context when the first response arrives.
type cancelOnResponse struct {
	rt     http.RoundTripper
	cancel atomic.Pointer[context.CancelFunc]
}

func (c *cancelOnResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if f := c.cancel.Swap(nil); f != nil {
		(*f)()
	}
	return resp, err
}

// faultRun is the outcome of one operation's call in TestFaultMatrix.
type faultRun struct {
	policy RetryPolicy
	newErr error
	res    any
	resp   *Response
	err    error
	hits   int32 // attempts the server saw
	logs   string
}

// TestFaultMatrix runs every fault against every operation. It is not
// parallel, so that the goroutine count it checks at the end is its own.
func TestFaultMatrix(t *testing.T) {
	// Not parallel with other tests (it counts goroutines), but its fault
	// cases run side by side: they share nothing but the transports list.
	before := runtime.NumGoroutine()
	var (
		transports []*http.Transport
		trMu       sync.Mutex
	)
	t.Run("cases", func(t *testing.T) {
		for _, fc := range faultCases() {
			faultMatrixCase(t, fc, func(tr *http.Transport) {
				trMu.Lock()
				transports = append(transports, tr)
				trMu.Unlock()
			})
		}
	})
	for _, tr := range transports {
		tr.CloseIdleConnections()
	}
	assertNoGoroutineLeak(t, before)
}

// faultMatrixCase runs every operation against a server with one fault
// (see TestFaultMatrix) in a parallel subtest; keep receives the
// subtest's transport.
func faultMatrixCase(t *testing.T, fc faultCase, keep func(*http.Transport)) {
	t.Run(strings.ReplaceAll(fc.name, " ", "_"), func(t *testing.T) {
		t.Parallel()
		var hits sync.Map // op pattern -> *atomic.Int32
		mux := http.NewServeMux()
		for _, op := range allOps {
			n := new(atomic.Int32)
			hits.Store(op.pattern, n)
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				_, _ = io.Copy(io.Discard, r.Body)
				fc.serve(w, r)
			})
		}
		srv := httptest.NewUnstartedServer(mux)
		srv.Config.ErrorLog = testlog.New(t) // handshakes the timeout cut short
		srv.StartTLS()
		defer srv.Close()
		base := srv.URL
		if fc.silentTLS {
			base = silentServer(t)
		}
		tr := srv.Client().Transport.(*http.Transport)
		// A fault that breaks the connection makes every attempt a new
		// TLS handshake; resuming the session skips the certificate's
		// signature and check, which were most of the matrix's time.
		tr.TLSClientConfig.ClientSessionCache = tls.NewLRUClientSessionCache(0)
		keep(tr)

		// run makes one operation's call against the faulty server.
		run := func(op anOp) *faultRun {
			r := &faultRun{policy: DefaultRetryPolicy()}
			r.policy.WaitMin, r.policy.WaitMax = time.Millisecond, 2*time.Millisecond
			cor := &cancelOnResponse{rt: tr}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if fc.cancelAfterFirstResponse {
				r.policy.WaitMin, r.policy.WaitMax = time.Hour, time.Hour // only the cancel can end the wait
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				cor.cancel.Store(&cancel)
			}
			var logs bytes.Buffer
			opts := append([]Option{
				WithHTTPClient(&http.Client{Transport: cor}),
				WithRetryPolicy(r.policy),
				WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
			}, fc.opts...)
			c, err := NewClient(base, testToken, opts...)
			if err != nil {
				r.newErr = err
				return r
			}
			v, _ := hits.Load(op.pattern)
			n := v.(*atomic.Int32)
			n.Store(0)
			r.res, r.resp, r.err = op.call(ctx, c)
			r.hits = n.Load()
			r.logs = logs.String()
			return r
		}
		// The calls are made first, then checked one by one. A fault
		// that makes every attempt wait for the timeout runs them 32 at
		// a time (each pattern has its own counter): in a row, 106
		// operations times 3 timeouts took 11.7 s. The others run in a
		// row on one warm connection, which costs half the CPU time of
		// running them concurrently (a TLS handshake per connection).
		ran := make(map[string]*faultRun, len(allOps))
		var (
			wg  sync.WaitGroup
			mu  sync.Mutex
			sem = make(chan struct{}, 32)
		)
		for _, op := range allOps {
			if !fc.timesOut {
				ran[op.name] = run(op)
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				r := run(op)
				mu.Lock()
				ran[op.name] = r
				mu.Unlock()
				<-sem
			}()
		}
		wg.Wait()

		if fc.timesOut {
			// How many reached the handler depends on the scheduler (see
			// timesOut): logged, not asserted (issue 34).
			reached := 0
			for _, r := range ran {
				if r.hits > 0 {
					reached++
				}
			}
			t.Logf("%d of %d operations reached the server", reached, len(allOps))
		}
		for _, op := range allOps {
			t.Run(op.name, func(t *testing.T) {
				r := ran[op.name]
				require.NoError(t, r.newErr)
				res, resp, err := r.res, r.resp, r.err
				require.Error(t, err)
				assert.Nil(t, res, "no result with an error")
				fc.check(t, op, err, resp)

				want := 1
				if physicalOps[op.name] && fc.notActed || !physicalOps[op.name] && fc.retried && op.idempotent {
					want = 1 + r.policy.MaxRetries
				}
				attempts := -1
				var apiErr *APIError
				var reqErr *RequestError
				switch {
				case errors.As(err, &apiErr):
					attempts = apiErr.Attempts
				case errors.As(err, &reqErr):
					attempts = reqErr.Attempts
				}
				switch {
				case fc.timesOut && physicalOps[op.name]:
					// What holds wherever the timeouts land (see timesOut):
					// a physical act is tried again only after an attempt
					// that was never sent, so it reaches the server at most
					// once, and the server sees no attempt the client did
					// not make.
					assert.LessOrEqual(t, r.hits, int32(1), "a physical act reaches the server at most once")
					assert.GreaterOrEqual(t, attempts, want, "attempts in the error")
					assert.LessOrEqual(t, attempts, 1+r.policy.MaxRetries, "attempts in the error")
					assert.LessOrEqual(t, r.hits, int32(attempts), "attempts seen by the server")
				case fc.timesOut:
					assert.Equal(t, want, attempts, "attempts in the error")
					assert.LessOrEqual(t, r.hits, int32(want), "attempts seen by the server")
				default:
					assert.Equal(t, int32(want), r.hits, "attempts seen by the server")
					if attempts >= 0 {
						assert.Equal(t, want, attempts, "attempts in the error")
					}
				}
				if fc.silentTLS {
					assert.Zero(t, r.hits, "no attempt gets past the handshake")
				}
				for _, s := range []string{err.Error(), fmt.Sprintf("%+v %#v", err, err), r.logs} {
					assert.NotContains(t, s, testToken)
					assert.NotContains(t, s, "N8oZJZ6U16i4mN6ZnRhw")
				}
			})
		}
	})
}

// silentServer listens on loopback for a test and holds every connection
// it accepts without a word until the test ends: a TLS handshake with it
// never completes. It returns the server's https base URL.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns []net.Conn
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "https://" + ln.Addr().String()
}

// assertNoGoroutineLeak waits (boundedly) for goroutines started by the
// test to end: closed connections' read loops exit asynchronously.
func assertNoGoroutineLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines left behind:\n%s", n-before, buf[:runtime.Stack(buf, true)])
	}
}

// TestInjectionSafeIDsAndQueries sends hostile ids and search terms through
// every operation that takes one: each reaches the server as one escaped
// path segment or one query value, never as path structure.
func TestInjectionSafeIDsAndQueries(t *testing.T) {
	t.Parallel()
	hostile := []string{"a/b", "../../users/1", "..%2F", "x?y=1", "x#frag", "100%", "a b", "ünï/cødé", "a;b", "\\x", "%2e%2e", "a\tb", "emoji🚪"}
	type seen struct{ rawPath, value string }
	got := make(chan seen, 1)
	c, mux, _ := setup(t)
	for _, p := range []string{"GET /api/v1/developer/users/{id}", "GET /api/v1/developer/devices/{id}/settings", "PUT /api/v1/developer/devices/{id}/settings",
		"GET /api/v1/developer/access_policies/schedules/{id}", "DELETE /api/v1/developer/webhooks/endpoints/{id}",
		"GET /api/v1/developer/doors/{id}", "PUT /api/v1/developer/doors/{id}/unlock", "GET /api/v1/developer/door_groups/{id}",
		"POST /api/v1/developer/devices/{id}/doorbell",
		"GET /api/v1/developer/visitors/{id}", "DELETE /api/v1/developer/visitors/{id}",
		"GET /api/v1/developer/credentials/nfc_cards/tokens/{id}", "GET /api/v1/developer/credentials/touch_passes/{id}"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			got <- seen{r.URL.EscapedPath(), r.PathValue("id")}
			writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":{"id":"x"}}`)
		})
	}
	mux.HandleFunc("GET /api/v1/developer/credentials/touch_passes/search", func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.RawQuery, r.URL.Query().Get("condition")}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":[]}`)
	})
	mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.URL.RawQuery, r.URL.Query().Get("keyword")}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":[]}`)
	})
	ctx := context.Background()
	byID := []struct {
		path func(id string) string
		call func(id string) error
	}{
		{func(id string) string { return "/api/v1/developer/users/" + pathSeg(id) },
			func(id string) error { _, _, err := c.Users.Get(ctx, id, nil); return err }},
		{func(id string) string { return "/api/v1/developer/devices/" + pathSeg(id) + "/settings" },
			func(id string) error { _, _, err := c.Devices.GetSettings(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/devices/" + pathSeg(id) + "/settings" },
			func(id string) error {
				_, err := c.Devices.UpdateSettings(ctx, id, &DeviceSettingsUpdate{})
				return err
			}},
		{func(id string) string { return "/api/v1/developer/access_policies/schedules/" + pathSeg(id) },
			func(id string) error { _, _, err := c.Schedules.Get(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/webhooks/endpoints/" + pathSeg(id) },
			func(id string) error { _, err := c.Webhooks.Delete(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/doors/" + pathSeg(id) },
			func(id string) error { _, _, err := c.Doors.Get(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/doors/" + pathSeg(id) + "/unlock" },
			func(id string) error { _, err := c.Doors.Unlock(ctx, id, nil); return err }},
		{func(id string) string { return "/api/v1/developer/door_groups/" + pathSeg(id) },
			func(id string) error { _, _, err := c.DoorGroups.Get(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/devices/" + pathSeg(id) + "/doorbell" },
			func(id string) error { _, err := c.Devices.TriggerDoorbell(ctx, id, &DoorbellRequest{}); return err }},
		{func(id string) string { return "/api/v1/developer/visitors/" + pathSeg(id) },
			func(id string) error { _, _, err := c.Visitors.Get(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/visitors/" + pathSeg(id) },
			func(id string) error { _, err := c.Visitors.Delete(ctx, id, nil); return err }},
		{func(id string) string { return "/api/v1/developer/credentials/nfc_cards/tokens/" + pathSeg(id) },
			func(id string) error { _, _, err := c.NFCCards.Get(ctx, id); return err }},
		{func(id string) string { return "/api/v1/developer/credentials/touch_passes/" + pathSeg(id) },
			func(id string) error { _, _, err := c.TouchPasses.Get(ctx, id); return err }},
	}
	for _, op := range byID {
		for _, id := range hostile {
			require.NoError(t, op.call(id), "%q", id)
			s := <-got
			assert.Equal(t, id, s.value, "the server reads the id back whole")
			assert.Equal(t, op.path(id), s.rawPath, "one escaped segment")
		}
	}
	for _, term := range hostile {
		_, _, err := c.TouchPasses.Search(ctx, term)
		require.NoError(t, err)
		s := <-got
		assert.Equal(t, term, s.value)
		assert.Equal(t, "condition="+url.QueryEscape(term), s.rawPath)
		_, _, err = c.Visitors.List(ctx, &VisitorListOptions{Keyword: term})
		require.NoError(t, err)
		s = <-got
		assert.Equal(t, term, s.value)
		assert.Equal(t, "keyword="+url.QueryEscape(term), s.rawPath)
	}
}
