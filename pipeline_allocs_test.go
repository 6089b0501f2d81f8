package access

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// extraAllocsBudget is how many allocations per call an operation may make
// beyond its hand-written baseline (issue 24).
const extraAllocsBudget = 8

// TestOperationsAllocateLikeTheBaseline: in the default configuration,
// every single-request operation makes at most extraAllocsBudget more
// allocations per call than the hand-written call making the same request
// against the same server (what BenchmarkInterleaved reports as sdk and
// base allocations). Before issue 24's changes to the pipeline (the URL
// built in one allocation, the shared header values, the Response inside
// the exchange, the media type read without mime.ParseMediaType) 17
// operations made 9 to 15 more.
func TestOperationsAllocateLikeTheBaseline(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if !allocsMeasuredOn(runtime.Version()) {
		// The counts are the standard library's as much as ours: go1.23's
		// net/http and encoding/json allocate differently (Visitors.List made
		// 11 more than the baseline there), and the budget is measured on the
		// toolchain the figures of docs/performance.md come from.
		t.Skipf("allocation budget measured on go1.26; this is %s", runtime.Version())
	}
	// Not parallel: it counts the process's allocations.
	srv := benchServer(t)
	hc := &http.Client{Transport: srv.Client().Transport, Timeout: benchTimeout}
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(t, err)
	base := baselines(srv.URL)
	ctx := context.Background()
	for _, op := range allOps {
		manual := base[op.name]
		require.NotNil(t, manual, op.name)
		sdk := leastAllocs(10, func() {
			if _, _, err := op.call(ctx, c); err != nil {
				t.Fatal(op.name, err)
			}
		})
		baseline := leastAllocs(10, func() {
			if err := manual(ctx, hc); err != nil {
				t.Fatal(op.name, err)
			}
		})
		assert.LessOrEqual(t, sdk, baseline+extraAllocsBudget, "%s: %v allocations per call against the baseline's %v", op.name, sdk, baseline)
	}
}

// leastAllocs is the least of five testing.AllocsPerRun(runs, f): the
// count is the process's, so goroutines that other tests left behind (a
// server finishing, a timer) can only add to it.
func leastAllocs(runs int, f func()) float64 {
	least := testing.AllocsPerRun(runs, f)
	for range 4 {
		least = min(least, testing.AllocsPerRun(runs, f))
	}
	return least
}

