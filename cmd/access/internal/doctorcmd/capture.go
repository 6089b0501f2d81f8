package doctorcmd

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/access-dev/access/internal/redact"
)

// The capture of doctor --capture: every read-only operation's raw
// answers, recorded under the SDK's transport, redacted when written.

// exchange is one recorded request and its answer: the JSON body
// (redacted), or for another body what it was and whether it was stored.
type exchange struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body,omitempty"`
	Text   string          `json:"text,omitempty"`
	// Stored names the file of the capture that holds a non-JSON answer
	// (a CSV export, redacted).
	Stored string `json:"stored,omitempty"`

	raw         []byte // the answer as received
	contentType string
}

// recorder is an http.RoundTripper that keeps the raw answers. It wraps
// the SDK's own transport (access.WithTransportWrapper), so the
// connection's pinning or --insecure stays the SDK's.
type recorder struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []exchange
}

// wrap is the recorder's access.WithTransportWrapper.
func (r *recorder) wrap(next http.RoundTripper) http.RoundTripper {
	r.base = next
	return r
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err // a WebSocket's body is the connection
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxCaptured+1))
	if rerr != nil {
		resp.Body.Close()
		return nil, rerr
	}
	ex := exchange{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode, raw: body, contentType: resp.Header.Get("Content-Type")}
	if len(body) > maxCaptured {
		// Too large to keep: the SDK still reads the whole answer.
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
		ex.raw, ex.Text = nil, fmt.Sprintf("(over %d MiB: not captured)", maxCaptured>>20)
	} else {
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.mu.Lock()
	r.got = append(r.got, ex)
	r.mu.Unlock()
	return resp, nil
}

// maxCaptured is the largest answer the capture keeps.
const maxCaptured = 8 << 20

func (r *recorder) reset() { r.mu.Lock(); r.got = nil; r.mu.Unlock() }
func (r *recorder) take() []exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.got
	r.got = nil
	return g
}

var emailRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`) })

// cardRE finds the number of a presented card in a console's message,
// as consoles log a denied tap: "Access Denied (NFC 04C0FFEE at Main
// entrance): unknown card" (hex, or decimal, with or without colons).
// No other member holds that number for the redactor to collect.
var cardRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bNFC [0-9A-Fa-f]+(?::[0-9A-Fa-f]+)*\b`) })

// scrubCards redacts the card numbers cardRE finds in s; a word of hex
// letters alone ("NFC card", "NFC added") is no number and stays.
func scrubCards(s string) string {
	return cardRE().ReplaceAllStringFunc(s, func(m string) string {
		if !strings.ContainsAny(m[len("NFC "):], "0123456789") {
			return m
		}
		return "NFC REDACTED"
	})
}

