package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/connect"
)

// closedURL is an https URL on a loopback port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "https://" + addr
}

// waysTo stands in for connect.ConsoleWays: loopback tests cannot bind 12445 or
// 443, so each kind of way points where the test says.
func waysTo(direct, proxy, older string) func(string) []connect.Way {
	return func(string) []connect.Way {
		return []connect.Way{{Kind: "direct", URL: direct}, {Kind: "proxy", URL: proxy}, {Kind: "older proxy", URL: older}}
	}
}

// runWith runs the command line in an app whose candidate ways are
// replaced, and returns its exit code, stdout and stderr.
func runWith(t *testing.T, ways func(string) []connect.Way, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	if ways != nil {
		ctx = connect.WithWays(ctx, ways)
	}
	a := newApp(ctx, strings.NewReader(""), &stdout, &stderr, func(k string) string { return env[k] })
	code := a.execute(args)
	return code, stdout.String(), stderr.String()
}

// TestLoginFindsTheWayIn: login HOST probes the ways in, says what each
// answered, saves the first that accepts the credential, and fails with
// what it tried when none does.
func TestLoginFindsTheWayIn(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	bare := accesstest.New(t, accesstest.WithoutAccess())
	closed := closedURL(t)
	cases := []struct {
		name   string
		srv    *accesstest.Server
		ways   func(string) []connect.Way
		token  string
		code   int
		chosen string
		out    []string
		errOut string
	}{
		{"the proxy only (a Cloud Key)", srv, waysTo(closed, srv.ProxyURL(), srv.URL()+"/proxy/access/api/v1/developer"), srv.Token(), 0, srv.ProxyURL(),
			[]string{"--    probe direct             " + closed + ": no answer: ", "ok    probe proxy              " + srv.ProxyURL() + ": the Access API, credential accepted (proxy mode, X-API-KEY)", "ok    chosen                   " + srv.ProxyURL()}, ""},
		{"the API port first", srv, waysTo(srv.URL(), srv.ProxyURL(), closed), srv.Token(), 0, srv.URL(),
			[]string{"ok    probe direct             " + srv.URL() + ": the Access API, credential accepted (direct mode, Authorization)"}, ""},
		{"the older proxy path (NVR Pro)", srv, waysTo(closed, closed+access.ProxyPrefix, srv.URL()+"/api/v1/developer"), srv.Token(), 0, srv.URL() + "/api/v1/developer",
			[]string{"ok    probe older proxy"}, ""},
		{"a console without Access", bare, waysTo(closedURL(t), bare.ProxyURL(), bare.URL()+"/proxy/access/api/v1/developer"), bare.Token(), 1, "",
			[]string{"--    probe proxy              " + bare.ProxyURL() + ": HTTP 200, not the API: invalid response: body is not JSON but an HTML page"}, "answered with the Access API (tried "},
		{"a refused key", srv, waysTo(closed, srv.ProxyURL(), srv.URL()+"/proxy/access/api/v1/developer"), "wrong-key-0123456789", 4, "",
			[]string{"--    probe proxy              " + srv.ProxyURL() + ": HTTP 401: the credential sent in X-API-KEY was refused"}, "accepted the key or token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			env := map[string]string{"ACCESS_TOKEN": tc.token, "ACCESS_FINGERPRINT": tc.srv.Fingerprint(), "ACCESS_CONFIG_DIR": dir}
			code, stdout, stderr := runWith(t, tc.ways, env, "login", "console.lan")
			require.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, want := range tc.out {
				assert.Contains(t, stdout, want)
			}
			assert.NotContains(t, stdout+stderr, tc.token)
			if tc.code != 0 {
				assert.Contains(t, stderr, tc.errOut)
				_, err := os.Stat(filepath.Join(dir, "config.yaml"))
				assert.ErrorIs(t, err, os.ErrNotExist, "nothing saved")
				return
			}
			assert.Contains(t, stdout, "logged in to "+tc.chosen+" as profile \"default\"")
			cfg, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
			require.NoError(t, err)
			assert.Contains(t, string(cfg), "url: "+tc.chosen+"\n")

			// The saved profile works on its own, in its mode.
			code, stdout, stderr = runWith(t, nil, map[string]string{"ACCESS_CONFIG_DIR": dir}, "doors", "list", "--jq", "length")
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, "8\n", stdout)
		})
	}
}

