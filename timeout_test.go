package access

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The per-attempt timeout in these tests is scaled down from the default
// 30 s: transferTimeout of idle time allowed, a transfer three times as
// long, a line every trickleEvery (the margin keeps a loaded machine from
// making the server look silent).
const (
	transferTimeout = time.Second
	trickleFor      = 3 * transferTimeout
	trickleEvery    = 10 * time.Millisecond
)

// trickle writes a line every trickleEvery for trickleFor, flushing each,
// and returns what it wrote.
func trickle(w http.ResponseWriter, contentType string) string {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(http.StatusOK)
	var sent strings.Builder
	for i := 0; i*int(trickleEvery) < int(trickleFor); i++ {
		line := fmt.Sprintf("row %d\n", i)
		io.WriteString(w, line)
		sent.WriteString(line)
		w.(http.Flusher).Flush()
		time.Sleep(trickleEvery) // the server's pace, not a synchronisation
	}
	return sent.String()
}

func exportReq() *SystemLogExportRequest {
	return &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: time.Unix(1688169600, 0), Until: time.Unix(1689120000, 0), Timezone: "UTC"}
}

// Issue 16 item 1: a streamed download that takes ten times the
// per-attempt timeout, bytes flowing all along, succeeds.
func TestStreamedDownloadsOutliveTheTimeout(t *testing.T) {
	t.Parallel()
	downloads := map[string]struct {
		pattern string
		call    func(c *Client, w io.Writer) error
	}{
		"SystemLogs.Export": {"POST /api/v1/developer/system/logs/export", func(c *Client, w io.Writer) error {
			_, err := c.SystemLogs.Export(context.Background(), exportReq(), w)
			return err
		}},
		"SystemLogs.DownloadStatic": {"GET /api/v1/developer/system/static/", func(c *Client, w io.Writer) error {
			_, err := c.SystemLogs.DownloadStatic(context.Background(), "/activities_resource/video/v1.mp4", w)
			return err
		}},
		"QRCodes.Download": {"GET /api/v1/developer/credentials/qr_codes/download/{id}", func(c *Client, w io.Writer) error {
			_, err := c.QRCodes.Download(context.Background(), "v1", w)
			return err
		}},
	}
	for name, d := range downloads {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t, WithTimeout(transferTimeout))
			sent := make(chan string, 1)
			mux.HandleFunc(d.pattern, func(w http.ResponseWriter, r *http.Request) {
				sent <- trickle(w, "application/octet-stream")
			})
			var got bytes.Buffer
			require.NoError(t, d.call(c, &got))
			assert.Equal(t, <-sent, got.String(), "the whole transfer arrived")
		})
	}
}

// A JSON answer read slowly is bounded the same way: the idle time, not the
// whole transfer.
func TestSlowJSONAnswerOutlivesTheTimeout(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":{"id":"u1","first_name":"`)
		for i := 0; i*int(trickleEvery) < int(trickleFor); i++ {
			io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			time.Sleep(trickleEvery)
		}
		io.WriteString(w, `"}}`)
	})
	u, _, err := c.Users.Get(context.Background(), "u1", nil)
	require.NoError(t, err)
	assert.Equal(t, "u1", u.ID)
	assert.Len(t, u.FirstName, int(trickleFor/trickleEvery))
}

// slowReader yields one chunk every trickleEvery for trickleFor.
type slowReader struct{ left int }

func (r *slowReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	r.left--
	time.Sleep(trickleEvery) // the file's pace
	return copy(p, "0123456789abcdef"), nil
}

// A streamed upload that takes ten times the timeout to send succeeds: each
// chunk the transport takes restarts the wait.
func TestStreamedUploadOutlivesTheTimeout(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	var got atomic.Int64
	mux.HandleFunc("POST /api/v1/developer/users/{id}/avatar", func(w http.ResponseWriter, r *http.Request) {
		f, _, err := r.FormFile("file")
		if err == nil {
			var n int64
			n, err = io.Copy(io.Discard, f)
			got.Store(n)
		}
		if err != nil {
			writeRaw(w, 400, "application/json", `{"code":"CODE_PARAMS_INVALID","msg":"bad upload"}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"avatar_url":"/avatar/u1.png"}}`)
	})
	chunks := int(trickleFor / trickleEvery)
	a, _, err := c.Users.UploadAvatar(context.Background(), "u1", &AvatarOptions{FileName: "a.png", ContentType: "image/png"}, &slowReader{left: chunks})
	require.NoError(t, err)
	assert.Equal(t, "/avatar/u1.png", a.AvatarURL)
	assert.Equal(t, int64(16*chunks), got.Load())
}

// stallAfter writes head, then sends nothing until the client leaves.
func stallAfter(contentType, head string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, head)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// A server that stalls mid-body for longer than the timeout ends the call
// with a *RequestError that says how many bytes arrived; the export is not
// retried (the writer has them).
func TestStallMidDownloadIsARequestError(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	var hits atomic.Int32
	head := strings.Repeat("2025-01-01,door,unlock\n", 10)
	mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		stallAfter("text/csv", head)(w, r)
	})
	var got bytes.Buffer
	_, err := c.SystemLogs.Export(context.Background(), exportReq(), &got)
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Attempts)
	assert.True(t, isTimeout(err), "%v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, fmt.Sprintf("after %d bytes", len(head)))
	assert.Equal(t, head, got.String())
	assert.Equal(t, int32(1), hits.Load())
}

