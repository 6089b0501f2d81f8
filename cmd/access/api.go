package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/spf13/cobra"
)

const apiLong = `Send a request to any operation of the developer API, for what the other commands do not
cover, through the same client as every command (its console, token, pin, retries and errors).

PATH is the operation's path under /api/v1/developer (or with that prefix), with an optional
query: /users, /doors/ID/unlock, /users?page_size=100.

Fields: -f key=value adds a string, -F key=value a typed value (true, false, null, an integer or
a number; @FILE reads the value from a file, @- from stdin, as a string). key[] appends to an
array and key[sub] nests an object. With GET (the default without a body) the fields go into
the query; with any other method into a JSON object body. --input FILE (- for stdin) sends a
JSON body as it is, and the fields then go into the query. With fields or --input, the method
defaults to POST. A field that carries a secret (secret, token, password, pin_code, headers)
is never accepted as a value on the command line: give it with -F key=@FILE or in --input.

Output: the answer's data member, as JSON (-o json|jsonl|yaml|table, --jq EXPR); a file answer
(an image, a CSV export) is written to stdout as it is. --paginate fetches every page of a list
through the SDK's pager (page_size from PATH or 25; a console that caps it is followed; a
console that repeats a page is an error) and prints the records as one list. -i prints the
status line and the headers first (credentials in headers and secrets in the body redacted; a file answer is only described).

Retries: GET is retried as every read; PUT and DELETE only when the console provably did not
act (a refused connection, 429, 503, a busy device); POST and other methods are sent once.`

const apiExample = `  access --fake api /doors
  access --fake api /users --paginate --jq '.[].first_name'
  access --fake api -X PUT /doors/settings/emergency -F lockdown=false -F evacuation=false
  access --fake api -i /access_policies/holiday_groups -f name=Closed -X POST`

// apiCommand is "access api": a raw request through access.Client.Do and
// access.Client.DoAll.
func (a *app) apiCommand() *cobra.Command {
	var (
		method, input     string
		rawFields, fields []string
		paginate, include bool
	)
	cmd := &cobra.Command{
		Use:     "api PATH",
		Short:   "Send a raw request to any operation of the API",
		Long:    apiLong,
		Example: apiExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			req, err := a.apiRequest(c, args[0], method, input, rawFields, fields)
			if err != nil {
				return err
			}
			if paginate {
				if req.method != http.MethodGet || req.body != nil {
					return usageErrorf("--paginate reads a list with GET, not %s with a body", req.method)
				}
				if include {
					return usageErrorf("-i shows one answer: not with --paginate")
				}
			}
			cl, err := a.Client()
			if err != nil {
				return err
			}
			format := a.output
			if format == "" {
				format = "json"
			}
			if paginate {
				return a.emitAs(format, stream(func(yield func(any) bool) error {
					for rec, err := range cl.DoAll(c.Context(), req.target) {
						if err != nil {
							return err
						}
						if !yield(rec) {
							return nil
						}
					}
					return nil
				}), nil)
			}
			out := &apiAnswer{w: a.stdout, asJSON: a.jq != "" || a.output != "", include: include}
			resp, err := cl.Do(c.Context(), req.method, req.target, req.body, out)
			if include && resp != nil && resp.Response != nil {
				writeHead(a.stdout, resp.Response)
				if out.file && err == nil {
					fmt.Fprintf(a.stdout, "(%d bytes of %s, not shown with -i)\n", out.n, resp.Header.Get("Content-Type"))
				}
			}
			if err != nil || out.file || out.data == nil {
				return err
			}
			data := []byte(out.data)
			if include {
				data = access.RedactSecrets(data)
			}
			var v any
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			if err := d.Decode(&v); err != nil {
				return err
			}
			return a.emitAs(format, output.FixNumbers(v), nil)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&method, "method", "X", "", "the HTTP `METHOD` (default GET, or POST with fields or --input)")
	fs.StringArrayVarP(&rawFields, "raw-field", "f", nil, "add a string field `key=value`")
	fs.StringArrayVarP(&fields, "field", "F", nil, "add a typed field `key=value` (true, false, null, numbers, @FILE)")
	fs.StringVar(&input, "input", "", "send the JSON body in `FILE` (- for stdin)")
	fs.BoolVar(&paginate, "paginate", false, "fetch every page of a list and print its records as one list")
	fs.BoolVarP(&include, "include", "i", false, "print the status line and the headers before the body")
	return cmd
}

