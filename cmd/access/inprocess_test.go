package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/atomicfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeEnv is the environment of a run against srv.
func fakeEnv(srv *accesstest.Server, extra map[string]string) func(string) string {
	env := map[string]string{
		"ACCESS_URL":         srv.URL(),
		"ACCESS_TOKEN":       srv.Token(),
		"ACCESS_FINGERPRINT": srv.Fingerprint(),
		"ACCESS_CONFIG_DIR":  "/nonexistent-access-config",
		"TZ":                 "UTC",
	}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in two
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestEventsListenForwardsSignedDeliveries: the fake rings a doorbell, and
// the local handler receives a delivery that access.ConstructEvent
// verifies with the secret.
func TestEventsListenForwardsSignedDeliveries(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	const secret = "s3cret-for-the-test"
	got := make(chan *access.WebhookEvent, 4)
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		ev, err := access.ConstructEvent(body, r.Header.Get(access.SignatureHeader), secret)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- ev
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(handler.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"events", "listen", "--forward-to", handler.URL + "/hook", "--secret-file", "-", "--count", "2"},
			strings.NewReader(secret+"\n"), &stdout, &stderr, fakeEnv(srv, nil))
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	_, err := srv.Client().Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{})
	require.NoError(t, err)
	_, err = srv.Client().Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{Cancel: true})
	require.NoError(t, err)
	require.Equal(t, 0, <-code, "stderr: %s", stderr.String())

	ring := <-got
	assert.Equal(t, access.EventDoorbellIncoming, ring.Event)
	var obj access.DoorbellObject
	require.NoError(t, jsonUnmarshal(ring.Data.Object, &obj))
	assert.NotEmpty(t, obj.RequestID)
	assert.Equal(t, obj.RequestID, ring.EventObjectID)
	require.NotNil(t, ring.Data.Device)
	assert.Equal(t, accesstest.DemoIntercomID, ring.Data.Device.ID)

	end := <-got
	assert.Equal(t, access.EventDoorbellCompleted, end.Event)
	var endObj access.DoorbellObject
	require.NoError(t, jsonUnmarshal(end.Data.Object, &endObj))
	assert.Equal(t, obj.RequestID, endObj.RequestID)
	assert.Equal(t, 108, endObj.ReasonCode)

	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	require.Len(t, lines, 2)
	assert.Regexp(t, `^access\.doorbell\.incoming -> http://127\.0\.0\.1:\d+/hook \[204\] \(\d+(\.\d+)?[µm]?s\)$`, lines[0])
	assert.Regexp(t, `^access\.doorbell\.completed -> .* \[204\]`, lines[1])
	assert.NotContains(t, stdout.String()+stderr.String(), srv.Token())
}

// TestEventsListenWrongSecretIsRejected: a handler with another secret
// answers 400, and the delivery line shows it.
func TestEventsListenWrongSecretIsRejected(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := access.ConstructEvent(body, r.Header.Get(access.SignatureHeader), "another"); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(200)
	}))
	t.Cleanup(handler.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"events", "listen", "--forward-to", handler.URL, "--count", "1", "--type", "door.unlock"},
			strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, map[string]string{"ACCESS_WEBHOOK_SECRET": "mine"}))
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	_, err := srv.Client().Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.Equal(t, 0, <-code, "stderr: %s", stderr.String())
	assert.Regexp(t, `^access\.door\.unlock -> http://127\.0\.0\.1:\d+ \[400\]`, stdout.String())
}

// TestExportInterruptedRemovesPartialFile: Ctrl-C (the context cancelled)
// while the CSV is being written exits 130 and leaves no file behind.
func TestExportInterruptedRemovesPartialFile(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	for i := 0; i < 2000; i++ {
		srv.AddSystemLog(accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings})
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "logs.csv")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr bytes.Buffer
	hooked := withSeams(ctx, &seams{exportWrote: func(int64) { cancel() }}) // Ctrl-C as the first bytes arrive
	a := newApp(hooked, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	code := a.execute([]string{"system-logs", "export", "--since", "24h", "-O", out})
	assert.Equal(t, 130, code, "stderr: %s", stderr.String())
	assert.Contains(t, stderr.String(), "context canceled")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the partial file must be removed")
}

