package site_test

import (
	"context"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// hrConsole is a console of four active users and one deactivated one,
// as an HR sync meets it.
func hrConsole(t *testing.T) (*accesstest.Server, *access.Client) {
	t.Helper()
	srv := accesstest.New(t)
	for _, u := range []access.User{
		{FirstName: "Ada", LastName: "Lovelace", EmployeeNumber: "E01001", UserEmail: "ada@example.com", Status: access.UserStatusActive},
		{FirstName: "Ben", LastName: "Hall", EmployeeNumber: "E01002", UserEmail: "ben@example.com", Status: access.UserStatusActive},
		{FirstName: "Chloe", LastName: "Martin", EmployeeNumber: "E01003", UserEmail: "chloe@example.com", Status: access.UserStatusActive},
		{FirstName: "Dan", LastName: "Ross", EmployeeNumber: "E01004", UserEmail: "dan@example.com", Status: access.UserStatusActive},
		{FirstName: "Eve", LastName: "Gone", EmployeeNumber: "E01005", UserEmail: "eve@example.com", Status: access.UserStatusDeactivated},
	} {
		srv.AddUser(u)
	}
	return srv, srv.Client()
}

// TestPlanNamesPeople: every user change carries the person's full name,
// the document's for a create or an update, the console's for a prune.
func TestPlanNamesPeople(t *testing.T) {
	_, c := hrConsole(t)
	doc := &site.Document{Users: []site.User{
		{EmployeeNumber: "E01001", FirstName: "Ada", LastName: "King", Email: "ada@example.com"},
		{EmployeeNumber: "E01002", FirstName: "Ben", LastName: "Hall", Email: "ben@example.com"},
		{EmployeeNumber: "E01004", FirstName: "Dan", LastName: "Ross", Email: "dan@example.com"},
		{EmployeeNumber: "E01010", FirstName: "Zoe", LastName: "New", Email: "zoe@example.com"},
	}}
	p, err := site.MakePlan(context.Background(), c, doc, &site.PlanOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, ch := range p.Changes {
		got[string(ch.Op)+" "+ch.Key] = ch.Name
	}
	want := map[string]string{"update E01001": "Ada King", "create E01010": "Zoe New", "deactivate E01003": "Chloe Martin"}
	if len(got) != len(want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: name %q, want %q", k, got[k], v)
		}
	}
}
