package access

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// countingServer is a TLS test server that counts the connections opened
// to it.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Config.ErrorLog = testlog.New(t)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// A call that fails after its retries must not empty the connection pool:
// go-retryablehttp closes the idle connections of its HTTP client then.
func TestFailingCallsKeepThePool(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "down" {
			writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"down"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"u1"}}`)
	})
	srv, conns := countingServer(t, mux)
	p := fastRetry()
	p.MaxRetries = 1
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(srv.Client()), WithRetryPolicy(p))
	require.NoError(t, err)
	failed := 0
	for i := range 60 {
		id := "u1"
		if i%6 == 0 { // 10 of the 60 calls fail after their retry
			id = "down"
		}
		if _, _, err := c.Users.Get(context.Background(), id, nil); err != nil {
			require.ErrorIs(t, err, ErrServer)
			failed++
		}
	}
	assert.Equal(t, 10, failed)
	assert.LessOrEqual(t, conns.Load(), int32(2), "connections opened for 60 calls with 10 failures")
	t.Logf("60 calls, 10 failing after a retry: %d connection(s)", conns.Load())
}

// A transport shared through WithHTTPClient keeps its other connections
// when a call of the SDK fails.
func TestFailingCallLeavesSharedTransportAlone(t *testing.T) {
	t.Parallel()
	other, otherConns := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	api, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"down"}`)
	}))
	// One transport trusting both test certificates.
	tr := other.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.RootCAs.AddCert(api.Certificate())
	shared := &http.Client{Transport: tr}
	get := func() {
		resp, err := shared.Get(other.URL)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	get()
	c, err := NewClient(api.URL, testToken, WithHTTPClient(shared), WithRetryPolicy(fastRetry()))
	require.NoError(t, err)
	_, _, err = c.Users.Get(context.Background(), "u1", nil)
	require.ErrorIs(t, err, ErrServer)
	get()
	assert.Equal(t, int32(1), otherConns.Load(), "the other server's idle connection survived")
}