// TestExportCompletes is the same export, not interrupted.
func TestExportCompletes(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	for i := 0; i < 50; i++ {
		srv.AddSystemLog(accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings})
	}
	out := filepath.Join(t.TempDir(), "logs.csv")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"system-logs", "export", "--since", "24h", "-O", out}, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	require.Equal(t, 0, code, stderr.String())
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 51, strings.Count(string(b), "\n"), "a header and 50 rows")
}

// TestExportProgressCountsDataRows: on a terminal the progress line counts
// the CSV's rows without its header line.
func TestExportProgressCountsDataRows(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	for i := 0; i < 50; i++ {
		srv.AddSystemLog(accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings})
	}
	out := filepath.Join(t.TempDir(), "logs.csv")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"system-logs", "export", "--since", "24h", "-O", out}, strings.NewReader(""), &stdout, &stderr,
		fakeEnv(srv, map[string]string{"ACCESS_FORCE_TTY": "1"}))
	require.Equal(t, 0, code, stderr.String())
	assert.Regexp(t, "\r\x1b\\[K50 rows, [0-9.]+ KiB\nwrote "+regexp.QuoteMeta(out)+"\n$", stderr.String())
	assert.NotContains(t, stderr.String(), "51 rows")
}

// TestImportProgressBar: on a terminal, users import draws a bar of the
// CSV's rows on stderr, redrawn below each result line and erased before
// the summary.
func TestImportProgressBar(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	csv := filepath.Join(t.TempDir(), "people.csv")
	require.NoError(t, os.WriteFile(csv, []byte("first_name,last_name,email\nA,One,a1@example.com\nB,Two,b2@example.com\nC,Three,c3@example.com\n"), 0o600))
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"users", "import", csv}, strings.NewReader(""), &stdout, &stderr,
		fakeEnv(srv, map[string]string{"ACCESS_FORCE_TTY": "1"}))
	require.Equal(t, 0, code, stderr.String())
	assert.Regexp(t, "^row 2: created A One \\([0-9a-f-]+\\)\nrow 3: created B Two \\([0-9a-f-]+\\)\nrow 4: created C Three \\([0-9a-f-]+\\)\n$", stdout.String())
	const clr = "\r\x1b[K"
	const pace = ", paced at 10 requests/s (--rate)" // the default pace, said on the line
	want := clr + "[" + strings.Repeat(" ", 30) + "] 0/3 rows" + pace +
		clr + clr + "[=========>" + strings.Repeat(" ", 20) + "] 1/3 rows" + pace +
		clr + clr + "[===================>" + strings.Repeat(" ", 10) + "] 2/3 rows" + pace +
		clr + clr + "[" + strings.Repeat("=", 30) + "] 3/3 rows" + pace +
		clr + "3 created, 0 skipped, 0 failed\n"
	assert.Equal(t, want, stderr.String())

	// Piped: no bar.
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"users", "import", csv}, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	require.Equal(t, 0, code, stderr.String())
	assert.Equal(t, "0 created, 3 skipped, 0 failed\n", stderr.String())
	assert.Equal(t, 3, strings.Count(stdout.String(), `"status":"skipped"`), stdout.String())
}

