package capturecmd_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/cmd/access/internal/capturecmd"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

// run runs `access capture ARGS` against srv and returns its output and
// exit code.
func run(ctx context.Context, t *testing.T, srv *accesstest.Server, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &cmdutil.Factory{
		IOStreams: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Getenv:    func(k string) string { return env[k] },
		Client: func() (*access.Client, error) {
			if srv == nil {
				return nil, errors.New("no console")
			}
			return srv.Client(), nil
		},
		ReadSecretFile: func(flag, path string) (string, error) {
			b, err := os.ReadFile(path)
			return strings.TrimSpace(string(b)), err
		},
	}
	cmd := capturecmd.New(f)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(ctx)
	code := 0
	if err != nil {
		code = 1
		var ec interface{ ExitCode() int }
		if errors.As(err, &ec) {
			code = ec.ExitCode()
		}
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), code
}

// TestCaptureCommandWritesARedactedCapture: access capture -O FILE reads
// the doctor's operations and the stream until interrupted, and writes a
// capture of mode 0600 without the demo site's names.
func TestCaptureCommandWritesARedactedCapture(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	file := filepath.Join(t.TempDir(), "console.capture")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		o, e, c := run(runCtx, t, srv, nil, "-O", file)
		done <- result{o, e, c}
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	stop()
	r := <-done
	require.Equal(t, 0, r.code, r.errOut)
	assert.Regexp(t, `^captured \d+ answers, \d+ frames, 0 webhook deliveries to `, r.out)
	fi, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	c, err := capture.Read(bytes.NewReader(b))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(c.Answers), 30)
	users := srv.Users()
	require.NotEmpty(t, users)
	for _, u := range users {
		assert.NotContains(t, string(b), u.FirstName+" "+u.LastName)
		assert.NotContains(t, string(b), `"`+u.FirstName+`"`)
	}
}

// TestCaptureCommandRefusesBadSettings: --listen without a secret, a
// secret file without --listen, a write among --operations and no -O are
// usage errors (exit 2) before any request; no flag takes the secret.
func TestCaptureCommandRefusesBadSettings(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	ctx := context.Background()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-O", filepath.Join(dir, "a"), "--listen", "127.0.0.1:0"},
		{"-O", filepath.Join(dir, "a"), "--secret-file", "x"},
		{"-O", filepath.Join(dir, "a"), "--operations", "Doors.Unlock", "--no-stream"},
		{},
	} {
		_, errOut, code := run(ctx, t, srv, nil, args...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
	}
	assert.Empty(t, srv.Requests())
	_, errOut, code := run(ctx, t, srv, nil, "-O", filepath.Join(dir, "a"), "--secret", "s")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "unknown flag")
}

// writeCapture writes a capture of the given frames.
func writeCapture(t *testing.T, path string, frames ...string) {
	t.Helper()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, nil)
	require.NoError(t, err)
	for i, f := range frames {
		require.NoError(t, w.Frame(time.Duration(i)*time.Millisecond, []byte(f)))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
}

// TestDiffAndCheckExitCodes: capture diff prints one line per difference
// and exits 5, 0 when the shapes are the same; capture check exits 5 on
// an event kind the SDK does not name; a file that is no capture is 2.
func TestDiffAndCheckExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeCapture(t, a, `{"event":"access.hw.door_bell","data":{"device_id":"d1","door_name":"Front","request_id":"r"}}`)
	writeCapture(t, b, `{"event":"access.hw.door_bell","data":{"device_id":"d1","request_id":5,"new_field":"x"}}`,
		`{"event":"access.data.v3.door.update","data":{}}`)
	writeCapture(t, c, `{"event":"access.hw.door_bell","data":{"device_id":"d2","door_name":"Back","request_id":"q"}}`)
	ctx := context.Background()
	out, _, code := run(ctx, t, nil, nil, "diff", a, b)
	assert.Equal(t, 5, code)
	assert.Equal(t, `frame access.data.v3.door.update: ? only in the second (unknown event kind)
frame access.hw.door_bell: - data.door_name
frame access.hw.door_bell: + data.new_field (string)
frame access.hw.door_bell: ~ data.request_id: string -> number
`, out)
	out, _, code = run(ctx, t, nil, nil, "diff", a, c)
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	out, _, code = run(ctx, t, nil, nil, "check", b)
	assert.Equal(t, 5, code)
	assert.Contains(t, out, "frame access.data.v3.door.update: ? unknown event kind (the SDK does not name it)\n")
	_, _, code = run(ctx, t, nil, nil, "check", a)
	assert.Equal(t, 0, code)
	require.NoError(t, os.WriteFile(c, []byte("not a capture\n"), 0o600))
	_, errOut, code := run(ctx, t, nil, nil, "diff", a, c)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "not a capture file")
}