// CloseIdleConnections releases the client's kept-alive connection.
func TestCloseIdleConnections(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"u1"}}`)
	}))
	c, err := NewClient(srv.URL, testToken, WithRootCAs(poolOf(srv)))
	require.NoError(t, err)
	for range 3 {
		_, _, err = c.Users.Get(context.Background(), "u1", nil)
		require.NoError(t, err)
	}
	assert.Equal(t, int32(1), conns.Load())
	c.CloseIdleConnections()
	_, _, err = c.Users.Get(context.Background(), "u1", nil)
	require.NoError(t, err)
	assert.Equal(t, int32(2), conns.Load(), "a new connection after CloseIdleConnections")
}

// A connection that fails after the headers, while the body is read, is
// retried like any connection failure for GET, PUT and DELETE, and never
// for POST.
func TestBodyPhaseFailureRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		op      string
		attempt int // attempts the server sees
		ok      bool
	}{{"GET", 2, true}, {"PUT", 2, true}, {"DELETE", 2, true}, {"POST", 1, false}} {
		t.Run(tc.op, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			op := retryOps[tc.op]
			var n atomic.Int32
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					closeMidBody(w, r)
					return
				}
				writeRaw(w, 200, "application/json", successBody)
			})
			_, err := op.call(context.Background(), c)
			assert.Equal(t, int32(tc.attempt), n.Load())
			if tc.ok {
				require.NoError(t, err)
				return
			}
			var re *RequestError
			require.ErrorAs(t, err, &re, "a POST whose answer was cut off")
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		})
	}
}

// A console that caps page_size still yields every record through All, and
// one that ignores page_num still ends with ErrPageRepeated.
func TestAllFollowsCappedPageSize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		offsetBy   string // how the server computes offsets: "served" or "asked" size
		ignorePage bool
	}{{"offset by served size", "served", false}, {"offset by asked size", "asked", false}, {"ignores page_num", "served", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const total, limit = 250, 100
			c, mux, _ := setup(t)
			var queries []string
			mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
				queries = append(queries, r.URL.RawQuery)
				num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
				asked, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
				if tc.ignorePage {
					num = 1
				}
				size := min(asked, limit)
				off := (num - 1) * size
				if tc.offsetBy == "asked" {
					off = (num - 1) * asked
				}
				page := []map[string]any{}
				for i := off; i < min(off+size, total); i++ {
					page = append(page, map[string]any{"id": fmt.Sprintf("v%03d", i)})
				}
				writeJSON(t, w, map[string]any{"code": "SUCCESS", "msg": "success", "data": page,
					"pagination": map[string]int{"page_num": num, "page_size": size, "total": total}})
			})
			var ids []string
			var gotErr error
			for v, err := range c.Visitors.All(context.Background(), &VisitorListOptions{PageSize: 500}) {
				if err != nil {
					gotErr = err
					break
				}
				ids = append(ids, v.ID)
			}
			if tc.ignorePage {
				assert.ErrorIs(t, gotErr, ErrPageRepeated)
				assert.Len(t, ids, limit)
				return
			}
			require.NoError(t, gotErr)
			require.Len(t, ids, total, "queries: %v", queries)
			for i, id := range ids {
				require.Equal(t, fmt.Sprintf("v%03d", i), id)
			}
			assert.Equal(t, []string{"page_num=1&page_size=500", "page_num=2&page_size=100", "page_num=3&page_size=100"}, queries)
		})
	}
}

// A Retry-After longer than WaitMax, or than what is left of the context's
// deadline, ends the call at once with the wait in APIError.RetryAfter.
func TestLongRetryAfterEndsTheCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		status     int
		header     string
		waitMax    time.Duration
		deadline   time.Duration
		attempts   int32
		retryAfter time.Duration
	}{
		{"beyond WaitMax", 429, "120", time.Minute, 0, 1, 2 * time.Minute},
		{"beyond the deadline", 503, "30", time.Hour, 10 * time.Second, 1, 30 * time.Second},
		{"within both", 429, "0", time.Minute, 10 * time.Second, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := fastRetry()
			p.WaitMax = tc.waitMax
			c, mux, _ := setup(t, WithRetryPolicy(p))
			var n atomic.Int32
			mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				w.Header().Set("Retry-After", tc.header)
				writeRaw(w, tc.status, "application/json", `{"code":"","msg":"slow down"}`)
			})
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			_, _, err := c.Users.Get(ctx, "u1", nil)
			assert.Equal(t, tc.attempts, n.Load(), "attempts")
			var e *APIError
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.retryAfter, e.RetryAfter)
			assert.Equal(t, tc.status, e.StatusCode)
			if tc.retryAfter > 0 {
				assert.ErrorIs(t, err, ErrRateLimited, "a RetryAfter means rate limited, even on a 503")
			}
		})
	}
}

// WaitMin 0 retries at once: one 503 then success takes well under a
// second even with WaitMax 4s (it used to wait 2.5 to 5 s).
func TestZeroWaitMinRetriesPromptly(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, WaitMin: 0, WaitMax: 4 * time.Second}))
	var n atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"u1"}}`)
	})
	start := time.Now()
	_, _, err := c.Users.Get(context.Background(), "u1", nil)
	require.NoError(t, err)
	assert.Equal(t, int32(2), n.Load())
	assert.Less(t, time.Since(start), time.Second)
}

