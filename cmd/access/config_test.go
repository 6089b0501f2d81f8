package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/testlog"
)

// TestProfileTokenStaysWithItsConsole: with a profile (current or named)
// and a URL from elsewhere (ACCESS_URL, --url), the profile's token and
// insecure are never lent to that URL: the run is refused (2) before any
// request, and a recording server at that URL receives no token. A
// token given with the URL goes there, never the profile's.
func TestProfileTokenStaysWithItsConsole(t *testing.T) {
	t.Parallel()
	const profileToken = "profile-token-0123456789abcdef"
	var mu sync.Mutex
	var got []string // the Authorization headers the recorder saw
	rec := testlog.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":[]}`)
	}))
	defer rec.Close()
	fp := access.CertificateFingerprint(rec.Certificate().Raw)
	dir := t.TempDir()
	cfg := &config{Current: "home", Profiles: map[string]profile{
		"home": {URL: "https://192.0.2.1:12445", Token: profileToken, Insecure: true},
	}}
	if err := saveConfig(filepath.Join(dir, "config.yaml"), cfg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"current profile and ACCESS_URL", nil, map[string]string{"ACCESS_URL": rec.URL, "ACCESS_FINGERPRINT": fp},
			`no token for the console of ACCESS_URL: set ACCESS_TOKEN or use --token-file FILE (the token of profile "home" goes only to its own console, https://192.0.2.1:12445)`},
		{"current profile and --url, unpinned", []string{"--url", rec.URL}, nil, "no token for the console of --url"},
		{"explicit --profile and ACCESS_URL", []string{"--profile", "home"}, map[string]string{"ACCESS_URL": rec.URL, "ACCESS_FINGERPRINT": fp},
			`both ACCESS_URL (` + rec.URL + `) and --profile "home" name a console: give one`},
		{"ACCESS_PROFILE and --url", []string{"--url", rec.URL}, map[string]string{"ACCESS_PROFILE": "home", "ACCESS_FINGERPRINT": fp},
			`both --url (` + rec.URL + `) and ACCESS_PROFILE "home" name a console`},
	} {
		var stderr bytes.Buffer
		env := map[string]string{"ACCESS_CONFIG_DIR": dir}
		for k, v := range tc.env {
			env[k] = v
		}
		code := run(context.Background(), append(tc.args, "doors", "list"), strings.NewReader(""), io.Discard, &stderr,
			func(k string) string { return env[k] })
		if code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tc.name, code, stderr.String(), tc.want)
		}
		if strings.Contains(stderr.String(), profileToken) {
			t.Errorf("%s: the token in stderr", tc.name)
		}
	}
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("the recording server received %d requests (%q), want none", len(got), got)
	}
	mu.Unlock()

	// The URL's own token goes to it, and the profile's insecure does not:
	// without a pin the recorder's certificate is not trusted.
	env := map[string]string{"ACCESS_CONFIG_DIR": dir, "ACCESS_URL": rec.URL, "ACCESS_TOKEN": "env-token-0123456789"}
	getenv := func(k string) string { return env[k] }
	if code := run(context.Background(), []string{"doors", "list"}, strings.NewReader(""), io.Discard, io.Discard, getenv); code != 1 {
		t.Errorf("unpinned: exit %d, want 1 (the certificate is not trusted)", code)
	}
	env["ACCESS_FINGERPRINT"] = fp
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"doors", "list"}, strings.NewReader(""), io.Discard, &stderr, getenv); code != 0 {
		t.Fatalf("pinned: exit %d: %s", code, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "Bearer env-token-0123456789" {
		t.Errorf("the recorder saw %q, want only the environment's token", got)
	}
}