// syncBuffer is a bytes.Buffer safe for the command's goroutine and the
// test's; addr receives the first line naming the webhook receiver.
type syncBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	addr chan string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if m := regexp.MustCompile(`receiving webhook deliveries at (http://\S+)`).FindSubmatch(p); m != nil {
		select {
		case b.addr <- string(m[1]):
		default:
		}
	}
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestCaptureListenKeepsTheSecretOut: with --listen, the signing secret
// (from $ACCESS_WEBHOOK_SECRET or --secret-file) verifies a delivery, and
// appears neither in the capture file, nor on stdout or stderr, nor in
// the error of a refused secret file; no flag takes its value.
func TestCaptureListenKeepsTheSecretOut(t *testing.T) {
	t.Parallel()
	const secret = "whsec-Zq8-the-secret-itself-7731"
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(secret+"\n"), 0o600))
	for name, setting := range map[string]struct {
		env  map[string]string
		args []string
	}{
		"env":  {env: map[string]string{"ACCESS_WEBHOOK_SECRET": secret}},
		"file": {args: []string{"--secret-file", secretFile}},
	} {
		t.Run(name, func(t *testing.T) {
			srv := accesstest.New(t)
			file := filepath.Join(t.TempDir(), "console.capture")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			runCtx, stop := context.WithCancel(ctx)
			defer stop()
			var out bytes.Buffer
			errOut := &syncBuffer{addr: make(chan string, 1)}
			f := &cmdutil.Factory{
				IOStreams: cmdutil.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: errOut},
				Getenv:    func(k string) string { return setting.env[k] },
				Client:    func() (*access.Client, error) { return srv.Client(), nil },
				ReadSecretFile: func(flag, path string) (string, error) {
					b, err := os.ReadFile(path)
					return strings.TrimSpace(string(b)), err
				},
			}
			cmd := capturecmd.New(f)
			cmd.SetArgs(append([]string{"-O", file, "--no-stream", "--operations", "none", "--listen", "127.0.0.1:0"}, setting.args...))
			cmd.SetOut(&out)
			cmd.SetErr(errOut)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			done := make(chan error, 1)
			go func() { done <- cmd.ExecuteContext(runCtx) }()
			var url string
			select {
			case url = <-errOut.addr:
			case err := <-done:
				t.Fatalf("ended before listening: %v; %s", err, errOut.String())
			}
			body := []byte(`{"event":"access.hw.door_bell","data":{"device_id":"d1"}}`)
			post := func(sig string) int {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
				require.NoError(t, err)
				req.Header.Set(access.SignatureHeader, sig)
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				_ = resp.Body.Close()
				return resp.StatusCode
			}
			assert.Equal(t, http.StatusOK, post(access.SignPayload(body, secret, time.Now())))
			assert.Equal(t, http.StatusUnauthorized, post(access.SignPayload(body, "wrong", time.Now())))
			stop()
			require.NoError(t, <-done, errOut.String())
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			assert.Contains(t, out.String(), "1 webhook deliveries")
			assert.Contains(t, errOut.String(), "refused 1 deliveries")
			for what, s := range map[string]string{"capture file": string(b), "stdout": out.String(), "stderr": errOut.String()} {
				assert.NotContains(t, s, secret, what)
				assert.NotContains(t, s, secret[:12], what)
			}
		})
	}
	for _, fl := range []string{"--secret", "--webhook-secret", "--signing-secret"} {
		_, errOut, code := run(context.Background(), t, nil, nil, "-O", filepath.Join(dir, "a"), "--listen", "127.0.0.1:0", fl, secret)
		assert.NotEqual(t, 0, code)
		assert.Contains(t, errOut, "unknown flag", fl)
	}
}