// TestEncodeQueryLikeValuesEncode: encodeQuery writes the query exactly
// as url.Values.Encode does (sorted keys, escaping, repeated keys, empty
// values), and nothing when the query is empty.
func TestEncodeQueryLikeValuesEncode(t *testing.T) {
	t.Parallel()
	cases := []url.Values{
		nil, {}, {"a": nil}, {"a": {}}, {"page_num": {"1"}},
		{"keyword": {"Ada Lovelace & co"}, "user_id": {"u1", "u/2"}, "status": {"ACTIVE"}, "page_size": {"25"}},
		{"expand[]": {"access_policy", "nfc_card"}, "z": {""}, "": {"empty key"}, "é": {"ü?=#"}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 { // more keys than the stack array holds, too
		q := url.Values{}
		for range r.IntN(12) {
			k := string(rune('a' + r.IntN(26)))
			for range r.IntN(3) {
				q.Add(k, string([]byte{byte(' ' + r.IntN(95))}))
			}
		}
		cases = append(cases, q)
	}
	for _, q := range cases {
		assert.Equal(t, q.Encode(), encodeQuery(q), "%v", q)
	}
}

// TestNewRequestURLIsTheParsedURL: the URL newRequest builds from the
// base's parts is the one http.NewRequest would parse from the whole
// string, for escaped path segments, queries, ports and proxy prefixes;
// and the request line carries the same path.
func TestNewRequestURLIsTheParsedURL(t *testing.T) {
	t.Parallel()
	ids := []string{"u1", "a/b", "a b", "50%", "ü?#", "x+y", "a;b=c", "..", "%2F", "tab\tx"}
	queries := []url.Values{nil, {"page_num": {"2"}, "keyword": {"Ada & co"}}}
	for _, base := range []string{"https://console:12445", "http://10.0.0.1", "https://console.example:443/edge/", "https://[fe80::1]:12445",
		"https://192.168.1.1/proxy/access/integration/v1/developer", "https://console:"} {
		c, err := NewClient(base, testToken)
		require.NoError(t, err)
		for _, id := range ids {
			for _, q := range queries {
				path := "/users/" + pathSeg(id) + "/nfc_cards"
				enc := encodeQuery(q)
				whole := c.cfg.base + path
				if enc != "" {
					whole += "?" + enc
				}
				want, err := http.NewRequest("GET", whole, nil)
				require.NoError(t, err)
				got, err := c.cfg.newRequest(context.Background(), "GET", path, enc)
				require.NoError(t, err)
				assert.Equal(t, want.URL, got.URL, whole)
				assert.Equal(t, want.Host, got.Host, whole)
				assert.Equal(t, want.URL.RequestURI(), got.URL.RequestURI(), whole)
				assert.Equal(t, want.URL.String(), got.URL.String())
			}
		}
	}
	c, err := NewClient("https://console:12445", testToken)
	require.NoError(t, err)
	_, err = c.cfg.newRequest(context.Background(), "BAD METHOD", "/users", "")
	assert.Error(t, err)
}

// TestUserPoliciesOptionsQuery: the query is only_user_policies=true or
// =false when set, none when nil (as the struct tag reads).
func TestUserPoliciesOptionsQuery(t *testing.T) {
	t.Parallel()
	assert.Empty(t, (*UserPoliciesOptions)(nil).query().Encode())
	assert.Empty(t, (&UserPoliciesOptions{}).query().Encode())
	assert.Equal(t, "only_user_policies=true", (&UserPoliciesOptions{OnlyUserPolicies: Ptr(true)}).query().Encode())
	assert.Equal(t, "only_user_policies=false", (&UserPoliciesOptions{OnlyUserPolicies: Ptr(false)}).query().Encode())
}

// TestEncodeBodyLikeEncodingJSON: every request and update type of the
// package that writes its own wire form is sent byte for byte as
// encoding/json (without HTML escaping, compacted) would send it, though
// encodeBody no longer passes it through encoding/json.
func TestEncodeBodyLikeEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	bodies := []any{
		&AccessPolicyRequest{Name: "A <&> B", ScheduleID: "s1", Resources: []Resource{{ID: "d1", Type: ResourceDoor}}},
		AccessPolicyUpdate{Name: Ptr("x"), Resources: []Resource{}},
		&DoorGroupUpdate{GroupName: Ptr("test"), Resources: []string{"6ff875d2"}},
		&HolidayGroupRequest{Name: "Public", Holidays: []HolidayRequest{{Name: "Xmas", StartTime: at, EndTime: at.Add(time.Hour)}}},
		&HolidayGroupUpdate{Name: "P", Description: Ptr("")},
		&ScheduleRequest{Name: "Office"},
		&ScheduleUpdate{Name: Ptr("Office")},
		&UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com", OnboardTime: at},
		&UserUpdate{FirstName: Ptr("Ada"), Status: Ptr(UserStatusDeactivated)},
		&VisitorRequest{FirstName: "H", LastName: "L", StartTime: at, EndTime: at.Add(time.Hour), VisitReason: VisitReasonInterview},
		&VisitorUpdate{Remarks: Ptr("Parking <B&B>")},
		&WebhookEndpointUpdate{Endpoint: "https://receiver.example/hook?a=1&b=2", Name: "n", Events: []EventType{EventDoorUnlock}, Headers: map[string]string{}},
		map[string]any{"ids": []string{"u1"}, "note": "<&>"},
	}
	for _, body := range bodies {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(body), "%T", body)
		got, err := encodeBody(body)
		require.NoError(t, err, "%T", body)
		assert.Equal(t, strings.TrimSuffix(buf.String(), "\n"), string(got), "%T", body)
	}
	got, err := encodeBody((*DoorGroupUpdate)(nil))
	require.NoError(t, err)
	assert.Equal(t, "null", string(got), "a nil pointer is null, not a panic")
}

