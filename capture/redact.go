package capture

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/access-dev/access/internal/redact"
)

// redactor applies the allow-list of internal/redact to raw JSON through
// one keyed mapping. Its json method walks the bytes once, checking them
// as it goes, keeping the members' order and the numbers as written, and
// replaces the strings redact.Walk would replace by what
// redact.Pseudonyms.Replace gives (the same pseudonyms as a seed of access
// fake record under the same key).
type redactor struct {
	p       *redact.Pseudonyms
	memo    map[string]map[string]string // member (personKey for a person's value) -> value -> pseudonym
	n       int
	members map[string]memberInfo // raw member -> what it is
	recent  [256]recentMember     // a direct-mapped cache in front of members
	stack   []level
}

// recentMember is an entry of redactor.recent.
type recentMember struct {
	raw  string
	info memberInfo
}

// level is an object or array being walked. It holds no pointer (its
// members are spans of the walked bytes), so that writing it costs no
// write barrier.
type level struct {
	obj    bool
	member span // an object's current member (raw, quoted), an array's own
	parent span // the member holding the object (an array's: its object's)
}

// span is b[start:end] of the walked bytes b; the zero span is none.
type span struct{ start, end int }

func (s span) of(b []byte) []byte {
	if s.end == 0 {
		return nil
	}
	return b[s.start:s.end]
}

// memberInfo is what a member is, its name unquoted and raw.
type memberInfo struct {
	class memberClass
	name  string
	raw   string
}

// memberClass is what the allow-list makes of a member, by its name.
type memberClass uint8

const (
	classKept     memberClass = 1 << iota // redact.Kept
	classPersonal                         // a person's value wherever it is
	className                             // "name": a person's in an object a people member holds
	classPeople                           // holds a person (redact.Person's parents)
)

// personKey is the memo's member of a person's values: their pseudonyms
// do not depend on the member.
const personKey = "\x00person"

// maxMemo bounds the remembered pseudonyms (they are only a cache).
const maxMemo = 1 << 16

func newRedactor(key []byte) *redactor {
	return &redactor{p: redact.NewPseudonyms(key), memo: map[string]map[string]string{}, members: map[string]memberInfo{}}
}

// replace is the pseudonym of s held by member (personKey: a person's
// value).
func (r *redactor) replace(member, s string) string {
	if v, ok := r.memo[member][s]; ok {
		return v
	}
	var v string
	if member == personKey {
		v = r.p.Person(s)
	} else {
		v = r.p.Replace(member, s)
	}
	if r.n >= maxMemo {
		clear(r.memo)
		r.n = 0
	}
	m := r.memo[member]
	if m == nil {
		m = map[string]string{}
		r.memo[member] = m
	}
	m[s] = v
	r.n++
	return v
}

// class is what a member given as its raw JSON string is.
func (r *redactor) class(raw []byte) memberInfo {
	// A member name is short and the same few come again and again: a
	// slot by its length and two of its bytes, checked, before the map.
	slot := &r.recent[(len(raw)*7+int(raw[len(raw)/2])*3+int(raw[len(raw)-2]))&255]
	if slot.raw == string(raw) {
		return slot.info
	}
	if c, ok := r.members[string(raw)]; ok {
		slot.raw, slot.info = c.raw, c
		return c
	}
	m := unquote(raw, bytes.IndexByte(raw, '\\') >= 0)
	var c memberClass
	if redact.Kept(m) {
		c |= classKept
	}
	if redact.Person("", m) {
		c |= classPersonal
	}
	if strings.EqualFold(m, "name") {
		c |= className
	}
	if redact.Person(m, "name") {
		c |= classPeople
	}
	info := memberInfo{class: c, name: m, raw: string(raw)}
	if len(r.members) < 4096 {
		r.members[string(raw)] = info
	}
	return info
}

// text redacts a frame that is no JSON: a keepalive is kept.
func (r *redactor) text(s string) string {
	t := strings.Trim(strings.TrimSpace(s), `"`)
	if strings.EqualFold(strings.TrimSpace(t), "hello") || strings.TrimSpace(s) == "" {
		return s
	}
	return r.replace("frame", s)
}

