package access

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cutAfter sends the headers and n bytes of a body promised longer, then
// drops the connection.
func cutAfter(n int) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\n\r\n%s", strings.Repeat("x", n))
		buf.Flush()
		conn.Close()
	}
}

func TestDownloadStreams(t *testing.T) {
	t.Parallel()
	const path = "/system/static/avatar/a.png"
	type answer func(w http.ResponseWriter, r *http.Request)
	ok := func(w http.ResponseWriter, _ *http.Request) { writeRaw(w, 200, "image/png", "\x89PNG-bytes") }
	for _, tc := range []struct {
		name     string
		answers  []answer // in order; the last repeats
		want     string   // written to w
		attempts int32
		check    func(t *testing.T, err error)
	}{
		{name: "file", answers: []answer{ok}, want: "\x89PNG-bytes", attempts: 1},
		{name: "503 then file", answers: []answer{func(w http.ResponseWriter, _ *http.Request) { writeRaw(w, 503, "text/plain", "busy") }, ok},
			want: "\x89PNG-bytes", attempts: 2},
		{name: "cut before the first byte, retried", answers: []answer{cutAfter(0), ok}, want: "\x89PNG-bytes", attempts: 2},
		{name: "cut after bytes reached the writer: not retried", answers: []answer{cutAfter(10), ok}, want: "xxxxxxxxxx", attempts: 1,
			check: func(t *testing.T, err error) {
				var re *RequestError
				require.ErrorAs(t, err, &re)
				assert.ErrorContains(t, err, "after 10 bytes")
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
			}},
		{name: "error envelope", answers: []answer{func(w http.ResponseWriter, _ *http.Request) {
			writeRaw(w, 200, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"no such file"}`)
		}}, attempts: 1, check: func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrNotFound)
		}},
		{name: "JSON success where a file was expected", answers: []answer{func(w http.ResponseWriter, _ *http.Request) {
			writeRaw(w, 200, "application/json; charset=utf-8", `{"code":"SUCCESS","msg":"success","data":null}`)
		}}, attempts: 1, check: func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrInvalidResponse)
		}},
		{name: "HTML page on 200 (a proxy's page): not a file", answers: []answer{func(w http.ResponseWriter, _ *http.Request) {
			writeRaw(w, 200, "text/html; charset=utf-8", "<html>Sign in to the guest network</html>")
		}}, attempts: 1, check: func(t *testing.T, err error) {
			assert.ErrorIs(t, err, ErrInvalidResponse)
			assert.ErrorContains(t, err, "not JSON")
		}},
		{name: "HTTP 404", answers: []answer{func(w http.ResponseWriter, _ *http.Request) { writeRaw(w, 404, "text/html", "<html>nope</html>") }},
			attempts: 1, check: func(t *testing.T, err error) {
				var e *APIError
				require.ErrorAs(t, err, &e)
				assert.Equal(t, 404, e.StatusCode)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			var n atomic.Int32
			mux.HandleFunc("GET /api/v1/developer"+path, func(w http.ResponseWriter, r *http.Request) {
				testHeaders(t, r, false)
				i := int(n.Add(1)) - 1
				tc.answers[min(i, len(tc.answers)-1)](w, r)
			})
			var buf bytes.Buffer
			resp, err := download(context.Background(), c, "GET", path, nil, nil, &buf)
			assert.Equal(t, tc.attempts, n.Load(), "attempts")
			assert.Equal(t, tc.want, buf.String())
			if tc.check != nil {
				require.Error(t, err)
				tc.check(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestDownloadWriterFails(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var n atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/x", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		writeRaw(w, 200, "text/csv", "a,b\n")
	})
	_, err := download(context.Background(), c, "GET", "/x", nil, nil, failingWriter{})
	assert.ErrorContains(t, err, "disk full")
	assert.Equal(t, int32(1), n.Load(), "a failing writer is not retried")
	_, err = download(context.Background(), c, "GET", "/x", nil, nil, nil)
	assert.ErrorIs(t, err, ErrValidation)
}

// TestMultipartUploadStreams checks the parts on the wire, that the body
// is streamed (chunked, no Content-Length), and that an upload is never
// retried, even with RetryWrites: its readers are consumed.
func TestMultipartUploadStreams(t *testing.T) {
	t.Parallel()
	p := fastRetry()
	p.RetryWrites = true
	c, mux, _ := setup(t, WithRetryPolicy(p))
	var n atomic.Int32
	big := strings.Repeat("0123456789", 100_000) // 1 MB, through a pipe
	mux.HandleFunc("POST /api/v1/developer/upload", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
		assert.Equal(t, int64(-1), r.ContentLength, "streamed, not buffered")
		require.NoError(t, r.ParseMultipartForm(1<<20))
		for field, want := range map[string]string{"key": "KEY", "cert": big} {
			f, h, err := r.FormFile(field)
			require.NoError(t, err, field)
			b, _ := io.ReadAll(f)
			assert.Equal(t, want, string(b), field)
			assert.Equal(t, field+".pem", h.Filename)
			assert.Equal(t, "application/x-pem-file", h.Header.Get("Content-Type"))
		}
		writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
	})
	body := multipartBody(
		formFile{field: "key", filename: "key.pem", contentType: "application/x-pem-file", r: strings.NewReader("KEY")},
		formFile{field: "cert", filename: "cert.pem", contentType: "application/x-pem-file", r: strings.NewReader(big)},
	)
	_, _, err := call[ignored](context.Background(), c, "POST", "/upload", nil, body, false)
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, int32(1), n.Load(), "an upload is sent once")
}

// A reader that fails ends the upload with its error, and the pipe's
// goroutine does not outlive the call.
func TestMultipartUploadReaderFails(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/developer/upload", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		writeRaw(w, 400, "application/json", `{"code":"CODE_PARAMS_INVALID","msg":"bad file"}`)
	})
	body := multipartBody(formFile{field: "file", filename: "f.csv", r: io.MultiReader(strings.NewReader("a,b\n"), errReader{})})
	_, _, err := call[ignored](context.Background(), c, "POST", "/upload", nil, body, false)
	require.Error(t, err)
}

// TestMultipartBodyOpenedUnreadTouchesNothing: go-retryablehttp opens a
// body once to probe its length and closes it unread; that must not read
// any part nor leave a goroutine behind.
func TestMultipartBodyOpenedUnreadTouchesNothing(t *testing.T) {
	var reads atomic.Int32
	part := readerFunc(func(p []byte) (int, error) { reads.Add(1); return 0, io.EOF })
	body := multipartBody(formFile{field: "file", filename: "a.csv", r: part})
	r, err := body.open()
	require.NoError(t, err)
	require.NoError(t, r.(io.Closer).Close())
	n, err := r.Read(make([]byte, 8))
	assert.Zero(t, n)
	assert.ErrorIs(t, err, io.ErrClosedPipe)
	assert.Zero(t, reads.Load())
	// A second open is read whole.
	r, err = body.open()
	require.NoError(t, err)
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `Content-Disposition: form-data; name="file"; filename="a.csv"`)
	assert.Equal(t, int32(1), reads.Load())
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
