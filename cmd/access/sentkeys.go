package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
)

// The JSON output of a command holds no zero value the console never
// sent: the SDK's types write every member they have (an empty string, a
// 0, false), whether or not the answer had it. sentKeys records, as the
// answers stream through the SDK's transport, the name of every member
// they hold; prune then drops from the output a member whose value is
// zero and whose name no answer of the run held. The check is by name: a
// member some record of the run was sent stays in every record.

// sentKeys is the set of member names the console's answers held.
type sentKeys struct {
	mu   sync.Mutex
	keys map[string]bool
	// write is the run's last request when it was a write with a JSON
	// body, with the member names of its answer; nil after any other
	// request (fillSent).
	write *writeRecord
	// covered holds the types every one of whose zero members an answer
	// held: names only add up, so they stay covered.
	covered map[reflect.Type]bool
}

// wrap is the access.WithTransportWrapper that records the answers'
// member names as the SDK reads them.
func (s *sentKeys) wrap(next http.RoundTripper) http.RoundTripper {
	return transportFunc(func(req *http.Request) (*http.Response, error) {
		w := s.noteRequest(req)
		resp, err := next.RoundTrip(req)
		if err != nil || resp.Body == nil || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
			return resp, err
		}
		resp.Body = &keyScanner{rc: resp.Body, set: s, seen: map[string]bool{}, write: w}
		return resp, nil
	})
}

// writeRecord is a write the run sent: its JSON body and the member
// names its answer held.
type writeRecord struct {
	body     []byte
	answered map[string]bool
}

// maxWriteBody bounds the request bodies kept for fillSent.
const maxWriteBody = 1 << 20

// noteRequest records req as the run's last request: a write with a JSON
// body (read through GetBody, leaving the body to send alone) is kept
// for fillSent, any other request forgets the last write.
func (s *sentKeys) noteRequest(req *http.Request) *writeRecord {
	var w *writeRecord
	if req.Method != http.MethodGet && req.Method != http.MethodHead && req.GetBody != nil &&
		strings.Contains(req.Header.Get("Content-Type"), "json") && req.ContentLength > 0 && req.ContentLength <= maxWriteBody {
		if rc, err := req.GetBody(); err == nil {
			b, err := io.ReadAll(io.LimitReader(rc, maxWriteBody))
			rc.Close()
			if err == nil {
				w = &writeRecord{body: b, answered: map[string]bool{}}
			}
		}
	}
	s.mu.Lock()
	s.write = w
	s.mu.Unlock()
	return w
}

// fillSent completes the record a write answered with what was sent: a
// member the answer did not hold, zero in the record, takes the value the
// request sent for it (the console answers a created user without the
// employee number it was given). It applies only when the run's last
// request was that write, to a pointer to a struct; members that hold
// secrets (a name with secret, token, password, key or pin) are never
// copied.
func (s *sentKeys) fillSent(res any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	w := s.write
	var answered map[string]bool
	if w != nil {
		answered = make(map[string]bool, len(w.answered))
		for k := range w.answered {
			answered[k] = true
		}
	}
	s.mu.Unlock()
	rv := reflect.ValueOf(res)
	if w == nil || rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return
	}
	var sent map[string]json.RawMessage
	if json.Unmarshal(w.body, &sent) != nil {
		return
	}
	fields := map[string]reflect.Value{}
	jsonFields(rv.Elem(), fields)
	for name, raw := range sent {
		f, ok := fields[name]
		if !ok || answered[name] || !f.IsZero() || secretName(name) {
			continue
		}
		p := reflect.New(f.Type())
		if json.Unmarshal(raw, p.Interface()) == nil {
			f.Set(p.Elem())
		}
	}
}

// secretName reports whether a member's name says it holds a secret.
func secretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"secret", "token", "password", "key", "pin"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// jsonFields collects the settable fields of the struct v by their JSON
// names, those of embedded structs included.
func jsonFields(v reflect.Value, into map[string]reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			jsonFields(v.Field(i), into)
			continue
		}
		if !f.IsExported() || !v.Field(i).CanSet() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, dup := into[name]; !dup {
			into[name] = v.Field(i)
		}
	}
}

// transportFunc is an http.RoundTripper made of a function.
type transportFunc func(*http.Request) (*http.Response, error)

// RoundTrip implements http.RoundTripper.
func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func (s *sentKeys) add(k []byte) {
	s.mu.Lock()
	if !s.keys[string(k)] {
		if s.keys == nil {
			s.keys = map[string]bool{}
		}
		s.keys[string(k)] = true
	}
	s.mu.Unlock()
}

func (s *sentKeys) has(k string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[k]
}

// keyScanner passes a JSON body through and notes each object member's
// name: a string followed by a colon. It keeps no more than a name's
// bytes, so an answer of any size streams through it.
type keyScanner struct {
	rc    io.ReadCloser
	set   *sentKeys
	seen  map[string]bool // the names this body gave set already
	state int             // 0 outside strings, 1 in a string, 2 after an escape, 3 after a string
	cur   []byte
	long  bool         // the string is too long to be a name
	write *writeRecord // the write this answers, or nil
}

// maxKeyLen bounds the names noted.
const maxKeyLen = 128

