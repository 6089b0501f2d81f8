package dirsync_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/access-dev/access/dirsync"
)

// A Secret prints as "[redacted]" however it is printed, and a source's
// configuration with it too.
func ExampleSecret() {
	pw := dirsync.NewSecret("correct horse battery staple")
	cfg := dirsync.LDAPConfig{URL: "ldaps://dc1.example.com", BindDN: "svc-access@example.com", Password: pw}
	j, _ := json.Marshal(pw)
	fmt.Println(pw)
	fmt.Printf("%#v\n", pw)
	fmt.Println(string(j))
	fmt.Printf("%v\n", cfg.Password)
	// Output:
	// [redacted]
	// [redacted]
	// "[redacted]"
	// [redacted]
}

// A snapshot's summary for a log line; an incomplete read says so.
func ExampleSnapshot_Summary() {
	snap := &dirsync.Snapshot{
		Source: "corp-ad",
		People: []dirsync.Person{
			{Key: "E00001", FirstName: "Ada", LastName: "Lovelace", Active: true},
			{Key: "E00002", FirstName: "Charles", LastName: "Babbage", InactiveReason: "userAccountControl 514 has ACCOUNTDISABLE (2) set"},
		},
		Skipped:  []dirsync.Skipped{{SourceID: "cn=Printer,ou=people,dc=example,dc=com", Reason: "no employeeNumber"}},
		Complete: true,
		Pages:    1,
		Entries:  3,
	}
	fmt.Println(snap.Summary())
	failed := &dirsync.Snapshot{Source: "corp-ad", Pages: 2, Entries: 2000}
	fmt.Println(failed.Summary())
	// Output:
	// corp-ad: 2 people (1 inactive), 1 skipped, 3 entries in 1 pages, complete
	// corp-ad: 0 people (0 inactive), 0 skipped, 2000 entries in 2 pages, INCOMPLETE
}

// An Active Directory source: ldaps with the company's CA, the password
// from a file, paged by 500. A source refused for its configuration says
// why before any connection.
func ExampleNewLDAPSource() {
	ad := dirsync.LDAPConfig{
		Name:         "corp-ad",
		URL:          "ldaps://dc1.example.com",
		CAFile:       "/etc/access/corp-ca.pem",
		BindDN:       "svc-access@example.com",
		PasswordFile: "/run/secrets/ad-password",
		BaseDN:       "ou=Staff,dc=example,dc=com",
		Filter:       "(&(objectCategory=person)(objectClass=user))",
		PageSize:     500,
	}
	_, err := dirsync.NewLDAPSource(ad)
	fmt.Println(errors.Is(err, dirsync.ErrConfig))

	ad.URL, ad.CAFile = "ldap://dc1.example.com", ""
	_, err = dirsync.NewLDAPSource(ad)
	fmt.Println(err)
	// Output:
	// true
	// dirsync: invalid source configuration: source corp-ad: ldap:// without StartTLS sends the password in clear: use ldaps://, StartTLS, or AllowPlaintext for a test
}
