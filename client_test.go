package access

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

const testToken = "N8oZJZ6U16i4mN6ZnRhw/A"

// fastRetry keeps retry tests quick: same policy shape, tiny waits.
func fastRetry() RetryPolicy {
	p := DefaultRetryPolicy()
	p.WaitMin, p.WaitMax = time.Millisecond, 2*time.Millisecond
	return p
}

// setup starts a TLS test server and returns a client for it and the mux
// serving the API; patterns are registered with the full path, e.g.
// "GET /api/v1/developer/users/{id}". Unexpected requests fail the test.
func setup(t *testing.T, opts ...Option) (*Client, *http.ServeMux, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("unexpected request %s %s", r.Method, r.URL.RequestURI())
		http.Error(w, "unexpected", http.StatusTeapot)
	})
	srv := testlog.NewTLSServer(t, mux)
	t.Cleanup(srv.Close)
	all := append([]Option{WithHTTPClient(srv.Client()), WithRetryPolicy(fastRetry())}, opts...)
	c, err := NewClient(srv.URL, testToken, all...)
	require.NoError(t, err)
	return c, mux, srv
}

// writeEnvelope writes a success envelope around data.
func writeEnvelope(t *testing.T, w http.ResponseWriter, data any) {
	t.Helper()
	w.Header().Set("Content-Type", "application/json")
	require.NoError(t, json.NewEncoder(w).Encode(map[string]any{"code": "SUCCESS", "msg": "success", "data": data}))
}

func writeRaw(w http.ResponseWriter, status int, contentType, body string) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// testHeaders checks the headers every request must carry.
func testHeaders(t *testing.T, r *http.Request, withBody bool) {
	t.Helper()
	assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	assert.Equal(t, "access-go/"+Version, r.Header.Get("User-Agent"))
	if withBody {
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	} else {
		assert.Empty(t, r.Header.Get("Content-Type"))
	}
}

func readJSONBody(t *testing.T, r *http.Request) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	return string(b)
}

func TestNewClientValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		base, token string
		opts        []Option
	}{
		"empty base":       {"", testToken, nil},
		"relative base":    {"console:12445", testToken, nil},
		"ftp scheme":       {"ftp://console", testToken, nil},
		"no host":          {"https://", testToken, nil},
		"credentials":      {"https://u:p@console", testToken, nil},
		"query":            {"https://console?x=1", testToken, nil},
		"bad escape":       {"https://console/%zz", testToken, nil},
		"empty token":      {"https://console", "  ", nil},
		"token with space": {"https://console", "a b", nil},
		"token with CRLF":  {"https://console", "a\r\nX-Evil: 1", nil},
		"nil http client":  {"https://console", testToken, []Option{WithHTTPClient(nil)}},
		"negative timeout": {"https://console", testToken, []Option{WithTimeout(-1)}},
		"UA with newline":  {"https://console", testToken, []Option{WithUserAgent("a\nb")}},
		"negative retries": {"https://console", testToken, []Option{WithRetryPolicy(RetryPolicy{MaxRetries: -1})}},
		"negative wait":    {"https://console", testToken, []Option{WithRetryPolicy(RetryPolicy{WaitMin: -1})}},
		"min above max":    {"https://console", testToken, []Option{WithRetryPolicy(RetryPolicy{WaitMin: 2, WaitMax: 1})}},
		"max size":         {"https://console", testToken, []Option{WithMaxResponseSize(0)}},
		"nil TLS config":   {"https://console", testToken, []Option{WithTLSConfig(nil)}},
		"nil root pool":    {"https://console", testToken, []Option{WithRootCAs(nil)}},
		"bad PEM":          {"https://console", testToken, []Option{WithRootCAPEM([]byte("nope"))}},
		"no pin":           {"https://console", testToken, []Option{WithPinnedCertificate()}},
		"short pin":        {"https://console", testToken, []Option{WithPinnedCertificate("abcd")}},
		"non-hex pin":      {"https://console", testToken, []Option{WithPinnedCertificate(strings.Repeat("zz", 32))}},
		"TLS on custom RT": {"https://console", testToken, []Option{WithHTTPClient(&http.Client{Transport: roundTripFunc(nil)}), WithInsecureSkipVerify()}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(tc.base, tc.token, tc.opts...)
			assert.Nil(t, c)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrValidation)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.NotContains(t, err.Error(), "a\r\nX-Evil")
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNewClientBaseURLNormalisation(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://console:12445":                    "https://console:12445",
		"https://console:12445/":                   "https://console:12445",
		"https://console:12445/api/v1/developer":   "https://console:12445",
		"https://console:12445/api/v1/developer/":  "https://console:12445",
		"https://proxy.example/access/":            "https://proxy.example/access",
		"http://127.0.0.1:8080/x/api/v1/developer": "http://127.0.0.1:8080/x",
	} {
		c, err := NewClient(in, testToken, nil) // a nil option is skipped
		require.NoError(t, err, in)
		assert.Equal(t, want, c.BaseURL(), in)
	}
}

