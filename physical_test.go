package access

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// opNamed returns the operation of allOps with that name.
func opNamed(t *testing.T, name string) anOp {
	t.Helper()
	for _, op := range allOps {
		if op.name == name {
			return op
		}
	}
	t.Fatalf("no operation %s in allOps", name)
	return anOp{}
}

// physicalTestOps are physicalOps in a fixed order, plus an idempotent
// write that is not physical, to show that the same faults are retried for
// it.
func physicalTestOps(t *testing.T) (physical []anOp, control anOp) {
	for _, name := range []string{"Doors.Unlock", "Doors.SetLockRule", "Doors.SetEmergency", "Devices.TriggerDoorbell", "NFCCards.StartEnrollment"} {
		require.True(t, physicalOps[name], name)
		physical = append(physical, opNamed(t, name))
	}
	require.Len(t, physicalOps, len(physical))
	return physical, opNamed(t, "DoorGroups.Update")
}

// A console that acts on the request and then fails to answer (the
// connection drops, a gateway answers 502 or 504, the console 500, the
// answer is cut off) may have opened the relay: an operation that acts on
// the physical site is then sent once, even with RetryWrites and
// RetryInternalServerError, and the caller gets the error. A door is
// unlocked once.
func TestPhysicalActsAreNotRepeatedWhenTheConsoleMayHaveActed(t *testing.T) {
	t.Parallel()
	physical, control := physicalTestOps(t)
	for _, fc := range []struct {
		name  string
		fail  func(http.ResponseWriter, *http.Request)
		check func(t *testing.T, err error)
	}{
		{"connection dropped", resetConn, func(t *testing.T, err error) {
			var re *RequestError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, 1, re.Attempts)
		}},
		{"answer cut off", closeMidBody, func(t *testing.T, err error) {
			var re *RequestError
			require.ErrorAs(t, err, &re)
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		}},
		{"502", answer(502, "text/html", "<html>bad gateway</html>"), wantStatus(502)},
		{"504", answer(504, "text/html", "<html>gateway timeout</html>"), wantStatus(504)},
		{"500", answer(500, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"x"}`), wantStatus(500)},
	} {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			policy := fastRetry()
			policy.RetryWrites, policy.RetryInternalServerError = true, true
			c, mux, _ := setup(t, WithRetryPolicy(policy))
			acted := map[string]*atomic.Int32{}
			for _, op := range slices.Concat(physical, []anOp{control}) {
				n := new(atomic.Int32)
				acted[op.name] = n
				mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					n.Add(1)      // the console acts ...
					fc.fail(w, r) // ... and its answer is lost
				})
			}
			for _, op := range physical {
				res, _, err := op.call(context.Background(), c)
				require.Error(t, err, op.name)
				assert.Nil(t, res)
				fc.check(t, err)
				assert.Equal(t, int32(1), acted[op.name].Load(), "%s: sent once", op.name)
			}
			_, _, err := control.call(context.Background(), c)
			require.Error(t, err)
			assert.Equal(t, int32(1+policy.MaxRetries), acted[control.name].Load(), "an idempotent write that is not physical is retried")
		})
	}
}

func wantStatus(status int) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var e *APIError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, status, e.StatusCode)
		assert.Equal(t, 1, e.Attempts)
		assert.ErrorIs(t, err, ErrServer)
	}
}

// A failure that proves the console did not act is retried, also for the
// operations that act on the physical site and whatever RetryWrites says:
// 429, 503 and a busy device on HTTP 200 (the console refused), and a
// connection refused before the request was written.
func TestPhysicalActsAreRetriedWhenTheConsoleDidNotAct(t *testing.T) {
	t.Parallel()
	physical, _ := physicalTestOps(t)
	refusals := []struct {
		name string
		fail func(http.ResponseWriter, *http.Request)
	}{
		{"429", answer(429, "application/json", `{"code":"","msg":"Too Many Requests"}`)},
		{"503", answer(503, "", "")},
		{"device busy on 200", answer(200, "application/json", `{"code":"CODE_DEVICE_DEVICE_BUSY","msg":"busy","data":null}`)},
	}
	for _, rc := range refusals {
		t.Run(rc.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t) // RetryWrites off
			for _, op := range physical {
				var n atomic.Int32
				mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					if n.Add(1) == 1 {
						rc.fail(w, r)
						return
					}
					writeRaw(w, 200, "application/json", op.success)
				})
				res, _, err := op.call(context.Background(), c)
				require.NoError(t, err, op.name)
				assert.NotNil(t, res)
				assert.Equal(t, int32(2), n.Load(), "%s: refused once, then done", op.name)
			}
		})
	}
	t.Run("connection refused", func(t *testing.T) {
		t.Parallel()
		for _, op := range physical {
			c, srv, dials, served := refusedOnce(t, op)
			res, _, err := op.call(context.Background(), c)
			require.NoError(t, err, op.name)
			assert.NotNil(t, res)
			assert.Equal(t, int32(2), dials.Load(), "%s: dialled again", op.name)
			assert.Equal(t, int32(1), served.Load(), "%s: the console saw one request", op.name)
			srv.Close()
		}
	})
}

// refusedOnce serves op's success on a TLS server behind a client whose
// first dial goes to a closed port on the loopback, so that the first
// attempt fails with connection refused before any byte is written.
func refusedOnce(t *testing.T, op anOp) (*Client, *httptest.Server, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	served := new(atomic.Int32)
	mux := http.NewServeMux()
	mux.HandleFunc(op.pattern, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		served.Add(1)
		writeRaw(w, 200, "application/json", op.success)
	})
	srv := testlog.NewTLSServer(t, mux)
	t.Cleanup(srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	require.NoError(t, ln.Close())
	dials := new(atomic.Int32)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			addr = closed
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(&http.Client{Transport: tr}), WithRetryPolicy(fastRetry()))
	require.NoError(t, err)
	return c, srv, dials, served
}

// A DELETE whose first attempt never left (connection refused) and whose
// retry finds nothing has not deleted anything: ErrNotFound, not success.
func TestDeleteAfterRefusedConnectionReportsNotFound(t *testing.T) {
	t.Parallel()
	op := anOp{name: "Webhooks.Delete", pattern: "DELETE /api/v1/developer/webhooks/endpoints/{id}", success: `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"not found"}`}
	c, _, dials, served := refusedOnce(t, op)
	_, err := c.Webhooks.Delete(context.Background(), "w1")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, int32(2), dials.Load())
	assert.Equal(t, int32(1), served.Load())
	var e *APIError
	require.True(t, errors.As(err, &e))
	assert.False(t, e.uncertain)
}

// The retry table of docs/errors.md lists exactly the physical acts that
// the SDK marks (physicalOps, checked by the fault matrix).
func TestDocsRetryTableListsThePhysicalActs(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("docs/errors.md")
	require.NoError(t, err)
	var row string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "| Physical acts:") {
			row = line
		}
	}
	require.NotEmpty(t, row, "docs/errors.md has a retry table with a physical-acts row")
	cell := strings.Split(row, " | ")[0]
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+\\.[A-Za-z]+)`").FindAllStringSubmatch(cell, -1) {
		listed[m[1]] = true
	}
	delete(listed, "NFCCards.Enroll") // made of StartEnrollment, named for the reader
	assert.Equal(t, physicalOps, listed)
}
