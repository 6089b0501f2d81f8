package scim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/access-dev/access/dirsync/scim"
)

// scimError decodes an RFC 7644 error and checks its schema and that its
// status is the HTTP status as a string.
func scimError(t *testing.T, rec *httptest.ResponseRecorder, status int, scimType string) {
	t.Helper()
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	var e struct {
		Schemas  []string `json:"schemas"`
		Status   any      `json:"status"`
		ScimType string   `json:"scimType"`
		Detail   string   `json:"detail"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q: %v", rec.Body, err)
	}
	if len(e.Schemas) != 1 || e.Schemas[0] != "urn:ietf:params:scim:api:messages:2.0:Error" {
		t.Errorf("schemas %v", e.Schemas)
	}
	if s, ok := e.Status.(string); !ok || s != itoa(status) {
		t.Errorf("status %#v, want the string %q", e.Status, itoa(status))
	}
	if e.ScimType != scimType {
		t.Errorf("scimType %q, want %q (%s)", e.ScimType, scimType, e.Detail)
	}
	if e.Detail == "" {
		t.Error("no detail")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

const adaBody = `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada@example.com",
"name":{"givenName":"Ada","familyName":"Lovelace"},"active":true,
"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1001"}}`

func TestBadTokenIs401AndNeverLogged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scim.json")
	s, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var logs bytes.Buffer
	h, err := scim.NewHandler(s, scim.Config{Token: token, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []string{"", "Bearer wrong-token", "Basic " + token, "Bearer " + token + "x", "Bearer"} {
		req := httptest.NewRequest("POST", "http://scim.test/scim/v2/Users", strings.NewReader(adaBody))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		scimError(t, rec, http.StatusUnauthorized, "")
		if !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%q: WWW-Authenticate %q", auth, rec.Header().Get("WWW-Authenticate"))
		}
	}
	if rec := do(h, "GET", "/scim/v2/Users", ""); rec.Code != http.StatusOK {
		t.Fatalf("with the token: %d", rec.Code)
	}
	if logs.Len() == 0 || strings.Contains(logs.String(), token) || strings.Contains(logs.String(), "wrong-token") {
		t.Errorf("logs hold a token (or nothing):\n%s", logs.String())
	}
	if got := (scim.Config{Token: token}).String(); strings.Contains(got, token) {
		t.Errorf("Config prints its token: %s", got)
	}
	if _, err := scim.NewHandler(s, scim.Config{}); err == nil {
		t.Error("a handler without token was made")
	}
	if n := len(people2(t, s)); n != 0 {
		t.Errorf("an unauthorised push was stored: %d people", n)
	}
}

// people2 is the number of users a store holds, without needing one.
func people2(t *testing.T, s *scim.Store) []string {
	t.Helper()
	h, _ := scim.NewHandler(s, scim.Config{Token: token})
	rec := do(h, "GET", "/scim/v2/Users", "")
	var l struct{ Resources []struct{ ID string } }
	_ = json.Unmarshal(rec.Body.Bytes(), &l)
	var ids []string
	for _, r := range l.Resources {
		ids = append(ids, r.ID)
	}
	return ids
}

func TestHugeBodyIs413(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scim.json")
	s, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err := scim.NewHandler(s, scim.Config{Token: token, MaxBodyBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h) // 127.0.0.1:0
	defer srv.Close()
	huge := `{"userName":"ada@example.com","displayName":"` + strings.Repeat("A", 1<<20) + `"}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(huge)
		if chunked {
			body = io.MultiReader(body) // no length: sent chunked
		}
		req, _ := http.NewRequest("POST", srv.URL+"/scim/v2/Users", body)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		rec.Code = resp.StatusCode
		_, _ = io.Copy(rec.Body, resp.Body)
		resp.Body.Close()
		scimError(t, rec, http.StatusRequestEntityTooLarge, "")
	}
	if n := len(people2(t, s)); n != 0 {
		t.Errorf("a huge push was stored: %d people", n)
	}
}