// A DELETE whose first answer was lost, and whose retry then finds
// nothing, has succeeded. A not-found after answers that prove the first
// attempt did nothing (503) stays an error.
func TestDeleteWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	notFound := func(w http.ResponseWriter) {
		writeRaw(w, 400, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"not found"}`)
	}
	for _, tc := range []struct {
		name  string
		first func(w http.ResponseWriter, r *http.Request)
		ok    bool
	}{
		{"connection lost after the delete", resetConn, true},
		{"answer cut off", closeMidBody, true},
		{"gateway timeout", func(w http.ResponseWriter, _ *http.Request) { writeRaw(w, 504, "text/plain", "timeout") }, true},
		{"service unavailable", func(w http.ResponseWriter, _ *http.Request) { writeRaw(w, 503, "text/plain", "busy") }, false},
		{"not found at once", func(w http.ResponseWriter, _ *http.Request) { notFound(w) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			var n atomic.Int32
			mux.HandleFunc("DELETE /api/v1/developer/webhooks/endpoints/{id}", func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					tc.first(w, r)
					return
				}
				notFound(w)
			})
			_, err := c.Webhooks.Delete(context.Background(), "w1")
			if tc.ok {
				assert.NoError(t, err)
				assert.Equal(t, int32(2), n.Load())
				return
			}
			assert.ErrorIs(t, err, ErrNotFound)
		})
	}
}

// Busy and offline devices (codes on HTTP 200) are retried by safe methods
// and match ErrUnavailable; unsupported ones match ErrUnsupported.
func TestDeviceCodesClassified(t *testing.T) {
	t.Parallel()
	for code, want := range map[ErrorCode]error{
		CodeDeviceDeviceBusy:          ErrUnavailable,
		CodeDeviceDeviceOffline:       ErrUnavailable,
		CodeDeviceAPINotSupported:     ErrUnsupported,
		CodeDeviceDeviceVersionTooOld: ErrUnsupported,
	} {
		e := &APIError{StatusCode: 200, Code: code}
		assert.ErrorIs(t, e, want, code)
		assert.NotErrorIs(t, e, ErrServer, code)
	}
	c, mux, _ := setup(t)
	var gets, posts atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/devices/{id}/settings", func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_DEVICE_BUSY","msg":"busy"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"device_id":"d1"}}`)
	})
	mux.HandleFunc("POST /api/v1/developer/credentials/touch_passes", func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_DEVICE_OFFLINE","msg":"offline"}`)
	})
	s, _, err := c.Devices.GetSettings(context.Background(), "d1")
	require.NoError(t, err)
	assert.Equal(t, "d1", s.DeviceID)
	assert.Equal(t, int32(2), gets.Load())
	_, _, err = c.TouchPasses.Purchase(context.Background(), 1)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Equal(t, int32(1), posts.Load(), "a POST is never retried")
}