// A JSON answer that stalls mid-body is retried like any broken read, then
// reported with the bytes that arrived.
func TestStallMidJSONIsRetriedThenARequestError(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	var hits atomic.Int32
	head := `{"code":"SUCCESS","msg":"success","data":{"id":"u1"`
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		stallAfter("application/json", head)(w, r)
	})
	_, _, err := c.Users.Get(context.Background(), "u1", nil)
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 3, re.Attempts)
	assert.Equal(t, int32(3), hits.Load())
	assert.True(t, isTimeout(err), "%v", err)
	assert.ErrorContains(t, err, fmt.Sprintf("after %d bytes", len(head)))
}

// A server that never answers is still cut at the timeout, per attempt.
func TestNoHeadersWithinTheTimeout(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout), WithRetryPolicy(RetryPolicy{}))
	// The handler answers nothing until the test has ended (cleanups run
	// last first: this one before the server's Close), whatever happens
	// to the request's context meanwhile.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		<-release
	})
	_, _, err := c.Users.Get(context.Background(), "u1", nil)
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.True(t, isTimeout(err), "%v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorContains(t, err, "headers")
}

// deadlineRecorder answers every request with a small body and records
// whether the request reaching the transport had a deadline.
type deadlineRecorder struct {
	hasDeadline atomic.Bool
	calls       atomic.Int32
}

func (d *deadlineRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	d.calls.Add(1)
	if _, ok := r.Context().Deadline(); ok {
		d.hasDeadline.Store(true)
	}
	body := `{"code":"SUCCESS","msg":"success","data":{"id":"u1"}}`
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: r}, nil
}

// The default client (30 s) never bounds a transfer as a whole: neither
// the client the retry layer calls nor the request reaching the transport
// carries a whole-exchange deadline; the 30 s are an idle bound, enforced
// per attempt by attemptTransport.
func TestDefaultTimeoutIsNotAWholeTransferDeadline(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]Option{
		"default":            nil,
		"WithHTTPClient 30s": {WithHTTPClient(&http.Client{Timeout: defaultTimeout})},
		"WithTimeout":        {WithTimeout(time.Minute)},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := NewClient("https://console.example:12445", testToken, opts...)
			require.NoError(t, err)
			inner := c.cfg.rc.HTTPClient
			assert.Zero(t, inner.Timeout, "no http.Client.Timeout: it would include reading the body")
			at, ok := inner.Transport.(*attemptTransport)
			require.True(t, ok, "%T", inner.Transport)
			want := defaultTimeout
			if name == "WithTimeout" {
				want = time.Minute
			}
			assert.Equal(t, want, at.timeout(), "the per-attempt idle bound")

			rec := &deadlineRecorder{}
			at.rt = rec
			u, _, err := c.Users.Get(context.Background(), "u1", nil)
			require.NoError(t, err)
			assert.Equal(t, "u1", u.ID)
			assert.Equal(t, int32(1), rec.calls.Load())
			assert.False(t, rec.hasDeadline.Load(), "no deadline on the request")
		})
	}
}

// WithTimeout(0) turns the bound off: no wrapper, no timer.
func TestZeroTimeoutPassesThrough(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://console.example:12445", testToken, WithTimeout(0))
	require.NoError(t, err)
	at := c.cfg.rc.HTTPClient.Transport.(*attemptTransport)
	assert.Zero(t, at.timeout())
	rec := &deadlineRecorder{}
	at.rt = rec
	_, _, err = c.Users.Get(context.Background(), "u1", nil)
	require.NoError(t, err)
}

// A slow writer is not a silent server: time spent in the caller's writer
// does not count against the timeout.
func TestSlowWriterIsNotAnIdleServer(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	body := strings.Repeat("x", 2*32<<10) // several reads
	mux.HandleFunc("GET /api/v1/developer/credentials/qr_codes/download/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "image/png", body)
	})
	w := &slowWriter{pause: transferTimeout * 3 / 2}
	_, err := c.QRCodes.Download(context.Background(), "v1", w)
	require.NoError(t, err)
	assert.Equal(t, len(body), w.n)
}

type slowWriter struct {
	pause time.Duration
	n     int
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.pause) // the writer's pace
	w.n += len(p)
	return len(p), nil
}

// blockingReader yields head, then blocks until release is closed.
type blockingReader struct {
	head    string
	release chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if r.head != "" {
		n := copy(p, r.head)
		r.head = r.head[n:]
		return n, nil
	}
	<-r.release
	return 0, io.EOF
}

// An upload whose file stops delivering for longer than the timeout ends
// with a *RequestError that says so; it is sent once, never retried.
func TestStalledUploadIsARequestError(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(transferTimeout))
	var hits atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/users/{id}/avatar", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
	})
	release := make(chan struct{})
	defer close(release)
	_, _, err := c.Users.UploadAvatar(context.Background(), "u1", &AvatarOptions{FileName: "a.png", ContentType: "image/png"},
		&blockingReader{head: "\x89PNG", release: release})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 1, re.Attempts)
	assert.True(t, isTimeout(err), "%v", err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.LessOrEqual(t, hits.Load(), int32(1))
}

// Without a per-attempt timeout, cancelling the call's context ends an
// upload whose file blocks: net/http waits for the body's Read, which the
// SDK ends by closing the body.
func TestCancelledUploadWithABlockingFileReturns(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithTimeout(0))
	mux.HandleFunc("POST /api/v1/developer/users/{id}/avatar", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	})
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), transferTimeout)
	defer cancel()
	_, _, err := c.Users.UploadAvatar(ctx, "u1", &AvatarOptions{FileName: "a.png", ContentType: "image/png"},
		&blockingReader{head: "\x89PNG", release: release})
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
