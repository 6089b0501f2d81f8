package simulator_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// TestSecretsFromFileAndEnvironment: the token clients use and the web
// console's password come from a file (--token-file, --ui-password-file)
// or the environment (ACCESS_FAKE_TOKEN, ACCESS_FAKE_UI_PASSWORD), never
// from the command line. It sets the environment, so it is not parallel.
func TestSecretsFromFileAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	passFile := filepath.Join(dir, "password")
	require.NoError(t, os.WriteFile(tokenFile, []byte("tok-from-file-0123\n"), 0o600))
	require.NoError(t, os.WriteFile(passFile, []byte("pw-from-file-0123\n"), 0o600))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // loopback test
	status := func(url, password string) int {
		req, err := http.NewRequest(http.MethodGet, url+"/", nil)
		require.NoError(t, err)
		if password != "" {
			req.SetBasicAuth("me", password)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}

	p := startFake(t, "--token-file", tokenFile, "--ui-password-file", passFile)
	assert.Equal(t, "tok-from-file-0123", p.env["ACCESS_TOKEN"])
	assert.Equal(t, http.StatusUnauthorized, status(p.env["ACCESS_URL"], ""))
	assert.Equal(t, http.StatusOK, status(p.env["ACCESS_URL"], "pw-from-file-0123"))

	t.Setenv("ACCESS_FAKE_TOKEN", "tok-from-env-0123")
	t.Setenv("ACCESS_FAKE_UI_PASSWORD", "pw-from-env-0123")
	p = startFake(t)
	assert.Equal(t, "tok-from-env-0123", p.env["ACCESS_TOKEN"])
	assert.Equal(t, http.StatusUnauthorized, status(p.env["ACCESS_URL"], "pw-from-file-0123"))
	assert.Equal(t, http.StatusOK, status(p.env["ACCESS_URL"], "pw-from-env-0123"))
}

// TestHangupSavesAndStops: SIGHUP (a closed terminal) and SIGTERM stop
// `access fake` cleanly, as Ctrl-C does: exit status 0, and a change
// acknowledged before is in the state file. The command line's own
// signal handling cancels the context the simulator runs with.
func TestHangupSavesAndStops(t *testing.T) {
	t.Parallel()
	if !fakeSavesState {
		t.Skip("this build's accesstest has no WriteState/ReadState yet")
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		state := filepath.Join(t.TempDir(), "state.json")
		p := startFake(t, "--state", state, "--demo=false")
		c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
		require.NoError(t, err)
		_, _, err = c.Users.Create(context.Background(), &access.UserRequest{FirstName: "Hang", LastName: "Up-" + sig.String()})
		require.NoError(t, err)
		require.NoError(t, p.cmd.Process.Signal(sig))
		err = <-p.done
		p.done <- err
		require.NoError(t, err, "exit status after %s; stderr: %s", sig, p.stderr)
		b, err := os.ReadFile(state)
		require.NoError(t, err)
		assert.Contains(t, string(b), "Up-"+sig.String(), "the user created before %s is saved", sig)
	}
}
