// Command dirsync keeps the console's people equal to an HR file with
// package dirsync's Runner, on the embedded fake: the first run finds
// nothing to do, then the file marks Ben as gone and the next run
// deactivates him, unassigns his NFC card and writes both changes to the
// evidence log, which the program prints. Gus, a guard without an
// employee number, is outside the scope and never touched.
//
//	go run ./examples/dirsync
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

const hrFile = `employee_number,first_name,last_name,email,status
E1,Ada,Lovelace,ada@example.com,ACTIVE
E2,Ben,Hall,ben@example.com,ACTIVE
E3,Chloe,Martin,chloe@example.com,ACTIVE
E4,Dan,Okafor,dan@example.com,ACTIVE
E5,Eve,Nakamura,eve@example.com,ACTIVE
`

func main() {
	srv := accesstest.NewServer()
	defer srv.Close()
	seed(srv)
	dir, err := os.MkdirTemp("", "dirsync-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := run(context.Background(), srv.Client(), dir, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// seed gives the fake console the people of hrFile (Ben with an NFC
// card) and Gus, whom the HR file does not know.
func seed(srv *accesstest.Server) {
	users, err := site.ReadUsersCSV(strings.NewReader(hrFile), "hr.csv", nil)
	if err != nil {
		panic(err) // hrFile is a constant: a bug
	}
	for _, u := range users {
		au := access.User{EmployeeNumber: u.EmployeeNumber, FirstName: u.FirstName, LastName: u.LastName, UserEmail: u.Email}
		if u.EmployeeNumber == "E2" {
			au.NFCCards = []access.NFCCard{{ID: "100042", Token: "tok-100042"}}
		}
		srv.AddUser(au)
	}
	srv.AddUser(access.User{FirstName: "Gus", LastName: "Guard", UserEmail: "gus@example.com"})
}

// run keeps the console of client equal to an HR file in dir for two
// runs (the start, then one tick after Ben leaves) and writes what each
// run did, the evidence log and the status to out.
func run(ctx context.Context, client *access.Client, dir string, out io.Writer) error {
	hr := filepath.Join(dir, "hr.csv")
	if err := os.WriteFile(hr, []byte(hrFile), 0o600); err != nil {
		return err
	}
	evPath := filepath.Join(dir, "evidence.jsonl")
	evidence, err := dirsync.OpenEvidence(evPath)
	if err != nil {
		return err
	}
	defer evidence.Close()

	// A source over the HR file, read with package site's CSV reader: a
	// status of DEACTIVATED (or a row removed) makes a leaver.
	hrSource, err := dirsync.NewCSVSource(hr, &dirsync.CSVOptions{Name: "hr"})
	if err != nil {
		return err
	}
	ticks := make(chan time.Time) // the interval, driven by hand here
	results := make(chan dirsync.RunResult, 1)
	runner, err := dirsync.NewRunner(client, dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: hrSource,
			Options: &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}}}},
		Ticks: ticks,
		Apply: &dirsync.ApplyOptions{Evidence: evidence},
		OnRun: func(res dirsync.RunResult) { results <- res },
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	defer func() { cancel(); <-done }()

	show := func(res dirsync.RunResult) error {
		if res.Err != nil {
			return res.Err
		}
		fmt.Fprintf(out, "run (%s): %s\n", res.Trigger, res.Plan.Site.Summary)
		if res.Report != nil {
			fmt.Fprintf(out, "  deactivated %d, credentials revoked %d\n", res.Report.Deactivated, res.Report.Revoked)
		}
		return nil
	}
	if err := show(<-results); err != nil {
		return err
	}
	gone := strings.Replace(hrFile, "ben@example.com,ACTIVE", "ben@example.com,DEACTIVATED", 1)
	if err := os.WriteFile(hr, []byte(gone), 0o600); err != nil {
		return err
	}
	ticks <- time.Now()
	if err := show(<-results); err != nil {
		return err
	}

	ev, err := dirsync.ReadEvidenceFile(evPath)
	if err != nil {
		return err
	}
	for _, r := range ev.Records {
		fmt.Fprintf(out, "evidence: %s %s (%s) %s", r.Action, r.Key, r.Name, r.Status)
		for _, c := range r.Credentials {
			fmt.Fprintf(out, " %s %s", c.Type, c.ID)
		}
		fmt.Fprintln(out)
	}
	st := runner.Status()[0]
	fmt.Fprintf(out, "status: %d people, %d pending leavers, %d guard trips\n", st.People, st.PendingLeavers, st.GuardTrips)
	return nil
}
