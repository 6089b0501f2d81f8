package syncconfig_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
	"github.com/access-dev/access/dirsync/syncconfig"
	"github.com/access-dev/access/site"
)

var update = flag.Bool("update", false, "rewrite sync.schema.json from the Go types")

// TestCompleteExampleDecodes: every member of the documented example is
// read into its field, relative paths from the file's directory.
func TestCompleteExampleDecodes(t *testing.T) {
	c, err := syncconfig.Load("testdata/sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Interval != 30*time.Second || c.Path(c.Evidence) != filepath.Join("testdata", "evidence.jsonl") || len(c.Sources) != 3 {
		t.Fatalf("config %+v", c)
	}
	ad, okta := c.Sources[0], c.Sources[1]
	l := ad.LDAP
	if ad.Name != "corp-ad" || l == nil || l.URL != "ldaps://dc1.example.com" || l.BindDN != "svc-access@example.com" ||
		l.PasswordFile != "ad-password.txt" || l.BaseDN != "OU=Staff,DC=example,DC=com" || l.PageSize != 500 ||
		l.Attributes.EmployeeNumber != "employeeID" || l.Attributes.Groups != "memberOf" || l.Timeout != 20*time.Second {
		t.Errorf("ldap source %+v %+v", ad, l)
	}
	o := ad.Options()
	if o.Groups["Night shift"] != "Night shift" || o.Scope.UserGroup != "Staff" || o.MaxDeactivate != 25 || o.MaxDeactivateShare != 10 ||
		o.KeepCredentials || o.SuspendTouchPasses || o.DeleteUsers {
		t.Errorf("ldap options %+v", o)
	}
	s := okta.SCIM
	if okta.Name != "okta" || s == nil || s.Store != "scim-store.jsonl" || s.Key != "employeeNumber" || s.TokenEnv != "SCIM_TOKEN" || s.MaxBodyBytes != 1<<20 {
		t.Errorf("scim source %+v %+v", okta, s)
	}
	if o := okta.Options(); !o.Scope.EmployeeNumber || !o.SuspendTouchPasses || o.KeepCredentials {
		t.Errorf("scim options %+v", o)
	}
	if hr := c.Sources[2]; hr.CSV == nil || hr.CSV.Path != "people.csv" || hr.CSV.Delimiter != ";" || hr.CSV.Columns["employee_number"] != "Personalnummer" ||
		hr.CSV.Poll != 10*time.Second || hr.Scope.UserGroup != "Contractors" {
		t.Errorf("csv source %+v", hr)
	}
	if c.SCIMSource() != &c.Sources[1] {
		t.Error("SCIMSource is not the scim source")
	}
	tok, err := c.SCIMToken(func(k string) string { return map[string]string{"SCIM_TOKEN": "tok-123"}[k] })
	if err != nil || tok != "tok-123" {
		t.Errorf("SCIMToken = %q, %v", tok, err)
	}
	if _, err := c.SCIMToken(func(string) string { return "" }); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("SCIMToken with the variable unset: %v", err)
	}
}

func load(t *testing.T, body string) error {
	t.Helper()
	p := filepath.Join(t.TempDir(), "sync.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := syncconfig.Load(p)
	return err
}

func problems(t *testing.T, err error) []site.Problem {
	t.Helper()
	var de *site.DocumentError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *site.DocumentError", err)
	}
	return de.Problems
}

// TestUnknownKeyHasItsLine: a misspelt member, or one of the wrong shape,
// is refused with its file, line and column, as in a site document.
func TestUnknownKeyHasItsLine(t *testing.T) {
	err := load(t, "sources:\n  - name: okta\n    scim:\n      store: s.jsonl\n      token_env: T\n      max_body: 10\n")
	ps := problems(t, err)
	if len(ps) != 1 || ps[0].Pos.Line != 6 || ps[0].Pos.Column != 7 || ps[0].Path != "sources[0].scim.max_body" ||
		!strings.Contains(ps[0].Message, `unknown member "max_body"`) || !strings.HasSuffix(ps[0].Pos.File, "sync.yaml") {
		t.Errorf("problems %+v", ps)
	}
	for body, line := range map[string]int{
		"interval: 30\nsources: []\n":                                    1, // a duration is a string such as 30s
		"sources:\n  name: x\n":                                          2, // a list
		"sources:\n  - name: x\n    guard:\n      max_deactivate: [1]\n": 4,
		"sources:\n  - name: x\n    guard:\n      max_deactivate: ten\n": 4,
	} {
		ps := problems(t, load(t, body))
		if ps[0].Pos.Line != line {
			t.Errorf("%q: problems %+v, want line %d", body, ps, line)
		}
	}
}