// An error for a webhook-endpoint response never shows the endpoints'
// secrets or custom header values, however it is printed or logged.
func TestAPIErrorRedactsSecrets(t *testing.T) {
	t.Parallel()
	const secret, hookToken, pin = "6601f1243d2ff70f", "hook-token-value", "73291"
	bodies := map[string]string{
		"error code": `{"code":"CODE_SYSTEM_ERROR","msg":"x","data":[{"id":"w1","secret":"` + secret + `","headers":{"X-Hook-Token":"` + hookToken + `","X-B":"{\"}"},"pin_code":{"token":"` + pin + `"}}]}`,
		"truncated":  `{"code":"SUCCESS","msg":"success","data":[{"id":"w1","headers":{"X-Hook-Token":"` + hookToken + `"},"secret":"` + secret,
		"wrong type": `{"code":"SUCCESS","msg":"success","data":{"id":"w1","secret":"` + secret + `","headers":{"X-Hook-Token":"` + hookToken + `"}}}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
				writeRaw(w, 200, "application/json", body)
			})
			_, _, err := c.Webhooks.List(context.Background())
			var e *APIError
			require.ErrorAs(t, err, &e)
			assert.Contains(t, string(e.Body), "REDACTED")
			js, jerr := json.Marshal(err)
			require.NoError(t, jerr)
			var logged bytesBuffer
			slog.New(slog.NewJSONHandler(&logged, nil)).Error("call failed", "err", err, "apiErr", e)
			for _, out := range []string{string(e.Body), string(js), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), fmt.Sprintf("%#v", *e), logged.String()} {
				assert.NotContains(t, out, secret)
				assert.NotContains(t, out, hookToken)
				assert.NotContains(t, out, pin)
			}
		})
	}
	// A body without secrets is kept as it is.
	plain := []byte(`{"code":"CODE_SYSTEM_ERROR","msg":"x","data":{"id":"w1"}}`)
	assert.Equal(t, plain, redactBody(plain))
}

type bytesBuffer struct{ b []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }
func (b *bytesBuffer) String() string              { return string(b.b) }

// A nil context is rejected before anything is sent, by the purchase too.
func TestPurchaseNilContext(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	var ctx context.Context
	assert.NotPanics(t, func() {
		_, _, err := c.TouchPasses.Purchase(ctx, 1)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "ctx", ve.Field)
	})
}

// Some consoles send a visitor's status as its number.
func TestVisitorStatusAsNumber(t *testing.T) {
	t.Parallel()
	var page []Visitor
	require.NoError(t, json.Unmarshal([]byte(`[{"id":"a","status":"ACTIVE"},{"id":"b","status":6},{"id":"c","status":2},{"id":"d","status":null},{"id":"e","status":42},{"id":"f"}]`), &page))
	require.Len(t, page, 6)
	assert.Equal(t, "ACTIVE", page[0].Status)
	assert.Equal(t, page[0].Status, page[1].Status)
	assert.Equal(t, "VISITED", page[2].Status)
	assert.Equal(t, "", page[3].Status)
	assert.Equal(t, "42", page[4].Status, "an unknown number is kept")
	assert.Equal(t, "", page[5].Status)
	s, ok := page[1].StatusCode()
	assert.True(t, ok)
	assert.Equal(t, VisitorStatusActive, s)
	var v Visitor
	assert.Error(t, json.Unmarshal([]byte(`{"status":true}`), &v))
}

func poolOf(srv *httptest.Server) *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

// Every DELETE of the SDK, now and later, treats a not-found after a lost
// answer as success: the rule lives in del, and this test makes sure each
// delete in allOps goes through it.
func TestEveryDeleteSurvivesALostAnswer(t *testing.T) {
	t.Parallel()
	n := 0
	for _, op := range allOps {
		if op.method != http.MethodDelete {
			continue
		}
		n++
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			var hits atomic.Int32
			mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					resetConn(w, r) // the delete happened, its answer is lost
					return
				}
				writeRaw(w, 400, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"not found"}`)
			})
			_, _, err := op.call(context.Background(), c)
			assert.NoError(t, err)
			assert.Equal(t, int32(2), hits.Load())
		})
	}
	assert.Positive(t, n)
}

// TestRetrySafePOST: a POST marked retrySafe (no side effect, such as
// generating a PIN) is retried like a GET; an unmarked one is not.
func TestRetrySafePOST(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: time.Millisecond}))
	mux.HandleFunc("POST /api/v1/developer/credentials/pin_codes", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			writeRaw(w, 503, "text/plain", "busy")
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":"1234"}`)
	})
	_, _, err := call[string](retrySafe(context.Background()), c, "POST", "/credentials/pin_codes", nil, nil, true)
	require.NoError(t, err)
	assert.Equal(t, int32(2), n.Load())
	n.Store(0)
	_, _, err = call[string](context.Background(), c, "POST", "/credentials/pin_codes", nil, nil, true)
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, int32(1), n.Load(), "a plain POST is sent once")
}

