package scim_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
)

// copyState copies the store's files as they are on disk now to a new
// directory and returns the copy's path: what a process killed at this
// moment would find.
func copyState(t *testing.T, path string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "scim.json")
	for _, suffix := range []string{"", ".journal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func reopen(t *testing.T, path string) *scim.Store {
	t.Helper()
	s, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestAcknowledgedPushIsDurable: each acknowledged push (users,
// externalIds, groups, memberships, a deactivation, a delete) is on disk
// when its 2xx is answered: a store opened from the files as they are
// right after the answer (the process killed there) holds it.
func TestAcknowledgedPushIsDurable(t *testing.T) {
	s, h, path := newServer(t)
	ada, grace, night := id(1), id(2), id(3)
	steps := []struct{ method, target, body string }{
		{"POST", "/scim/v2/Users", `{"userName":"ada@example.com","externalId":"ext-ada","name":{"givenName":"Ada","familyName":"Lovelace"},"emails":[{"type":"work","value":"ada@example.com"}],"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1001"}}`},
		{"POST", "/scim/v2/Users", `{"userName":"grace@example.com","externalId":"ext-grace","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1002"}}`},
		{"POST", "/scim/v2/Groups", `{"displayName":"Night shift","externalId":"ext-night"}`},
		{"PATCH", "/scim/v2/Groups/" + night, `{"Operations":[{"op":"add","path":"members","value":[{"value":"` + ada + `"},{"value":"` + grace + `"}]}]}`},
		{"PATCH", "/scim/v2/Users/" + ada, `{"Operations":[{"op":"Replace","path":"active","value":"False"}]}`},
		{"DELETE", "/scim/v2/Users/" + grace, ""},
	}
	for i, st := range steps {
		rec := do(h, st.method, st.target, st.body)
		if rec.Code/100 != 2 {
			t.Fatalf("step %d: %d %s", i+1, rec.Code, rec.Body)
		}
		want, err := s.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := reopen(t, copyState(t, path)).Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.People, want.People) || len(got.Skipped) != len(want.Skipped) {
			t.Fatalf("step %d %s %s: after a restart\n%+v\nwant\n%+v", i+1, st.method, st.target, got.People, want.People)
		}
	}
	// The final state, through a new store and handler on the same file.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := reopen(t, path)
	snap, err := s2.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.People) != 1 {
		t.Fatalf("people %+v", snap.People)
	}
	p := snap.People[0]
	if p.Key != "1001" || p.Active || p.SourceID != ada || strings.Join(p.Groups, ",") != "Night shift" || p.Email != "ada@example.com" || p.FirstName != "Ada" {
		t.Errorf("Ada after a restart: %+v", p)
	}
	h2, _ := scim.NewHandler(s2, scim.Config{Token: token})
	rec := do(h2, "GET", "/scim/v2/Groups/"+night, "")
	if body := rec.Body.String(); rec.Code != 200 || !strings.Contains(body, `"externalId": "ext-night"`) || !strings.Contains(body, ada) || strings.Contains(body, grace) {
		t.Errorf("the group after a restart: %s", body)
	}
	rec = do(h2, "GET", "/scim/v2/Users?filter=externalId+eq+%22ext-ada%22", "")
	if !strings.Contains(rec.Body.String(), `"totalResults": 1`) {
		t.Errorf("externalId after a restart: %s", rec.Body)
	}
	// A second restart (after the compaction the first one made).
	_ = s2.Close()
	if snap2, err := reopen(t, path).Read(context.Background()); err != nil || !reflect.DeepEqual(snap2.People, snap.People) {
		t.Errorf("after a second restart: %+v %v", snap2, err)
	}
}

// TestTornJournalTailIsIgnored: a line cut short by a crash (never
// acknowledged) is dropped, what came before it is kept.
func TestTornJournalTailIsIgnored(t *testing.T) {
	_, h, path := newServer(t)
	if rec := do(h, "POST", "/scim/v2/Users", adaBody); rec.Code != 201 {
		t.Fatal(rec.Code)
	}
	c := copyState(t, path)
	f, err := os.OpenFile(c+".journal", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`0badc0de {"seq":2,"del_user":"` + id(1) + `"`)
	_ = f.Close()
	snap, err := reopen(t, c).Read(context.Background())
	if err != nil || len(snap.People) != 1 || snap.People[0].Key != "1001" {
		t.Fatalf("%+v %v", snap, err)
	}
}

// TestFailedWriteIsNotAcknowledged: a change the store cannot write is
// answered 503 (an RFC 7644 error), is not made, and is not on disk; the
// store recovers at the next change.
func TestFailedWriteIsNotAcknowledged(t *testing.T) {
	s, h, path := newServer(t)
	scim.BreakJournal(s)
	scimError(t, do(h, "POST", "/scim/v2/Users", adaBody), 503, "")
	select {
	case <-s.Changed():
		t.Error("a change not made was notified")
	default:
	}
	if ids := people2(t, s); len(ids) != 0 {
		t.Errorf("the refused user is served: %v", ids)
	}
	if _, err := reopen(t, copyState(t, path)).Read(context.Background()); !errors.Is(err, dirsync.ErrEmpty) {
		t.Errorf("the refused user is on disk: %v", err)
	}
	// The next change rewrites the state and succeeds.
	rec := do(h, "POST", "/scim/v2/Users", adaBody)
	if rec.Code != 201 {
		t.Fatalf("after recovery: %d %s", rec.Code, rec.Body)
	}
	loc := strings.TrimPrefix(rec.Header().Get("Location"), "http://scim.test")
	if snap, err := reopen(t, copyState(t, path)).Read(context.Background()); err != nil || len(snap.People) != 1 {
		t.Errorf("after recovery, on disk: %+v %v", snap, err)
	}
	// A store whose recovery fails too keeps refusing.
	scim.BreakJournal(s)
	scim.BreakDir(s, filepath.Join(t.TempDir(), "missing", "scim.json"))
	scimError(t, do(h, "PATCH", loc, `{"Operations":[{"op":"replace","path":"active","value":false}]}`), 503, "")
	if rec := do(h, "GET", loc, ""); !strings.Contains(rec.Body.String(), `"active": true`) {
		t.Errorf("the refused deactivation is served: %s", rec.Body)
	}
}

