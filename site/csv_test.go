package site_test

import (
	"encoding/csv"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access/site"
)

// problems returns the problems of a *site.DocumentError as strings.
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

// TestReadUsersCSVRefusesARowOfTheWrongLength: a short row under a
// six-column header (it used to be read as a user whose groups are
// empty, taking their doors away) is refused with the CSV file's line,
// counting the header and a quoted field over two lines; so is a long row.
func TestReadUsersCSVRefusesARowOfTheWrongLength(t *testing.T) {
	const in = "first_name,last_name,email,employee_number,groups,status\n" +
		"Ada,Lovelace,ada@example.com,E01000,\"Sales;\nNight\",ACTIVE\n" +
		"Ben,Hall,E01001\n" +
		"Cy,Young,cy@example.com,E01002,Sales,ACTIVE,extra\n"
	_, err := site.ReadUsersCSV(strings.NewReader(in), "hr.csv", nil)
	if !errors.Is(err, csv.ErrFieldCount) {
		t.Errorf("err = %v, want one matching csv.ErrFieldCount", err)
	}
	want := []string{"hr.csv:4: row: the row has 3 fields, the header 6", "hr.csv:5: row: the row has 7 fields, the header 6"}
	if got := problems(t, err); !slices.Equal(got, want) {
		t.Fatalf("problems %q, want %q", got, want)
	}
}

// TestReadUsersCSVGivesTheLineOfEveryProblem: a missing name, a user
// with no key, a bad status and a duplicate key are refused by the reader
// itself at the CSV line (a user's index, zero-based and not counting the
// header, was all a Go program got).
func TestReadUsersCSVGivesTheLineOfEveryProblem(t *testing.T) {
	const in = "first_name,last_name,email,employee_number,status\n" +
		"Ada,Lovelace,ada@example.com,E1,ACTIVE\n" +
		",Hall,ben@example.com,E2,\n" +
		"Cy,Young,,,\n" +
		"Di,Prince,di@example.com,E4,ON LEAVE\n" +
		"Ed,Wood,ed@example.com,E1,\n"
	got := problems(t, func() error { _, err := site.ReadUsersCSV(strings.NewReader(in), "hr.csv", nil); return err }())
	want := []string{
		"hr.csv:3:1: first_name: first_name is required",
		"hr.csv:4: row: a user needs an employee_number or an email to be managed",
		"hr.csv:5:29: status: status \"ON LEAVE\" is not ACTIVE, DEACTIVATED or PENDING",
		"hr.csv:6:24: employee_number: duplicate user \"E1\" (also line 2)",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("problems\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadUsersCSVRefusesADuplicateEmail: the same email under a new
// employee number is refused like a duplicate key, with both lines.
func TestReadUsersCSVRefusesADuplicateEmail(t *testing.T) {
	const in = "first_name,last_name,email,employee_number\n" +
		"Ada,Lovelace,ada@example.com,E1\n" +
		"Ada,King,ADA@example.com,E2\n"
	got := problems(t, func() error { _, err := site.ReadUsersCSV(strings.NewReader(in), "hr.csv", nil); return err }())
	if want := []string{`hr.csv:3:10: email: duplicate email "ADA@example.com" (also line 2)`}; !slices.Equal(got, want) {
		t.Fatalf("problems %q, want %q", got, want)
	}
}

// TestValidateRefusesADuplicateEmail: across the document too (a user
// listed inline and again from a CSV under another employee number).
func TestValidateRefusesADuplicateEmail(t *testing.T) {
	doc := &site.Document{Users: []site.User{
		{EmployeeNumber: "E1", Email: "ada@example.com", FirstName: "Ada", LastName: "Lovelace"},
		{EmployeeNumber: "E2", Email: "Ada@Example.com", FirstName: "Ada", LastName: "King"},
		{EmployeeNumber: "E1", FirstName: "Ed", LastName: "Wood"},
	}}
	got := problems(t, site.Validate(doc, nil))
	want := []string{`users[1].email: duplicate email "Ada@Example.com" (also users[0])`, `users[2]: duplicate user "E1" (also users[0])`}
	if !slices.Equal(got, want) {
		t.Fatalf("problems %q, want %q", got, want)
	}
}

// TestReadUsersCSVWithADelimiterAndAColumnMapping reads an HR export as
// it is: ';' between fields, its own column names (matched without regard
// to case), its other columns ignored since a mapping names the columns
// that matter.
func TestReadUsersCSVWithADelimiterAndAColumnMapping(t *testing.T) {
	const in = "Personalnummer;Vorname;Nachname;E-Mail;Abteilung;groups\n" +
		"P-7;Ada;Lovelace;ada@example.com;Vertrieb;\"Sales;Night\"\n"
	opts := &site.CSVOptions{Delimiter: ';', Columns: map[string]string{
		"employee_number": "personalnummer", "first_name": "Vorname", "last_name": "Nachname", "email": "E-Mail"}}
	users, err := site.ReadUsersCSV(strings.NewReader(in), "hr.csv", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 1 || users[0].EmployeeNumber != "P-7" || users[0].FirstName != "Ada" || users[0].Email != "ada@example.com" ||
		!slices.Equal(users[0].Groups, []string{"Sales", "Night"}) {
		t.Fatalf("users %+v", users)
	}
	// Without the mapping the same file is refused at its header.
	_, err = site.ReadUsersCSV(strings.NewReader(in), "hr.csv", &site.CSVOptions{Delimiter: ';'})
	if got := problems(t, err); len(got) == 0 || got[0] != `hr.csv:1:1: header: unknown column "personalnummer" (want first_name,last_name,email,employee_number,onboard_time,status,groups,policies,license_plates)` {
		t.Fatalf("problems %q", got)
	}
	// A mapped column the file lacks, a mapping of an unknown column and
	// a delimiter that cannot be one are refused.
	for _, c := range []struct {
		opts *site.CSVOptions
		want string
	}{
		{&site.CSVOptions{Delimiter: ';', Columns: map[string]string{"first_name": "Vorname", "last_name": "Surname"}},
			`hr.csv:1: header: missing column last_name (mapped to "Surname")`},
		{&site.CSVOptions{Delimiter: ';', Columns: map[string]string{"nickname": "Vorname"}},
			`hr.csv: columns.nickname: unknown column "nickname" (want first_name,last_name,email,employee_number,onboard_time,status,groups,policies,license_plates)`},
		{&site.CSVOptions{Delimiter: '"'}, `hr.csv: delimiter: '"' cannot separate fields`},
	} {
		_, err := site.ReadUsersCSV(strings.NewReader(in), "hr.csv", c.opts)
		if got := problems(t, err); !slices.Contains(got, c.want) {
			t.Errorf("problems %q, want %q among them", got, c.want)
		}
	}
}
