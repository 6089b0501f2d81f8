package doctorcmd

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/access-dev/access/internal/redact"
	"github.com/stretchr/testify/require"
)

// transportFunc is an http.RoundTripper of a function.
type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRedactor: the redaction of strings and CSV answers, on values that
// no personal key gave (so only the rule under test can catch them).
func TestRedactor(t *testing.T) {
	t.Parallel()
	rd := &redactor{known: []string{"Ada Lovelace", "Ünal", "Ada"}}
	for in, want := range map[string]string{
		// JSON inside a string: its personal and secret members.
		`{"actor_id":"42","actor_name":"Charles Babbage","pin_code":"975310","count":1.50,"n":2}`: `{"actor_id":"42","actor_name":"REDACTED","count":1.50,"n":"REDACTED","pin_code":"REDACTED"}`,
		` [{"email":"x"}]`: `[{"email":"REDACTED"}]`,
		`{not json`:        `{not json`,
		// URLs: the scheme and host (with the port) stay; userinfo goes,
		// whatever follows the host is REDACTED.
		`post to https://u:p4ss@hooks.example.net:8443/a/b?apikey=S3CR3T&apikey=2&team=x#tok=1 now`: `post to https://hooks.example.net:8443/REDACTED now`,
		`http://127.0.0.1/plain`:                 `http://127.0.0.1/REDACTED`,
		`https://x.test/`:                        `https://x.test`,
		`https://x.test/users/c.b@example.org/a`: `https://x.test/REDACTED`,
		// Emails anywhere.
		`mail charles.b@example.org today`: `mail REDACTED today`,
		// Known values, as whole words only, longest first.
		`Ada Lovelace and Ada opened; Adamant, Ada_x, xAda stay`: `REDACTED and REDACTED opened; Adamant, Ada_x, xAda stay`,
		`Ünal, ÜnalÖ`: `REDACTED, ÜnalÖ`,
		// Card numbers in a console's message; words stay.
		`Access Granted (NFC); NFC card, NFC added; NFC 04:c0:ff:ee, NFC 100001: denied`: `Access Granted (NFC); NFC card, NFC added; NFC REDACTED, NFC REDACTED: denied`,
	} {
		if got := rd.text(in); got != want {
			t.Errorf("text(%q)\n got %q\nwant %q", in, got, want)
		}
	}

	got, ok := rd.csv([]byte("Time,Message,Actor,Actor Type,User Email,Door\n1,Charles Babbage came with Ada,Charles Babbage,user,c@example.org,Main\n2,,,,,\n"))
	require.True(t, ok)
	require.Equal(t, "Time,Message,Actor,Actor Type,User Email,Door\n1,Charles Babbage came with REDACTED,REDACTED,user,REDACTED,Main\n2,,,,,\n", string(got))
	_, ok = rd.csv([]byte("a,\"b\n"))
	require.False(t, ok)
}