func TestMalformedFilterIs400InvalidFilter(t *testing.T) {
	_, h, _ := newServer(t)
	for _, f := range []string{
		`userName eq`, `userName zz "a"`, `(userName eq "a"`, `userName eq "a" and`,
		`nickName eq "x"`, `password eq "x"`, `userName gt "a"`, `emails[nickName eq "x"]`,
	} {
		rec := do(h, "GET", "/scim/v2/Users?filter="+url.QueryEscape(f), "")
		t.Run(f, func(t *testing.T) { scimError(t, rec, http.StatusBadRequest, "invalidFilter") })
	}
	rec := do(h, "GET", "/scim/v2/Groups?filter="+url.QueryEscape(`userName eq "a"`), "")
	scimError(t, rec, http.StatusBadRequest, "invalidFilter")
}

// TestUnknownAttributes: attributes this service does not keep are
// ignored in a POST, a PUT and a PATCH (RFC 7644 §3.3: the service
// provider is free to ignore them) and never echoed; what is malformed
// is refused with the RFC's scimType.
func TestUnknownAttributes(t *testing.T) {
	_, h, _ := newServer(t)
	rec := do(h, "POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:example:custom"],
"userName":"ada@example.com","nickName":"Countess","x509Certificates":[{"value":"MIIB"}],"password":"hunter2",
"urn:example:custom":{"shoeSize":42},"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1001","costCenter":"42"}}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST with unknown attributes: %d %s", rec.Code, rec.Body)
	}
	for _, s := range []string{"nickName", "Countess", "hunter2", "shoeSize", "costCenter", "x509"} {
		if strings.Contains(rec.Body.String(), s) {
			t.Errorf("the answer echoes the unknown %s: %s", s, rec.Body)
		}
	}
	ada := id(1)
	for _, c := range []struct {
		body     string
		status   int
		scimType string
	}{
		{`{"Operations":[{"op":"replace","path":"nickName","value":"Ada"}]}`, 200, ""},
		{`{"Operations":[{"op":"add","path":"urn:example:custom:shoeSize","value":42}]}`, 200, ""},
		{`{"Operations":[{"op":"replace","value":{"title":"Countess","active":true}}]}`, 200, ""},
		{`{"Operations":[{"op":"replace","path":"emails[type eq","value":"x"}]}`, 400, "invalidPath"},
		{`{"Operations":[{"op":"remove"}]}`, 400, "noTarget"},
		{`{"Operations":[{"op":"move","path":"active","value":true}]}`, 400, "invalidSyntax"},
		{`{"Operations":[]}`, 400, "invalidSyntax"},
		{`{"Operations":[{"op":"replace","path":"active","value":"maybe"}]}`, 400, "invalidValue"},
		{`{"Operations":[{"op":"replace","path":"userName","value":42}]}`, 400, "invalidValue"},
		{`{"Operations":[{"op":"remove","path":"userName"}]}`, 400, "mutability"},
		{`not json`, 400, "invalidSyntax"},
	} {
		rec := do(h, "PATCH", "/scim/v2/Users/"+ada, c.body)
		if c.status == 200 {
			if rec.Code != 200 {
				t.Errorf("%s: %d %s", c.body, rec.Code, rec.Body)
			}
			continue
		}
		t.Run(c.body, func(t *testing.T) { scimError(t, rec, c.status, c.scimType) })
	}
	rec = do(h, "GET", "/scim/v2/Users/"+ada, "")
	if !strings.Contains(rec.Body.String(), `"active": true`) || strings.Contains(rec.Body.String(), "Countess") {
		t.Errorf("after the refused PATCHes: %s", rec.Body)
	}
	scimError(t, do(h, "GET", "/scim/v2/Users/nobody", ""), 404, "")
	scimError(t, do(h, "PATCH", "/scim/v2/Users/nobody", `{"Operations":[{"op":"replace","path":"active","value":false}]}`), 404, "")
	scimError(t, do(h, "DELETE", "/scim/v2/Users", ""), 405, "")
	scimError(t, do(h, "GET", "/scim/v2/Widgets", ""), 404, "")
	scimError(t, do(h, "GET", "/other", ""), 404, "")
	scimError(t, do(h, "POST", "/scim/v2/Users", `{"displayName":"no userName"}`), 400, "invalidValue")
	scimError(t, do(h, "POST", "/scim/v2/Groups", `{"displayName":"G","members":[{"value":"nobody"}]}`), 400, "invalidValue")
	scimError(t, do(h, "GET", "/scim/v2/Users?count=ten", ""), 400, "invalidValue")
}

