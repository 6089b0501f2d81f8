package simulator_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvFile: access fake --env-file FILE writes the export lines (the
// token among them) to FILE with mode 0600, prints no token, and removes
// the file when it stops; the command line, given the certificate file of
// --cert-out as ACCESS_CACERT and no pin, trusts the fake through it.
func TestEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	envFile, caFile := filepath.Join(dir, "fake.env"), filepath.Join(dir, "fake.pem")
	// A file readable by others, from an earlier run, is replaced.
	require.NoError(t, os.WriteFile(envFile, []byte("stale\n"), 0o644))
	cmd := exec.Command(accessBinary(t), "fake", "--addr", "127.0.0.1:0", "--env-file", "fake.env", "--cert-out", "fake.pem")
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		done <- cmd.Wait()
	}()
	var printed []string
	timeout := time.After(30 * time.Second)
	for len(printed) == 0 || !strings.Contains(printed[len(printed)-1], "mode 0600") {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "access fake ended early: %s", &stderr)
			printed = append(printed, l)
		case <-timeout:
			t.Fatalf("access fake printed %q", printed)
		}
	}
	go func() {
		for range lines {
		}
	}()

	fi, err := os.Stat(envFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(envFile)
	require.NoError(t, err)
	env := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		require.True(t, ok, l)
		env[k] = strings.Trim(v, "'")
	}
	require.NotEmpty(t, env["ACCESS_TOKEN"])
	assert.Equal(t, caFile, env["ACCESS_CACERT"])
	// The start lines say what --help promises, the web console and the
	// fingerprint among them (issue 34), all but the token.
	assert.Equal(t, []string{
		"access fake: serving the developer API at " + env["ACCESS_URL"] + "/api/v1/developer",
		"  ACCESS_FINGERPRINT=" + env["ACCESS_FINGERPRINT"],
		"  web console: " + env["ACCESS_URL"] + "/",
		"  environment (token included) in fake.env, mode 0600: . 'fake.env'",
	}, printed)
	assert.NotContains(t, strings.Join(printed, "\n"), env["ACCESS_TOKEN"], "the token is only in the file")

	// The command line trusts the fake through ACCESS_CACERT, no pin,
	// from another directory than the fake's.
	cli := exec.Command(accessBinary(t), "doors", "list", "--jq", "length")
	cli.Env = append(os.Environ(), "ACCESS_URL="+env["ACCESS_URL"], "ACCESS_TOKEN="+env["ACCESS_TOKEN"],
		"ACCESS_CACERT="+env["ACCESS_CACERT"], "ACCESS_FINGERPRINT=", "ACCESS_PROFILE=", "ACCESS_CONFIG_DIR="+dir)
	cli.Dir = t.TempDir()
	out, err := cli.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "8\n", string(out))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-done:
		require.NoError(t, err, "stderr: %s", &stderr)
		done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("access fake did not stop on SIGTERM")
	}
	_, err = os.Stat(envFile)
	assert.ErrorIs(t, err, os.ErrNotExist, "the environment file goes with the simulator")
}