// The states of the walk: what may come next.
const (
	wantValue      = iota // a value
	wantKeyOrClose        // after '{'
	wantKey               // after ',' in an object
	wantColon             // after a key
	wantValueOrEnd        // after '['
	wantCommaOrEnd        // after a value
)

// json appends the redacted, compacted form of the JSON value b to dst;
// ok is false (dst unchanged) when b is no valid JSON.
func (r *redactor) json(dst, b []byte) (out []byte, ok bool) {
	orig := len(dst)
	fail := func() ([]byte, bool) { return dst[:orig], false }
	stack := r.stack[:0]
	defer func() { r.stack = stack[:0] }()
	state := wantValue
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		if state == wantCommaOrEnd && len(stack) == 0 {
			return fail() // something after the value
		}
		switch c {
		case '{', '[':
			if state != wantValue && state != wantValueOrEnd {
				return fail()
			}
			var top level
			if n := len(stack); n > 0 {
				top = stack[n-1]
			}
			if c == '{' {
				stack = append(stack, level{obj: true, parent: top.member})
				state = wantKeyOrClose
			} else {
				stack = append(stack, level{member: top.member, parent: top.parent})
				state = wantValueOrEnd
			}
			dst = append(dst, c)
			i++
		case '}', ']':
			n := len(stack)
			if n == 0 || stack[n-1].obj != (c == '}') {
				return fail()
			}
			if !(state == wantCommaOrEnd || c == '}' && state == wantKeyOrClose || c == ']' && state == wantValueOrEnd) {
				return fail()
			}
			stack = stack[:n-1]
			state = wantCommaOrEnd
			dst = append(dst, c)
			i++
		case ',':
			n := len(stack)
			if state != wantCommaOrEnd || n == 0 {
				return fail()
			}
			state = wantValue
			if stack[n-1].obj {
				state = wantKey
			}
			dst = append(dst, c)
			i++
		case ':':
			if state != wantColon {
				return fail()
			}
			state = wantValue
			dst = append(dst, c)
			i++
		case '"':
			j, escaped, good := stringEnd(b, i)
			if !good {
				return fail()
			}
			raw := b[i:j]
			i = j
			n := len(stack)
			if state == wantKeyOrClose || state == wantKey {
				stack[n-1].member = span{i - len(raw), i}
				state = wantColon
				dst = append(dst, raw...)
				continue
			}
			if state != wantValue && state != wantValueOrEnd {
				return fail()
			}
			state = wantCommaOrEnd
			var member, parent []byte
			if n > 0 {
				member, parent = stack[n-1].member.of(b), stack[n-1].parent.of(b)
			}
			var info memberInfo
			if member != nil {
				info = r.class(member)
			}
			cl := info.class
			if len(raw) == 2 || cl&classKept != 0 {
				dst = append(dst, raw...)
				continue
			}
			m := info.name
			if cl&classPersonal != 0 || cl&className != 0 && parent != nil && r.class(parent).class&classPeople != 0 {
				m = personKey
			}
			if !escaped {
				if v, ok := r.memo[m][string(raw[1:len(raw)-1])]; ok {
					dst = appendString(dst, v)
					continue
				}
			}
			s := unquote(raw, escaped)
			if escaped && s == "" {
				return fail() // a bad escape
			}
			dst = appendString(dst, r.replace(m, s))
		default: // a number, true, false, null
			if state != wantValue && state != wantValueOrEnd {
				return fail()
			}
			j := i
			for j < len(b) && !scalarEnd[b[j]] {
				j++
			}
			if !scalar(b[i:j]) {
				return fail()
			}
			state = wantCommaOrEnd
			dst = append(dst, b[i:j]...)
			i = j
		}
	}
	if state != wantCommaOrEnd || len(stack) != 0 {
		return fail()
	}
	return dst, true
}

