package dirsync_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-ldap/ldap/v3"

	"github.com/access-dev/access/dirsync"
)

// ldapConfig is the configuration of a plain read of srv as the service
// account.
func ldapConfig(srv *slapdServer) dirsync.LDAPConfig {
	return dirsync.LDAPConfig{
		Name:           "test",
		URL:            srv.URL,
		AllowPlaintext: true,
		BindDN:         testBindDN,
		Password:       dirsync.NewSecret(testPassword),
		BaseDN:         testPeople,
	}
}

func newSource(t testing.TB, cfg dirsync.LDAPConfig) *dirsync.LDAPSource {
	t.Helper()
	src, err := dirsync.NewLDAPSource(cfg)
	if err != nil {
		t.Fatalf("NewLDAPSource: %v", err)
	}
	return src
}

// wantFailed checks that a read failed with want and left nothing that
// could pass for a directory.
func wantFailed(t *testing.T, snap *dirsync.Snapshot, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	if snap != nil && (snap.Complete || len(snap.People) > 0 || len(snap.Skipped) > 0) {
		t.Fatalf("failed read left Complete=%v, %d people, %d skipped", snap.Complete, len(snap.People), len(snap.Skipped))
	}
}

// TestLDAPPagingPastADLimit: with Active Directory's limits, a search
// without paging stops at 1,000 entries with "Size limit exceeded"; the
// source pages and reads all 5,000.
func TestLDAPPagingPastADLimit(t *testing.T) {
	srv := startSlapd(t, slapdOptions{users: 5000})

	t.Run("without paging the server stops at 1000", func(t *testing.T) {
		conn, err := ldap.DialURL(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.Bind(testBindDN, testPassword); err != nil {
			t.Fatal(err)
		}
		res, err := conn.Search(ldap.NewSearchRequest(testPeople, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases,
			0, 0, false, dirsync.DefaultLDAPFilter, []string{"employeeNumber"}, nil))
		if !ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) {
			t.Fatalf("err = %v, want Size Limit Exceeded", err)
		}
		if !strings.Contains(err.Error(), "Size Limit Exceeded") {
			t.Errorf("err = %q", err)
		}
		if len(res.Entries) != 1000 {
			t.Errorf("%d entries without paging, want 1000", len(res.Entries))
		}
	})

	for _, tc := range []struct{ pageSize, pages int }{{1000, 5}, {0, 10}, {700, 8}} {
		t.Run(fmt.Sprintf("page size %d", tc.pageSize), func(t *testing.T) {
			cfg := ldapConfig(srv)
			cfg.PageSize = tc.pageSize
			snap, err := newSource(t, cfg).Read(context.Background())
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !snap.Complete || len(snap.People) != 5000 || snap.Entries != 5000 || snap.Pages != tc.pages {
				t.Fatalf("%s: want 5000 people in %d pages, complete", snap.Summary(), tc.pages)
			}
			if got := snap.Inactive(); got != 500 {
				t.Errorf("%d inactive, want 500 (every 10th has userAccountControl 514)", got)
			}
			if !slices.IsSortedFunc(snap.People, func(a, b dirsync.Person) int { return strings.Compare(a.Key, b.Key) }) {
				t.Error("people not sorted by key")
			}
			p := snap.People[2] // E00003
			want := dirsync.Person{Key: "E00003", FirstName: "Given3", LastName: "Family3", Email: "u00003@example.com",
				Groups: []string{"Night shift", "Staff"}, Active: true, SourceID: "uid=u00003," + testPeople, Modified: p.Modified}
			if !equalPerson(p, want) {
				t.Errorf("person 3 = %+v\nwant %+v", p, want)
			}
			if p.Modified.IsZero() {
				t.Error("person 3 has no modifyTimestamp")
			}
			p = snap.People[9] // E00010
			if p.Key != "E00010" || p.Active || p.InactiveReason != "userAccountControl 514 has ACCOUNTDISABLE (2) set" {
				t.Errorf("person 10 = %+v, want inactive by userAccountControl", p)
			}
		})
	}

	t.Run("page size above the server's limit", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.PageSize = 2000
		snap, err := newSource(t, cfg).Read(context.Background())
		// OpenLDAP refuses a page above size.pr: never a partial read.
		wantFailed(t, snap, err, dirsync.ErrIncomplete)
		if !strings.Contains(err.Error(), "refuses page size 2000") {
			t.Errorf("err = %v", err)
		}
	})
}

