package access_test

import (
	"net/http"
	"os"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/testlog"
	"github.com/stretchr/testify/require"
)

// mockConsole returns a client for a TLS test server whose handlers the
// test registers on mux.
func mockConsole(t *testing.T) (*access.Client, *http.ServeMux) {
	t.Helper()
	mux := http.NewServeMux()
	srv := testlog.NewTLSServer(t, mux)
	t.Cleanup(srv.Close)
	c, err := access.NewClient(srv.URL, "token-123", access.WithHTTPClient(srv.Client()), access.WithRetryPolicy(access.RetryPolicy{}))
	require.NoError(t, err)
	return c, mux
}

// sample reads testdata/samples/<name>.json.
func sample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/samples/" + name + ".json")
	require.NoError(t, err)
	return b
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// sampleFile reads testdata/samples/<name>.
func sampleFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/samples/" + name)
	require.NoError(t, err)
	return b
}
