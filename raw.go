package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Do sends one request to any operation of the developer API, for what
// the typed services do not cover, through the same pipeline as every
// typed method: the same authentication, certificate checks, timeouts,
// size cap, redaction and error types ([*APIError], [*RequestError],
// [*ValidationError]).
//
// method is an HTTP method in upper case. path is the operation's path
// under /api/v1/developer, for example "/users" or "/doors/ID/unlock"
// (a path that already starts with /api/v1/developer is taken as it is),
// and may carry a query ("/users?page_num=2&page_size=50"). An absolute
// URL, a fragment and "." or ".." segments are refused before any
// request: the token only ever goes to the client's console, under the
// API's prefix.
//
// body, when not nil, is sent as JSON: a value encoding/json encodes, or
// a [json.RawMessage] to send bytes as they are (they must be valid JSON).
//
// The answer's envelope is checked as for every typed method: a non-2xx
// status or a result code other than SUCCESS is an [*APIError], and the
// returned [Response] carries the code, message and pagination. The data
// member is decoded into v with encoding/json (nil discards it; pass a
// *[json.RawMessage] to keep its JSON text). A successful answer that is a
// file rather than JSON (an image, a CSV export) is streamed into v when v
// is an [io.Writer], and is an invalid response otherwise. A v that is both
// an io.Writer and a [json.Unmarshaler] receives either. The answer to a
// HEAD has no body: only its Response is returned.
//
// Do cannot know what a path does (PUT /doors/ID/unlock opens a door), so
// it retries as the SDK retries what acts on the physical site, or less:
// GET and HEAD are retried as every read; PUT and DELETE only after a
// failure that proves the console did not act (the connection could not
// be made, 429, 503, a busy or offline device); POST and every other
// method are sent exactly once, whatever the answer and whatever
// [RetryPolicy.RetryWrites], since a POST may have taken effect (a
// purchase, a create).
func (c *Client) Do(ctx context.Context, method, path string, body, v any) (*Response, error) {
	op := "Do " + method + " " + path
	p, q, err := rawTarget(op, method, path)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, invalidArg(op, "ctx", "must not be nil")
	}
	if raw, ok := body.(json.RawMessage); ok && !json.Valid(raw) {
		return nil, invalidArg(op, "body", "is not valid JSON")
	}
	w, _ := v.(io.Writer)
	if rv := reflect.ValueOf(v); v != nil && w == nil && (rv.Kind() != reflect.Pointer || rv.IsNil()) {
		return nil, invalidArg(op, "v", "must be nil, an io.Writer or a non-nil pointer")
	}
	ex, err := c.sendTo(rawRetry(ctx, method), method, p, q, body, w)
	if err != nil || ex.streamed || method == http.MethodHead {
		return ex.resp, err
	}
	data, err := ex.rawData()
	if err != nil {
		return ex.resp, err
	}
	if v == nil || data == nil {
		return ex.resp, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return ex.resp, ex.invalid(describeDecodeError(ex.resp, ex.raw, err))
	}
	return ex.resp, nil
}

