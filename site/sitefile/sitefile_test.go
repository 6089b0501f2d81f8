package sitefile_test

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access/site"
	"github.com/access-dev/access/site/sitefile"
)

// write puts files in a new directory and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func problems(t *testing.T, err error) []string {
	t.Helper()
	var de *site.DocumentError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *site.DocumentError", err)
	}
	out := make([]string, len(de.Problems))
	for i, p := range de.Problems {
		out[i] = p.String()
	}
	return out
}

// TestUsersCSVWithItsOptions reads users_csv in its object form (a
// delimiter and a column mapping) and in its plain form, YAML and JSON,
// and lets Options.CSV override the document's options.
func TestUsersCSVWithItsOptions(t *testing.T) {
	dir := write(t, map[string]string{
		"site.yaml":  "users_csv:\n  path: hr.csv\n  delimiter: \";\"\n  columns: {employee_number: Personalnummer, first_name: Vorname, last_name: Nachname}\n",
		"site.json":  `{"users_csv": {"path": "hr.csv", "delimiter": ";", "columns": {"employee_number": "Personalnummer", "first_name": "Vorname", "last_name": "Nachname"}}}`,
		"plain.yaml": "users_csv: hr.csv\n",
		"hr.csv":     "Personalnummer;Vorname;Nachname;Abteilung\nP-1;Ada;Lovelace;Vertrieb\n",
	})
	for _, name := range []string{"site.yaml", "site.json"} {
		f, err := sitefile.ReadFile(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u := f.Document.Users; len(u) != 1 || u[0].EmployeeNumber != "P-1" || u[0].FirstName != "Ada" || f.Document.UsersCSV != nil {
			t.Fatalf("%s: users %+v", name, u)
		}
		if got := f.Locator("users[0].first_name").String(); got != filepath.Join(dir, "hr.csv")+":2:5" {
			t.Errorf("%s: users[0].first_name is at %s", name, got)
		}
	}
	// The plain form reads ',' and the columns' own names: refused at
	// the header, unless the options override the document's.
	_, err := sitefile.ReadFile(filepath.Join(dir, "plain.yaml"), nil)
	if got := problems(t, err); !strings.HasPrefix(got[0], filepath.Join(dir, "hr.csv")+":1:1: header: unknown column") {
		t.Fatalf("problems %q", got)
	}
	f, err := sitefile.ReadFile(filepath.Join(dir, "plain.yaml"), &sitefile.Options{CSV: &site.CSVOptions{Delimiter: ';',
		Columns: map[string]string{"employee_number": "Personalnummer", "first_name": "Vorname", "last_name": "Nachname"}}})
	if err != nil || len(f.Document.Users) != 1 || f.Document.Users[0].LastName != "Lovelace" {
		t.Fatalf("with options: %v", err)
	}
}

// TestUsersCSVProblemsAreWhereTheyAre: a bad delimiter or column mapping
// is placed in the document; a short row, and a problem found later by
// Validate (a group the document does not define), at the CSV's line;
// users_csv in a site's override is refused (it was ignored).
func TestUsersCSVProblemsAreWhereTheyAre(t *testing.T) {
	dir := write(t, map[string]string{
		"delim.yaml":  "users_csv: {path: hr.csv, delimiter: \";;\"}\n",
		"column.yaml": "users_csv:\n  path: hr.csv\n  columns:\n    nickname: Vorname\n",
		"short.yaml":  "users_csv: short.csv\n",
		"group.yaml":  "user_groups: [{name: Sales}]\nusers:\n  - {employee_number: E1, first_name: Ada, last_name: Lovelace}\nusers_csv: hr.csv\n",
		"dup.yaml":    "users:\n  - {employee_number: E3, first_name: Cy, last_name: Young}\nusers_csv: hr.csv\n",
		"site.yaml":   "sites:\n  north:\n    users_csv: hr.csv\n",
		"hr.csv":      "first_name,last_name,employee_number,groups\nBen,Hall,E2,Sales\n\"Cy\",\"Young\",E3,\"Sales;\nNight\"\nDi,Prince,E4,Night\n",
		"short.csv":   "first_name,last_name,email,employee_number,groups,status\nAda,Lovelace,ada@example.com,E01000,Sales,ACTIVE\nBen,Hall,E01001\n",
	})
	for _, c := range []struct{ file, want string }{
		{"delim.yaml", "delim.yaml:1:27: users_csv.delimiter: the delimiter \";;\" is not one character"},
		{"column.yaml", "column.yaml:4:5: users_csv.columns.nickname: unknown column \"nickname\""},
		{"short.yaml", "short.csv:3: row: the row has 3 fields, the header 6"},
		{"site.yaml", "site.yaml:3:5: sites.north.users_csv: users_csv is read at the top of the document only, not in an override"},
	} {
		_, err := sitefile.ReadFile(filepath.Join(dir, c.file), nil)
		got := problems(t, err)
		if len(got) != 1 || !strings.Contains(got[0], c.want) {
			t.Errorf("%s: problems %q, want one with %q", c.file, got, c.want)
		}
		if c.file == "short.yaml" && !errors.Is(err, csv.ErrFieldCount) {
			t.Errorf("short.yaml: err = %v, want one matching csv.ErrFieldCount", err)
		}
	}
	f, err := sitefile.ReadFile(filepath.Join(dir, "group.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := problems(t, site.Validate(f.Document, f.Locator))
	hr := filepath.Join(dir, "hr.csv")
	want := []string{hr + ":3:17: users[2].groups[1]: no user_group named \"Night\" in the document", // a field over two lines
		hr + ":5:14: users[3].groups[0]: no user_group named \"Night\" in the document"}
	if !slices.Equal(got, want) {
		t.Fatalf("problems %q, want %q", got, want)
	}
	// A user of the CSV that repeats one of the document's: both places.
	f, err = sitefile.ReadFile(filepath.Join(dir, "dup.yaml"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got = problems(t, site.Validate(f.Document, f.Locator))
	if want = []string{hr + ":3: users[2]: duplicate user \"E3\" (also " + filepath.Join(dir, "dup.yaml") + ":2:5)"}; !slices.Equal(got, want) {
		t.Fatalf("problems %q, want %q", got, want)
	}
}
