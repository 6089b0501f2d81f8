package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the example on a fake console: Ben is deactivated and his
// card unassigned at the second run, Gus is left alone.
func TestRun(t *testing.T) {
	srv := accesstest.New(t)
	seed(srv)
	var out strings.Builder
	if err := run(context.Background(), srv.Client(), t.TempDir(), &out); err != nil {
		t.Fatal(err)
	}
	want := `run (start): 0 to create, 0 to change; 1 users outside the scope left alone
run (interval): 0 to create, 0 to change, 1 to deactivate; 1 users outside the scope left alone
  deactivated 1, credentials revoked 1
evidence: deactivate E2 (Ben Hall) done
evidence: revoke_credentials E2 (Ben Hall) done nfc_card 100042
status: 4 people, 0 pending leavers, 0 guard trips
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, u := range srv.Users() {
		want := access.UserStatusActive
		if u.EmployeeNumber == "E2" {
			want = access.UserStatusDeactivated
		}
		if u.Status != want || (u.EmployeeNumber == "E2" && len(u.NFCCards) != 0) {
			t.Errorf("%s %s: %s, %d cards", u.FirstName, u.LastName, u.Status, len(u.NFCCards))
		}
	}
}
