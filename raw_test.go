package access

import (
	"bytes"
	"context"
	"encoding/json"
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

// Do sends the method, path (the API prefix added or kept), query and JSON
// body as given, with the client's headers, and decodes the data member
// and the envelope's code and pagination.
func TestDoWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var got []string
	mux.HandleFunc("/api/v1/developer/users/u1/groups", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(b)+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Content-Type"))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":[{"id":"g1"}],"pagination":{"page_num":2,"page_size":1,"total":7}}`)
	})
	var data json.RawMessage
	resp, err := c.Do(context.Background(), "POST", "/users/u1/groups?b=2&a=x+y", map[string]any{"ids": []string{"g1"}}, &data)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"id":"g1"}]`, string(data))
	assert.Equal(t, CodeSuccess, resp.Code)
	assert.Equal(t, &Pagination{PageNum: 2, PageSize: 1, Total: 7}, resp.Pagination)
	assert.Equal(t, 200, resp.StatusCode)

	var groups []struct{ ID string }
	_, err = c.Do(context.Background(), "GET", "/api/v1/developer/users/u1/groups", nil, &groups)
	require.NoError(t, err)
	assert.Equal(t, "g1", groups[0].ID)
	_, err = c.Do(context.Background(), "PUT", "/users/u1/groups", json.RawMessage(` {"raw": [1, 2]} `), nil)
	require.NoError(t, err)

	assert.Equal(t, []string{
		`POST /api/v1/developer/users/u1/groups?a=x+y&b=2 {"ids":["g1"]} Bearer ` + testToken + ` application/json`,
		`GET /api/v1/developer/users/u1/groups  Bearer ` + testToken + ` `,
		`PUT /api/v1/developer/users/u1/groups {"raw":[1,2]} Bearer ` + testToken + ` application/json`,
	}, got)
}

// Bad methods, paths, bodies and targets are ValidationErrors before any
// request (setup's mux fails the test on any request).
func TestDoRefusesBadInput(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	for _, tc := range []struct{ method, path string }{
		{"get", "/users"},
		{"", "/users"},
		{"GE T", "/users"},
		{"GET", "users"},
		{"GET", ""},
		{"GET", "https://evil.example/api/v1/developer/users"},
		{"GET", "//evil.example/users"},
		{"GET", "/users/../../../proxy"},
		{"GET", "/users/%2e%2e/x"},
		{"GET", "/users/./x"},
		{"GET", "/users#frag"},
		{"GET", "/users?a=%zz"},
	} {
		_, err := c.Do(context.Background(), tc.method, tc.path, nil, nil)
		var ve *ValidationError
		require.ErrorAs(t, err, &ve, "%s %s", tc.method, tc.path)
		if tc.method == "GET" {
			for _, err := range c.DoAll(context.Background(), tc.path) {
				require.ErrorIs(t, err, ErrValidation, tc.path)
			}
		}
	}
	_, err := c.Do(context.Background(), "POST", "/users", json.RawMessage(`{"a":`), nil)
	require.ErrorIs(t, err, ErrValidation)
	var notPointer []string
	_, err = c.Do(context.Background(), "GET", "/users", nil, notPointer)
	require.ErrorIs(t, err, ErrValidation)
	//lint:ignore SA1012 a nil context is what is tested
	_, err = c.Do(nil, "GET", "/users", nil, nil) //nolint:staticcheck
	require.ErrorIs(t, err, ErrValidation)
	for _, bad := range []string{"/users?page_size=0", "/users?page_num=x"} {
		for _, err := range c.DoAll(context.Background(), bad) {
			require.ErrorIs(t, err, ErrValidation, bad)
		}
	}
}

// A POST is sent exactly once, whatever the answer (a 503, a dropped
// connection) and even with RetryWrites: it may have taken effect. PUT
// and DELETE are retried only after a failure that proves the console
// did not act (a 503), not after a dropped connection; GET after both.
func TestDoRetryRules(t *testing.T) {
	t.Parallel()
	writes := fastRetry()
	writes.RetryWrites = true
	for _, tc := range []struct {
		method  string
		drop    bool // drop the connection instead of answering 503
		policy  RetryPolicy
		request int32
	}{
		{"POST", false, fastRetry(), 1},
		{"POST", true, fastRetry(), 1},
		{"POST", false, writes, 1},
		{"POST", true, writes, 1},
		{"PATCH", false, writes, 1},
		{"PUT", false, fastRetry(), 3},
		{"PUT", true, fastRetry(), 1},
		{"DELETE", false, fastRetry(), 3},
		{"DELETE", true, fastRetry(), 1},
		{"GET", false, fastRetry(), 3},
		{"GET", true, fastRetry(), 3},
	} {
		t.Run(fmt.Sprintf("%s/drop=%v/writes=%v", tc.method, tc.drop, tc.policy.RetryWrites), func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t, WithRetryPolicy(tc.policy))
			var n atomic.Int32
			mux.HandleFunc("/api/v1/developer/doors/d1/unlock", func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				if tc.drop {
					closeConn(t, w)
					return
				}
				writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			})
			_, err := c.Do(context.Background(), tc.method, "/doors/d1/unlock", map[string]string{}, nil)
			require.Error(t, err)
			assert.Equal(t, tc.request, n.Load())
			if tc.drop {
				var re *RequestError
				require.ErrorAs(t, err, &re)
			} else {
				var ae *APIError
				require.ErrorAs(t, err, &ae)
				assert.Equal(t, 503, ae.StatusCode)
				assert.Equal(t, int(tc.request), ae.Attempts)
			}
		})
	}
}