// DoAll iterates over every record of a paged list through the SDK's one
// pager, as the typed All iterators do: path names a list read with GET
// (as for [Client.Do]), and its page_num and page_size query parameters,
// when present, give the first page and the page size ([DefaultPageSize]
// when absent); the others are sent with every page. Each record is
// yielded as the JSON text of one element of the data array.
//
// A console that caps page_size is followed at the size it serves, so no
// record is lost or yielded twice; the console's total is not trusted
// (some echo the page size in it), so the iteration ends at an empty page
// or a short page at a size the console served whole. A console that
// returns the same page twice (it ignores page_num, or does not page the
// list at all) ends the iteration with [ErrPageRepeated] (pages are
// compared by the JSON text of their first record); an answer whose data is not an array ends it
// with an [ErrInvalidResponse]. The first error is yielded with a nil
// record and ends the iteration.
func (c *Client) DoAll(ctx context.Context, path string) iter.Seq2[json.RawMessage, error] {
	op := "DoAll " + path
	fail := func(err error) iter.Seq2[json.RawMessage, error] {
		return func(yield func(json.RawMessage, error) bool) { yield(nil, err) }
	}
	p, q, err := rawTarget(op, http.MethodGet, path)
	if err != nil {
		return fail(err)
	}
	if ctx == nil {
		return fail(invalidArg(op, "ctx", "must not be nil"))
	}
	start, size := 0, 0
	for _, k := range []struct {
		name string
		dst  *int
	}{{"page_num", &start}, {"page_size", &size}} {
		if s := q.Get(k.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return fail(invalidArg(op, k.name, "must be a positive integer"))
			}
			*k.dst = n
		}
	}
	return paginate(ctx, start, size, func(r *json.RawMessage) string { return string(*r) },
		func(ctx context.Context, num, size int) (page[json.RawMessage], error) {
			pq := url.Values{}
			for k, vs := range q {
				pq[k] = vs
			}
			pq.Set("page_num", strconv.Itoa(num))
			pq.Set("page_size", strconv.Itoa(size))
			var items []json.RawMessage
			_, err := c.Do(ctx, http.MethodGet, p+"?"+pq.Encode(), nil, &items)
			var ae *APIError
			if err != nil && errors.As(err, &ae) && ae.invalid() {
				return page[json.RawMessage]{}, fmt.Errorf("%w (the data of a paged list is an array)", err)
			}
			return page[json.RawMessage]{items: items}, err
		})
}

// rawTarget validates a raw request's method and path and splits the path
// into the part under the API prefix and its query.
func rawTarget(op, method, path string) (string, url.Values, error) {
	if method == "" || strings.TrimLeft(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", nil, invalidArg(op, "method", "must be an HTTP method in upper case")
	}
	u, err := url.Parse(path)
	switch {
	case err != nil:
		return "", nil, invalidArg(op, "path", "cannot be parsed")
	case u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "":
		return "", nil, invalidArg(op, "path", "must be a path under /api/v1/developer, not a URL")
	case !strings.HasPrefix(u.Path, "/"):
		return "", nil, invalidArg(op, "path", `must start with "/"`)
	case u.Fragment != "" || strings.Contains(path, "#"):
		return "", nil, invalidArg(op, "path", "must not have a fragment")
	}
	p := u.EscapedPath()
	if p == apiPrefix {
		p = ""
	} else if strings.HasPrefix(p, apiPrefix+"/") {
		p = strings.TrimPrefix(p, apiPrefix)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return "", nil, invalidArg(op, "path", "must not have a dot segment")
		}
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return "", nil, invalidArg(op, "path", "has a query that cannot be parsed")
	}
	if len(q) == 0 {
		q = nil
	}
	return p, q, nil
}

// rawRetry marks the context of a raw request with the retry rules of
// [Client.Do]: reads as reads, PUT and DELETE as physical acts, and every
// other method sent once.
func rawRetry(ctx context.Context, method string) context.Context {
	switch method {
	case http.MethodGet, http.MethodHead:
		return ctx
	case http.MethodPut, http.MethodDelete:
		return physicalAct(ctx)
	}
	return sendOnce(ctx)
}

// rawData checks the envelope of a JSON answer, sets the Response's code,
// message and pagination, and returns the data member's JSON text (nil
// when it is missing or null).
func (ex *exchange) rawData() (json.RawMessage, error) {
	var env envelope[json.RawMessage]
	if err := json.Unmarshal(ex.raw, &env); err != nil {
		return nil, ex.invalid(describeDecodeError(ex.resp, ex.raw, err))
	}
	ex.resp.Code, ex.resp.Message, ex.resp.Pagination = env.Code, env.Msg, env.Pagination
	switch {
	case env.Code == "":
		return nil, ex.invalid(errors.New("response has no result code"))
	case !isSuccess(env.Code):
		return nil, ex.apiError(env.Code, env.Msg, nil)
	}
	if env.Data == nil || string(*env.Data) == "null" {
		return nil, nil
	}
	return *env.Data, nil
}