func TestClientNeverPrintsToken(t *testing.T) {
	t.Parallel()
	c, err := NewClient("https://console:12445", testToken)
	require.NoError(t, err)
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("client", "c", c)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("client", "c", c)
	for _, s := range []string{
		fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
		fmt.Sprintf("%+v %#v", *c, *c), logs.String(),
	} {
		assert.NotContains(t, s, testToken)
		assert.NotContains(t, s, "N8oZJZ")
	}
	assert.Contains(t, c.String(), "https://console:12445")
	assert.Contains(t, logs.String(), "REDACTED")
}

func TestWithHTTPClientIsCopiedNotMutated(t *testing.T) {
	t.Parallel()
	orig := &http.Client{Timeout: 7 * time.Second}
	c, err := NewClient("https://console", testToken, WithHTTPClient(orig), WithTimeout(time.Second), WithInsecureSkipVerify())
	require.NoError(t, err)
	assert.Equal(t, 7*time.Second, orig.Timeout)
	assert.Nil(t, orig.Transport)
	assert.Nil(t, orig.CheckRedirect)
	assert.Equal(t, time.Second, c.cfg.hc.Timeout)
	assert.NotSame(t, orig, c.cfg.hc)
	assert.True(t, c.cfg.hc.Transport.(*http.Transport).TLSClientConfig.InsecureSkipVerify)
	assert.False(t, http.DefaultTransport.(*http.Transport).TLSClientConfig != nil &&
		http.DefaultTransport.(*http.Transport).TLSClientConfig.InsecureSkipVerify, "default transport must not change")
}

func TestUserAgentPrepended(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithUserAgent("door-sync/1.2"))
	mux.HandleFunc("GET /api/v1/developer/access_policies/holiday_groups", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "door-sync/1.2 access-go/"+Version, r.Header.Get("User-Agent"))
		writeEnvelope(t, w, []any{})
	})
	_, _, err := c.HolidayGroups.List(context.Background())
	require.NoError(t, err)
}

func TestBasePathPrefixKept(t *testing.T) {
	t.Parallel()
	var got string
	srv := testlog.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		writeEnvelope(t, w, []any{})
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL+"/proxy/access/", testToken, WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	_, _, err = c.HolidayGroups.List(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "/proxy/access/api/v1/developer/access_policies/holiday_groups", got)
}

func TestPathSegmentsEscaped(t *testing.T) {
	t.Parallel()
	ids := map[string]string{
		"../users/x":    "..%2Fusers%2Fx",
		"a/b":           "a%2Fb",
		"q?x=1":         "q%3Fx=1",
		"frag#1":        "frag%231",
		"100%":          "100%25",
		"with space":    "with%20space",
		"ünï/código":    "%C3%BCn%C3%AF%2Fc%C3%B3digo",
		"%2e%2e":        "%252e%252e",
		"semi;colon,@+": "semi%3Bcolon%2C@+",
	}
	for id, want := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			var uri, segment string
			mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
				uri, segment = r.URL.RequestURI(), r.PathValue("id")
				writeEnvelope(t, w, map[string]any{"id": id})
			})
			u, _, err := c.Users.Get(context.Background(), id, nil)
			require.NoError(t, err)
			assert.Equal(t, id, u.ID)
			assert.Equal(t, "/api/v1/developer/users/"+want, uri)
			assert.Equal(t, id, segment, "the server sees the id as one segment")
		})
	}
}

func TestDotSegmentIDsRejected(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	for _, id := range []string{".", ".."} {
		_, _, err := c.Users.Get(context.Background(), id, nil)
		assert.ErrorIs(t, err, ErrValidation)
	}
}

func TestNilContextRejected(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	//lint:ignore SA1012 the point of the test
	_, _, err := c.Schedules.Get(nil, "x") //nolint:staticcheck
	assert.ErrorIs(t, err, ErrValidation)
}

