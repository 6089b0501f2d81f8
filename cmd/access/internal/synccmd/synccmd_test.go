package synccmd

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
)

const scimToken = "scim-test-token-0123456789"

// people are the directory's people: key, given and family name.
var people = [][3]string{{"E1", "Ada", "Lovelace"}, {"E2", "Ben", "Hall"}, {"E3", "Chloe", "Martin"}}

// console is a fake console holding the people (Ben with an NFC card) and
// Gus, a guard with no employee number (outside the scope).
func console(t *testing.T) (*accesstest.Server, map[string]string) {
	t.Helper()
	srv := accesstest.New(t)
	ids := map[string]string{}
	for _, p := range people {
		u := access.User{FirstName: p[1], LastName: p[2], EmployeeNumber: p[0], UserEmail: strings.ToLower(p[1]) + "@example.com"}
		if p[0] == "E2" {
			u.NFCCards = []access.NFCCard{{ID: "100042", Token: "tok-100042"}}
		}
		ids[p[0]] = srv.AddUser(u).ID
	}
	ids["gus"] = srv.AddUser(access.User{FirstName: "Gus", LastName: "Guard", UserEmail: "gus@example.com"}).ID
	srv.ResetRequests()
	return srv, ids
}

// scimDo sends one SCIM request to h and returns the answer's body.
func scimDo(t testing.TB, h http.Handler, method, target, body string) []byte {
	t.Helper()
	req := httptest.NewRequest(method, "http://scim.test"+scim.Prefix+target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+scimToken)
	req.Header.Set("Content-Type", "application/scim+json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

func userBody(key, given, family string, active bool) string {
	return fmt.Sprintf(`{"schemas":[%q,%q],"userName":"%s@example.com","name":{"givenName":%q,"familyName":%q},"emails":[{"value":"%s@example.com","type":"work"}],"active":%v,%q:{"employeeNumber":%q}}`,
		scim.UserSchema, scim.EnterpriseSchema, strings.ToLower(given), given, family, strings.ToLower(given), active, scim.EnterpriseSchema, key)
}

const deactivate = `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`

// pushed fills the store at path with the people, as an identity provider
// would, and deactivates the keys given; it returns the SCIM ids by key.
func pushed(t *testing.T, path string, leavers ...string) map[string]string {
	t.Helper()
	st, err := scim.Open(path, scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	h, err := scim.NewHandler(st, scim.Config{Token: scimToken})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, p := range people {
		var u struct{ ID string }
		if err := json.Unmarshal(scimDo(t, h, "POST", "/Users", userBody(p[0], p[1], p[2], true)), &u); err != nil {
			t.Fatal(err)
		}
		ids[p[0]] = u.ID
	}
	for _, k := range leavers {
		scimDo(t, h, "PATCH", "/Users/"+ids[k], deactivate)
	}
	return ids
}

// writeConfig writes a configuration with the SCIM store of dir and the
// given extra lines for the source.
func writeConfig(t testing.TB, dir, extra string) string {
	t.Helper()
	p := filepath.Join(dir, "sync.yaml")
	body := "evidence: evidence.jsonl\nsources:\n  - name: okta\n    scim:\n      store: store.jsonl\n      token_env: SCIM_TOKEN\n    scope:\n      employee_number: true\n" + extra
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const openGuard = "    guard:\n      max_deactivate_share: 100\n"

// factory is a Factory on srv with the given streams.
func factory(srv *accesstest.Server, out, errOut io.Writer) *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: cmdutil.IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut},
		Getenv:    func(k string) string { return map[string]string{"SCIM_TOKEN": scimToken}[k] },
		Client:    func() (*access.Client, error) { return srv.Client(), nil },
	}
}

// run runs access sync with args; it returns stdout, stderr and the
// exit code the error carries (0, 1 for an error without one).
func run(t *testing.T, srv *accesstest.Server, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := New(factory(srv, &out, &errOut))
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	c.SilenceUsage, c.SilenceErrors = true, true
	err := c.ExecuteContext(context.Background())
	return out.String(), errOut.String() + errString(err), exitCode(err)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func exitCode(err error) int {
	var ee interface{ ExitCode() int }
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return 1
}

// writes are the console requests that change something.
func writes(srv *accesstest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func status(t *testing.T, srv *accesstest.Server, id string) access.UserStatus {
	t.Helper()
	u, ok := srv.User(id)
	if !ok {
		t.Fatalf("user %s gone", id)
	}
	return u.Status
}

// TestOncePrintsThePlan: --once prints the plan as access plan prints
// one, with the leaver's credentials, and writes nothing; with
// --detailed-exitcode it exits 5.
func TestOncePrintsThePlan(t *testing.T) {
	srv, _ := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E2")
	cfg := writeConfig(t, dir, openGuard)
	out, errOut, code := run(t, srv, "--config", cfg, "--once")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "users (prune):\n  - E2 Ben Hall (deactivate)\n      status: \"ACTIVE\" -> \"DEACTIVATED\"\n\n0 to create, 0 to change, 1 to deactivate"
	if !strings.HasPrefix(out, want) || !strings.Contains(out, "credentials (revoke):\n  - E2 Ben Hall: nfc_card 100042\n") {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", out, want)
	}
	if !strings.Contains(errOut, "sync: okta: 3 people (1 inactive)") {
		t.Errorf("stderr: %s", errOut)
	}
	if w := writes(srv); len(w) != 0 {
		t.Errorf("--once wrote %v", w)
	}
	if _, err := os.Stat(filepath.Join(dir, "evidence.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--once without --apply made the evidence log: %v", err)
	}
	if _, _, code := run(t, srv, "--config", cfg, "--once", "--detailed-exitcode"); code != cmdutil.ExitChanges {
		t.Errorf("--detailed-exitcode: exit %d, want %d", code, cmdutil.ExitChanges)
	}
}

// TestOnceApply: --once --apply deactivates the leaver, then unassigns
// the card, each written to the evidence log; a second run has nothing to
// do (exit 0 with --detailed-exitcode).
func TestOnceApply(t *testing.T) {
	srv, ids := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E2")
	cfg := writeConfig(t, dir, openGuard)
	out, errOut, code := run(t, srv, "--config", cfg, "--once", "--apply")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "\ndone    deactivate E2 Ben Hall\ndone    revoke_credentials E2 Ben Hall (nfc_card)\n\nApply: 2 done, 0 failed; 1 deactivated, 0 reactivated, 1 credentials revoked.\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if st := status(t, srv, ids["E2"]); st != access.UserStatusDeactivated {
		t.Errorf("Ben is %s", st)
	}
	if st := status(t, srv, ids["gus"]); st != access.UserStatusActive {
		t.Errorf("Gus (outside the scope) is %s", st)
	}
	ev, err := dirsync.ReadEvidenceFile(filepath.Join(dir, "evidence.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.Records) != 2 || ev.Records[0].Action != dirsync.ActionDeactivate || ev.Records[0].Key != "E2" || ev.Records[0].SourceChanged == nil ||
		ev.Records[1].Action != dirsync.ActionRevokeCredentials {
		t.Errorf("evidence %+v", ev.Records)
	}
	srv.ResetRequests()
	out, errOut, code = run(t, srv, "--config", cfg, "--once", "--apply", "--detailed-exitcode")
	if code != 0 || !strings.HasPrefix(out, "No changes: the console matches the document.\n1 users outside the scope left alone.\n") || len(writes(srv)) != 0 {
		t.Errorf("second run: exit %d, writes %v\n%s%s", code, writes(srv), out, errOut)
	}
}

// TestOnceGuard: with the default guard (20 % of those in scope), two
// leavers of three are refused: the plan is shown, exit 6, nothing
// written.
func TestOnceGuard(t *testing.T) {
	srv, ids := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E2", "E3")
	cfg := writeConfig(t, dir, "")
	out, errOut, code := run(t, srv, "--config", cfg, "--once", "--apply")
	if code != cmdutil.ExitGuard {
		t.Fatalf("exit %d, want %d: %s", code, cmdutil.ExitGuard, errOut)
	}
	if !strings.Contains(out, "  - E2 Ben Hall (deactivate)") || strings.Contains(out, "Apply:") {
		t.Errorf("stdout:\n%s", out)
	}
	if !strings.Contains(errOut, "refused by a safety guard: source okta would deactivate 2 of the 3 users in its scope (67%), more than its guard's max_deactivate_share 20; nothing was changed") ||
		!strings.Contains(errOut, "set the source's guard to max_deactivate_share: 67") {
		t.Errorf("stderr: %s", errOut)
	}
	if w := writes(srv); len(w) != 0 || status(t, srv, ids["E2"]) != access.UserStatusActive {
		t.Errorf("the guard let writes through: %v", w)
	}
}

// TestOnceEveryoneInactive: a source whose every person is inactive is
// refused as the guard refuses (exit 6), nothing written.
func TestOnceEveryoneInactive(t *testing.T) {
	srv, _ := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E1", "E2", "E3")
	cfg := writeConfig(t, dir, openGuard)
	_, errOut, code := run(t, srv, "--config", cfg, "--once", "--apply")
	if code != cmdutil.ExitGuard || !strings.Contains(errOut, "source okta lists 3 people and every one is inactive") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if w := writes(srv); len(w) != 0 {
		t.Errorf("writes: %v", w)
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestOnceFailingSource: a directory that cannot be read stops the run
// before anything is written, even for a source read fine before it:
// exit 1, no console write, no evidence.
func TestOnceFailingSource(t *testing.T) {
	srv, ids := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E2")
	cfg := writeConfig(t, dir, openGuard+"  - name: corp-ldap\n    ldap:\n      url: ldap://"+freeAddr(t)+"\n      allow_plaintext: true\n      base_dn: dc=example,dc=com\n      timeout: 5s\n    scope:\n      user_group: Nobody\n")
	_, errOut, code := run(t, srv, "--config", cfg, "--once", "--apply")
	if code != 1 || !strings.Contains(errOut, "source corp-ldap: dirsync: directory unavailable") || !strings.Contains(errOut, "nothing was changed") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if w := writes(srv); len(w) != 0 || status(t, srv, ids["E2"]) != access.UserStatusActive {
		t.Errorf("writes after a failed source: %v", w)
	}
	if _, err := os.Stat(filepath.Join(dir, "evidence.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("evidence log made: %v", err)
	}
	// An empty store is never "everyone left".
	srv2, _ := console(t)
	dir2 := t.TempDir()
	cfg2 := writeConfig(t, dir2, openGuard)
	if _, errOut, code := run(t, srv2, "--config", cfg2, "--once", "--apply"); code != 1 || !strings.Contains(errOut, "answered no person") || len(writes(srv2)) != 0 {
		t.Errorf("an empty store: exit %d, writes %v: %s", code, writes(srv2), errOut)
	}
}

// TestBadConfiguration: a bad file is exit 2 with its line; flags that do
// not go together are usage errors.
func TestBadConfiguration(t *testing.T) {
	srv, _ := console(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sync.yaml")
	if err := os.WriteFile(cfg, []byte("sources:\n  - name: okta\n    scim:\n      store: s.jsonl\n      token: hunter2-literal\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, srv, "--config", cfg, "--once")
	if code != cmdutil.ExitUsage || !strings.Contains(errOut, "sync.yaml:5:7: sources[0].scim.token: a literal secret is refused") || strings.Contains(errOut, "hunter2") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	for _, args := range [][]string{{"--once"}, {"--config", cfg, "--apply"}, {"--config", cfg, "--once", "--scim-listen", "127.0.0.1:0"}, {"--config", cfg, "--tls-cert", "c.pem"}} {
		if _, errOut, code := run(t, srv, args...); code != cmdutil.ExitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// lines is a writer whose complete lines are sent on a channel.
type lines struct {
	ch  chan string
	buf []byte
}

func newLines() *lines { return &lines{ch: make(chan string, 1000)} }

func (l *lines) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.ch <- string(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

// await returns the first line containing s, failing after a minute.
func (l *lines) await(t testing.TB, s string) string {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line := <-l.ch:
			if strings.Contains(line, s) {
				return line
			}
		case <-timeout:
			t.Fatalf("no line with %q within a minute", s)
		}
	}
}

// TestLongRunningPushReloadAndStop: the long-running sync starts held by
// the guard (two leavers of three); a bad configuration is not taken;
// a reload (SIGHUP) with a raised guard applies the plan at once; a SCIM
// push (a re-enable) is applied at once; the metrics and health answer;
// cancelling ends the run with nil.
func TestLongRunningPushReloadAndStop(t *testing.T) {
	srv, ids := console(t)
	dir := t.TempDir()
	scimIDs := pushed(t, filepath.Join(dir, "store.jsonl"), "E2", "E3")
	cfg := writeConfig(t, dir, "")
	out, errOut := newLines(), newLines()
	hup := make(chan struct{}, 1)
	ready := make(chan [2]string, 1)
	o := &options{hangup: hup, ready: func(s, m string) { ready <- [2]string{s, m} }}
	c := newCommand(factory(srv, out, errOut), o)
	c.SetArgs([]string{"--config", cfg, "--scim-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"})
	c.SilenceUsage, c.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	var addrs [2]string
	select {
	case addrs = <-ready:
	case err := <-done:
		t.Fatalf("sync ended: %v", err)
	}
	errOut.await(t, "okta (start): refused by a safety guard")
	if st := status(t, srv, ids["E2"]); st != access.UserStatusActive {
		t.Fatalf("Ben is %s while the guard holds", st)
	}
	resp, err := http.Get("http://" + addrs[1] + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `access_sync_held{source="okta"} 1`) {
		t.Errorf("metrics:\n%s", b)
	}

	// A bad configuration is refused and the running one kept.
	if err := os.WriteFile(cfg, []byte("sources: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hup <- struct{}{}
	errOut.await(t, "reload refused, the running configuration is kept")
	// The operator raises the guard and reloads: Ben and Chloe are
	// deactivated, Ben's card unassigned.
	writeConfig(t, dir, openGuard)
	hup <- struct{}{}
	errOut.await(t, "okta (start): 2 deactivated, 0 reactivated, 1 credentials revoked, 0 failed")
	if st := status(t, srv, ids["E2"]); st != access.UserStatusDeactivated {
		t.Errorf("Ben is %s after the reload", st)
	}

	// A push without the token is refused; Chloe re-enabled by a push is
	// applied at once.
	push := func(token string) int {
		req, _ := http.NewRequest("PATCH", "http://"+addrs[0]+scim.Prefix+"/Users/"+scimIDs["E3"],
			strings.NewReader(`{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"active","value":true}]}`))
		req.Header.Set("Content-Type", "application/scim+json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := push(""); code != http.StatusUnauthorized {
		t.Errorf("a push without the token: %d", code)
	}
	if code := push(scimToken); code != http.StatusOK {
		t.Fatalf("push: %d", code)
	}
	errOut.await(t, "okta (push): 0 deactivated, 1 reactivated")
	if st := status(t, srv, ids["E3"]); st != access.UserStatusActive {
		t.Errorf("Chloe is %s after the push", st)
	}
	if resp, err := http.Get("http://" + addrs[1] + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("healthz: %v %v", resp, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the run ended with %v", err)
	}
	errOut.await(t, "sync: stopped")
	got := []string{}
	for len(out.ch) > 0 {
		got = append(got, <-out.ch)
	}
	// The two deactivations run at once (site's concurrency): either
	// comes first; the card goes after them, the re-enable last.
	if len(got) == 4 && got[0] > got[1] {
		got[0], got[1] = got[1], got[0]
	}
	want := []string{"done    deactivate E2 Ben Hall", "done    deactivate E3 Chloe Martin", "done    revoke_credentials E2 Ben Hall (nfc_card)", "done    reactivate E3 Chloe Martin"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stdout:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ev, err := dirsync.ReadEvidenceFile(filepath.Join(dir, "evidence.jsonl"))
	if err != nil || len(ev.Records) != 4 {
		t.Errorf("evidence: %v %+v", err, ev)
	}
}

// TestSCIMListenerIsLoopbackOrTLS: the bearer token does not cross the
// network in clear: without TLS only a loopback address is taken, refused
// before anything is bound.
func TestSCIMListenerIsLoopbackOrTLS(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "example.com:443"} {
		if _, err := listen(addr, "--scim-listen", nil, true); exitCode(err) != cmdutil.ExitUsage || !strings.Contains(err.Error(), "in clear") {
			t.Errorf("%s: %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0", "localhost:0"} {
		ln, err := listen(addr, "--scim-listen", nil, true)
		if err != nil {
			if addr == "[::1]:0" {
				continue // no IPv6 loopback here
			}
			t.Fatalf("%s: %v", addr, err)
		}
		ln.Close()
	}
}

// TestSCIMListenerWithTLS: with --tls-cert and --tls-key the listener
// speaks TLS with that certificate, and the handler answers behind it.
func TestSCIMListenerWithTLS(t *testing.T) {
	srv, _ := console(t)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"))
	cfg := writeConfig(t, dir, openGuard)
	ts := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate for 127.0.0.1
	ts.Close()
	cert := ts.TLS.Certificates[0]
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writePEM(t, certFile, "CERTIFICATE", cert.Certificate[0])
	keyDER, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	out, errOut := newLines(), newLines()
	ready := make(chan string, 1)
	c := newCommand(factory(srv, out, errOut), &options{hangup: make(chan struct{}), ready: func(s, _ string) { ready <- s }})
	c.SetArgs([]string{"--config", cfg, "--scim-listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile})
	c.SilenceUsage, c.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	var addr string
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("sync ended: %v", err)
	}
	errOut.await(t, "SCIM at https://"+addr+scim.Prefix)
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest("GET", "https://"+addr+scim.Prefix+"/ServiceProviderConfig", nil)
	req.Header.Set("Authorization", "Bearer "+scimToken)
	resp, err := client.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("over TLS: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, err := http.Get("http://" + addr + scim.Prefix + "/ServiceProviderConfig"); err == nil && resp.StatusCode == http.StatusOK {
		t.Error("the listener answered in clear")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeCSV writes an HR file of the people, those given DEACTIVATED.
func writeCSV(t *testing.T, path string, leavers ...string) {
	t.Helper()
	var b strings.Builder
	b.WriteString("first_name,last_name,email,employee_number,status\n")
	for _, p := range people {
		status := "ACTIVE"
		if slices.Contains(leavers, p[0]) {
			status = "DEACTIVATED"
		}
		fmt.Fprintf(&b, "%s,%s,%s@example.com,%s,%s\n", p[1], p[2], strings.ToLower(p[1]), p[0], status)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestCSVSource: an HR file is a source: --once plans from it, and the
// long-running sync applies a change of the file once it holds still.
func TestCSVSource(t *testing.T) {
	srv, ids := console(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "people.csv")
	writeCSV(t, csvPath)
	cfg := filepath.Join(dir, "sync.yaml")
	if err := os.WriteFile(cfg, []byte("evidence: evidence.jsonl\nsources:\n  - name: hr\n    csv: {path: people.csv, poll: 20ms}\n    scope: {employee_number: true}\n    guard: {max_deactivate_share: 100}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, srv, "--config", cfg, "--once", "--detailed-exitcode")
	if code != 0 || !strings.HasPrefix(out, "No changes") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	writeCSV(t, csvPath, "E2")
	if out, errOut, code := run(t, srv, "--config", cfg, "--once"); code != 0 || !strings.Contains(out, "  - E2 Ben Hall (deactivate)\n") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	writeCSV(t, csvPath)

	lo, le := newLines(), newLines()
	c := newCommand(factory(srv, lo, le), &options{hangup: make(chan struct{})})
	c.SetArgs([]string{"--config", cfg})
	c.SilenceUsage, c.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	le.await(t, "hr (start): no change")
	writeCSV(t, csvPath, "E2")
	le.await(t, "hr (push): 1 deactivated, 0 reactivated, 1 credentials revoked, 0 failed")
	lo.await(t, "done    deactivate E2 Ben Hall")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := status(t, srv, ids["E2"]); st != access.UserStatusDeactivated {
		t.Errorf("Ben is %s", st)
	}
}