// FuzzRedactSecrets: no value under a secret-named member (one of
// secretKeys, in any case, its name escaped or not) survives redactBody
// in a body that is JSON, which stays JSON; and the pre-check redactBody
// runs before its scan never says no to a body the scan would change.
func FuzzRedactSecrets(f *testing.F) {
	for _, s := range []string{`{"code":"CODE_PARAMS_INVALID","msg":"bad"}`, `{"data":{"secret":"s3"}}`, `{"token" : "abc`,
		`{"pin_code":"1234"}`, `{"headers":{"X-Key":"v"}}`, `{"headers"  :  {`, `"secret":`, `{"Secret":"x"}`, `{"tokens":"x"}`,
		`{"password":"x"}`, `{"PassWord":"x"}`, `{"pass\u0077ord":"x"}`, `{"pin_code":1234}`, `{"api_key":["k1","k2"]}`,
		`{"secret":{"a":"b"}}`, `{"passphrase":"open sesame"}`, `{"access_token":"at","refresh_token":"rt"}`,
		`{"client_secret":"cs","private_key":"pk","authorization":"Bearer x"}`, `{"token":null,"pin":true}`,
		`[{"data":{"password":"p1","users":[{"pin_code":{"token":"t"}}]}}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := redactBody(b)
		if !mayHoldSecret(b) && !bytes.Equal(redactMembers(b), b) {
			t.Fatalf("%q: the scan changes it, the pre-check says no", b)
		}
		if !json.Valid(b) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("%q: redacted as %q, no longer JSON", b, out)
		}
		var v any
		d := json.NewDecoder(bytes.NewReader(out))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if k, left := secretLeft(v); left != nil {
			t.Fatalf("%q: redacted as %q, %q keeps %v", b, out, k, left)
		}
	})
}

// fuzzSecretNames are the member names whose values must not survive a
// redaction (compared without regard to ASCII case), written out here
// apart from the list redactBody uses.
var fuzzSecretNames = []string{"secret", "token", "pin_code", "pin", "password", "passphrase", "passwd", "api_key", "apikey",
	"access_token", "refresh_token", "client_secret", "private_key", "authorization", "headers"}

// secretLeft finds a member of v named in fuzzSecretNames whose value
// still holds something: its strings and numbers must all be "REDACTED"
// (nulls and booleans carry nothing), and a "headers" object must be
// {"REDACTED":"REDACTED"} (its names are secrets too).
func secretLeft(v any) (string, any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			name := asciiLower(k)
			if name == "headers" {
				if m, ok := e.(map[string]any); ok && (len(m) != 1 || m["REDACTED"] != "REDACTED") {
					return k, e
				}
			}
			if slices.Contains(fuzzSecretNames, name) {
				if !allRedacted(e) {
					return k, e
				}
				continue
			}
			if k, left := secretLeft(e); left != nil {
				return k, left
			}
		}
	case []any:
		for _, e := range x {
			if k, left := secretLeft(e); left != nil {
				return k, left
			}
		}
	}
	return "", nil
}

// allRedacted reports whether every string and number in v is "REDACTED".
func allRedacted(v any) bool {
	switch x := v.(type) {
	case nil, bool:
		return true
	case string:
		return x == "REDACTED"
	case map[string]any:
		for _, e := range x {
			if !allRedacted(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !allRedacted(e) {
				return false
			}
		}
		return true
	}
	return false
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestDecodeEnvelopeTouchPasses: touch passes decode as the list they are
// or as the one object a purchase answers, as TouchPasses.UnmarshalJSON
// decodes them, and data of another type is still an error.
func TestDecodeEnvelopeTouchPasses(t *testing.T) {
	t.Parallel()
	pass := `{"id":"tp1","status":"ACTIVE","card_id":"C1","expired_at":{},"activated_at":{}}`
	for _, data := range []string{`[` + pass + `,` + pass + `]`, pass, `[]`, `null`, `{}`} {
		for _, raw := range []string{
			`{"code":"SUCCESS","msg":"success","data":` + data + `,"pagination":{"page_num":1,"page_size":2,"total":3}}`,
			// A "data" inside another member, and spaces, do not mislead it.
			`{"x":{"data":[1]},"code":"SUCCESS", "data" : ` + data + `}`,
			`{"code":"SUCCESS","meta":{"data":{}},"data":` + data + `}`,
		} {
			var want, got envelope[TouchPasses]
			require.NoError(t, json.Unmarshal([]byte(raw), &want), raw)
			require.NoError(t, decodeEnvelope([]byte(raw), &got), raw)
			assert.Equal(t, want, got, raw)
		}
	}
	for _, data := range []string{`"x"`, `7`, `[1]`, `{"id":7}`} {
		raw := []byte(`{"code":"SUCCESS","data":` + data + `}`)
		var want, got envelope[TouchPasses]
		wantErr, err := json.Unmarshal(raw, &want), decodeEnvelope(raw, &got)
		assert.Equal(t, wantErr == nil, err == nil, "%s: %v / %v", data, wantErr, err)
	}
}

// allocsMeasuredOn reports whether the allocation budget applies to the
// toolchain of that runtime.Version: go1.26 and later releases (a
// development build counts too).
func allocsMeasuredOn(v string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(v, "go%d.%d", &major, &minor); err != nil {
		return true
	}
	return major > 1 || minor >= 26
}

func TestAllocsMeasuredOn(t *testing.T) {
	for v, want := range map[string]bool{"go1.23.2": false, "go1.25.9": false, "go1.26.8": true, "go1.27rc1": true, "devel go1.27-abc": true} {
		assert.Equal(t, want, allocsMeasuredOn(v), v)
	}
}
