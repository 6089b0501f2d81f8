package accesstest_test

import (
	"bytes"
	"context"
	"log"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// rejectCertificate makes a request to srv with a client that pins
// another certificate, so that the client ends the TLS handshake.
func rejectCertificate(t *testing.T, srv *accesstest.Server) {
	t.Helper()
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(strings.Repeat("ab", 32)))
	require.NoError(t, err)
	_, _, err = c.Doors.List(context.Background())
	require.ErrorIs(t, err, access.ErrCertificateMismatch)
}

// TestNewServerKeepsHandshakeErrorsOutOfTheOutput: a client that rejects
// the certificate of a NewServer writes no "http: TLS handshake error"
// line to the standard logger, where it would land in the output of every
// test run (issue 34). Not parallel: it takes the standard logger's
// output.
func TestNewServerKeepsHandshakeErrorsOutOfTheOutput(t *testing.T) {
	var buf bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&buf)
	srv := accesstest.NewServer()
	rejectCertificate(t, srv)
	srv.Close() // waits for the connection, and so for its log line
	log.SetOutput(nil)
	assert.Empty(t, buf.String())
}

// lineTB is a testing.TB that keeps what is logged to it and runs its
// cleanups when told.
type lineTB struct {
	testing.TB
	mu       sync.Mutex
	lines    []string
	cleanups []func()
}

func (l *lineTB) Helper() {}

func (l *lineTB) Log(args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range args {
		l.lines = append(l.lines, a.(string))
	}
}

func (l *lineTB) Cleanup(f func()) { l.cleanups = append(l.cleanups, f) }

// TestNewLogsServerErrorsToTheTest: the error log of a server made with
// New goes to its test's log (shown when it fails), the handshake a
// client ended included.
func TestNewLogsServerErrorsToTheTest(t *testing.T) {
	t.Parallel()
	tb := &lineTB{TB: t}
	srv := accesstest.New(tb)
	rejectCertificate(t, srv)
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]() // Close, then the log goes quiet
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	require.NotEmpty(t, tb.lines)
	assert.Contains(t, tb.lines[0], "http: TLS handshake error from 127.0.0.1:")
}
