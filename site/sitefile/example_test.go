package sitefile_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/access-dev/access/site"
	"github.com/access-dev/access/site/sitefile"
)

// A document read from YAML, and the position of one of its members.
func ExampleRead() {
	const doc = `user_groups:
  - name: Night crew
users:
  - employee_number: E01000
    first_name: Ada
    last_name: Lovelace
    groups: [Night crew]
`
	f, err := sitefile.Read(strings.NewReader(doc), "site.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	u := f.Document.Users[0]
	fmt.Println(u.Key(), u.FirstName, u.LastName, u.Groups)
	fmt.Println(f.Locator("users[0].groups[0]"))
	// Output:
	// E01000 Ada Lovelace [Night crew]
	// site.yaml:7:14
}

// A member the document does not know (a typo) is refused with its
// position; so is a member of the wrong shape.
func ExampleRead_problems() {
	const doc = `users:
  - first_name: Ada
    last_name: Lovelace
    nmae: typo
    groups: Night crew
`
	_, err := sitefile.Read(strings.NewReader(doc), "site.yaml", nil)
	var de *site.DocumentError
	if errors.As(err, &de) {
		for _, p := range de.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// site.yaml:4:5: users[0].nmae: unknown member "nmae" (known: employee_number, email, first_name, last_name, status, onboard_time, groups, policies, license_plates)
	// site.yaml:5:13: users[0].groups: want a list
}

// Aliases that expand the document beyond the alias bound are refused
// before any is followed.
func ExampleRead_aliases() {
	var b strings.Builder
	b.WriteString("sites:\n  l0: &l0 {user_groups: [{name: G, policies: [a, b, c, d, e, f, g, h]}]}\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(&b, "  l%d: &l%d {sites: {a: *l%d, b: *l%d, c: *l%d, d: *l%d, e: *l%d, f: *l%d, g: *l%d, h: *l%d}}\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	_, err := sitefile.Read(strings.NewReader(b.String()), "bomb.yaml", nil)
	fmt.Println(errors.Is(err, sitefile.ErrAliasBound))
	// Output:
	// true
}

// ReadFile reads users_csv relative to the document: its users follow the
// document's own, and the Locator places each at its CSV line.
func ExampleReadFile() {
	f, err := sitefile.ReadFile("testdata/hr/site.yaml", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, u := range f.Document.Users {
		fmt.Println(u.Key(), u.FirstName, f.Locator(fmt.Sprintf("users[%d]", i)))
	}
	// Output:
	// E01000 Ada testdata/hr/site.yaml:4:5
	// H-001 Hedy testdata/hr/people.csv:2
	// H-002 Alan testdata/hr/people.csv:3
}