// apiReq is a raw request as the flags give it.
type apiReq struct {
	method, target string
	body           any // nil, a json.RawMessage or a map of the fields
}

// apiRequest builds the request from PATH and the flags; every mistake
// is a usage error before anything is sent.
func (a *app) apiRequest(c *cobra.Command, path, method, input string, rawFields, fields []string) (*apiReq, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, usageErrorf("PATH %q: give the path under /api/v1/developer, starting with /", path)
	}
	obj := map[string]any{}
	add := func(kv string, typed bool) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf("field %q: want key=value", kv)
		}
		val, err := a.fieldValue(k, v, typed)
		if err != nil {
			return err
		}
		return setField(obj, k, val)
	}
	for _, kv := range rawFields {
		if err := add(kv, false); err != nil {
			return nil, err
		}
	}
	for _, kv := range fields {
		if err := add(kv, true); err != nil {
			return nil, err
		}
	}
	var body any
	if input != "" {
		var b []byte
		var err error
		if input == "-" {
			b, err = io.ReadAll(a.stdin)
		} else {
			b, err = os.ReadFile(input)
		}
		if err != nil {
			return nil, usageErrorf("--input: %v", err)
		}
		if !json.Valid(b) {
			return nil, usageErrorf("--input %s is not valid JSON", input)
		}
		body = json.RawMessage(b)
	}
	hasFields := len(obj) > 0
	if method == "" {
		method = http.MethodGet
		if hasFields || input != "" {
			method = http.MethodPost
		}
	}
	method = strings.ToUpper(method)
	if method == "" || strings.TrimLeft(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return nil, usageErrorf("-X %q: want an HTTP method such as GET, POST, PUT or DELETE", method)
	}
	target := path
	if hasFields && (body != nil || method == http.MethodGet || method == http.MethodHead) {
		// The fields go into the query.
		base, rawQuery, _ := strings.Cut(path, "?")
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return nil, usageErrorf("PATH %q: the query cannot be parsed", path)
		}
		if err := queryFields(q, "", obj); err != nil {
			return nil, err
		}
		target = base + "?" + q.Encode()
	} else if hasFields {
		body = obj
	}
	return &apiReq{method: method, target: target, body: body}, nil
}

// secretFields are the fields whose values are secrets: never accepted as
// a value on the command line (the SDK redacts the same members).
var secretFields = map[string]bool{"secret": true, "token": true, "password": true, "pin_code": true, "headers": true}