// urlRE finds URLs in text, for their userinfo and query to be redacted.
var urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>]+`) })

// captureKeys are the members a capture keeps besides those of
// redact.Kept (the ids, times and known enumerations that access fake
// record keeps too: one allow-list for both): the envelope, paging and
// counts, and the console's own messages (scrubbed of the values below,
// emails and URLs). Every other member's value is redacted (a member the
// SDK does not know yet included); objects and arrays are kept and their
// members judged by their own keys, so the shape of every answer stays
// visible.
var captureKeys = setOf(
	// The envelope and paging.
	"msg", "data", "pagination", "page", "page_num", "page_size", "total", "count",
	// The console's own messages.
	"display_message", "error_msg",
)

// personalKeys are members whose values identify a person or open a
// door; besides being redacted (as every member keptKey refuses is),
// their values are looked for and redacted in every kept text (a log
// message, a path). Members holding "name", "email" or "phone" count too.
var personalKeys = setOf("secret", "token", "headers", "pin_code", "pin", "authorization", "password", "alias", "username",
	"condition", "authentication_value", "display_id", "card_id", "nfc_id", "credential", "license_plates",
	"employee_number", "visitor_company", "remarks", "note", "notes", "visit_reason", "reason", "description",
	"endpoint", "url", "qr_code", "avatar", "avatar_url", "sso_picture", "user_avatar", "alternate_id")

// hostOnlyKeys are members holding a URL whose scheme and host are kept
// (a webhook's endpoint: the path of a chat webhook is its secret).
var hostOnlyKeys = setOf("endpoint", "url")

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// keptKey reports whether a member's value is kept in a capture: one of
// redact.Kept or of captureKeys.
func keptKey(k string) bool { return redact.Kept(k) || captureKeys[strings.ToLower(k)] }

// personalKey reports whether a member's value is personal or secret.
func personalKey(k string) bool {
	k = strings.ToLower(k)
	return personalKeys[k] || strings.Contains(k, "name") || strings.Contains(k, "email") || strings.Contains(k, "phone") ||
		strings.Contains(k, "token") || strings.Contains(k, "secret")
}

// keptColumns are the columns of a CSV export whose cells are kept (as
// text, scrubbed like a log message); every other column is redacted.
var keptColumns = setOf("time", "timestamp", "topic", "event", "message", "result", "actor type", "authentication", "door", "device")

// redactColumn reports whether a column of a CSV export is redacted, by
// its header (the export's Actor, for one, is a person's name).
func redactColumn(h string) bool {
	return !keptColumns[strings.ToLower(strings.TrimSpace(h))]
}

// redactor redacts the answers of a capture. It keeps the values of the
// members keptKey accepts (their text scrubbed) and the shape of every answer, and
// redacts every other member's value; inside strings that hold JSON
// themselves (decoded, redacted and encoded again) the same. In the text
// it keeps, it redacts URLs but for their scheme and host, email
// addresses, and wherever they appear, the values seen under personal
// keys (personalKey) in any answer of the capture.
type redactor struct {
	known []string // longest first
}

// minKnown is the shortest value redacted wherever it appears: shorter
// ones would take parts of unrelated text.
const minKnown = 3

func newRedactor(results []probe) *redactor {
	seen := map[string]bool{}
	var collect func(v any, personal bool)
	collect = func(v any, personal bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				// A member of a personal object is personal unless
				// it is a safe one (a license plate's type).
				collect(e, personalKey(k) || personal && !keptKey(k))
			}
		case []any:
			for _, e := range x {
				collect(e, personal)
			}
		case string:
			if nested, ok := nestedJSON(x); ok {
				collect(nested, personal)
				return
			}
			if s := strings.TrimSpace(x); personal && utf8.RuneCountInString(s) >= minKnown && s != "REDACTED" {
				seen[s] = true
			}
		}
	}
	for _, r := range results {
		for _, ex := range r.raw {
			if v, ok := decodeJSON(ex.raw); ok {
				collect(v, false)
			}
		}
	}
	rd := &redactor{}
	for s := range seen {
		rd.known = append(rd.known, s)
	}
	sort.Slice(rd.known, func(i, j int) bool {
		if len(rd.known[i]) != len(rd.known[j]) {
			return len(rd.known[i]) > len(rd.known[j])
		}
		return rd.known[i] < rd.known[j]
	})
	return rd
}

func decodeJSON(b []byte) (any, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// nestedJSON decodes a string that holds a JSON object or array.
func nestedJSON(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	return decodeJSON([]byte(t))
}

// json redacts a JSON answer; an answer that is not JSON is nil.
func (rd *redactor) json(b []byte) json.RawMessage {
	v, ok := decodeJSON(b)
	if !ok {
		return nil
	}
	out, _ := json.MarshalIndent(rd.value(v, false), "", "  ")
	return out
}

// value redacts a decoded JSON value in place; keep says whether the
// member holding it is one keptKey accepts. Booleans, nulls and empty
// strings are kept: they name no one.
func (rd *redactor) value(v any, keep bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && hostOnlyKeys[strings.ToLower(k)] && s != "" {
				x[k] = hostOnly(s)
				continue
			}
			x[k] = rd.value(e, keptKey(k))
		}
	case []any:
		for i, e := range x {
			x[i] = rd.value(e, keep)
		}
	case string:
		if nested, ok := nestedJSON(x); ok {
			b, _ := json.Marshal(rd.value(nested, keep))
			return string(b)
		}
		if x == "" {
			return x
		}
		if !keep {
			return "REDACTED"
		}
		return rd.text(x)
	case json.Number:
		if !keep {
			return "REDACTED"
		}
	}
	return v
}

// text redacts a string that is kept: nested JSON, the known values, card
// numbers (scrubCards), URLs but for their scheme and host, email addresses.
func (rd *redactor) text(s string) string {
	if nested, ok := nestedJSON(s); ok {
		b, _ := json.Marshal(rd.value(nested, false))
		return string(b)
	}
	for _, k := range rd.known {
		if strings.Contains(s, k) {
			s = replaceWord(s, k, "REDACTED")
		}
	}
	s = scrubCards(s)
	// URLs, and email addresses outside them (a URL's userinfo and host
	// would read as one).
	var b strings.Builder
	from := 0
	for _, m := range urlRE().FindAllStringIndex(s, -1) {
		b.WriteString(emailRE().ReplaceAllString(s[from:m[0]], "REDACTED"))
		b.WriteString(hostOnly(s[m[0]:m[1]]))
		from = m[1]
	}
	b.WriteString(emailRE().ReplaceAllString(s[from:], "REDACTED"))
	return b.String()
}

// hostOnly redacts a URL but for its scheme and host (with its port): the
// userinfo goes, and whatever follows the host (a path, a query, a
// fragment) becomes /REDACTED. Text that is no URL with a host is
// REDACTED whole.
func hostOnly(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "REDACTED"
	}
	out := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		out += "/REDACTED"
	}
	return out
}

// replaceWord replaces the occurrences of w in s that are not part of a
// longer word (no letter or digit on either side).
func replaceWord(s, w, with string) string {
	var b strings.Builder
	from := 0
	for {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		start, end := from+i, from+i+len(w)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if start > 0 && isWordRune(before) || end < len(s) && isWordRune(after) {
			b.WriteString(s[from:end])
		} else {
			b.WriteString(s[from:start])
			b.WriteString(with)
		}
		from = end
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// csv redacts a CSV answer: the columns of personal data whole, the other
// cells as text. ok is false when it is not CSV.
func (rd *redactor) csv(b []byte) (out []byte, ok bool) {
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, false
	}
	personal := make([]bool, len(rows[0]))
	for i, h := range rows[0] {
		personal[i] = redactColumn(h)
	}
	for _, row := range rows[1:] {
		for i, cell := range row {
			switch {
			case cell == "":
			case i < len(personal) && personal[i]:
				row[i] = "REDACTED"
			default:
				row[i] = rd.text(cell)
			}
		}
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.WriteAll(rows); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// writeCapture writes a file OP.json for each probe into dir, redacted,
// and a CSV answer beside it as OP.csv (redacted); other answers that
// are not JSON (images, videos) are summarized, not stored. It returns
// the number of operations with answers.
func writeCapture(dir string, results []probe) (int, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	rd := newRedactor(results)
	n := 0
	for _, r := range results {
		rec := struct {
			Op        string     `json:"op"`
			Skipped   string     `json:"skipped,omitempty"`
			Error     string     `json:"error,omitempty"`
			Exchanges []exchange `json:"exchanges"`
		}{Op: r.op, Skipped: r.skipped, Exchanges: []exchange{}}
		if r.skipped == "" {
			n++
		}
		if r.err != nil {
			rec.Error = rd.text(r.err.Error())
		}
		for i, ex := range r.raw {
			ex.Path = rd.text(ex.Path)
			mt, _, _ := mime.ParseMediaType(ex.contentType)
			if len(ex.raw) == 0 {
				// No body.
			} else if body := rd.json(ex.raw); body != nil {
				ex.Body = body
			} else if out, ok := rd.csv(ex.raw); ok && mt == "text/csv" {
				name := r.op + ".csv"
				if i > 0 {
					name = fmt.Sprintf("%s.%d.csv", r.op, i+1)
				}
				if err := os.WriteFile(filepath.Join(dir, name), out, 0o600); err != nil {
					return n, err
				}
				ex.Stored = name
				ex.Text = fmt.Sprintf("%d bytes of %s, stored redacted in %s", len(ex.raw), ex.contentType, name)
			} else {
				ex.Text = fmt.Sprintf("%d bytes of %s, summarized: not stored", len(ex.raw), orUnknown(ex.contentType))
			}
			rec.Exchanges = append(rec.Exchanges, ex)
		}
		b, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return n, err
		}
		if err := os.WriteFile(filepath.Join(dir, r.op+".json"), append(b, '\n'), 0o600); err != nil {
			return n, err
		}
	}
	return n, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown type"
	}
	return s
}
