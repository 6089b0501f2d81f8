// Command hrsync keeps the console's people in step with an HR export (a
// CSV with the columns of "access users import" plus groups) through
// package site, on the embedded fake: it plans and applies, then plans
// and applies again to show that a second run has nothing to do. Users
// the export drops would be deactivated with site.PlanOptions{Prune: true}.
//
//	go run ./examples/hrsync
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

const hrExport = `first_name,last_name,email,employee_number,groups
Grace,Hopper,grace@example.com,HR-1906,Engineering
Alan,Turing,alan@example.com,HR-1912,Engineering;Night shift
Hedy,Lamarr,hedy@example.com,HR-1914,Facilities
`

func main() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	if err := run(context.Background(), srv.Client(), strings.NewReader(hrExport), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run syncs the users of the CSV in hr, and the groups they name, to the
// console of client, twice, and writes what each pass did to out.
func run(ctx context.Context, client *access.Client, hr io.Reader, out io.Writer) error {
	users, err := site.ReadUsersCSV(hr, "hr.csv", nil)
	if err != nil {
		return err
	}
	doc := &site.Document{Users: users, UserGroups: []site.UserGroup{}}
	seen := map[string]bool{}
	for _, u := range users {
		for _, g := range u.Groups {
			if !seen[g] {
				seen[g] = true
				doc.UserGroups = append(doc.UserGroups, site.UserGroup{Name: g})
			}
		}
	}
	for pass := 1; pass <= 2; pass++ {
		plan, err := site.MakePlan(ctx, client, doc, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "pass %d: %s\n", pass, plan.Summary)
		report, err := plan.Apply(ctx, client, nil)
		if err != nil {
			return err
		}
		for _, r := range report.Results {
			fmt.Fprintf(out, "  %s: %s %s\n", r.Status, r.Change.Op, r.Change.Ref())
		}
	}
	return nil
}