// errorCase is a response the server sends and what the client must make of it.
type errorCase struct {
	name        string
	status      int
	contentType string
	body        string
	code        ErrorCode
	is          []error
	isNot       []error
}

var errorCases = []errorCase{
	{name: "200 with error code", status: 200, body: `{"code":"CODE_PARAMS_INVALID","msg":"The provided parameters are invalid."}`, code: CodeParamsInvalid, is: []error{ErrInvalidParams}, isNot: []error{ErrInvalidResponse, ErrNotFound}},
	{name: "200 duplicated webhook", status: 200, body: `{"code":"CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED","msg":"The provided endpoint already exists.","data":null}`, code: CodeDeviceWebhookEndpointDuplicated, is: []error{ErrConflict}},
	{name: "200 not found code", status: 200, body: `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"nf","data":{}}`, code: CodeResourceNotFound, is: []error{ErrNotFound}},
	{name: "200 error code with odd data", status: 200, body: `{"code":"CODE_NOT_EXISTS","msg":"nf","data":"gone"}`, code: CodeNotExists, is: []error{ErrNotFound}, isNot: []error{ErrInvalidResponse}},
	{name: "400", status: 400, body: `{"code":"CODE_PARAMS_INVALID","msg":"Invalid parameters."}`, code: CodeParamsInvalid, is: []error{ErrInvalidParams}},
	{name: "401 auth code", status: 401, body: `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"bad token"}`, code: CodeAccessTokenInvalid, is: []error{ErrUnauthorized}},
	{name: "401 empty", status: 401, body: ``, is: []error{ErrUnauthorized}, isNot: []error{ErrInvalidResponse}},
	{name: "403", status: 403, body: `{"code":"CODE_UNAUTHORIZED","msg":"not allowed"}`, code: CodeUnauthorized, is: []error{ErrForbidden}},
	{name: "404 html", status: 404, contentType: "text/html", body: `<html><body>Not Found</body></html>`, is: []error{ErrNotFound}},
	{name: "400 with a not-found code", status: 400, body: `{"code":"CODE_USER_WORKER_NOT_EXISTS","msg":"The requested user does not exist."}`, code: CodeUserWorkerNotExists, is: []error{ErrNotFound}, isNot: []error{ErrInvalidParams}},
	{name: "429 with a code", status: 429, body: `{"code":"CODE_PARAMS_INVALID","msg":"slow down"}`, code: CodeParamsInvalid, is: []error{ErrRateLimited, ErrInvalidParams}},
	{name: "503 with a not-found code", status: 503, body: `{"code":"CODE_NOT_EXISTS","msg":"?"}`, code: CodeNotExists, is: []error{ErrServer, ErrNotFound}, isNot: []error{ErrRateLimited}},
	{name: "403 with an unknown code", status: 403, body: `{"code":"CODE_NEW","msg":"?"}`, code: "CODE_NEW", is: []error{ErrForbidden}},
	{name: "409", status: 409, body: `{}`, is: []error{ErrConflict}},
	{name: "unknown code passes through", status: 200, body: `{"code":"CODE_SOMETHING_NEW","msg":"new"}`, code: "CODE_SOMETHING_NEW", isNot: []error{ErrNotFound, ErrInvalidResponse, ErrServer}},
	{name: "500", status: 500, body: `{"code":"CODE_SYSTEM_ERROR","msg":"boom"}`, code: CodeSystemError, is: []error{ErrServer}},
	{name: "501 html from proxy", status: 501, contentType: "text/html", body: `<html>Not Implemented</html>`, is: []error{ErrServer}},
	{name: "200 html from proxy", status: 200, contentType: "text/html", body: `<!DOCTYPE html><html><title>Login</title></html>`, is: []error{ErrInvalidResponse}},
	{name: "200 truncated", status: 200, body: `{"code":"SUCCESS","msg":"success","data":{"id":"abc`, is: []error{ErrInvalidResponse}},
	{name: "200 empty body", status: 200, body: ``, is: []error{ErrInvalidResponse}},
	{name: "200 not an envelope", status: 200, body: `{"id":"abc"}`, is: []error{ErrInvalidResponse}},
	{name: "200 array", status: 200, body: `[1,2]`, is: []error{ErrInvalidResponse}},
	{name: "200 data wrong shape", status: 200, body: `{"code":"SUCCESS","data":"success"}`, is: []error{ErrInvalidResponse}},
	{name: "200 data missing", status: 200, body: `{"code":"SUCCESS","msg":"success"}`, is: []error{ErrInvalidResponse}},
	{name: "200 data null", status: 200, body: `{"code":"SUCCESS","msg":"success","data":null}`, is: []error{ErrInvalidResponse}},
}