// TestRedactorAllowList: every member outside the allow-list is redacted
// (the personal ones the issue names, and one the SDK does not know),
// endpoint URLs keep their scheme and host, the shape of the answer and
// the safe members stay.
func TestRedactorAllowList(t *testing.T) {
	t.Parallel()
	in := `{"code":"SUCCESS","data":[{"id":"u1","status":"ACTIVE","employee_number":"E-123","onboard_time":1700000000,
"license_plates":[{"id":"p1","credential":"KX4521Q","credential_type":"license","credential_status":"active"}],
"nfc_cards":[{"token":"t0k","note":"spare for the night guard","type":"ua_card"}],
"visitor_company":"Fabrikam","remarks":"Needs a parking space","visit_reason":"Interview","notes":["n1"],
"endpoint":"https://hooks.slack.com/services/T000/B000/XXXX","firmware_channel":"beta","flag":true,"nothing":null,"empty":"","unknown_n":7}],"msg":"success"}`
	rd := newRedactor([]probe{{raw: []exchange{{raw: []byte(in)}}}})
	var got any
	require.NoError(t, json.Unmarshal(rd.json([]byte(in)), &got))
	var want any
	require.NoError(t, json.Unmarshal([]byte(`{"code":"SUCCESS","data":[{"id":"u1","status":"ACTIVE","employee_number":"REDACTED","onboard_time":1700000000,
"license_plates":[{"id":"p1","credential":"REDACTED","credential_type":"license","credential_status":"active"}],
"nfc_cards":[{"token":"REDACTED","note":"REDACTED","type":"ua_card"}],
"visitor_company":"REDACTED","remarks":"REDACTED","visit_reason":"REDACTED","notes":["REDACTED"],
"endpoint":"https://hooks.slack.com/REDACTED","firmware_channel":"REDACTED","flag":true,"nothing":null,"empty":"","unknown_n":"REDACTED"}],"msg":"success"}`), &want))
	require.Equal(t, want, got)
	// The personal values are redacted in kept text too.
	require.Equal(t, "REDACTED of REDACTED parked REDACTED", rd.text("E-123 of Fabrikam parked KX4521Q"))
}

// TestRedactorCollects: the values under personal keys of any answer,
// inside JSON strings too, are redacted wherever they appear.
func TestRedactorCollects(t *testing.T) {
	t.Parallel()
	rd := newRedactor([]probe{
		{raw: []exchange{{raw: []byte(`{"data":[{"full_name":"Charles Babbage","id":"{\"actor_name\":\"Mary Somerville\"}","pin_code":{"token":"a1b2c3d4"},"n":"x"}]}`)}}},
		{raw: []exchange{{raw: []byte(`not json`)}}},
	})
	require.Equal(t, []string{"Charles Babbage", "Mary Somerville", "a1b2c3d4"}, rd.known)
	require.Equal(t, "REDACTED met REDACTED at /tokens/REDACTED", rd.text("Charles Babbage met Mary Somerville at /tokens/a1b2c3d4"))
}

// TestRecorderPassesLargeAnswersWhole: an answer over maxCaptured is not
// kept, and the caller still reads every byte of it (it was cut at 8 MiB).
func TestRecorderPassesLargeAnswersWhole(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("x"), maxCaptured+10)
	r := &recorder{}
	rt := r.wrap(transportFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/csv"}}, Body: io.NopCloser(bytes.NewReader(big))}, nil
	}))
	req, _ := http.NewRequest(http.MethodPost, "https://console/api/v1/developer/system/logs/export", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || len(got) != len(big) {
		t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(big))
	}
	ex := r.take()
	if len(ex) != 1 || ex[0].raw != nil || !strings.Contains(ex[0].Text, "not captured") {
		t.Fatalf("recorded %+v", ex)
	}
}

// TestCaptureSharesTheAllowList: a capture keeps the values of the
// members redact.Kept accepts (the allow-list of ids, times and known
// enumerations access fake record pseudonymises by: one list for both),
// besides them only the envelope, paging, counts and the console's
// messages, and redacts the rest.
func TestCaptureSharesTheAllowList(t *testing.T) {
	t.Parallel()
	for what, l := range redact.Members() {
		for _, m := range l {
			if !keptKey(m) {
				t.Errorf("%s %s: kept by access fake record, redacted by a capture", what, m)
			}
		}
	}
	for _, m := range []string{"msg", "data", "pagination", "page_num", "page_size", "total", "count", "display_message", "error_msg"} {
		if !keptKey(m) || redact.Kept(m) && m != "code" {
			t.Errorf("%s: kept %v by a capture, %v by the shared list", m, keptKey(m), redact.Kept(m))
		}
	}
	for _, m := range []string{"name", "full_name", "device_name", "visitor_company", "remarks", "visit_reason", "card_id", "display_id",
		"token", "employee_number", "a_member_added_later"} {
		if keptKey(m) {
			t.Errorf("%s kept by a capture", m)
		}
	}
}