// scalar reports whether b is a JSON number, true, false or null.
func scalar(b []byte) bool {
	switch string(b) {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	return json.Valid(b) && (b[0] == '-' || b[0] >= '0' && b[0] <= '9')
}

// stringEnd returns the index after the string starting at b[i] (a
// quote), whether it holds escapes, and whether it is well formed (closed,
// no control character).
func stringEnd(b []byte, i int) (end int, escaped, ok bool) {
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && !inString[b[j]] { // skip the plain bytes
			j++
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '\\':
			escaped = true
			j++
		case c == '"':
			return j + 1, escaped, true
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

// inString are the bytes a string's walk stops at: a quote, a
// backslash, a control character.
var inString = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// scalarEnd are the bytes that end a number, true, false or null.
var scalarEnd = func() (t [256]bool) {
	for _, c := range []byte(",]}: \t\n\r") {
		t[c] = true
	}
	return t
}()

// unquote is the value of a JSON string; "" for a bad escape.
func unquote(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// appendString appends s as a JSON string.
func appendString(dst []byte, s string) []byte {
	simple := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
			simple = false
			break
		}
	}
	if simple {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

// keptHeaders are the delivery headers whose values are kept.
var keptHeaders = map[string]bool{"Content-Type": true, "User-Agent": true}

// droppedHeaders are left out of a delivery: the signature, and what the
// transport sets.
var droppedHeaders = map[string]bool{"Signature": true, "Content-Length": true, "Accept-Encoding": true, "Connection": true}

// headers redacts a delivery's headers: custom headers of an endpoint
// often carry a credential.
func (r *redactor) headers(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		k = http.CanonicalHeaderKey(k)
		if droppedHeaders[k] || len(v) == 0 {
			continue
		}
		val := strings.Join(v, ", ")
		if !keptHeaders[k] {
			val = r.replace("header", val)
		}
		out[k] = val
	}
	return out
}

// idParams are the parameters of a route whose values are record ids,
// kept in a path.
var idParams = map[string]bool{":id": true, ":device_id": true, ":visitor_id": true}

// literals are the segments of the routes of the API that are no
// parameter, made when first used (not at every start of a program that
// links capture).
var literals = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"api": true, "v1": true, "developer": true}
	for _, o := range apifacts.Operations() {
		for _, s := range strings.Split(o.Path, "/") {
			if !strings.HasPrefix(s, ":") {
				m[s] = true
			}
		}
	}
	return m
})

// path redacts a request's path: the segments a route of the API (by
// internal/apifacts) takes as an id are kept, the other parameters (a card
// token, a file's path) replaced as values; in a path no route matches,
// every segment that is no literal of a route is replaced.
func (r *redactor) path(method, p string) string {
	segs := strings.Split(p, "/")
	if o, ok := matchRoute(method, p); ok {
		route := strings.Split(o.Path, "/")
		for i, s := range route {
			if strings.HasPrefix(s, ":") && !idParams[s] && segs[i] != "" {
				segs[i] = r.replace(strings.TrimPrefix(s, ":"), segs[i])
			}
		}
		return strings.Join(segs, "/")
	}
	for i, s := range segs {
		if s != "" && !literals()[s] {
			segs[i] = r.replace("path", s)
		}
	}
	return strings.Join(segs, "/")
}

// matchRoute finds the operation of the API a request is for, by its
// method and path (under /api/v1/developer): the route with the most
// literal segments that matches.
func matchRoute(method, p string) (apifacts.Operation, bool) {
	segs := strings.Split(p, "/")
	var best apifacts.Operation
	bestLit := -1
	for _, o := range apifacts.Operations() {
		if o.Method != method {
			continue
		}
		route := strings.Split(o.Path, "/")
		if len(route) != len(segs) {
			continue
		}
		lit, ok := 0, true
		for i, s := range route {
			switch {
			case strings.HasPrefix(s, ":"):
			case s == segs[i]:
				lit++
			default:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok && lit > bestLit {
			best, bestLit = o, lit
		}
	}
	return best, bestLit >= 0
}

// Operation returns the SDK name of the operation of the API a request is
// for ("Users.Get" for GET /users/ID), by the operation table; false when
// no operation matches.
func Operation(method, path string) (string, bool) {
	path, _, _ = strings.Cut(path, "?")
	path = strings.TrimPrefix(path, "/api/v1/developer")
	o, ok := matchRoute(method, path)
	if !ok {
		return "", false
	}
	return o.SDK[0], true
}