// TestFakeEventsPlayTheSite: with --fake, events tail sees the demo
// site's activity in its order: an exit through the main entrance, then
// a ring at the intercom and its end.
func TestFakeEventsPlayTheSite(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := run(ctx, []string{"--fake", "events", "tail", "--type", "doorbell,door.unlock", "--count", "3", "-o", "jsonl", "--jq", ".event"},
		strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	require.Equal(t, 0, code, stderr.String())
	assert.Equal(t, "access.data.device.remote_unlock\naccess.remote_view\naccess.remote_view.change\n", stdout.String())
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// firstWrite records how many user pages the fake had served when the
// first bytes of output arrived.
type firstWrite struct {
	srv   *accesstest.Server
	pages int
	n     int
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if f.n == 0 {
		f.pages = len(f.srv.RequestsFor(accesstest.OpUsersList))
	}
	f.n += len(p)
	return len(p), nil
}

// TestListAllStreams: with --all, records are written while later pages
// are still to be fetched (jsonl and json alike), so a long list never
// sits whole in memory.
func TestListAllStreams(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"jsonl", "json"} {
		srv := accesstest.New(t, accesstest.WithDemoData())
		w := &firstWrite{srv: srv}
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"users", "list", "--all", "-o", format, "--page-size", "10"}, strings.NewReader(""), w, &stderr, fakeEnv(srv, nil))
		require.Equal(t, 0, code, stderr.String())
		total := len(srv.RequestsFor(accesstest.OpUsersList))
		assert.GreaterOrEqual(t, total, accesstest.DemoUserCount/10, format)
		assert.Less(t, w.pages, total, "%s: the first output came after %d of %d pages", format, w.pages, total)
	}
}

// TestNFCEnroll: enroll wakes the reader named on the command line, waits
// for the tap and prints the card; the session is removed.
func TestNFCEnroll(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	var stdout, stderr bytes.Buffer
	started := make(chan string, 1)
	ctx := withSeams(context.Background(), &seams{enrollStarted: func(id string) { started <- id }})
	a := newApp(ctx, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
	code := make(chan int, 1)
	go func() {
		code <- a.execute([]string{"nfc-cards", "enroll", "--device", "UA Reader Main", "--jq", ".card_id"})
	}()
	session := <-started
	assert.Equal(t, []string{session}, srv.EnrollmentSessions())
	token, err := srv.TapCard(accesstest.DemoDeviceID, "04AABBCC")
	require.NoError(t, err)
	require.Equal(t, 0, <-code, stderr.String())
	assert.Equal(t, "04AABBCC\n", stdout.String())
	assert.Empty(t, srv.EnrollmentSessions())
	assert.NotEmpty(t, token)
}

// TestDownloadReplacesTheFileDurably: -O FILE is replaced only by a
// whole download, renamed into place and then its directory synced (so
// that a crash cannot lose a download reported written); a failed one
// leaves the old file and no partial file; a directory that takes no
// file is a usage error (exit 2).
func TestDownloadReplacesTheFileDurably(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	for i := 0; i < 50; i++ {
		srv.AddSystemLog(accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings})
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "logs.csv")
	require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o600))
	var mu sync.Mutex
	syncs := 0
	t.Cleanup(atomicfile.SetSyncDirHook(func(d string) error {
		if d != dir {
			return atomicfile.SyncDir(d)
		}
		b, err := os.ReadFile(out)
		assert.NoError(t, err)
		assert.Equal(t, 51, strings.Count(string(b), "\n"), "the whole download is in place when its directory is synced")
		mu.Lock()
		syncs++
		mu.Unlock()
		return atomicfile.SyncDir(d)
	}))
	exec := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, fakeEnv(srv, nil))
		return code, stderr.String()
	}

	code, stderr := exec("system-logs", "export", "--since", "24h", "-O", out)
	require.Equal(t, 0, code, stderr)
	mu.Lock()
	assert.Equal(t, 1, syncs, "syncs of the download's directory")
	mu.Unlock()

	failed := filepath.Join(dir, "avatar.png")
	require.NoError(t, os.WriteFile(failed, []byte("old\n"), 0o600))
	code, stderr = exec("system-logs", "static", "avatar/nope.png", "-O", failed)
	require.NotEqual(t, 0, code, "a missing resource")
	b, err := os.ReadFile(failed)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(b), "a failed download leaves the file: %s", stderr)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "the two files and no partial one")
	mu.Lock()
	assert.Equal(t, 1, syncs, "nothing synced for a failed download")
	mu.Unlock()

	code, stderr = exec("system-logs", "export", "--since", "24h", "-O", filepath.Join(dir, "no", "logs.csv"))
	assert.Equal(t, 2, code, "a directory that takes no file is a usage error: %s", stderr)
	assert.Contains(t, stderr, "no such file or directory")
}