func TestChangedNotifiesAfterDurableChange(t *testing.T) {
	s, h, _ := newServer(t)
	select {
	case <-s.Changed():
		t.Fatal("notified before any change")
	default:
	}
	do(h, "POST", "/scim/v2/Users", adaBody)
	do(h, "PATCH", "/scim/v2/Users/"+id(1), `{"Operations":[{"op":"replace","path":"active","value":false}]}`)
	select {
	case <-s.Changed():
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	select {
	case <-s.Changed():
		t.Fatal("two changes not yet received make two notifications")
	default:
	}
}

func TestReadAsSource(t *testing.T) {
	s, h, _ := newServer(t)
	var src dirsync.Source = s
	if src.Name() != "scim" {
		t.Errorf("name %q", src.Name())
	}
	if _, err := s.Read(context.Background()); !errors.Is(err, dirsync.ErrEmpty) {
		t.Errorf("an empty store: %v", err)
	}
	do(h, "POST", "/scim/v2/Users", adaBody)
	do(h, "POST", "/scim/v2/Users", `{"userName":"nokey@example.com"}`)
	snap, err := s.Read(context.Background())
	if err != nil || !snap.Complete || len(snap.People) != 1 || len(snap.Skipped) != 1 || snap.Skipped[0].SourceID != id(2) {
		t.Errorf("%+v %v", snap, err)
	}
	do(h, "POST", "/scim/v2/Users", `{"userName":"ada2@example.com","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1001"}}`)
	if snap, err := s.Read(context.Background()); !errors.Is(err, dirsync.ErrDuplicateKey) || snap.Complete || len(snap.People) != 0 {
		t.Errorf("two users with one key: %+v %v", snap, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Read(ctx); !errors.Is(err, dirsync.ErrIncomplete) || !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled read: %v", err)
	}
	if _, err := scim.Open(filepath.Join(t.TempDir(), "x.json"), scim.Options{Key: "mail"}); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("a bad key attribute: %v", err)
	}
	s2, err := scim.Open(filepath.Join(t.TempDir(), "x.json"), scim.Options{Key: scim.KeyUserName, Name: "okta"})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	h2, _ := scim.NewHandler(s2, scim.Config{Token: token})
	do(h2, "POST", "/scim/v2/Users", `{"userName":"nokey@example.com","active":false}`)
	if snap, err := s2.Read(context.Background()); err != nil || snap.Source != "okta" || snap.People[0].Key != "nokey@example.com" || snap.People[0].Active {
		t.Errorf("keyed by userName: %+v %v", snap, err)
	}
}

// TestCompactionKeepsEveryChange: with a compaction every two changes,
// every acknowledged change is still on disk after each answer.
func TestCompactionKeepsEveryChange(t *testing.T) {
	defer scim.SetCompactAfter(2)()
	s, h, path := newServer(t)
	for i, body := range []string{
		adaBody,
		`{"userName":"grace@example.com","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1002"}}`,
		`{"userName":"alan@example.com","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"1003"}}`,
	} {
		if rec := do(h, "POST", "/scim/v2/Users", body); rec.Code != 201 {
			t.Fatal(rec.Code)
		}
		if rec := do(h, "PATCH", "/scim/v2/Users/"+id(i+1), `{"Operations":[{"op":"replace","path":"active","value":false}]}`); rec.Code != 200 {
			t.Fatal(rec.Code)
		}
		want, _ := s.Read(context.Background())
		got, err := reopen(t, copyState(t, path)).Read(context.Background())
		if err != nil || !reflect.DeepEqual(got.People, want.People) || len(got.People) != i+1 {
			t.Fatalf("after %d users: %+v %v", i+1, got, err)
		}
	}
	if b, _ := os.ReadFile(path + ".journal"); strings.Count(string(b), "\n") >= 2 {
		t.Errorf("the journal was not compacted: %d lines", strings.Count(string(b), "\n"))
	}
}

// TestTwoProcessesNeverShareAStore: a second Open of a store that is open
// is refused (matching scim.ErrLocked) before it reads or compacts
// anything, so it cannot write over the first's acknowledged changes; once
// the first is closed, the store opens again with what it holds.
func TestTwoProcessesNeverShareAStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "scim.json")
	first, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := scim.NewHandler(first, scim.Config{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/scim/v2/Users", strings.NewReader(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"ada@example.com","externalId":"E1","name":{"givenName":"Ada","familyName":"Lovelace"},"active":true,"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":"E1"}}`))
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("Content-Type", "application/scim+json")
	h.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}
	second, err := scim.Open(path, scim.Options{})
	if !errors.Is(err, scim.ErrLocked) {
		if second != nil {
			second.Close()
		}
		t.Fatalf("a second Open of an open store = %v, want scim.ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatalf("Open after Close = %v", err)
	}
	defer again.Close()
	snap, err := again.Read(context.Background())
	if err != nil || len(snap.People) != 1 || snap.People[0].Key != "E1" {
		t.Fatalf("the reopened store reads %+v, %v; want the one user pushed", snap, err)
	}
}
