package capture

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/access-dev/access/internal/redact"
)

// redactor applies the allow-list of internal/redact to raw JSON through
// one keyed mapping. Its json method walks the bytes once, keeping the
// members' order and the numbers as written, and replaces the strings
// redact.Walk would replace by what redact.Pseudonyms.Replace gives (the
// same pseudonyms as a seed of access fake record under the same key).
type redactor struct {
	p    *redact.Pseudonyms
	memo map[string]string
}

// maxMemo bounds the remembered pseudonyms (they are only a cache).
const maxMemo = 1 << 16

func newRedactor(key []byte) *redactor {
	return &redactor{p: redact.NewPseudonyms(key), memo: map[string]string{}}
}

// replace is the pseudonym of s held by member.
func (r *redactor) replace(member, s string) string {
	k := member + "\x00" + s
	if v, ok := r.memo[k]; ok {
		return v
	}
	v := r.p.Replace(member, s)
	if len(r.memo) >= maxMemo {
		clear(r.memo)
	}
	r.memo[k] = v
	return v
}

// text redacts a frame that is no JSON: a keepalive is kept.
func (r *redactor) text(s string) string {
	t := strings.Trim(strings.TrimSpace(s), `"`)
	if strings.EqualFold(strings.TrimSpace(t), "hello") || strings.TrimSpace(s) == "" {
		return s
	}
	return r.replace("frame", s)
}

// json appends the redacted, compacted form of the JSON value b to dst;
// ok is false (dst unchanged) when b is no valid JSON.
func (r *redactor) json(dst, b []byte) (out []byte, ok bool) {
	if !json.Valid(b) {
		return dst, false
	}
	type level struct {
		obj       bool
		expectKey bool
		member    string // an object's current member, an array's own
	}
	stack := make([]level, 0, 16)
	// valueMember is the member that holds the value at the cursor, and
	// whether there is one.
	valueMember := func() (string, bool) {
		if len(stack) == 0 {
			return "", false
		}
		return stack[len(stack)-1].member, true
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
		case '{':
			stack = append(stack, level{obj: true, expectKey: true})
			dst = append(dst, c)
			i++
		case '[':
			m, _ := valueMember()
			stack = append(stack, level{member: m})
			dst = append(dst, c)
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			dst = append(dst, c)
			i++
		case ',':
			if top := &stack[len(stack)-1]; top.obj {
				top.expectKey = true
			}
			dst = append(dst, c)
			i++
		case ':':
			dst = append(dst, c)
			i++
		case '"':
			j, escaped := stringEnd(b, i)
			raw := b[i:j]
			i = j
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				stack[n-1].expectKey = false
				stack[n-1].member = unquote(raw, escaped)
				dst = append(dst, raw...)
				continue
			}
			m, held := valueMember()
			if len(raw) == 2 || held && redact.Kept(m) {
				dst = append(dst, raw...)
				continue
			}
			dst = appendString(dst, r.replace(m, unquote(raw, escaped)))
		default: // a number, true, false, null
			j := i
			for j < len(b) && !strings.ContainsRune(",]} \t\n\r", rune(b[j])) {
				j++
			}
			dst = append(dst, b[i:j]...)
			i = j
		}
	}
	return dst, true
}

// stringEnd returns the index after the string starting at b[i] (a
// quote), and whether it holds escapes. b is valid JSON.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(b), escaped
}

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
// parameter.
var literals = func() map[string]bool {
	m := map[string]bool{"api": true, "v1": true, "developer": true}
	for _, o := range apifacts.Operations() {
		for _, s := range strings.Split(o.Path, "/") {
			if !strings.HasPrefix(s, ":") {
				m[s] = true
			}
		}
	}
	return m
}()

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
		if s != "" && !literals[s] {
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
