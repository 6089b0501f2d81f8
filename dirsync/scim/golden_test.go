package scim_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const token = "s3cret-scim-token"

// id is the n-th id a deterministic store gives.
func id(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

// newServer opens a store in a temporary directory with a deterministic
// clock and ids and a handler on it.
func newServer(t *testing.T) (*scim.Store, http.Handler, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scim.json")
	s, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	scim.SetDeterministic(s, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	h, err := scim.NewHandler(s, scim.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return s, h, path
}

// step is one request of a vendor's sequence, as the vendor sends it.
type step struct {
	method, target, body string
	status               int
}

// do sends one request to h and returns the recorder.
func do(h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "http://scim.test"+target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/scim+json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// run plays steps against h, checks each status, and returns the
// transcript: each request and its answer.
func run(t *testing.T, h http.Handler, steps []step) []byte {
	t.Helper()
	var out bytes.Buffer
	for i, st := range steps {
		rec := do(h, st.method, st.target, st.body)
		if rec.Code != st.status {
			t.Errorf("step %d %s %s: status %d, want %d\n%s", i+1, st.method, st.target, rec.Code, st.status, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); rec.Code != http.StatusNoContent && ct != "application/scim+json" {
			t.Errorf("step %d: Content-Type %q", i+1, ct)
		}
		fmt.Fprintf(&out, "> %s %s\n", st.method, st.target)
		if st.body != "" {
			fmt.Fprintf(&out, "%s\n", strings.TrimSpace(st.body))
		}
		fmt.Fprintf(&out, "< %d\n", rec.Code)
		if loc := rec.Header().Get("Location"); loc != "" {
			fmt.Fprintf(&out, "< Location: %s\n", loc)
		}
		out.Write(rec.Body.Bytes())
		out.WriteString("\n")
	}
	return out.Bytes()
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("transcript differs from %s (run with -update and review the diff):\n%s", path, got)
	}
}

func people(t *testing.T, s *scim.Store) map[string]dirsync.Person {
	t.Helper()
	snap, err := s.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Complete {
		t.Fatalf("snapshot not complete: %s", snap.Summary())
	}
	m := map[string]dirsync.Person{}
	for _, p := range snap.People {
		m[p.Key] = p
	}
	return m
}

// TestEntraSequence plays Microsoft Entra's provisioning requests, in
// the forms its guide gives: a filter before a create, the enterprise
// extension, a capitalised "Replace" with the string boolean "False",
// an Add on emails[type eq "work"].value, a Replace without path whose
// value is an object of paths, a group looked up with
// excludedAttributes=members, members added and removed by filter, and a
// DELETE after the soft delete.
func TestEntraSequence(t *testing.T) {
	s, h, _ := newServer(t)
	ada, grace, night := id(1), id(2), id(3)
	steps := []step{
		{"GET", `/scim/v2/Users?filter=userName+eq+%22ada%40example.com%22`, "", 200},
		{"POST", "/scim/v2/Users", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
  "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  "userName": "ada@example.com",
  "active": true,
  "displayName": "Ada Lovelace",
  "emails": [{"primary": true, "type": "work", "value": "ada@example.com"}],
  "meta": {"resourceType": "User"},
  "name": {"formatted": "Ada Lovelace", "familyName": "Lovelace", "givenName": "Ada"},
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "1001", "department": "Engineering"}
}`, 201},
		{"GET", `/scim/v2/Users?filter=userName+eq+%22grace%40example.com%22`, "", 200},
		{"POST", "/scim/v2/Users", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
  "externalId": "5c9b1f7e-3d0e-4c55-9d3b-2f6f5f1f0a11",
  "userName": "grace@example.com",
  "active": true,
  "emails": [{"primary": true, "type": "work", "value": "grace@example.com"}],
  "name": {"familyName": "Hopper", "givenName": "Grace"},
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "1002"}
}`, 201},
		{"PATCH", "/scim/v2/Users/" + ada, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [
    {"op": "Add", "path": "emails[type eq \"work\"].value", "value": "ada.lovelace@example.com"},
    {"op": "Replace", "value": {"displayName": "Ada King", "name.givenName": "Augusta Ada", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department": "Research"}}
  ]
}`, 200},
		{"GET", `/scim/v2/Groups?excludedAttributes=members&filter=displayName+eq+%22Night+shift%22`, "", 200},
		{"POST", "/scim/v2/Groups", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
  "displayName": "Night shift",
  "meta": {"resourceType": "Group"}
}`, 201},
		{"PATCH", "/scim/v2/Groups/" + night, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "Add", "path": "members", "value": [{"value": "` + ada + `"}, {"value": "` + grace + `"}]}]
}`, 200},
		{"GET", `/scim/v2/Groups?excludedAttributes=members&filter=displayName+eq+%22Night+shift%22`, "", 200},
		{"PATCH", "/scim/v2/Groups/" + night, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "Remove", "path": "members[value eq \"` + grace + `\"]"}]
}`, 200},
		{"PATCH", "/scim/v2/Users/" + ada, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`, 200},
	}
	golden(t, "entra.golden", run(t, h, steps))

	p := people(t, s)
	if a := p["1001"]; a.Active || a.FirstName != "Augusta Ada" || a.LastName != "Lovelace" ||
		a.Email != "ada.lovelace@example.com" || strings.Join(a.Groups, ",") != "Night shift" || a.SourceID != ada || a.InactiveReason == "" {
		t.Errorf("Ada after the soft delete: %+v", a)
	}
	if g := p["1002"]; !g.Active || len(g.Groups) != 0 || g.Email != "grace@example.com" {
		t.Errorf("Grace: %+v", g)
	}

	// The hard delete after the soft delete.
	if rec := do(h, "DELETE", "/scim/v2/Users/"+ada, ""); rec.Code != http.StatusNoContent || rec.Body.Len() != 0 {
		t.Fatalf("DELETE: %d %s", rec.Code, rec.Body)
	}
	if rec := do(h, "GET", "/scim/v2/Users/"+ada, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET after DELETE: %d", rec.Code)
	}
	rec := do(h, "GET", "/scim/v2/Groups/"+night, "")
	if strings.Contains(rec.Body.String(), ada) {
		t.Errorf("the deleted user is still a member: %s", rec.Body)
	}
	if p := people(t, s); len(p) != 1 || p["1002"].Key == "" {
		t.Errorf("people after the delete: %+v", p)
	}
}

// TestOktaSequence plays Okta's provisioning requests: a filter with
// startIndex=1&count=100 before a create, the create (with a password
// and attributes this service does not keep, which are ignored), a GET,
// a PUT of the whole user with "active": false (a JSON boolean), a
// create again of the same userName (409 uniqueness), and group push:
// POST /Groups and PATCH with lower-case ops.
func TestOktaSequence(t *testing.T) {
	s, h, _ := newServer(t)
	ada, night := id(1), id(2)
	steps := []step{
		{"GET", `/scim/v2/Users?filter=userName%20eq%20%22ada%40example.com%22&startIndex=1&count=100`, "", 200},
		{"POST", "/scim/v2/Users", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
  "userName": "ada@example.com",
  "name": {"givenName": "Ada", "familyName": "Lovelace"},
  "emails": [{"primary": true, "value": "ada@example.com", "type": "work"}],
  "displayName": "Ada Lovelace",
  "locale": "en-US",
  "externalId": "00u1abcdEFGHijkl0h7",
  "groups": [],
  "password": "1mP0ssible!",
  "active": true,
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "1001"}
}`, 201},
		{"GET", "/scim/v2/Users/" + ada, "", 200},
		{"PUT", "/scim/v2/Users/" + ada, `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
  "id": "` + ada + `",
  "userName": "ada@example.com",
  "name": {"givenName": "Ada", "familyName": "Lovelace"},
  "emails": [{"primary": true, "value": "ada@example.com", "type": "work"}],
  "displayName": "Ada Lovelace",
  "locale": "en-US",
  "externalId": "00u1abcdEFGHijkl0h7",
  "groups": [],
  "active": false,
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "1001"},
  "meta": {"resourceType": "User"}
}`, 200},
		{"POST", "/scim/v2/Users", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
  "userName": "ADA@example.com",
  "name": {"givenName": "Ada", "familyName": "Lovelace"},
  "active": true
}`, 409},
		{"POST", "/scim/v2/Groups", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  "displayName": "Night shift",
  "members": []
}`, 201},
		{"PATCH", "/scim/v2/Groups/" + night, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "replace", "value": {"id": "` + night + `", "displayName": "Night shift crew"}}]
}`, 200},
		{"PATCH", "/scim/v2/Groups/" + night, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "add", "path": "members", "value": [{"value": "` + ada + `", "display": "ada@example.com"}]}]
}`, 200},
		{"GET", `/scim/v2/Users?filter=userName%20eq%20%22ada%40example.com%22&startIndex=1&count=100`, "", 200},
		{"PATCH", "/scim/v2/Groups/" + night, `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "remove", "path": "members[value eq \"` + ada + `\"]"}]
}`, 200},
	}
	golden(t, "okta.golden", run(t, h, steps))
	p := people(t, s)
	if a := p["1001"]; a.Active || a.FirstName != "Ada" || a.Email != "ada@example.com" || len(a.Groups) != 0 {
		t.Errorf("Ada after the PUT with active false: %+v", a)
	}
}
