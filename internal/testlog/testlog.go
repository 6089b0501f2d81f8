// Package testlog gives the servers a test starts an error log that
// writes to the test's own log (t.Log) instead of the process's standard
// error: a passing test prints nothing, a failing one shows its servers'
// lines beside its failure, and no line of one test lands in another's
// output.
package testlog

import (
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// T is what the log writes to: a *testing.T or *testing.B, or a
// testscript.T. When it also has Cleanup (testing.TB does), the log goes
// quiet once the test's cleanups run, so that a server line written while
// the test ends never reaches a test that has completed.
type T interface {
	Log(args ...any)
}

// New returns a logger for an http.Server's ErrorLog (or an
// httptest.Server's Config.ErrorLog) that writes each line with t.Log.
func New(t T) *log.Logger {
	w := &writer{t: t}
	if c, ok := t.(interface{ Cleanup(func()) }); ok {
		c.Cleanup(w.stop)
	}
	return log.New(w, "", 0)
}

// NewTLSServer is httptest.NewTLSServer with New(t) as the server's
// error log. Close it as any httptest.Server.
func NewTLSServer(t T, h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ErrorLog = New(t)
	srv.StartTLS()
	return srv
}

// writer is the io.Writer under New's logger.
type writer struct {
	mu      sync.Mutex
	t       T
	stopped bool
}

// Write logs p, one log line per call (log.Logger writes a line at a
// time), without its trailing newline.
func (w *writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.t.Log(strings.TrimSuffix(string(p), "\n"))
	}
	return len(p), nil
}

// stop drops every later line.
func (w *writer) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}
