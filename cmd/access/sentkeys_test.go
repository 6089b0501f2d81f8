package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/testlog"
)

// TestJSONOutputHasNoUnsentZeroes: a console that leaves members out of a
// user (employee number, onboarding time, status…) gets them left out of
// -o json too, where the SDK's type would write "", 0 or false; a member
// the console sent, empty or not, stays, in the console's order; a table
// is unchanged.
func TestJSONOutputHasNoUnsentZeroes(t *testing.T) {
	t.Parallel()
	const id = "3e763e5d-6804-437d-ae8d-3fee74119b80"
	srv := testlog.NewTLSServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":{"id":"`+id+`","first_name":"Ada","last_name":"","user_email":"ada@example.com","status":"ACTIVE"}}`)
	}))
	defer srv.Close()
	env := map[string]string{"ACCESS_URL": srv.URL, "ACCESS_TOKEN": "t0ken", "ACCESS_CONFIG_DIR": t.TempDir(),
		"ACCESS_FINGERPRINT": access.CertificateFingerprint(srv.Certificate().Raw)}
	out := func(args ...string) string {
		t.Helper()
		var o, e bytes.Buffer
		if code := run(context.Background(), args, strings.NewReader(""), &o, &e, func(k string) string { return env[k] }); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, &e)
		}
		return o.String()
	}
	want := `{
  "id": "` + id + `",
  "first_name": "Ada",
  "last_name": "",
  "user_email": "ada@example.com",
  "status": "ACTIVE"
}
`
	if got := out("users", "get", id, "-o", "json"); got != want {
		t.Errorf("-o json:\n%s\nwant\n%s", got, want)
	}
	if got := out("users", "get", id, "-o", "yaml"); strings.Contains(got, "employee_number") || strings.Contains(got, "onboard_time") {
		t.Errorf("-o yaml holds members the console did not send:\n%s", got)
	}
	if got := out("users", "get", id, "-o", "table"); !strings.Contains(got, "employee_number:") {
		t.Errorf("the table lost a column:\n%s", got)
	}
}

// TestKeyScanner: the member names of a body read in pieces of any size,
// not the strings that are values, nor escaped or overlong ones.
func TestKeyScanner(t *testing.T) {
	t.Parallel()
	body := `{"a":"b:","list":[{"x" : 1},"y",{"z":{"\"q":2}}],"` + strings.Repeat("k", 200) + `":0,"end":"x"}`
	for _, size := range []int{1, 3, 7, len(body)} {
		s := &sentKeys{}
		k := &keyScanner{rc: io.NopCloser(strings.NewReader(body)), set: s, seen: map[string]bool{}}
		buf := make([]byte, size)
		for {
			if _, err := k.Read(buf); err != nil {
				break
			}
		}
		for _, name := range []string{"a", "list", "x", "z", "end"} {
			if !s.has(name) {
				t.Errorf("read by %d: %q not noted", size, name)
			}
		}
		for _, name := range []string{"b:", "y", "\"q", `\"q`, strings.Repeat("k", 200)} {
			if s.has(name) {
				t.Errorf("read by %d: %q noted", size, name)
			}
		}
		if len(s.keys) != 5 {
			t.Errorf("read by %d: noted %v, want 5 names", size, s.keys)
		}
	}
}

// BenchmarkAnswerRead reads a page of 1,000 users as the SDK does, plain
// (the baseline) and through the keyScanner that notes member names with
// the result pruned, the two in turn in every iteration so that both see
// the same machine load; it reports the second's time as a share of the
// first's (noted/plain).
func BenchmarkAnswerRead(b *testing.B) {
	srv := accesstest.New(b, accesstest.WithDemoData())
	var users []access.User
	for u, err := range srv.Client().Users.All(context.Background(), nil) {
		if err != nil {
			b.Fatal(err)
		}
		users = append(users, u)
	}
	for len(users) < 1000 {
		users = append(users, users...)
	}
	body, err := json.Marshal(map[string]any{"code": "SUCCESS", "msg": "success", "data": users[:1000]})
	if err != nil {
		b.Fatal(err)
	}
	read := func(rc io.Reader) []access.User {
		var env struct{ Data []access.User }
		if err := json.NewDecoder(rc).Decode(&env); err != nil || len(env.Data) != 1000 {
			b.Fatal(err)
		}
		return env.Data
	}
	s := &sentKeys{}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	var plain, noted time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		read(bytes.NewReader(body))
		plain += time.Since(start)
		start = time.Now()
		us := read(&keyScanner{rc: io.NopCloser(bytes.NewReader(body)), set: s, seen: map[string]bool{}})
		if s.pruneResult(us) == nil {
			b.Fatal("nothing")
		}
		noted += time.Since(start)
	}
	b.ReportMetric(float64(noted)/float64(plain), "noted/plain")
}