// fieldValue is the value of one field: a string for -f; for -F a
// boolean, null, an integer, a number, or the content of @FILE.
func (a *app) fieldValue(key, v string, typed bool) (any, error) {
	name, _, _ := strings.Cut(key, "[")
	if secretFields[name] && !(typed && strings.HasPrefix(v, "@")) {
		return nil, usageErrorf("field %s: a secret is never accepted as a value on the command line (it would show in ps and the shell history): use -F %s=@FILE or --input FILE", key, key)
	}
	if !typed {
		return v, nil
	}
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if file, ok := strings.CutPrefix(v, "@"); ok {
		if secretFields[name] {
			return a.readSecretFile("-F "+key, file)
		}
		var b []byte
		var err error
		if file == "-" {
			b, err = io.ReadAll(a.stdin)
		} else {
			b, err = os.ReadFile(file)
		}
		if err != nil {
			return nil, usageErrorf("field %s: %v", key, err)
		}
		return strings.TrimSuffix(string(b), "\n"), nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXpPnNiI_") {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return v, nil
}

// setField sets key (name, name[], name[sub][]...) in obj.
func setField(obj map[string]any, key string, val any) error {
	name, rest, _ := strings.Cut(key, "[")
	parts := []string{name}
	if rest != "" {
		if !strings.HasSuffix(rest, "]") {
			return usageErrorf("field %q: unbalanced [", key)
		}
		parts = append(parts, strings.Split(strings.TrimSuffix(rest, "]"), "][")...)
	}
	cur := obj
	for i, p := range parts {
		last := i == len(parts)-1
		next := ""
		if !last {
			next = parts[i+1]
		}
		switch {
		case p == "":
			return usageErrorf("field %q: [] only at the end", key)
		case last:
			if _, dup := cur[p]; dup {
				return usageErrorf("field %q given twice", key)
			}
			cur[p] = val
			return nil
		case next == "" && i+1 == len(parts)-1: // name[]: an array
			arr, _ := cur[p].([]any)
			if _, exists := cur[p]; exists && arr == nil {
				return usageErrorf("field %q: %s is not an array", key, p)
			}
			cur[p] = append(arr, val)
			return nil
		default:
			m, ok := cur[p].(map[string]any)
			if !ok {
				if _, exists := cur[p]; exists {
					return usageErrorf("field %q: %s is not an object", key, p)
				}
				m = map[string]any{}
				cur[p] = m
			}
			cur = m
		}
	}
	return nil
}

// queryFields adds the fields to a query: an array as key[]=v for each
// element, an object as key[sub]=v.
func queryFields(q url.Values, prefix string, v any) error {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			name := k
			if prefix != "" {
				name = prefix + "[" + k + "]"
			}
			if err := queryFields(q, name, e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if _, nested := e.(map[string]any); nested {
				return usageErrorf("field %s: objects in an array do not fit a query", prefix)
			}
			if err := queryFields(q, prefix+"[]", e); err != nil {
				return err
			}
		}
	case nil:
		q.Add(prefix, "")
	default:
		q.Add(prefix, fmt.Sprint(x))
	}
	return nil
}

// apiAnswer receives the answer of access.Client.Do: a JSON answer's
// data member, or a file streamed to stdout (counted only with -i, whose
// status line and headers can only be written once the answer is in).
type apiAnswer struct {
	w       io.Writer
	asJSON  bool // --jq or -o asks for JSON: a file cannot be shown so
	include bool
	data    json.RawMessage
	file    bool
	n       int64
}

// UnmarshalJSON keeps the data member's JSON text.
func (r *apiAnswer) UnmarshalJSON(b []byte) error {
	r.data = append(r.data[:0], b...)
	return nil
}

// Write writes a file answer to stdout.
func (r *apiAnswer) Write(p []byte) (int, error) {
	if r.asJSON {
		return 0, errors.New("the answer is a file, not JSON: --jq and -o do not apply")
	}
	r.file = true
	r.n += int64(len(p))
	if r.include {
		return len(p), nil
	}
	return r.w.Write(p)
}

// credentialHeaders are the headers whose values -i never prints.
var credentialHeaders = map[string]bool{
	"Authorization": true, "Proxy-Authorization": true, "Cookie": true, "Set-Cookie": true,
	"X-Api-Key": true, "X-Auth-Token": true, "Www-Authenticate": true,
}

// writeHead writes the status line and the headers of an answer, sorted,
// with the values of credential headers (and any header whose name says
// token, secret or key) redacted.
func writeHead(w io.Writer, resp *http.Response) {
	fmt.Fprintf(w, "%s %s\n", resp.Proto, resp.Status)
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		lk := strings.ToLower(k)
		secret := credentialHeaders[k] || strings.Contains(lk, "token") || strings.Contains(lk, "secret") ||
			strings.Contains(lk, "signature") || strings.HasSuffix(lk, "-key")
		for _, v := range resp.Header[k] {
			if secret {
				v = "REDACTED"
			}
			fmt.Fprintf(w, "%s: %s\n", k, v)
		}
	}
	fmt.Fprintln(w)
}