// TestDoctorFindsTheWayIn: doctor HOST probes like login, then reports
// the mode, the notifications socket's path that answered, and the pace.
func TestDoctorFindsTheWayIn(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		var opts []accesstest.Option
		socket := access.ProxyPrefix + "/devices/notifications"
		if older {
			opts = append(opts, accesstest.WithOlderProxySocket())
			socket = "/proxy/access/api/v1/developer/devices/notifications"
		}
		srv := accesstest.New(t, append(opts, accesstest.WithDemoData())...)
		env := map[string]string{"ACCESS_TOKEN": srv.Token(), "ACCESS_FINGERPRINT": srv.Fingerprint(), "ACCESS_CONFIG_DIR": t.TempDir()}
		code, stdout, stderr := runWith(t, waysTo(closedURL(t), srv.ProxyURL(), closedURL(t)), env, "doctor", "console.lan")
		require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
		assert.Contains(t, stdout, "ok    chosen                   "+srv.ProxyURL()+"\n")
		assert.Contains(t, stdout, ", from the probe of console.lan)\n")
		assert.Contains(t, stdout, "ok    mode                     proxy: a UniFi OS console's proxy ("+srv.ProxyURL()+"), the credential in X-API-KEY\n")
		assert.Contains(t, stdout, "ok    notifications            the socket answered at "+socket+"\n")
		assert.Contains(t, stdout, "ok    pace                     no rate limit met; bulk commands send at most 10 requests/s (--rate), others are not paced\n")
		assert.NotContains(t, stdout+stderr, srv.Token())
	}
}

// TestImportRate: --rate paces the bulk commands' client (default 10
// requests a second, 0 unpaced) and refuses a negative value.
func TestImportRate(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	csv := filepath.Join(t.TempDir(), "people.csv")
	require.NoError(t, os.WriteFile(csv, []byte("first_name,last_name,email\nA,One,r1@example.com\nB,Two,r2@example.com\nC,Three,r3@example.com\n"), 0o600))
	for _, tc := range []struct {
		args  []string
		per   float64
		burst int
	}{
		{nil, 10, 1},
		{[]string{"--rate", "20"}, 20, 1},
		{[]string{"--rate", "0"}, 0, 0},
	} {
		var stdout, stderr bytes.Buffer
		a := newApp(context.Background(), strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
		code := a.execute(append([]string{"users", "import", csv, "--dry-run"}, tc.args...))
		require.Equal(t, 0, code, stderr.String())
		per, burst := a.client.RateLimit()
		assert.Equal(t, tc.per, per, tc.args)
		assert.Equal(t, tc.burst, burst, tc.args)
		if tc.per == 20 {
			// Users.All sends 1 page; the dry run nothing else: a second
			// run with creates sends 4 requests, at least 150 ms.
			a = newApp(context.Background(), strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
			start := time.Now()
			require.Equal(t, 0, a.execute([]string{"users", "import", csv, "--rate", "20"}), stderr.String())
			assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond, "4 requests at 20/s")
		}
	}
	code, _, stderr := runWith(t, nil, map[string]string{}, "users", "import", csv, "--rate", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--rate must not be negative")
}

// TestLoginHostUntrustedCertificate: with no pin, every way fails the
// certificate check; login names the fingerprint to pin and saves nothing.
func TestLoginHostUntrustedCertificate(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	dir := t.TempDir()
	env := map[string]string{"ACCESS_TOKEN": srv.Token(), "ACCESS_CONFIG_DIR": dir}
	code, stdout, stderr := runWith(t, waysTo(closedURL(t), srv.ProxyURL(), closedURL(t)), env, "login", "console.lan")
	assert.Equal(t, 1, code, stdout)
	host := strings.TrimPrefix(srv.URL(), "https://")
	assert.Contains(t, stderr, "the certificate of console.lan is not trusted; if the SHA-256 fingerprint of "+host+" is "+srv.Fingerprint()+", run again with --fingerprint "+srv.Fingerprint())
	assert.Contains(t, stdout, "--    probe proxy              "+srv.ProxyURL()+": no answer: ")
	_, err := os.Stat(filepath.Join(dir, "config.yaml"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
