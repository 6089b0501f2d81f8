package site_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/access-dev/access/site"
)

// An HR export as it is: ';' between fields and its own column names.
func ExampleReadUsersCSV() {
	const export = "Personalnummer;Vorname;Nachname;Abteilung;groups\n" +
		"P-7;Grete;Hermann;Vertrieb;\"Sales;Night crew\"\n"
	users, err := site.ReadUsersCSV(strings.NewReader(export), "export.csv", &site.CSVOptions{
		Delimiter: ';',
		Columns:   map[string]string{"employee_number": "Personalnummer", "first_name": "Vorname", "last_name": "Nachname"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(users[0].Key(), users[0].FirstName, users[0].LastName, users[0].Groups)
	// Output:
	// P-7 Grete Hermann [Sales Night crew]
}

// A row with fewer fields than the header is refused at its line of the
// file, not read as a user whose lists are empty.
func ExampleReadUsersCSV_shortRow() {
	const export = "first_name,last_name,email,employee_number,groups,status\n" +
		"Ada,Lovelace,ada@example.com,E01000,Sales,ACTIVE\n" +
		"Ben,Hall,E01001\n"
	_, err := site.ReadUsersCSV(strings.NewReader(export), "hr.csv", nil)
	var de *site.DocumentError
	if errors.As(err, &de) {
		fmt.Println(de.Problems[0])
	}
	// Output:
	// hr.csv:3: row: the row has 3 fields, the header 6
}

// The locator places each user read, and its members, in the file.
func ExampleReadUsersCSVWithLocator() {
	const export = "first_name,last_name,employee_number,groups\n" +
		"Ada,Lovelace,E01000,Sales\n"
	users, loc, err := site.ReadUsersCSVWithLocator(strings.NewReader(export), "hr.csv", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(users[0].Key(), loc("users[0]"), loc("users[0].groups[0]"))
	// Output:
	// E01000 hr.csv:2 hr.csv:2:21
}

// users_csv is a path, or the path with how to read the file.
func ExampleUsersCSV() {
	for _, m := range []site.UsersCSV{{Path: "hr.csv"}, {Path: "export.csv", Delimiter: ";"}} {
		doc := site.Document{UsersCSV: &m}
		b, _ := doc.MarshalJSON()
		fmt.Println(string(b))
	}
	// Output:
	// {"users_csv":"hr.csv"}
	// {"users_csv":{"path":"export.csv","delimiter":";"}}
}
