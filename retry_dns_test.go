package access

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A host name that does not exist (DNS "no such host") is not retried: it
// is a mistyped address, not a passing failure; a DNS failure that may
// pass (a timeout) is retried as before. The lookup is simulated by the
// dialer: the test touches no resolver.
func TestNoSuchHostIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		dns   *net.DNSError
		dials int32
	}{
		{"no such host", &net.DNSError{Err: "no such host", Name: "consle.lan", IsNotFound: true}, 1},
		{"timeout", &net.DNSError{Err: "i/o timeout", Name: "console.lan", IsTimeout: true}, int32(fastRetry().MaxRetries + 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dials := new(atomic.Int32)
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return nil, &net.OpError{Op: "dial", Net: network, Err: tc.dns}
			}}
			c, err := NewClient("https://consle.lan:12445", testToken, WithHTTPClient(&http.Client{Transport: tr}), WithRetryPolicy(fastRetry()))
			require.NoError(t, err)
			_, _, err = c.Doors.List(context.Background())
			var dnsErr *net.DNSError
			require.True(t, errors.As(err, &dnsErr), "%v", err)
			assert.Equal(t, tc.dials, dials.Load())
		})
	}
}