func TestErrorResponses(t *testing.T) {
	t.Parallel()
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{}))
			mux.HandleFunc("GET /api/v1/developer/access_policies/schedules/{id}", func(w http.ResponseWriter, r *http.Request) {
				ct := tc.contentType
				if ct == "" {
					ct = "application/json"
				}
				writeRaw(w, tc.status, ct, tc.body)
			})
			s, resp, err := c.Schedules.Get(context.Background(), "s1")
			require.Error(t, err)
			assert.Nil(t, s)
			require.NotNil(t, resp, "resp is returned whenever there was a response")
			assert.Equal(t, tc.status, resp.StatusCode)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
			assert.Equal(t, "GET", apiErr.Method)
			assert.True(t, strings.HasSuffix(apiErr.URL, "/api/v1/developer/access_policies/schedules/s1"), apiErr.URL)
			assert.Equal(t, tc.body, string(apiErr.Body))
			assert.Equal(t, 1, apiErr.Attempts)
			for _, target := range tc.is {
				assert.ErrorIs(t, err, target)
			}
			for _, target := range tc.isNot {
				assert.NotErrorIs(t, err, target)
			}
			assert.NotContains(t, err.Error(), testToken)
			assert.Contains(t, err.Error(), fmt.Sprintf("HTTP %d", tc.status))
			assert.True(t, strings.HasPrefix(err.Error(), "access: GET "), err.Error())
			assert.Equal(t, 1, strings.Count(err.Error(), "access:"), "the package is named once: %s", err.Error())
		})
	}
}

func TestSucceedAcceptedAsSuccess(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/access_policies/schedules/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCEED","msg":"succ","data":{"id":"s1"}}`)
	})
	s, resp, err := c.Schedules.Get(context.Background(), "s1")
	require.NoError(t, err)
	assert.Equal(t, "s1", s.ID)
	assert.Equal(t, ErrorCode("SUCCEED"), resp.Code)
	assert.Equal(t, "succ", resp.Message)
}

func TestResponseBodyCapped(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithMaxResponseSize(1024))
	mux.HandleFunc("GET /api/v1/developer/access_policies/holiday_groups", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":[{"name":"`+strings.Repeat("x", 1<<20)+`"}]}`)
	})
	_, resp, err := c.HolidayGroups.List(context.Background())
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrInvalidResponse)
	assert.ErrorIs(t, err, errBodyTooLarge)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Len(t, apiErr.Body, 1024)
	assert.Equal(t, 200, resp.StatusCode)
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	var otherHits atomic.Int32
	other := testlog.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherHits.Add(1)
		t.Errorf("token leaked to another host: %q", r.Header.Get("Authorization"))
	}))
	defer other.Close()

	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/users/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/api/v1/developer/users/x", http.StatusFound)
	})
	mux.HandleFunc("GET /api/v1/developer/users/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/api/v1/developer/users/here", http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /api/v1/developer/users/here", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "Bearer "+testToken, r.Header.Get("Authorization"))
		writeEnvelope(t, w, map[string]any{"id": "here"})
	})

	_, _, err := c.Users.Get(context.Background(), "away", nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrRedirectRefused)
	var reqErr *RequestError
	require.ErrorAs(t, err, &reqErr)
	assert.Equal(t, 1, reqErr.Attempts, "a refused redirect is not retried")
	assert.Zero(t, otherHits.Load())

	u, _, err := c.Users.Get(context.Background(), "moved", nil)
	require.NoError(t, err)
	assert.Equal(t, "here", u.ID)
}

