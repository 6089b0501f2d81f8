package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/testlog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAPI runs the command line with args against the console at url.
func runAPI(t *testing.T, getenv func(string) string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr, getenv)
	return code, stdout.String(), stderr.String()
}

// A POST through access api is sent exactly once, whether the console
// answers 503 or the connection drops after the console acted; PUT (an
// unlock) is not resent after a lost answer either. A GET is retried.
func TestAPIWritesNeverResent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		op       accesstest.Op
		fault    accesstest.Fault
		args     []string
		code     int
		requests int
	}{
		{"POST 503", accesstest.OpHolidayGroupsCreate, accesstest.Fault{Status: 503},
			[]string{"api", "-X", "POST", "/access_policies/holiday_groups", "-f", "name=Closed"}, 1, 1},
		{"POST dropped after acting", accesstest.OpHolidayGroupsCreate, accesstest.Fault{DropConnection: true, AfterHandling: true},
			[]string{"api", "/access_policies/holiday_groups", "-f", "name=Closed"}, 1, 1},
		{"PUT unlock dropped after acting", accesstest.OpDoorsUnlock, accesstest.Fault{DropConnection: true, AfterHandling: true},
			[]string{"api", "-X", "PUT", "/doors/DOOR/unlock"}, 1, 1},
		{"GET 503 once", accesstest.OpHolidayGroupsList, accesstest.Fault{Status: 503, Times: 1},
			[]string{"api", "/access_policies/holiday_groups", "--jq", "length"}, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := accesstest.New(t, accesstest.WithDemoData())
			door := srv.Doors()[0].ID
			for i, a := range tc.args {
				tc.args[i] = strings.ReplaceAll(a, "DOOR", door)
			}
			countGroups := func() int {
				gs, _, err := srv.Client().HolidayGroups.List(context.Background())
				require.NoError(t, err)
				return len(gs)
			}
			groups := countGroups()
			before := len(srv.RequestsFor(tc.op))
			srv.Inject(tc.op, tc.fault)
			code, _, stderr := runAPI(t, fakeEnv(srv, nil), tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Len(t, srv.RequestsFor(tc.op), before+tc.requests)
			if tc.op == accesstest.OpHolidayGroupsCreate && tc.fault.AfterHandling {
				srv.ClearFaults()
				assert.Equal(t, groups+1, countGroups(), "created exactly once")
			}
			assert.NotContains(t, stderr, srv.Token())
		})
	}
}

// fields: -f strings and -F typed values (and @FILE) go into a JSON body,
// or into the query with GET or --input; key[] appends and key[sub] nests.
func TestAPIFieldsWireForm(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	desc := filepath.Join(dir, "desc.txt")
	require.NoError(t, os.WriteFile(desc, []byte("from a file\n"), 0o600))
	body := filepath.Join(dir, "body.json")
	require.NoError(t, os.WriteFile(body, []byte(`{"name": "Raw"}`), 0o600))
	for _, tc := range []struct {
		args              []string
		method, query, in string
	}{
		{[]string{"/access_policies/holiday_groups", "-f", "name=42", "-F", "description=@" + desc, "-F", "n=7", "-F", "x=1.5",
			"-F", "ok=true", "-F", "no=null", "-f", "tags[]=a", "-f", "tags[]=b", "-F", "o[k]=false"},
			"POST", "", `{"name":"42","description":"from a file","n":7,"x":1.5,"ok":true,"no":null,"tags":["a","b"],"o":{"k":false}}`},
		{[]string{"/access_policies/holiday_groups?page_num=1", "-X", "get", "-f", "page_size=5", "-f", "expand[]=x"},
			"GET", "expand%5B%5D=x&page_num=1&page_size=5", ""},
		{[]string{"/access_policies/holiday_groups", "--input", body, "-f", "q=1"},
			"POST", "q=1", `{"name":"Raw"}`},
	} {
		srv := accesstest.New(t, accesstest.WithDemoData())
		code, _, stderr := runAPI(t, fakeEnv(srv, nil), append([]string{"api"}, tc.args...)...)
		require.Equal(t, 0, code, stderr)
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		assert.Equal(t, tc.method, last.Method, tc.args)
		assert.Equal(t, "/api/v1/developer/access_policies/holiday_groups", last.Path)
		assert.Equal(t, tc.query, last.Query.Encode(), tc.args)
		if tc.in == "" {
			assert.Empty(t, last.Body)
		} else {
			assert.JSONEq(t, tc.in, string(last.Body), tc.args)
		}
	}
}

// tlsConsole serves handler over TLS and returns the environment of a run
// that pins it.
func tlsConsole(t *testing.T, handler http.HandlerFunc) func(string) string {
	srv := testlog.NewTLSServer(t, handler)
	t.Cleanup(srv.Close)
	env := map[string]string{
		"ACCESS_URL":         srv.URL,
		"ACCESS_TOKEN":       "tok-api-0123456789abcdef",
		"ACCESS_FINGERPRINT": access.CertificateFingerprint(srv.Certificate().Raw),
		"ACCESS_CONFIG_DIR":  "/nonexistent-access-config",
	}
	return func(k string) string { return env[k] }
}

