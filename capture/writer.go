package capture

import (
	"bufio"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WriterOptions tunes [NewWriter]. The zero value (and nil) draws a random
// key and writes the current time as the start.
type WriterOptions struct {
	// Key is the key of the pseudonyms: the same key gives the same
	// pseudonyms (in another capture, or the seed access fake record
	// writes with it). Nil draws a random one. It is never written.
	Key []byte
	// Started is the time the capture starts (default: now).
	Started time.Time
	// Tool names what writes the capture ("access capture v1.2.0").
	Tool string
}

// Writer writes a capture, redacting every record first (see the
// package's documentation). Its methods may be called from several
// goroutines; records are written in the order of the calls. Call Flush
// at the end.
type Writer struct {
	mu  sync.Mutex
	bw  *bufio.Writer
	rd  *redactor
	buf []byte
	err error
}

// Redaction is the header's redaction member of the captures this version
// writes: the keyed pseudonyms of the allow-list.
const Redaction = "pseudonyms"

// NewWriter writes the header of a capture to w and returns the Writer of
// its records.
func NewWriter(w io.Writer, opts *WriterOptions) (*Writer, error) {
	var o WriterOptions
	if opts != nil {
		o = *opts
	}
	if o.Key == nil {
		o.Key = make([]byte, 32)
		if _, err := rand.Read(o.Key); err != nil {
			return nil, err
		}
	}
	if o.Started.IsZero() {
		o.Started = time.Now()
	}
	started := o.Started.UTC()
	cw := &Writer{bw: bufio.NewWriterSize(w, 64<<10), rd: newRedactor(o.Key)}
	h, err := json.Marshal(Record{Kind: KindHeader, FormatVersion: FormatVersion, Started: &started, Tool: o.Tool, Redaction: Redaction})
	if err != nil {
		return nil, err
	}
	cw.bw.Write(h)
	if err := cw.bw.WriteByte('\n'); err != nil {
		return nil, err
	}
	return cw, nil
}

// ErrNotJSON is returned for an answer or a delivery whose body is no
// JSON: a capture keeps only JSON bodies.
var ErrNotJSON = errors.New("capture: the body is no JSON")

// Answer writes the answer of an operation (its SDK name) to method path
// (under /api/v1/developer; a query is dropped), redacted.
func (w *Writer) Answer(operation, method, path string, status int, body []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := Record{Kind: KindAnswer, Operation: operation, Method: method, Status: status}
	path, _, _ = strings.Cut(path, "?")
	rec.Path = w.rd.path(method, path)
	if len(body) > 0 {
		b, ok := w.rd.json(nil, body)
		if !ok {
			return ErrNotJSON
		}
		rec.Body = b
	}
	return w.writeLocked(rec)
}

// Frame writes a frame of the notifications stream that arrived offset
// after the capture started, redacted. A frame that is no JSON is written
// as text: a keepalive ("Hello") as it is, anything else replaced.
func (w *Writer) Frame(offset time.Duration, frame []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	b := append(w.buf[:0], `{"kind":"frame","offset_ns":`...)
	b = strconv.AppendInt(b, int64(offset), 10)
	n := len(b)
	b = append(b, `,"frame":`...)
	var ok bool
	if b, ok = w.rd.json(b, frame); !ok {
		b = append(b[:n], `,"text":`...)
		b = appendString(b, w.rd.text(string(frame)))
	}
	b = append(b, "}\n"...)
	w.buf = b
	_, w.err = w.bw.Write(b)
	return w.err
}

// Delivery writes a webhook delivery that arrived offset after the
// capture started: its headers (without Signature; the values of headers
// other than Content-Type and User-Agent replaced) and its body,
// redacted.
func (w *Writer) Delivery(offset time.Duration, header http.Header, body []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := Record{Kind: KindDelivery, Offset: offset, Headers: w.rd.headers(header)}
	b, ok := w.rd.json(nil, body)
	if !ok {
		return ErrNotJSON
	}
	rec.Body = b
	return w.writeLocked(rec)
}

// Write writes a record of another capture (an answer, a frame or a
// delivery), redacted again: redacting is idempotent for the values it
// keeps, and a record already redacted under another key gets new
// pseudonyms.
func (w *Writer) Write(r Record) error {
	switch r.Kind {
	case KindAnswer:
		return w.Answer(r.Operation, r.Method, r.Path, r.Status, r.Body)
	case KindFrame:
		return w.Frame(r.Offset, r.Data())
	case KindDelivery:
		h := http.Header{}
		for k, v := range r.Headers {
			h.Set(k, v)
		}
		return w.Delivery(r.Offset, h, r.Body)
	}
	return errors.New("capture: Write: a record of kind " + strconv.Quote(string(r.Kind)))
}

func (w *Writer) writeLocked(rec Record) error {
	if w.err != nil {
		return w.err
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	w.bw.Write(b)
	w.err = w.bw.WriteByte('\n')
	return w.err
}

// Flush writes what is buffered.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.err = w.bw.Flush()
	return w.err
}