func TestTLSModes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeEnvelope(t, w, []any{})
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // rejected handshakes are the point
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cert := srv.Certificate()
	pin := CertificateFingerprint(cert.Raw)
	var colonPin []string
	for i := 0; i < len(pin); i += 2 {
		colonPin = append(colonPin, strings.ToUpper(pin[i:i+2]))
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	wrongPin := strings.Repeat("ab", 32)

	ok := map[string][]Option{
		"pinned":             {WithPinnedCertificate(pin)},
		"pinned colon upper": {WithPinnedCertificate(strings.Join(colonPin, ":"))},
		"pinned rotation":    {WithPinnedCertificate(wrongPin, pin)},
		"root pool":          {WithRootCAs(pool)},
		"root PEM":           {WithRootCAPEM(pemBytes)},
		"insecure":           {WithInsecureSkipVerify()},
		"tls config":         {WithTLSConfig(&tls.Config{RootCAs: pool})},
	}
	for name, opts := range ok {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(srv.URL, testToken, append(opts, WithRetryPolicy(fastRetry()))...)
			require.NoError(t, err)
			_, _, err = c.HolidayGroups.List(context.Background())
			require.NoError(t, err)
		})
	}
	fail := map[string]struct {
		opts []Option
		is   error
	}{
		"no trust":     {nil, nil},
		"wrong pin":    {[]Option{WithPinnedCertificate(wrongPin)}, ErrCertificateMismatch},
		"wrong pool":   {[]Option{WithRootCAs(x509.NewCertPool())}, nil},
		"pin over CA":  {[]Option{WithRootCAs(pool), WithPinnedCertificate(wrongPin)}, ErrCertificateMismatch},
		"pin insecure": {[]Option{WithInsecureSkipVerify(), WithPinnedCertificate(wrongPin)}, ErrCertificateMismatch},
	}
	for name, tc := range fail {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, err := NewClient(srv.URL, testToken, append(tc.opts, WithRetryPolicy(fastRetry()))...)
			require.NoError(t, err)
			_, resp, err := c.HolidayGroups.List(context.Background())
			require.Error(t, err)
			assert.Nil(t, resp)
			var reqErr *RequestError
			require.ErrorAs(t, err, &reqErr)
			assert.Equal(t, 1, reqErr.Attempts, "certificate failures are not retried")
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			if tc.is == ErrCertificateMismatch {
				var mm *CertificateMismatchError
				require.ErrorAs(t, err, &mm)
				sum := sha256.Sum256(srv.Certificate().Raw)
				assert.Equal(t, hex.EncodeToString(sum[:]), mm.Presented, "the presented certificate's fingerprint")
				assert.Contains(t, err.Error(), "(SHA-256 fingerprint "+mm.Presented+")")
			}
		})
	}
}

func TestLoggerOffByDefaultAndRedacted(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	c, mux, _ := setup(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var n atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/access_policies/holiday_groups", func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		writeEnvelope(t, w, []any{})
	})
	_, _, err := c.HolidayGroups.List(context.Background())
	require.NoError(t, err)
	assert.Contains(t, logs.String(), "retrying request")
	assert.NotContains(t, logs.String(), testToken)

	// A nil logger keeps logging off instead of panicking.
	c2, err := NewClient("https://console", testToken, WithLogger(nil))
	require.NoError(t, err)
	assert.Nil(t, c2.cfg.rc.Logger)
}

func writeJSON(t *testing.T, w http.ResponseWriter, v any) {
	t.Helper()
	w.Header().Set("Content-Type", "application/json")
	require.NoError(t, json.NewEncoder(w).Encode(v))
}

// TestReadBodyLimits reads bodies around the cap, with a right, a wrong or
// no Content-Length, one byte at a time and failing midway: every byte up
// to the cap is returned, a longer body is an error, and a body that fits
// is read without growing the buffer.
func TestReadBodyLimits(t *testing.T) {
	t.Parallel()
	const max = 64
	body := strings.Repeat("abcdefgh", 20) // 160 bytes
	for _, n := range []int{0, 1, 63, 64, 65, 160} {
		for _, cl := range []int64{-1, int64(n), int64(n) - 1, int64(n) + 1, 1 << 40} {
			for _, oneByte := range []bool{false, true} {
				var r io.Reader = strings.NewReader(body[:n])
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				name := fmt.Sprintf("n=%d cl=%d oneByte=%v", n, cl, oneByte)
				got, err := readBody(&http.Response{Body: io.NopCloser(r), ContentLength: cl}, max)
				if n > max {
					assert.ErrorIs(t, err, errBodyTooLarge, name)
					assert.Equal(t, body[:max], string(got), name)
					continue
				}
				require.NoError(t, err, name)
				assert.Equal(t, body[:n], string(got), name)
				if cl == int64(n) && n > 0 {
					assert.Equal(t, n+1, cap(got), name+": grown")
				}
			}
		}
	}
	got, err := readBody(&http.Response{Body: io.NopCloser(io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(io.ErrUnexpectedEOF)))}, max)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.ErrorContains(t, err, "after 3 bytes")
	assert.Equal(t, "abc", string(got))
}