// --paginate yields every record exactly once, in order, from a console
// that caps page_size below what was asked for and reports no total; a
// console that ignores page_num is an error, not an endless loop.
func TestAPIPaginateExact(t *testing.T) {
	t.Parallel()
	const n, capSize = 53, 7
	var ignorePageNum atomic.Bool
	var requests atomic.Int32
	env := tlsConsole(t, func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.URL.Path != "/api/v1/developer/users" || r.Header.Get("Authorization") != "Bearer tok-api-0123456789abcdef" {
			http.Error(w, "unexpected", http.StatusTeapot)
			return
		}
		num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		size = min(size, capSize)
		if ignorePageNum.Load() {
			num = 1
		}
		recs := []map[string]any{}
		for i := (num - 1) * size; i < min(num*size, n); i++ {
			recs = append(recs, map[string]any{"id": fmt.Sprintf("u%02d", i)})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"code": "SUCCESS", "msg": "success", "data": recs})
	})
	code, stdout, stderr := runAPI(t, env, "api", "/users?page_size=20", "--paginate", "--jq", `map(.id) | join(",")`)
	require.Equal(t, 0, code, stderr)
	var want []string
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprintf("u%02d", i))
	}
	assert.Equal(t, strings.Join(want, ",")+"\n", stdout)
	assert.Equal(t, int32((n+capSize-1)/capSize), requests.Load()) // pages of 7 (the first asked for 20) to the short one

	code, stdout, stderr = runAPI(t, env, "api", "/users?page_size=3&page_num=4", "--paginate", "-o", "jsonl")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Len(t, lines, n-9)
	assert.JSONEq(t, `{"id":"u09"}`, lines[0])

	ignorePageNum.Store(true)
	code, _, stderr = runAPI(t, env, "api", "/users", "--paginate")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "same page twice")
}

// -i prints the status and headers with credential headers redacted and,
// like --debug, the body's secrets redacted; without -i the data is
// printed whole (as every command's JSON). An error never shows the
// token nor the secrets of the answer's body.
func TestAPIIncludeRedacts(t *testing.T) {
	t.Parallel()
	const tok = "tok-api-0123456789abcdef"
	env := tlsConsole(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session=COOKIE-XYZ")
		w.Header().Set("X-Api-Key", "APIKEY-XYZ")
		w.Header().Set("X-Request-Id", "req-1")
		if r.Method == http.MethodPost {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"code":"CODE_PARAMS_INVALID","msg":"bad endpoint","data":{"secret":"WHSEC-XYZ","headers":{"X-Auth":"HDR-XYZ"}}}`)
			return
		}
		fmt.Fprint(w, `{"code":"SUCCESS","msg":"success","data":[{"id":"w1","secret":"WHSEC-XYZ","headers":{"X-Auth":"HDR-XYZ"}}]}`)
	})
	secrets := []string{"COOKIE-XYZ", "APIKEY-XYZ", "WHSEC-XYZ", "HDR-XYZ", tok}

	code, stdout, stderr := runAPI(t, env, "api", "-i", "/webhooks/endpoints")
	require.Equal(t, 0, code, stderr)
	for _, s := range secrets {
		assert.NotContains(t, stdout+stderr, s)
	}
	assert.True(t, strings.HasPrefix(stdout, "HTTP/1.1 200 OK\n"), stdout)
	assert.Contains(t, stdout, "\nSet-Cookie: REDACTED\n")
	assert.Contains(t, stdout, "\nX-Api-Key: REDACTED\n")
	assert.Contains(t, stdout, "\nX-Request-Id: req-1\n")
	assert.Contains(t, stdout, `"secret": "REDACTED"`)

	code, stdout, _ = runAPI(t, env, "api", "/webhooks/endpoints", "--jq", ".[0].secret")
	require.Equal(t, 0, code)
	assert.Equal(t, "WHSEC-XYZ\n", stdout)

	code, stdout, stderr = runAPI(t, env, "api", "-i", "-X", "POST", "/webhooks/endpoints", "-F", "secret=@-")
	assert.Equal(t, 2, code, "the secret's file is stdin, which is empty: %s", stderr)
	assert.Empty(t, stdout, "nothing sent, so no status line")

	code, stdout, stderr = runAPI(t, env, "api", "-i", "-X", "POST", "/webhooks/endpoints", "--input", "-")
	assert.Equal(t, 2, code, stderr) // empty stdin is no JSON
	assert.Empty(t, stdout)

	dir := t.TempDir()
	in := filepath.Join(dir, "ep.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"secret":"WHSEC-XYZ"}`), 0o600))
	code, stdout, stderr = runAPI(t, env, "api", "-i", "--input", in, "/webhooks/endpoints")
	assert.Equal(t, 1, code) // HTTP 400 CODE_PARAMS_INVALID: an error from the console
	assert.True(t, strings.HasPrefix(stdout, "HTTP/1.1 400 Bad Request\n"), stdout)
	assert.Contains(t, stderr, "CODE_PARAMS_INVALID: bad endpoint")
	for _, s := range secrets {
		assert.NotContains(t, stdout+stderr, s)
	}
}