func equalPerson(a, b dirsync.Person) bool {
	return a.Key == b.Key && a.FirstName == b.FirstName && a.LastName == b.LastName && a.Email == b.Email &&
		slices.Equal(a.Groups, b.Groups) && a.Active == b.Active && a.InactiveReason == b.InactiveReason &&
		a.SourceID == b.SourceID && a.Modified.Equal(b.Modified)
}

// TestLDAPKilledMidReadIsIncomplete: slapd killed between two pages is
// ErrIncomplete with no people, never the pages read so far.
func TestLDAPKilledMidReadIsIncomplete(t *testing.T) {
	srv := startSlapd(t, slapdOptions{users: 1000})
	cfg := ldapConfig(srv)
	cfg.PageSize = 100
	src := newSource(t, cfg)
	dirsync.SetAfterPage(src, func(page int) {
		if page == 2 {
			srv.kill()
		}
	})
	snap, err := src.Read(context.Background())
	wantFailed(t, snap, err, dirsync.ErrIncomplete)
	if snap.Pages != 2 || snap.Entries != 200 {
		t.Errorf("pages %d, entries %d: want 2 and 200 before the kill", snap.Pages, snap.Entries)
	}
	// The next read finds no server.
	snap, err = src.Read(context.Background())
	wantFailed(t, snap, err, dirsync.ErrUnavailable)
}

// TestLDAPContextCancelledMidRead: a read whose context ends between two
// pages is ErrIncomplete and the context's error.
func TestLDAPContextCancelledMidRead(t *testing.T) {
	srv := startSlapd(t, slapdOptions{users: 300})
	cfg := ldapConfig(srv)
	cfg.PageSize = 100
	src := newSource(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dirsync.SetAfterPage(src, func(page int) {
		if page == 1 {
			cancel()
		}
	})
	snap, err := src.Read(ctx)
	wantFailed(t, snap, err, dirsync.ErrIncomplete)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled too", err)
	}
}

// extraLDIF adds, beside the people: a contractor without an employee
// number, one the "employeeType: former" status makes inactive, and two
// entries with one employee number under ou=dups.
const extraLDIF = `dn: ou=contractors,` + testSuffix + `
objectClass: organizationalUnit
ou: contractors

dn: uid=c1,ou=contractors,` + testSuffix + `
objectClass: inetOrgPerson
uid: c1
cn: No Number
sn: Number

dn: uid=c2,ou=contractors,` + testSuffix + `
objectClass: inetOrgPerson
uid: c2
cn: Former Contractor
givenName: Former
sn: Contractor
employeeNumber: C2
employeeType: Former

dn: uid=c3,ou=contractors,` + testSuffix + `
objectClass: inetOrgPerson
uid: c3
cn: Current Contractor
givenName: Current
sn: Contractor
employeeNumber: C3
employeeType: contractor

dn: ou=teams,` + testSuffix + `
objectClass: organizationalUnit
ou: teams

dn: cn=Contractors,ou=teams,` + testSuffix + `
objectClass: groupOfNames
cn: Contractors
member: UID=C2, OU=Contractors, DC=example, DC=com
member: uid=c3,ou=contractors,` + testSuffix + `

dn: cn=Loading dock,ou=teams,` + testSuffix + `
objectClass: groupOfNames
cn: Loading dock
member: uid=c3,ou=contractors,` + testSuffix + `

dn: cn=Empty,ou=teams,` + testSuffix + `
objectClass: groupOfNames
cn: Empty
member: uid=nobody,` + testSuffix + `

dn: ou=dups,` + testSuffix + `
objectClass: organizationalUnit
ou: dups

dn: uid=d1,ou=dups,` + testSuffix + `
objectClass: inetOrgPerson
uid: d1
cn: D One
sn: One
employeeNumber: D1

dn: uid=d2,ou=dups,` + testSuffix + `
objectClass: inetOrgPerson
uid: d2
cn: D Two
sn: Two
employeeNumber: D1

`

