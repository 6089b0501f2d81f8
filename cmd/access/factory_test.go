package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFactorySetsEveryFunction: every function of the cmdutil.Factory a
// run gives the command packages is set, so that a member added to the
// factory and left unset fails here rather than as a nil call in a command.
func TestFactorySetsEveryFunction(t *testing.T) {
	t.Parallel()
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	f := a.factory()
	v := reflect.ValueOf(f).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() == reflect.Func {
			assert.False(t, v.Field(i).IsNil(), "Factory.%s is not set", v.Type().Field(i).Name)
		}
	}
	assert.Equal(t, "json", f.Format(), "a run that is not on a terminal prints JSON")
	_, err := f.PacedClient(-1)
	require.Error(t, err, "no console is configured")
	assert.Equal(t, 2, exitCode(context.Background(), err), "a missing console is a usage error: %v", err)
}

// TestFactoryClientForReachesEachProfile: ClientFor gives each named
// profile's client its own console and token, lists the profiles, and
// refuses an unknown one as a usage error.
func TestFactoryClientForReachesEachProfile(t *testing.T) {
	t.Parallel()
	type seen struct{ host, auth string }
	var mu sync.Mutex
	var got []seen
	console := func() *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got = append(got, seen{r.Host, r.Header.Get("Authorization")})
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":[]}`)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	a1, a2 := console(), console()
	dir := t.TempDir()
	cfg := "current: one\nprofiles:\n  one:\n    url: " + a1.URL + "\n    token: token-one-0123456789\n  two:\n    url: " + a2.URL + "\n    token: token-two-0123456789\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(cfg), 0o600))
	env := map[string]string{"ACCESS_CONFIG_DIR": dir}
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(k string) string { return env[k] })
	a.allowHTTP = true
	defer a.close()
	f := a.factory()
	names, err := f.Profiles()
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, names)
	for _, name := range []string{"two", "one"} {
		c, err := f.ClientFor(name)
		require.NoError(t, err, name)
		_, _, err = c.Doors.List(context.Background())
		require.NoError(t, err, name)
	}
	mu.Lock()
	assert.Equal(t, []seen{
		{strings.TrimPrefix(a2.URL, "http://"), "Bearer token-two-0123456789"},
		{strings.TrimPrefix(a1.URL, "http://"), "Bearer token-one-0123456789"},
	}, got)
	mu.Unlock()
	_, err = f.ClientFor("three")
	require.Error(t, err)
	assert.Equal(t, 2, exitCode(context.Background(), err), "%v", err)
}