func (k *keyScanner) Read(p []byte) (int, error) {
	n, err := k.rc.Read(p)
	k.scan(p[:n])
	return n, err
}

// scan moves through b from string to string (bytes.IndexByte and
// IndexAny, not byte by byte).
func (k *keyScanner) scan(b []byte) {
	for len(b) > 0 {
		switch k.state {
		case 0: // outside strings: to the next one
			j := bytes.IndexByte(b, '"')
			if j < 0 {
				return
			}
			b = b[j+1:]
			k.state, k.cur, k.long = 1, k.cur[:0], false
		case 1: // in a string: to its end or an escape
			j := bytes.IndexAny(b, `"\`)
			if j < 0 {
				k.note(b)
				return
			}
			k.note(b[:j])
			if b[j] == '\\' {
				k.state = 2
			} else {
				k.state = 3
			}
			b = b[j+1:]
		case 2: // the escaped byte
			b = b[1:]
			k.state = 1
			k.long = true // an escaped name is not one of the SDK's
		case 3: // after a string: a colon makes it a name
			switch c := b[0]; c {
			case ' ', '\t', '\r', '\n':
				b = b[1:]
			case ':':
				if !k.long && !k.seen[string(k.cur)] {
					k.seen[string(k.cur)] = true
					k.set.add(k.cur)
					if k.write != nil {
						k.set.mu.Lock()
						k.write.answered[string(k.cur)] = true
						k.set.mu.Unlock()
					}
				}
				k.state = 0
				b = b[1:]
			default:
				k.state = 0 // a value: the next string starts again
			}
		}
	}
}

// note keeps the bytes of the current string while it may be a name.
func (k *keyScanner) note(b []byte) {
	if k.long {
		return
	}
	if len(k.cur)+len(b) > maxKeyLen {
		k.long = true
		return
	}
	k.cur = append(k.cur, b...)
}

func (k *keyScanner) Close() error { return k.rc.Close() }

// zeroMembers lists, per Go type, the JSON names of the members its
// encoding writes even when zero (no omitempty), and those of the types
// such members hold.
var zeroMembers sync.Map // reflect.Type → []string

func zeroMembersOf(t reflect.Type) []string {
	if v, ok := zeroMembers.Load(t); ok {
		return v.([]string)
	}
	seen := map[reflect.Type]bool{}
	var names []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,") {
				// Left out when empty; when there, the console
				// sent it (its members are not looked into).
				continue
			}
			names = append(names, name)
			walk(f.Type)
		}
	}
	walk(t)
	zeroMembers.Store(t, names)
	return names
}

// pruneResult is prune applied to a command's result: each record of a
// stream or a list, or the one record.
func (s *sentKeys) pruneResult(res any) any {
	if s == nil {
		return res
	}
	switch r := res.(type) {
	case nil:
		return nil
	case stream:
		return stream(func(yield func(any) bool) error {
			return r(func(rec any) bool { return yield(s.prune(rec)) })
		})
	}
	rv := reflect.ValueOf(res)
	if rv.Kind() != reflect.Slice || rv.Type().Elem().Kind() == reflect.Uint8 {
		return s.prune(res)
	}
	if !s.lacksAny(rv.Type().Elem()) {
		return res
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = s.prune(rv.Index(i).Interface())
	}
	return out
}

// lacksAny reports whether t writes a zero member no answer held.
func (s *sentKeys) lacksAny(t reflect.Type) bool {
	names := zeroMembersOf(t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.covered[t] {
		return false
	}
	for _, n := range names {
		if !s.keys[n] {
			return true
		}
	}
	if s.covered == nil {
		s.covered = map[reflect.Type]bool{}
	}
	s.covered[t] = true
	return false
}

// prune is rec without the zero members no answer of the run held. A
// record whose type writes no member the answers lacked is returned as
// it is (no work); another is re-encoded, its members in their order.
func (s *sentKeys) prune(rec any) any {
	if rec == nil || !s.lacksAny(reflect.TypeOf(rec)) {
		return rec
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return rec
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeOrdered(d)
	if err != nil {
		return rec
	}
	return s.pruneValue(v)
}

func (s *sentKeys) pruneValue(v any) any {
	switch x := v.(type) {
	case orderedObject:
		out := x.members[:0]
		for _, m := range x.members {
			m.v = s.pruneValue(m.v)
			if isZeroJSON(m.v) && !s.has(m.k) {
				continue
			}
			out = append(out, m)
		}
		return orderedObject{out}
	case []any:
		for i, e := range x {
			x[i] = s.pruneValue(e)
		}
	}
	return v
}

func isZeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case []any:
		return len(x) == 0
	case orderedObject:
		return len(x.members) == 0
	}
	return false
}

// orderedObject is a JSON object with its members in their order (a
// struct, so that the output does not take it for a list).
type orderedObject struct{ members []member }

type member struct {
	k string
	v any
}

// MarshalJSON writes the members in their order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o.members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.k)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// decodeOrdered decodes the next JSON value, objects as orderedObject.
func decodeOrdered(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		var o orderedObject
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(d)
			if err != nil {
				return nil, err
			}
			o.members = append(o.members, member{kt.(string), v})
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := decodeOrdered(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return t, nil
}