// TestLDAPSource covers TLS (ldaps://, StartTLS, CA file, pin), the
// password's sources, the bind's and the search's failures, the status
// mapping and memberOf kept by slapd's memberof overlay.
func TestLDAPSource(t *testing.T) {
	srv := startSlapd(t, slapdOptions{users: 5, tls: true, ldif: extraLDIF})
	tlsCfg := func(url string) dirsync.LDAPConfig {
		c := ldapConfig(srv)
		c.URL, c.AllowPlaintext = url, false
		return c
	}
	read := func(t *testing.T, cfg dirsync.LDAPConfig) (*dirsync.Snapshot, error) {
		t.Helper()
		return newSource(t, cfg).Read(context.Background())
	}
	ok := func(t *testing.T, cfg dirsync.LDAPConfig) *dirsync.Snapshot {
		t.Helper()
		snap, err := read(t, cfg)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		return snap
	}

	t.Run("StartTLS with a CA file", func(t *testing.T) {
		cfg := tlsCfg(srv.URL)
		cfg.StartTLS, cfg.CAFile = true, srv.CAFile
		if snap := ok(t, cfg); len(snap.People) != 5 || !snap.Complete {
			t.Fatal(snap.Summary())
		}
	})
	t.Run("ldaps with a CA file", func(t *testing.T) {
		cfg := tlsCfg(srv.LDAPSURL)
		cfg.CAFile = srv.CAFile
		ok(t, cfg)
	})
	t.Run("ldaps with a pin and no CA", func(t *testing.T) {
		cfg := tlsCfg(srv.LDAPSURL)
		cfg.PinSHA256 = srv.Pin
		ok(t, cfg)
	})
	t.Run("StartTLS with a pin in colon form and a CA file", func(t *testing.T) {
		cfg := tlsCfg(srv.URL)
		cfg.StartTLS, cfg.CAFile = true, srv.CAFile
		var pin []string
		for i := 0; i < len(srv.Pin); i += 2 {
			pin = append(pin, strings.ToUpper(srv.Pin[i:i+2]))
		}
		cfg.PinSHA256 = strings.Join(pin, ":")
		ok(t, cfg)
	})
	t.Run("ldaps without the CA is ErrTLS", func(t *testing.T) {
		snap, err := read(t, tlsCfg(srv.LDAPSURL))
		wantFailed(t, snap, err, dirsync.ErrTLS)
	})
	t.Run("StartTLS without the CA is ErrTLS", func(t *testing.T) {
		cfg := tlsCfg(srv.URL)
		cfg.StartTLS = true
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrTLS)
	})
	t.Run("a wrong pin is ErrTLS", func(t *testing.T) {
		cfg := tlsCfg(srv.LDAPSURL)
		cfg.PinSHA256 = strings.Repeat("ab", 32)
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrTLS)
		if !strings.Contains(err.Error(), "not the pinned one") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("a wrong server name is ErrTLS", func(t *testing.T) {
		cfg := tlsCfg(srv.LDAPSURL)
		cfg.CAFile, cfg.ServerName = srv.CAFile, "ldap.example.com"
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrTLS)
	})

	t.Run("a wrong password is ErrInvalidCredentials and is not shown", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "pw")
		if err := os.WriteFile(file, []byte("wrong-password-123\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := ldapConfig(srv)
		cfg.Password, cfg.PasswordFile = dirsync.Secret{}, file
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrInvalidCredentials)
		if strings.Contains(err.Error(), "wrong-password") || strings.Contains(fmt.Sprintf("%+v %#v", cfg, cfg), "wrong-password") {
			t.Errorf("the password shows: %v", err)
		}
	})
	t.Run("password file and rotation", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "pw")
		if err := os.WriteFile(file, []byte(testPassword+"\r\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := ldapConfig(srv)
		cfg.Password, cfg.PasswordFile = dirsync.Secret{}, file
		src := newSource(t, cfg)
		if _, err := src.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("rotated-away"), 0o600); err != nil {
			t.Fatal(err)
		}
		snap, err := src.Read(context.Background())
		wantFailed(t, snap, err, dirsync.ErrInvalidCredentials)
	})
	t.Run("password from the environment", func(t *testing.T) {
		t.Setenv("DIRSYNC_TEST_PASSWORD", testPassword)
		cfg := ldapConfig(srv)
		cfg.Password, cfg.PasswordEnv = dirsync.Secret{}, "DIRSYNC_TEST_PASSWORD"
		ok(t, cfg)
	})
	t.Run("anonymous sees nobody: ErrEmpty", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.BindDN, cfg.Password = "", dirsync.Secret{}
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrEmpty)
	})
	t.Run("a filter that matches nobody is ErrEmpty", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.Filter = "(employeeNumber=nobody)"
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrEmpty)
	})
	t.Run("a base DN that does not exist is ErrEmpty", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.BaseDN = "ou=nowhere," + testSuffix
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrEmpty)
	})
	t.Run("two entries with one key are ErrDuplicateKey", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.BaseDN = testSuffix
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrDuplicateKey)
		if !strings.Contains(err.Error(), `"D1" (uid=d1,ou=dups,dc=example,dc=com and uid=d2,ou=dups,dc=example,dc=com)`) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("status attribute and skipped entries", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.BaseDN = "ou=contractors," + testSuffix
		cfg.Attributes.Status = "employeeType"
		cfg.InactiveValues = []string{"former", "terminated"}
		snap := ok(t, cfg)
		if len(snap.People) != 2 || len(snap.Skipped) != 1 || snap.Entries != 3 {
			t.Fatalf("%s; people %+v", snap.Summary(), snap.People)
		}
		if p := snap.People[0]; p.Key != "C2" || p.Active || p.InactiveReason != `employeeType is "Former"` || p.Groups != nil {
			t.Errorf("C2 = %+v", p)
		}
		if p := snap.People[1]; p.Key != "C3" || !p.Active {
			t.Errorf("C3 = %+v", p)
		}
		if s := snap.Skipped[0]; s.SourceID != "uid=c1,ou=contractors,"+testSuffix || s.Reason != "no employeeNumber" {
			t.Errorf("skipped %+v", s)
		}
	})
	t.Run("groups from group entries", func(t *testing.T) {
		cfg := ldapConfig(srv)
		cfg.BaseDN = "ou=contractors," + testSuffix
		cfg.GroupBaseDN = "ou=teams," + testSuffix
		cfg.PageSize = 2
		snap := ok(t, cfg)
		if g := snap.People[0].Groups; !slices.Equal(g, []string{"Contractors"}) {
			t.Errorf("C2's groups %q", g)
		}
		if g := snap.People[1].Groups; !slices.Equal(g, []string{"Contractors", "Loading dock"}) {
			t.Errorf("C3's groups %q", g)
		}
		if snap.Entries != 3 || snap.Pages != 4 { // people 2+1, groups 2+1 entries
			t.Errorf("%s: want 3 entries in 4 pages", snap.Summary())
		}
		cfg.GroupBaseDN = "ou=nowhere," + testSuffix
		snap, err := read(t, cfg)
		wantFailed(t, snap, err, dirsync.ErrIncomplete)
	})
	t.Run("memberOf kept by the memberof overlay", func(t *testing.T) {
		conn, err := ldap.DialURL(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := conn.Bind(testAdminDN, testAdminPW); err != nil {
			t.Fatal(err)
		}
		add := ldap.NewAddRequest("cn=Door testers,ou=groups,"+testSuffix, nil)
		add.Attribute("objectClass", []string{"groupOfNames"})
		add.Attribute("cn", []string{"Door testers"})
		add.Attribute("member", []string{"uid=u00004," + testPeople})
		if err := conn.Add(add); err != nil {
			t.Fatal(err)
		}
		snap := ok(t, ldapConfig(srv))
		if p := snap.People[3]; p.Key != "E00004" || !slices.Equal(p.Groups, []string{"Door testers", "Staff"}) {
			t.Errorf("E00004 = %+v", p)
		}
	})
}

