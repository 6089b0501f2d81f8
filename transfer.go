package access

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"sync"
)

// streamBody is a request body that is not JSON (a multipart upload),
// produced while it is sent instead of being buffered whole. The request
// pipeline (send) sends it as it sends JSON; its bodies are read once, so
// a request with a streamBody is never retried.
type streamBody struct {
	contentType string
	// open returns the body; nothing is produced before its first Read.
	// The retry layer calls it twice: once to probe for a length (closing
	// what it returned, unread), then to send.
	open func() (io.Reader, error)
	// inMemory: open returns a *bytes.Reader over the encoded body (a
	// small upload). It is sent like a JSON body: net/http writes headers
	// and body at once, and no Read of it can block.
	inMemory bool
}

// formFile is one file part of a multipart/form-data body.
type formFile struct {
	field, filename, contentType string
	r                            io.Reader
}

// smallMultipart is the size up to which a multipart body whose parts are
// all in memory (a certificate and its key) is built in memory and sent
// with a Content-Length, rather than streamed through a pipe.
const smallMultipart = 64 << 10

// multipartBody streams files as multipart/form-data: the parts are copied
// from their readers into the request as the transport reads it, through a
// pipe, so memory stays flat whatever the size. The writing goroutine ends
// when the body is consumed or when the transport closes it (an error, a
// cancelled context). Parts that are all in memory already (readers with a
// Len method: *bytes.Reader, *strings.Reader, *bytes.Buffer) and small
// together (smallMultipart) are encoded once into a buffer instead: no
// goroutine, and a Content-Length.
func multipartBody(files ...formFile) *streamBody {
	// The content type and the boundary it ends with, in one allocation.
	const prefix = "multipart/form-data; boundary="
	var b [16]byte
	_, _ = rand.Read(b[:])
	ct := make([]byte, 0, len(prefix)+len("access-go-")+2*len(b))
	ct = append(ct, prefix+"access-go-"...)
	ct = hex.AppendEncode(ct, b[:])
	contentType := string(ct)
	boundary := contentType[len(prefix):]
	if small(files) {
		m := &memMultipart{files: files, boundary: boundary}
		m.body = streamBody{contentType: contentType, open: m.open, inMemory: true}
		return &m.body
	}
	return &streamBody{
		contentType: contentType,
		open: func() (io.Reader, error) {
			return &lazyPipe{start: func(pw *io.PipeWriter) {
				mw := multipart.NewWriter(pw)
				_ = mw.SetBoundary(boundary)
				pw.CloseWithError(writeParts(mw, files))
			}}, nil
		},
	}
}

// memMultipart is a small multipart body whose parts are in memory: it is
// encoded once, at the first open, into buf. Body and state are one
// allocation.
type memMultipart struct {
	body     streamBody
	files    []formFile
	boundary string
	once     sync.Once
	buf      bytes.Buffer
	err      error
}

func (m *memMultipart) open() (io.Reader, error) {
	m.once.Do(func() {
		m.buf.Grow(multipartSize(m.files))
		mw := multipart.NewWriter(&m.buf)
		_ = mw.SetBoundary(m.boundary)
		m.err = writeParts(mw, m.files)
	})
	if m.err != nil {
		return nil, m.err
	}
	return bytes.NewReader(m.buf.Bytes()), nil
}

// small reports whether every part is in memory and all fit in
// smallMultipart.
func small(files []formFile) bool {
	total := 0
	for _, f := range files {
		l, ok := f.r.(interface{ Len() int })
		if !ok {
			return false
		}
		if total += l.Len(); total > smallMultipart {
			return false
		}
	}
	return true
}

// multipartSize is about the size of the multipart body of small files:
// their bytes and, per part, room for its boundary and headers.
func multipartSize(files []formFile) int {
	n := 128
	for _, f := range files {
		n += f.r.(interface{ Len() int }).Len() + 256 + len(f.field) + len(f.filename) + len(f.contentType)
	}
	return n
}

// lazyPipe is the read end of a pipe whose writing goroutine starts at
// the first Read. go-retryablehttp opens a body once just to probe its
// length and closes it unread: that probe then costs no goroutine and
// touches no part's reader. Close ends the goroutine if it runs.
type lazyPipe struct {
	start  func(pw *io.PipeWriter)
	mu     sync.Mutex // Read and Close may come from different goroutines
	pr     *io.PipeReader
	closed bool
}

func (l *lazyPipe) reader() (*io.PipeReader, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pr == nil {
		if l.closed {
			return nil, io.ErrClosedPipe
		}
		pr, pw := io.Pipe()
		l.pr = pr
		go l.start(pw)
	}
	return l.pr, nil
}

func (l *lazyPipe) Read(p []byte) (int, error) {
	pr, err := l.reader()
	if err != nil {
		return 0, err
	}
	return pr.Read(p)
}

