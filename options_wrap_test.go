package access_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// countingRT records the path and status of each attempt it passes on.
type countingRT struct {
	next   http.RoundTripper
	mu     sync.Mutex
	seen   []string
	closed int
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.seen = append(c.seen, r.URL.Path+" error")
		return nil, err
	}
	c.seen = append(c.seen, r.URL.Path+" "+resp.Status[:3])
	return resp, nil
}

func (c *countingRT) CloseIdleConnections() { c.mu.Lock(); c.closed++; c.mu.Unlock() }

// The wrapper sees every attempt, retries included, under the retry
// layer, and is given the transport that carries the SDK's pinning.
func TestWithTransportWrapperSeesEachAttempt(t *testing.T) {
	t.Parallel()
	srv := accesstest.NewServer(accesstest.WithDemoData())
	t.Cleanup(srv.Close)
	var rt *countingRT
	var given http.RoundTripper
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(srv.Fingerprint()),
		access.WithRetryPolicy(access.RetryPolicy{MaxRetries: 2, WaitMin: time.Millisecond, WaitMax: time.Millisecond}),
		access.WithTransportWrapper(func(next http.RoundTripper) http.RoundTripper {
			given = next
			rt = &countingRT{next: next}
			return rt
		}))
	require.NoError(t, err)
	tr, ok := given.(*http.Transport)
	require.True(t, ok, "wrapper given %T", given)
	require.NotNil(t, tr.TLSClientConfig)
	assert.NotNil(t, tr.TLSClientConfig.VerifyConnection, "the pinning check is in the wrapped transport")

	srv.Inject(accesstest.OpDoorsList, accesstest.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	doors, _, err := c.Doors.List(context.Background())
	require.NoError(t, err)
	assert.NotEmpty(t, doors)
	assert.Equal(t, []string{"/api/v1/developer/doors 503", "/api/v1/developer/doors 200"}, rt.seen)

	c.CloseIdleConnections()
	assert.Equal(t, 1, rt.closed, "CloseIdleConnections reaches the wrapper")
}

// A wrong pin still fails: TLS stays the SDK's, the wrapper sees the
// failed attempt.
func TestWithTransportWrapperKeepsPinning(t *testing.T) {
	t.Parallel()
	srv := accesstest.NewServer()
	t.Cleanup(srv.Close)
	var rt *countingRT
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(strings.Repeat("ab", 32)),
		access.WithTransportWrapper(func(next http.RoundTripper) http.RoundTripper {
			rt = &countingRT{next: next}
			return rt
		}))
	require.NoError(t, err)
	_, _, err = c.Doors.List(context.Background())
	require.ErrorIs(t, err, access.ErrCertificateMismatch)
	require.NotEmpty(t, rt.seen)
	assert.Equal(t, "/api/v1/developer/doors error", rt.seen[0])
}

// The wrapper also wraps a transport given with WithHTTPClient (TLS
// settings applied to a clone of it).
func TestWithTransportWrapperOverHTTPClient(t *testing.T) {
	t.Parallel()
	srv := accesstest.NewServer(accesstest.WithDemoData())
	t.Cleanup(srv.Close)
	mine := &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS13}}
	var given http.RoundTripper
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithHTTPClient(&http.Client{Transport: mine}),
		access.WithPinnedCertificate(srv.Fingerprint()),
		access.WithTransportWrapper(func(next http.RoundTripper) http.RoundTripper { given = next; return next }))
	require.NoError(t, err)
	tr, ok := given.(*http.Transport)
	require.True(t, ok)
	assert.NotSame(t, mine, tr, "a clone, the caller's transport untouched")
	assert.Equal(t, uint16(tls.VersionTLS13), tr.TLSClientConfig.MinVersion)
	assert.Nil(t, mine.TLSClientConfig.VerifyConnection)
	_, _, err = c.Doors.List(context.Background())
	require.NoError(t, err)
}

func TestWithTransportWrapperInvalid(t *testing.T) {
	t.Parallel()
	_, err := access.NewClient("https://console", "tok", access.WithTransportWrapper(nil))
	var ve *access.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "WithTransportWrapper")
	_, err = access.NewClient("https://console", "tok",
		access.WithTransportWrapper(func(http.RoundTripper) http.RoundTripper { return nil }))
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, err.Error(), "nil RoundTripper")
}

// attemptLogger prints the method, path and status of each attempt (never
// the Authorization header).
type attemptLogger struct{ next http.RoundTripper }

func (l attemptLogger) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil {
		fmt.Println(r.Method, r.URL.Path, "failed:", err)
		return nil, err
	}
	fmt.Println(r.Method, r.URL.Path, resp.StatusCode)
	return resp, nil
}

// Log every attempt, retries included, through the pinned transport the
// client builds.
func ExampleWithTransportWrapper() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	srv.Inject(accesstest.OpDoorsList, accesstest.Fault{Status: http.StatusServiceUnavailable, Times: 1})

	client, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(srv.Fingerprint()),
		access.WithRetryPolicy(access.RetryPolicy{MaxRetries: 1, WaitMin: time.Millisecond, WaitMax: time.Millisecond}),
		access.WithTransportWrapper(func(next http.RoundTripper) http.RoundTripper { return attemptLogger{next} }))
	if err != nil {
		log.Fatal(err)
	}
	doors, _, err := client.Doors.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(doors) > 0)
	// Output:
	// GET /api/v1/developer/doors 503
	// GET /api/v1/developer/doors 200
	// true
}