// TestDeleteWithDataWhoseAnswerWasLost: a DELETE that answers data
// (Users.UnassignTouchPass) goes through the same rule: after a lost
// answer, a retry that finds nothing is a success, without data.
func TestDeleteWithDataWhoseAnswerWasLost(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var n atomic.Int32
	mux.HandleFunc("DELETE /api/v1/developer/users/{id}/touch_passes/{tp}", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			resetConn(w, r) // the pass was unassigned, the answer lost
			return
		}
		writeRaw(w, 400, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"not assigned"}`)
	})
	tp, _, err := c.Users.UnassignTouchPass(context.Background(), "u1", "tp1")
	require.NoError(t, err)
	assert.Nil(t, tp)
	assert.Equal(t, int32(2), n.Load())

	n.Store(1) // not found at once: an error
	_, _, err = c.Users.UnassignTouchPass(context.Background(), "u1", "tp1")
	assert.ErrorIs(t, err, ErrNotFound)
}

// Optional lists distinguish "leave as is" (nil: not sent) from "remove
// all" (empty: sent as []).
func TestEmptyListsAreSent(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		v    any
		want string
	}{
		"visitor update, nil resources":   {VisitorUpdate{}, `{}`},
		"visitor update, empty resources": {VisitorUpdate{Resources: []Resource{}}, `{"resources":[]}`},
		"visitor create, no resources": {VisitorRequest{FirstName: "A", LastName: "B", VisitReason: VisitReasonOthers},
			`{"first_name":"A","last_name":"B","visit_reason":"Others"}`},
		"holiday group, nil holidays":   {HolidayGroupRequest{Name: "x"}, `{"name":"x"}`},
		"holiday group, empty holidays": {HolidayGroupRequest{Name: "x", Holidays: []HolidayRequest{}}, `{"name":"x","holidays":[]}`},
	} {
		b, err := json.Marshal(tc.v)
		require.NoError(t, err, name)
		assert.JSONEq(t, tc.want, string(b), name)
	}
}

// A request marked sendOnce is sent once whatever its method: the batch
// touch-pass assignment is a PUT that hands out passes.
func TestSendOnceOverridesTheMethod(t *testing.T) {
	t.Parallel()
	p := fastRetry()
	p.RetryWrites = true
	c, mux, _ := setup(t, WithRetryPolicy(p))
	var n atomic.Int32
	mux.HandleFunc("PUT /api/v1/developer/users/touch_passes/assign", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
	})
	_, _, err := c.Users.BatchAssignTouchPasses(context.Background(), &BatchTouchPassAssignment{UserIDs: []string{"u1"}})
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, int32(1), n.Load())
}

// TestRedactSecrets: the exported redaction of a body replaces the
// secrets a request or an answer may carry, a password included, and
// leaves the rest.
func TestRedactSecrets(t *testing.T) {
	t.Parallel()
	in := `{"username":"admin","password":"hunter2-pw","rememberMe":true,"secret":"whsec_x1","token":"tk-9","pin_code":"4321","headers":{"X-Key":"hk-7"}}`
	want := `{"username":"admin","password":"REDACTED","rememberMe":true,"secret":"REDACTED","token":"REDACTED","pin_code":"REDACTED","headers":{"REDACTED":"REDACTED"}}`
	assert.Equal(t, want, string(RedactSecrets([]byte(in))))
	// Each alone, in any case, its name escaped, its value not a string.
	for in, want := range map[string]string{
		`{"password":"x"}`:                           `{"password":"REDACTED"}`,
		`{"Password": "hunter2"}`:                    `{"Password": "REDACTED"}`,
		`{"pass\u0077ord":"x"}`:                      `{"pass\u0077ord":"REDACTED"}`,
		`{"passphrase":"open sesame"}`:               `{"passphrase":"REDACTED"}`,
		`{"api_key":"k","user":{"pin":1234}}`:        `{"api_key":"REDACTED","user":{"pin":"REDACTED"}}`,
		`{"pin_code":{"token":"t","n":7},"id":"u1"}`: `{"pin_code":{"token":"REDACTED","n":"REDACTED"},"id":"u1"}`,
		`{"client_secret":["a",2,true],"x":null}`:    `{"client_secret":["REDACTED","REDACTED",true],"x":null}`,
		`{"access_token":"at","token":null}`:         `{"access_token":"REDACTED","token":null}`,
		`{"authorization":"Bearer abc","ok":1}`:      `{"authorization":"REDACTED","ok":1}`,
		`{"data":{"password":"cut off`:               `{"data":{"password":"REDACTED"`,
	} {
		assert.Equal(t, want, string(RedactSecrets([]byte(in))), in)
	}
}