func (l *lazyPipe) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.pr != nil {
		return l.pr.Close()
	}
	return nil
}

// quoteEscaper escapes a Content-Disposition parameter as
// mime/multipart's CreateFormFile does (a hand-written header: building it
// with mime.FormatMediaType costs a map and a sort per part).
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

func writeParts(mw *multipart.Writer, files []formFile) error {
	for _, f := range files {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(f.field)+`"; filename="`+quoteEscaper.Replace(f.filename)+`"`)
		ct := f.contentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h.Set("Content-Type", ct)
		w, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		buf := copyBuffers.Get().(*[]byte)
		_, err = io.CopyBuffer(w, f.r, *buf)
		copyBuffers.Put(buf)
		if err != nil {
			return fmt.Errorf("access: reading the %s part: %w", f.field, err)
		}
	}
	return mw.Close()
}

// copyBuffers are the buffers downloads are copied through; io.Copy would
// allocate 32 KiB per call, since sinkWriter hides the writer's ReadFrom.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// sinkWriter streams a download into the caller's writer and remembers
// whether any byte reached it, and whether the writer itself failed.
type sinkWriter struct {
	w      io.Writer
	n      int64
	failed error
}

func (s *sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.n += int64(n)
	if err != nil {
		s.failed = err
	}
	return n, err
}

// mediaType returns the media type mime.ParseMediaType finds in a
// Content-Type (lower case; "" when it is malformed), without its cost
// (a map and the parameters' strings) for the usual header of at most one
// parameter, whose value cannot change the answer.
func mediaType(ct string) string {
	base, params, _ := strings.Cut(ct, ";")
	if strings.Contains(params, ";") {
		// Repeated parameters can make it refuse the whole header.
		mt, _, _ := mime.ParseMediaType(ct)
		return mt
	}
	mt := strings.TrimSpace(strings.ToLower(base))
	typ, sub, slash := strings.Cut(mt, "/")
	if !isMIMEToken(typ) || slash && !isMIMEToken(sub) {
		return ""
	}
	return mt
}

// isMIMEToken reports whether s is a token of RFC 1521 (what package mime
// accepts as a media type or subtype).
func isMIMEToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

// isFile reports whether a successful answer with this Content-Type is
// the file a download asked for: anything but JSON (an envelope) and HTML
// (a proxy's or captive portal's page, never a file the API serves). A
// download reads the others as an answer (an error envelope, or an
// invalid response) instead of streaming them into the caller's writer.
func isFile(ct string) bool {
	mt := mediaType(ct)
	return mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "text/html" && mt != "application/xhtml+xml"
}

// streamTo copies a successful, non-JSON answer into st.sink inside the
// retry loop. A connection that fails before the first byte reached the
// writer is retried like any other (the error is returned); once bytes
// went out, or when the writer itself fails, the call ends without a
// retry: the writer cannot take them back.
func (st *attemptState) streamTo(resp *http.Response) error {
	sw := &sinkWriter{w: st.sink}
	buf := copyBuffers.Get().(*[]byte)
	_, err := io.CopyBuffer(sw, resp.Body, *buf)
	copyBuffers.Put(buf)
	resp.Body.Close()
	resp.Body = http.NoBody
	st.read, st.streamed = true, true
	switch {
	case err == nil:
		return nil
	case sw.failed != nil:
		st.streamErr = fmt.Errorf("access: writing the download: %w", sw.failed)
		return nil
	case sw.n == 0:
		return err // nothing reached the writer: may be retried
	default:
		st.streamErr = fmt.Errorf("access: download broke off after %d bytes: %w", sw.n, err)
		return nil
	}
}

// download performs a request whose successful answer is a file (a CSV
// export, an image): its body is streamed into w, never held in memory,
// and the Response (its header carries the Content-Type) is returned. An
// error answer (a non-2xx status, or a JSON envelope with an error code)
// is an *APIError as for every other call; a JSON answer with a success
// code where a file was expected, or an HTML page, is an invalid
// response, and nothing reaches w.
func download(ctx context.Context, c *Client, method, path string, q, body any, w io.Writer) (*Response, error) {
	if w == nil {
		return nil, invalidArg(method+" "+path, "w", "must not be nil")
	}
	ex, err := c.sendTo(ctx, method, path, q, body, w)
	if err != nil || ex.streamed {
		return ex.resp, err
	}
	var e errorEnvelope
	if jerr := json.Unmarshal(ex.raw, &e); jerr != nil {
		return ex.resp, ex.invalid(describeDecodeError(ex.resp, ex.raw, jerr))
	}
	ex.resp.Code, ex.resp.Message = e.Code, e.Msg
	if e.Code != "" && !isSuccess(e.Code) {
		return ex.resp, ex.apiError(e.Code, e.Msg, nil)
	}
	return ex.resp, ex.invalid(errors.New("a JSON answer where a file was expected"))
}