func TestFilterAndPagination(t *testing.T) {
	_, h, _ := newServer(t)
	for i, n := range []string{"ada", "grace", "alan", "edsger", "barbara"} {
		body := `{"userName":"` + n + `@example.com","externalId":"ext-` + n + `","displayName":"` + strings.ToUpper(n) + `",
"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"10` + itoa(i) + `"}}`
		if rec := do(h, "POST", "/scim/v2/Users", body); rec.Code != 201 {
			t.Fatalf("%s: %d %s", n, rec.Code, rec.Body)
		}
	}
	type list struct {
		TotalResults, StartIndex, ItemsPerPage int
		Resources                              []struct{ UserName string }
	}
	get := func(q string) (list, []string) {
		t.Helper()
		rec := do(h, "GET", "/scim/v2/Users?"+q, "")
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		var l list
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range l.Resources {
			names = append(names, r.UserName)
		}
		return l, names
	}
	for q, want := range map[string]string{
		"startIndex=2&count=2":  "2 2 5 grace@example.com,alan@example.com",
		"startIndex=5&count=10": "5 1 5 barbara@example.com",
		"startIndex=9":          "9 0 5 ",
		"count=0":               "1 0 5 ",
		"startIndex=0&count=1":  "1 1 5 ada@example.com",
		"filter=" + url.QueryEscape(`externalId eq "ext-alan"`):                                                           "1 1 1 alan@example.com",
		"filter=" + url.QueryEscape(`externalId eq "EXT-ALAN"`):                                                           "1 0 0 ",
		"filter=" + url.QueryEscape(`displayName eq "grace"`):                                                             "1 1 1 grace@example.com",
		"filter=" + url.QueryEscape(`userName eq "EDSGER@example.com"`):                                                   "1 1 1 edsger@example.com",
		"filter=" + url.QueryEscape(`userName sw "a" and not (displayName eq "ALAN")`):                                    "1 1 1 ada@example.com",
		"filter=" + url.QueryEscape(`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "104"`): "1 1 1 barbara@example.com",
		"filter=" + url.QueryEscape(`displayName co "a"`) + "&startIndex=2&count=2":                                       "2 2 4 grace@example.com,alan@example.com",
	} {
		l, names := get(q)
		if got := itoa(l.StartIndex) + " " + itoa(l.ItemsPerPage) + " " + itoa(l.TotalResults) + " " + strings.Join(names, ","); got != want {
			t.Errorf("%s: got %q, want %q", q, got, want)
		}
	}
}

func TestDiscoveryEndpoints(t *testing.T) {
	_, h, _ := newServer(t)
	var spc struct {
		Patch, Bulk, Filter   struct{ Supported bool }
		AuthenticationSchemes []struct{ Type string }
	}
	rec := do(h, "GET", "/scim/v2/ServiceProviderConfig", "")
	if err := json.Unmarshal(rec.Body.Bytes(), &spc); err != nil || rec.Code != 200 {
		t.Fatalf("%d %v", rec.Code, err)
	}
	if !spc.Patch.Supported || spc.Bulk.Supported || !spc.Filter.Supported || len(spc.AuthenticationSchemes) != 1 || spc.AuthenticationSchemes[0].Type != "oauthbearertoken" {
		t.Errorf("ServiceProviderConfig: %+v", spc)
	}
	var l struct {
		TotalResults int
		Resources    []map[string]any
	}
	rec = do(h, "GET", "/scim/v2/ResourceTypes", "")
	_ = json.Unmarshal(rec.Body.Bytes(), &l)
	if l.TotalResults != 2 || l.Resources[0]["endpoint"] != "/Users" || l.Resources[1]["endpoint"] != "/Groups" {
		t.Errorf("ResourceTypes: %s", rec.Body)
	}
	rec = do(h, "GET", "/scim/v2/Schemas", "")
	_ = json.Unmarshal(rec.Body.Bytes(), &l)
	if l.TotalResults != 3 {
		t.Errorf("Schemas: %s", rec.Body)
	}
	for _, p := range []string{"/scim/v2/ResourceTypes/User", "/scim/v2/Schemas/" + scim.EnterpriseSchema, "/scim/v2/Schemas/" + scim.GroupSchema} {
		if rec := do(h, "GET", p, ""); rec.Code != 200 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	scimError(t, do(h, "GET", "/scim/v2/Schemas/urn:nothing", ""), 404, "")
	scimError(t, do(h, "POST", "/scim/v2/Bulk", `{}`), 501, "")
}