// TestLDAPUnreachableIsUnavailable: nothing listening is ErrUnavailable.
func TestLDAPUnreachableIsUnavailable(t *testing.T) {
	cfg := dirsync.LDAPConfig{URL: fmt.Sprintf("ldap://127.0.0.1:%d", freePort(t)), AllowPlaintext: true, BaseDN: testPeople}
	snap, err := newSource(t, cfg).Read(context.Background())
	wantFailed(t, snap, err, dirsync.ErrUnavailable)
}

// TestLDAPConfigErrors: a configuration that cannot be used is ErrConfig
// from NewLDAPSource, and never shows the password.
func TestLDAPConfigErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	base := func() dirsync.LDAPConfig {
		return dirsync.LDAPConfig{URL: "ldaps://ldap.example.com", BindDN: "cn=sync", Password: dirsync.NewSecret("hunter2-secret"), BaseDN: "dc=example,dc=com"}
	}
	if _, err := dirsync.NewLDAPSource(base()); err != nil {
		t.Fatalf("the base configuration: %v", err)
	}
	t.Setenv("DIRSYNC_EMPTY", "")
	for name, change := range map[string]func(*dirsync.LDAPConfig){
		"no url":                      func(c *dirsync.LDAPConfig) { c.URL = "" },
		"http url":                    func(c *dirsync.LDAPConfig) { c.URL = "http://ldap.example.com" },
		"url with a path":             func(c *dirsync.LDAPConfig) { c.URL = "ldaps://ldap.example.com/dc=example" },
		"plain ldap":                  func(c *dirsync.LDAPConfig) { c.URL = "ldap://ldap.example.com" },
		"StartTLS on ldaps":           func(c *dirsync.LDAPConfig) { c.StartTLS = true },
		"CA file without TLS":         func(c *dirsync.LDAPConfig) { c.URL, c.AllowPlaintext, c.CAFile = "ldap://x", true, "ca.pem" },
		"missing CA file":             func(c *dirsync.LDAPConfig) { c.CAFile = filepath.Join(dir, "nope.pem") },
		"CA file with no certificate": func(c *dirsync.LDAPConfig) { c.CAFile = empty },
		"short pin":                   func(c *dirsync.LDAPConfig) { c.PinSHA256 = "abcd" },
		"no password":                 func(c *dirsync.LDAPConfig) { c.Password = dirsync.Secret{} },
		"two passwords":               func(c *dirsync.LDAPConfig) { c.PasswordEnv = "X" },
		"password without bind DN":    func(c *dirsync.LDAPConfig) { c.BindDN = "" },
		"missing password file":       func(c *dirsync.LDAPConfig) { c.Password, c.PasswordFile = dirsync.Secret{}, filepath.Join(dir, "nope") },
		"empty password file":         func(c *dirsync.LDAPConfig) { c.Password, c.PasswordFile = dirsync.Secret{}, empty },
		"empty password variable":     func(c *dirsync.LDAPConfig) { c.Password, c.PasswordEnv = dirsync.Secret{}, "DIRSYNC_EMPTY" },
		"no base DN":                  func(c *dirsync.LDAPConfig) { c.BaseDN = "" },
		"bad base DN":                 func(c *dirsync.LDAPConfig) { c.BaseDN = "not a dn" },
		"bad filter":                  func(c *dirsync.LDAPConfig) { c.Filter = "(objectClass=person" },
		"negative page size":          func(c *dirsync.LDAPConfig) { c.PageSize = -1 },
		"negative timeout":            func(c *dirsync.LDAPConfig) { c.Timeout = -1 },
		"inactive values, no status":  func(c *dirsync.LDAPConfig) { c.InactiveValues = []string{"former"} },
		"group filter, no group base": func(c *dirsync.LDAPConfig) { c.GroupFilter = "(objectClass=group)" },
		"bad group base DN":           func(c *dirsync.LDAPConfig) { c.GroupBaseDN = "not a dn" },
		"bad group filter":            func(c *dirsync.LDAPConfig) { c.GroupBaseDN, c.GroupFilter = "ou=g", "objectClass=group)" },
	} {
		cfg := base()
		change(&cfg)
		src, err := dirsync.NewLDAPSource(cfg)
		if !errors.Is(err, dirsync.ErrConfig) || src != nil {
			t.Errorf("%s: err = %v, want ErrConfig", name, err)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the password shows: %v", name, err)
		}
	}
}
