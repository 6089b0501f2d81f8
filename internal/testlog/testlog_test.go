package testlog_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// recorder is a testlog.T that keeps the lines and runs its cleanups on
// end.
type recorder struct {
	mu       sync.Mutex
	lines    []string
	cleanups []func()
}

func (r *recorder) Log(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range args {
		r.lines = append(r.lines, a.(string))
	}
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func (r *recorder) logged() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// TestServerErrorLogGoesToTheTest: a TLS server's handshake error (a
// client that rejects the certificate) is a line of the test's log, not of
// the process's standard error; after the test's cleanups nothing more is
// written to it.
func TestServerErrorLogGoesToTheTest(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	srv := httptest.NewUnstartedServer(http.NotFoundHandler())
	srv.Config.ErrorLog = testlog.New(rec)
	srv.StartTLS()
	// A client that does not trust the certificate ends the handshake.
	_, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{}}}).Get(srv.URL)
	require.Error(t, err)
	srv.Close() // waits for the connection, and so for its log line
	lines := rec.logged()
	require.Len(t, lines, 1)
	assert.True(t, strings.HasPrefix(lines[0], "http: TLS handshake error from 127.0.0.1:"), lines[0])
	assert.False(t, strings.HasSuffix(lines[0], "\n"))

	rec.end()
	srv.Config.ErrorLog.Print("after the test")
	assert.Len(t, rec.logged(), 1, "nothing logged once the test ended")
}