// An error answer is an APIError with the status, code and message, its
// body's secrets redacted; neither the token nor a secret shows in the
// error's text.
func TestDoErrorsTypedAndRedacted(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/developer/webhooks/endpoints", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 400, "application/json", `{"code":"CODE_PARAMS_INVALID","msg":"bad","data":{"secret":"whsec-XYZ","headers":{"X-Auth":"hdr-XYZ"}}}`)
	})
	mux.HandleFunc("GET /api/v1/developer/users/u1", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"CODE_USER_WORKER_NOT_EXISTS","msg":"no such user"}`)
	})
	_, err := c.Do(context.Background(), "POST", "/webhooks/endpoints", map[string]string{"secret": "whsec-XYZ"}, nil)
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, 400, ae.StatusCode)
	assert.Equal(t, CodeParamsInvalid, ae.Code)
	require.ErrorIs(t, err, ErrInvalidParams)
	all := err.Error() + fmt.Sprintf("%v %+v %#v", err, ae, ae) + string(ae.Body)
	for _, secret := range []string{"whsec-XYZ", "hdr-XYZ", testToken} {
		assert.NotContains(t, all, secret)
	}
	assert.Contains(t, string(ae.Body), `"secret":"REDACTED"`)

	_, err = c.Do(context.Background(), "GET", "/users/u1", nil, nil)
	require.ErrorIs(t, err, ErrNotFound)
}

// A file answer streams into a v that is an io.Writer; without one it is
// an invalid response. A JSON answer's data goes to a v that is also a
// json.Unmarshaler.
func TestDoFile(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/visitors/v1/qr_codes", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "image/png", "\x89PNG-bytes")
	})
	mux.HandleFunc("GET /api/v1/developer/visitors/v1", func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(t, w, map[string]string{"id": "v1"})
	})
	var buf bytes.Buffer
	resp, err := c.Do(context.Background(), "GET", "/visitors/v1/qr_codes", nil, &buf)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG-bytes", buf.String())
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))

	var data json.RawMessage
	_, err = c.Do(context.Background(), "GET", "/visitors/v1/qr_codes", nil, &data)
	require.ErrorIs(t, err, ErrInvalidResponse)

	both := &writerUnmarshaler{}
	_, err = c.Do(context.Background(), "GET", "/visitors/v1", nil, both)
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"v1"}`, string(both.data))
	assert.Empty(t, both.file.String())
}

type writerUnmarshaler struct {
	file bytes.Buffer
	data json.RawMessage
}

func (w *writerUnmarshaler) Write(p []byte) (int, error) { return w.file.Write(p) }
func (w *writerUnmarshaler) UnmarshalJSON(b []byte) error {
	w.data = append(w.data[:0], b...)
	return nil
}

// DoAll ends with ErrPageRepeated on a console that ignores page_num, with
// an ErrInvalidResponse when data is no array, and sends the path's other
// query parameters with every page.
func TestDoAllErrors(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var queries []string
	mux.HandleFunc("GET /api/v1/developer/users", func(w http.ResponseWriter, r *http.Request) {
		queries = append(queries, r.URL.RawQuery)
		writeEnvelope(t, w, []map[string]string{{"id": "a"}, {"id": "b"}})
	})
	mux.HandleFunc("GET /api/v1/developer/doors/settings/emergency", func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(t, w, map[string]bool{"lockdown": false})
	})
	var got []string
	var last error
	for rec, err := range c.DoAll(context.Background(), "/users?page_size=2&expand[]=access_policy") {
		if err != nil {
			last = err
			continue
		}
		got = append(got, string(rec))
	}
	require.ErrorIs(t, last, ErrPageRepeated)
	assert.Equal(t, []string{`{"id":"a"}`, `{"id":"b"}`}, got)
	assert.Equal(t, []string{
		"expand%5B%5D=access_policy&page_num=1&page_size=2",
		"expand%5B%5D=access_policy&page_num=2&page_size=2",
	}, queries)

	for _, err := range c.DoAll(context.Background(), "/doors/settings/emergency") {
		require.ErrorIs(t, err, ErrInvalidResponse)
		assert.True(t, strings.Contains(err.Error(), "array"), err.Error())
	}
}

// The pager property test covers DoAll through pagedIterators; this
// checks the errors of DoAll are wrapped so that errors.As still finds
// the APIError.
func TestDoAllErrorIsAPIError(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/users", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 403, "application/json", `{"code":"CODE_UNAUTHORIZED","msg":"no"}`)
	})
	n := 0
	for _, err := range c.DoAll(context.Background(), "/users") {
		n++
		var ae *APIError
		require.True(t, errors.As(err, &ae))
		require.ErrorIs(t, err, ErrForbidden)
	}
	assert.Equal(t, 1, n)
}