// TestLiteralPasswordRefused: a password or token written in the file is
// refused where it is, naming the members that take a file or a
// variable; the value is not in the error.
func TestLiteralPasswordRefused(t *testing.T) {
	for body, want := range map[string]string{
		"sources:\n  - name: ad\n    ldap:\n      url: ldaps://dc\n      base_dn: DC=x\n      bind_dn: cn=svc\n      password: hunter2-secret\n": "password_file or password_env",
		"sources:\n  - name: okta\n    scim:\n      store: s.jsonl\n      token: hunter2-secret\n":                                               "token_file or token_env",
	} {
		err := load(t, body)
		ps := problems(t, err)
		if len(ps) != 1 || ps[0].Pos.Line < 5 || !errors.Is(ps[0].Err, syncconfig.ErrLiteralSecret) || !strings.Contains(ps[0].Message, want) {
			t.Errorf("problems %+v", ps)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
}

// TestChecks: what the shape cannot say is refused with its place.
func TestChecks(t *testing.T) {
	for body, want := range map[string]string{
		"sources: []\n": "no source",
		"sources:\n  - name: a\n    csv: {path: p.csv, delimiter: ';;'}\n":                                             "is not one character",
		"sources:\n  - name: a\n    scim: {store: s, token_env: T}\n  - name: a\n    scim: {store: t, token_env: T}\n": "two sources are named",
		"sources:\n  - name: a\n":                                                                             "exactly one of ldap, scim and csv",
		"sources:\n  - name: a\n    scim: {store: s}\n":                                                       "exactly one of token_file and token_env",
		"sources:\n  - name: a\n    scim: {store: s, token_env: T, key: mail}\n":                              `"mail": want employeeNumber`,
		"sources:\n  - name: a\n    scim: {store: s, token_env: T}\n    credentials: shred\n":                 `"shred": want unassign, keep or suspend_touch_passes`,
		"sources:\n  - name: a\n    ldap: {url: ldaps://x, base_dn: y, bind_dn: z}\n":                         "exactly one of password_file and password_env",
		"sources:\n  - name: a\n    ldap: {url: ldaps://x, base_dn: y, password_env: P}\n":                    "without a bind_dn",
		"sources:\n  - name: a\n    scim: {store: s, token_env: T}\n    guard: {max_deactivate_share: 150}\n": "at most 100",
	} {
		ps := problems(t, load(t, body))
		if !strings.Contains(ps[0].Message, want) || ps[0].Pos.Line == 0 {
			t.Errorf("%q: problems %+v, want %q with a line", body, ps, want)
		}
	}
}

// TestOpenOpensTheStore: Open makes the runner's sources with their
// options; the SCIM store is locked until Close.
func TestOpenOpensTheStore(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sync.yaml")
	body := "sources:\n  - name: ad\n    ldap: {url: ldaps://dc.example.com, base_dn: DC=x}\n    credentials: keep\n  - name: okta\n    scim: {store: store.jsonl, token_file: tok}\n  - name: hr\n    csv: {path: people.csv, delimiter: ';'}\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := syncconfig.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Open()
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Sources) != 3 || o.Sources[0].Source.Name() != "ad" || !o.Sources[0].Options.KeepCredentials || o.Store == nil || o.Sources[1].Source != o.Store ||
		len(o.CSV) != 1 || o.Sources[2].Source != o.CSV[0] || o.CSV[0].Name() != "hr" {
		t.Errorf("opened %+v", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "store.jsonl.lock")); err != nil {
		t.Errorf("the store is not in the configuration's directory: %v", err)
	}
	if _, err := c.Open(); !errors.Is(err, scim.ErrLocked) {
		t.Errorf("a second Open = %v, want ErrLocked", err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o, err = c.Open()
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if _, err := c.SCIMToken(nil); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("a token file that does not exist: %v", err)
	}
}

// TestSchemaMatchesTheTypes keeps sync.schema.json equal to what the Go
// types generate; go test ./dirsync/syncconfig -run TestSchema -update
// rewrites it.
func TestSchemaMatchesTheTypes(t *testing.T) {
	got, err := syncconfig.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("sync.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("sync.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"password_file"`, `"token_env"`, `"interval": {`, `"pattern": "^-?([0-9]+`, `"max_deactivate": {`, `"type": "integer"`, `"$id": "` + syncconfig.SchemaID + `"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("the schema lacks %s", s)
		}
	}
	if bytes.Contains(got, []byte(`"password":`)) || bytes.Contains(got, []byte(`"token":`)) {
		t.Error("the schema has a member for a literal secret")
	}
	if !bytes.Equal(got, want) {
		t.Fatal("sync.schema.json differs from the Go types: run go test ./dirsync/syncconfig -run TestSchema -update")
	}
}

// TestDocsExampleDecodes: the complete example of docs/sync.md is a
// configuration Load takes, with every kind of source, and equal to the
// one of testdata apart from its comments.
func TestDocsExampleDecodes(t *testing.T) {
	b, err := os.ReadFile("../../docs/sync.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```yaml\n")
	if !ok {
		t.Fatal("docs/sync.md has no yaml block")
	}
	block, _, _ := strings.Cut(rest, "```")
	p := filepath.Join(t.TempDir(), "sync.yaml")
	if err := os.WriteFile(p, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := syncconfig.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	want, err := syncconfig.Load("testdata/sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(block, "# yaml-language-server: $schema=../dirsync/syncconfig/sync.schema.json\n") {
		t.Errorf("the example's modeline is not the schema's relative path:\n%s", block)
	}
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(gj) != string(wj) {
		t.Errorf("docs/sync.md's example:\n%s\ntestdata/sync.yaml:\n%s", gj, wj)
	}
}
