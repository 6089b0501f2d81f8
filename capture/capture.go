// Package capture records what a UniFi Access console sends — the answers
// of read-only operations, the frames of the notifications stream with
// their arrival times, and the webhook deliveries it posts — into one
// portable file, redacted before anything is written, and reads such files
// back: to replay a console's behaviour (access fake --replay,
// accesstest.WithCapture) and to compare the shapes of what two consoles,
// or a console and the SDK, send ([Compare], [Check]).
//
// # The file
//
// A capture is JSON lines (UTF-8, one JSON object a line). The first line
// is the header, {"kind":"header","format_version":1,...}; a reader refuses
// a format_version above the one it knows ([FormatVersion]). Each other line
// is one [Record]: an answer ("kind":"answer": operation, method, path,
// status, body), a frame of the notifications stream ("kind":"frame":
// offset_ns since the start of the capture, and the frame as JSON in frame,
// or as text in text when it is no JSON) or a webhook delivery
// ("kind":"delivery": offset_ns, the request's headers without its
// signature, body). Records are in the order they were written; frames and
// deliveries in arrival order.
//
// # Redaction
//
// A [Writer] redacts every record before it writes it, by the allow-list
// access fake record uses (internal/redact): the values of ids, times and
// known enumerations (types, states, event names) are kept, every other
// string — names, emails, plates, device names, free text, card tokens,
// PINs, members this version does not know — is replaced through one keyed
// mapping for the whole capture, so the same value gets the same
// pseudonym in answers, frames, deliveries and paths; a person's values
// (names, emails, phones, employee numbers) by one mapping drawn from the
// value alone, whatever member holds them, as in a seed of access fake
// record: under the same key ([WriterOptions].Key) one person has one
// pseudonym in both. Numbers, booleans and nulls are kept. The key is
// random unless given, and never written.
package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// FormatVersion is the version of the file format this package writes and
// the highest it reads.
const FormatVersion = 1

// Kind is what a record holds.
type Kind string

// The kinds of records.
const (
	KindHeader   Kind = "header"
	KindAnswer   Kind = "answer"
	KindFrame    Kind = "frame"
	KindDelivery Kind = "delivery"
)

// Record is one line of a capture. Which members are set depends on Kind.
type Record struct {
	Kind Kind `json:"kind"`

	// The header's: the format's version, when the capture started, what
	// wrote it and how it was redacted.
	FormatVersion int        `json:"format_version,omitempty"`
	Started       *time.Time `json:"started,omitempty"`
	Tool          string     `json:"tool,omitempty"`
	Redaction     string     `json:"redaction,omitempty"`

	// An answer's: the operation (its SDK name, "Users.List"), the request
	// (the path under /api/v1/developer, without its query) and the
	// answer's HTTP status.
	Operation string `json:"operation,omitempty"`
	Method    string `json:"method,omitempty"`
	Path      string `json:"path,omitempty"`
	Status    int    `json:"status,omitempty"`

	// A frame's or a delivery's time since the capture started.
	Offset time.Duration `json:"offset_ns,omitempty"`

	// A delivery's HTTP headers, its Signature header left out.
	Headers map[string]string `json:"headers,omitempty"`

	// Body is an answer's or a delivery's body (JSON).
	Body json.RawMessage `json:"body,omitempty"`
	// Frame is a frame of the stream that is JSON; Text one that is not
	// (a keepalive).
	Frame json.RawMessage `json:"frame,omitempty"`
	Text  string          `json:"text,omitempty"`
}

// Capture is a whole capture read into memory.
type Capture struct {
	Header     Record
	Answers    []Record
	Frames     []Record
	Deliveries []Record
}

// ErrFormat is matched by the errors of a file that is no capture this
// version reads.
var ErrFormat = errors.New("capture: not a capture file")

// maxLine is the longest line a Reader accepts.
const maxLine = 64 << 20

// Reader reads a capture record by record.
type Reader struct {
	br     *bufio.Reader
	header Record
	line   int
}

// NewReader reads the header of the capture r holds and returns a Reader
// of its records. A file whose first line is no header, or whose
// format_version is unknown, is an error matching [ErrFormat].
func NewReader(r io.Reader) (*Reader, error) {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10)}
	h, err := rd.next()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: empty", ErrFormat)
	}
	if err != nil {
		return nil, err
	}
	if h.Kind != KindHeader {
		return nil, fmt.Errorf("%w: line 1 is a %q record, not the header", ErrFormat, h.Kind)
	}
	if h.FormatVersion < 1 || h.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%w: format_version %d (this version reads 1 to %d)", ErrFormat, h.FormatVersion, FormatVersion)
	}
	rd.header = h
	return rd, nil
}

// Header is the capture's header.
func (r *Reader) Header() Record { return r.header }

// Next returns the next record; io.EOF after the last.
func (r *Reader) Next() (Record, error) {
	rec, err := r.next()
	if err == nil && rec.Kind == KindHeader {
		return Record{}, fmt.Errorf("%w: line %d: a second header", ErrFormat, r.line)
	}
	return rec, err
}

func (r *Reader) next() (Record, error) {
	for {
		line, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			buf := bytes.Clone(line)
			for err == bufio.ErrBufferFull && len(buf) <= maxLine {
				line, err = r.br.ReadSlice('\n')
				buf = append(buf, line...)
			}
			if len(buf) > maxLine {
				return Record{}, fmt.Errorf("%w: line %d is over %d MiB", ErrFormat, r.line+1, maxLine>>20)
			}
			line = buf
		}
		if err != nil && err != io.EOF {
			return Record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if err == io.EOF {
				return Record{}, io.EOF
			}
			r.line++
			continue
		}
		r.line++
		var rec Record
		if uerr := json.Unmarshal(line, &rec); uerr != nil {
			return Record{}, fmt.Errorf("%w: line %d: %v", ErrFormat, r.line, uerr)
		}
		switch rec.Kind {
		case KindHeader, KindAnswer, KindFrame, KindDelivery:
		default:
			return Record{}, fmt.Errorf("%w: line %d: unknown kind %q", ErrFormat, r.line, rec.Kind)
		}
		return rec, nil
	}
}

// Read reads a whole capture.
func Read(r io.Reader) (*Capture, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	c := &Capture{Header: rd.Header()}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		switch rec.Kind {
		case KindAnswer:
			c.Answers = append(c.Answers, rec)
		case KindFrame:
			c.Frames = append(c.Frames, rec)
		case KindDelivery:
			c.Deliveries = append(c.Deliveries, rec)
		}
	}
}

// Data is the frame's bytes as the console sent them in form (the
// redacted JSON, or the text of a frame that is no JSON).
func (r Record) Data() []byte {
	if r.Frame != nil {
		return r.Frame
	}
	return []byte(r.Text)
}
