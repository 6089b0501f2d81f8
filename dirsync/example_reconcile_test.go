package dirsync_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// A directory disables Ben: Reconcile deactivates him on the console,
// then unassigns his licence plate, and writes both changes to the
// evidence log. A second run finds nothing to do.
func ExampleReconcile() {
	srv := accesstest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace", EmployeeNumber: "E1"})
	ben := srv.AddUser(access.User{FirstName: "Ben", LastName: "Hall", EmployeeNumber: "E2"})
	c.Users.AssignLicensePlates(ctx, ben.ID, []string{"AB-123"})

	disabled := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	snap := &dirsync.Snapshot{Source: "corp-ad", Complete: true, Finished: disabled.Add(20 * time.Second), People: []dirsync.Person{
		{Key: "E1", FirstName: "Ada", LastName: "Lovelace", Active: true},
		{Key: "E2", FirstName: "Ben", LastName: "Hall", Active: false, Modified: disabled},
	}}
	dir, _ := os.MkdirTemp("", "evidence")
	defer os.RemoveAll(dir)
	log, err := dirsync.OpenEvidence(filepath.Join(dir, "evidence.jsonl"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer log.Close()
	now := func() time.Time { return disabled.Add(25 * time.Second) } // the console's answers
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivateShare: -1}

	_, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: now})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Records {
		fmt.Println(r.Action, r.Name, r.Latency(), len(r.Credentials))
	}
	u, _ := srv.User(ben.ID)
	fmt.Println(u.Status, len(u.LicensePlates))

	p, _, _ := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: now})
	fmt.Println("drift:", p.Drift())
	// Output:
	// deactivate Ben Hall 25s 0
	// revoke_credentials Ben Hall 25s 1
	// DEACTIVATED 0
	// drift: false
}
