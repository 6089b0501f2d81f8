package site_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	var staff []string
	for _, u := range []access.User{
		{FirstName: "Ada", LastName: "Lovelace", EmployeeNumber: "E01001", UserEmail: "ada@example.com", Status: access.UserStatusActive},
		{FirstName: "Ben", LastName: "Hall", EmployeeNumber: "E01002", UserEmail: "ben@example.com", Status: access.UserStatusActive},
		{FirstName: "Chloe", LastName: "Martin", EmployeeNumber: "E01003", UserEmail: "chloe@example.com", Status: access.UserStatusActive},
		{FirstName: "Dan", LastName: "Ross", EmployeeNumber: "E01004", UserEmail: "dan@example.com", Status: access.UserStatusActive},
		{FirstName: "Eve", LastName: "Gone", EmployeeNumber: "E01005", UserEmail: "eve@example.com", Status: access.UserStatusDeactivated},
	} {
		staff = append(staff, srv.AddUser(u).ID)
	}
	// Outside the HR system: a contractor known by email only, and a
	// guard with an employee number who is in no group.
	srv.AddUser(access.User{FirstName: "Carl", LastName: "Contractor", UserEmail: "carl@example.com", Status: access.UserStatusActive})
	srv.AddUser(access.User{FirstName: "Gus", LastName: "Guard", EmployeeNumber: "G-7", Status: access.UserStatusActive})
	srv.AddUserGroup("", "Staff", "", staff...)
	return srv, srv.Client()
}

// hrStaff is the document of an HR export that lists Ada, Ben and Dan of
// the console (Chloe left, Eve left long ago) and a newcomer.
func hrStaff() []site.User {
	return []site.User{
		{EmployeeNumber: "E01001", FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
		{EmployeeNumber: "E01002", FirstName: "Ben", LastName: "Hall", Email: "ben@example.com"},
		{EmployeeNumber: "E01004", FirstName: "Dan", LastName: "Ross", Email: "dan@example.com"},
	}
}

func changeKeys(p *site.Plan) []string {
	var out []string
	for _, ch := range p.Changes {
		out = append(out, string(ch.Op)+" "+ch.Key)
	}
	return out
}

// TestScopeLimitsWhoIsPruned: with a scope, a console user outside it
// that the document does not list is counted, never pruned; the scope
// is the document's or the options'.
func TestScopeLimitsWhoIsPruned(t *testing.T) {
	_, c := hrConsole(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		doc, opts  *site.Scope
		deactivate string
		outside    int
	}{
		{"no scope", nil, nil, "deactivate E01003,deactivate G-7,deactivate carl@example.com", 0},
		{"employee number", &site.Scope{EmployeeNumber: true}, nil, "deactivate E01003,deactivate G-7", 1},
		{"user group", &site.Scope{UserGroup: "Staff"}, nil, "deactivate E01003", 2},
		{"both", &site.Scope{EmployeeNumber: true, UserGroup: "Staff"}, nil, "deactivate E01003", 2},
		{"options over the document", &site.Scope{EmployeeNumber: true}, &site.Scope{UserGroup: "Staff"}, "deactivate E01003", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := &site.Document{Users: hrStaff(), Scope: tc.doc}
			p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, Scope: tc.opts, MaxDeactivate: -1, MaxDeactivateShare: 100})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(changeKeys(p), ","); got != tc.deactivate {
				t.Errorf("changes %s, want %s", got, tc.deactivate)
			}
			if p.Summary.OutOfScope != tc.outside {
				t.Errorf("out of scope %d, want %d", p.Summary.OutOfScope, tc.outside)
			}
		})
	}
}

// TestScopeIsChecked: a scope that names nothing, a document user
// outside the scope and a scope group the console lacks are refused
// before anything is written.
func TestScopeIsChecked(t *testing.T) {
	_, c := hrConsole(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		doc   *site.Document
		opts  *site.PlanOptions
		probe string
	}{
		{"empty", &site.Document{Users: hrStaff(), Scope: &site.Scope{}}, nil, "scope: a scope needs"},
		{"no employee number", &site.Document{Users: append(hrStaff(), site.User{Email: "x@example.com", FirstName: "X", LastName: "Y"}), Scope: &site.Scope{EmployeeNumber: true}}, nil, "users[3]: outside the scope"},
		{"groups leave it out", &site.Document{Users: []site.User{{EmployeeNumber: "E01001", FirstName: "Ada", LastName: "L", Groups: []string{}}}}, &site.PlanOptions{Scope: &site.Scope{UserGroup: "Staff"}}, "users[0].groups: outside the scope"},
		{"no such group", &site.Document{Users: hrStaff(), Scope: &site.Scope{UserGroup: "Nobody"}}, nil, `scope.user_group: no user_group named "Nobody" on the console`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := site.MakePlan(ctx, c, tc.doc, tc.opts)
			var de *site.DocumentError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.probe) {
				t.Fatalf("err = %v, want a *DocumentError with %q", err, tc.probe)
			}
		})
	}
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
	p, err := site.MakePlan(context.Background(), c, doc, &site.PlanOptions{Prune: true, Scope: &site.Scope{UserGroup: "Staff"}})
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

// TestLeaversAreNeverSilent: without Prune, every active console user the
// document does not list is in Plan.Unlisted by key and full name, with
// what pruning would do, and counts as drift; a deactivated user and a
// user outside the scope are not leavers. A user group the document no
// longer lists is shown too.
func TestLeaversAreNeverSilent(t *testing.T) {
	srv, c := hrConsole(t)
	ctx := context.Background()
	srv.AddUserGroup("", "Temps", "")
	doc := &site.Document{Users: hrStaff(), Scope: &site.Scope{UserGroup: "Staff"}, UserGroups: []site.UserGroup{{Name: "Staff"}}}
	p, err := site.MakePlan(ctx, c, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []site.Unlisted{
		{Kind: site.KindUserGroups, Key: "Temps", Prune: site.OpDelete},
		{Kind: site.KindUsers, Key: "E01003", Name: "Chloe Martin", Prune: site.OpDeactivate},
	}
	if !slices.Equal(p.Unlisted, want) {
		t.Fatalf("unlisted %+v, want %+v", p.Unlisted, want)
	}
	if len(p.Changes) != 0 || !p.Drift() || p.Summary.Unlisted != 2 || p.Summary.OutOfScope != 2 {
		t.Fatalf("changes %d, drift %v, summary %+v", len(p.Changes), p.Drift(), p.Summary)
	}
	if got := p.Summary.String(); !strings.Contains(got, "2 not in the document") || !strings.Contains(got, "2 users outside the scope") {
		t.Errorf("summary %q", got)
	}
	// Applying it writes nothing: only pruning removes a leaver.
	before := len(srv.Requests())
	rep, err := p.Apply(ctx, c, nil)
	if err != nil || rep.Done != 0 {
		t.Fatalf("apply: %v, %+v", err, rep)
	}
	for _, r := range srv.Requests()[before:] {
		if r.Method != "GET" {
			t.Fatalf("apply without Prune sent %s %s", r.Method, r.Path)
		}
	}
	// With everyone listed, nothing is drift.
	doc.Users = append(doc.Users, site.User{EmployeeNumber: "E01003", FirstName: "Chloe", LastName: "Martin", Email: "chloe@example.com"})
	doc.UserGroups = append(doc.UserGroups, site.UserGroup{Name: "Temps"})
	if p := mustPlan(t, c, doc); p.Drift() || len(p.Unlisted) != 0 {
		t.Fatalf("drift %v, unlisted %+v", p.Drift(), p.Unlisted)
	}
}

// TestGuardRefusesMassDeactivation: a plan that prunes more users than
// the guard allows (a count and a share, defaults 10 and 20 %) comes back
// with a *GuardError naming the numbers, and Apply refuses it before any
// write; raising the limits lets it through.
func TestGuardRefusesMassDeactivation(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	doc := &site.Document{Users: []site.User{{EmployeeNumber: "E01000", FirstName: "Ada", LastName: "Lovelace"}}}
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true})
	var ge *site.GuardError
	if !errors.As(err, &ge) || !errors.Is(err, site.ErrGuard) || p == nil {
		t.Fatalf("plan %v, err = %v, want the plan and a *GuardError", p != nil, err)
	}
	if ge.Deactivate != p.Summary.Deactivate || ge.Deactivate < 280 || ge.Of != ge.Deactivate+1 || !ge.OverCount || !ge.OverShare ||
		ge.MaxCount != site.DefaultMaxDeactivate || ge.MaxShare != site.DefaultMaxDeactivateShare {
		t.Fatalf("guard error %+v (summary %+v)", ge, p.Summary)
	}
	if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("would deactivate %d of %d users", ge.Deactivate, ge.Of)) || !strings.Contains(msg, "MaxDeactivate 10") {
		t.Errorf("message %q", msg)
	}
	before := len(srv.Requests())
	if rep, err := p.Apply(ctx, c, nil); rep != nil || !errors.Is(err, site.ErrGuard) {
		t.Fatalf("apply: %+v, %v", rep, err)
	}
	for _, r := range srv.Requests()[before:] {
		if r.Method != "GET" {
			t.Fatalf("a refused plan sent %s %s", r.Method, r.Path)
		}
	}
	if _, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, MaxDeactivate: 300, MaxDeactivateShare: 100}); err != nil {
		t.Fatalf("limits raised: %v", err)
	}
	if _, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, MaxDeactivate: 300}); !errors.As(err, &ge) || ge.OverCount || !ge.OverShare {
		t.Fatalf("count raised, share not: %v", err)
	}
}

// TestGuardShareOfTheScope: the share is of the users the document
// manages (inside the scope, not deactivated), rounded up, so that one
// leaver of a small team passes.
func TestGuardShareOfTheScope(t *testing.T) {
	_, c := hrConsole(t)
	ctx := context.Background()
	scope := &site.Scope{UserGroup: "Staff"} // E01001-E01004 active, E01005 deactivated
	for _, tc := range []struct {
		name    string
		users   []site.User
		opts    site.PlanOptions
		refused bool
	}{
		{"one of four", hrStaff(), site.PlanOptions{}, false},
		{"three of four", hrStaff()[:1], site.PlanOptions{}, true},
		{"three of four, share raised", hrStaff()[:1], site.PlanOptions{MaxDeactivateShare: 75}, false},
		{"three of four, count lowered", hrStaff()[:1], site.PlanOptions{MaxDeactivate: 2, MaxDeactivateShare: 100}, true},
		{"three of four, no share limit", hrStaff()[:1], site.PlanOptions{MaxDeactivateShare: -1}, false},
		{"without pruning", hrStaff()[:1], site.PlanOptions{Prune: false}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Prune = tc.name != "without pruning"
			o.Scope = scope
			_, err := site.MakePlan(ctx, c, &site.Document{Users: tc.users}, &o)
			if got := errors.Is(err, site.ErrGuard); got != tc.refused || (err != nil && !got) {
				t.Fatalf("err = %v, want refused %v", err, tc.refused)
			}
		})
	}
}

// TestUnlistedOfEveryKind: each listed kind reports the console objects
// the document does not hold (built-ins never), each to be deleted by
// pruning.
func TestUnlistedOfEveryKind(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	kinds := []site.Kind{site.KindHolidayGroups, site.KindSchedules, site.KindDoorGroups, site.KindAccessPolicies, site.KindUserGroups, site.KindWebhooks}
	doc, _, err := site.Export(ctx, c, kinds)
	if err != nil {
		t.Fatal(err)
	}
	if p := mustPlan(t, c, doc); p.Drift() {
		t.Fatalf("the export drifts: %+v %+v", p.Changes, p.Unlisted)
	}
	srv.AddHolidayGroup(access.HolidayGroup{Name: "Old holidays"})
	srv.AddSchedule(access.Schedule{Name: "Old hours"})
	srv.AddDoorGroup(access.DoorGroup{Name: "Old doors", Type: access.DoorGroupAccess})
	srv.AddAccessPolicy(access.AccessPolicy{Name: "Old policy"})
	srv.AddUserGroup("", "Old group", "")
	srv.AddWebhook(access.WebhookEndpoint{Name: "Old hook", Endpoint: "https://old.example.com", Events: []access.EventType{"access.door.unlock"}})
	p := mustPlan(t, c, doc)
	var got []string
	for _, u := range p.Unlisted {
		got = append(got, fmt.Sprintf("%s %s %s", u.Kind, u.Key, u.Prune))
	}
	want := []string{"holiday_groups Old holidays delete", "schedules Old hours delete", "door_groups Old doors delete",
		"access_policies Old policy delete", "user_groups Old group delete", "webhooks Old hook delete"}
	if !slices.Equal(got, want) || len(p.Changes) != 0 || p.Summary.Unlisted != len(want) {
		t.Fatalf("unlisted %q, changes %d, summary %+v; want %q", got, len(p.Changes), p.Summary, want)
	}
}

// TestScopeOfASite: a sites: override sets its own scope, and a problem
// of it is placed in the override.
func TestScopeOfASite(t *testing.T) {
	doc := &site.Document{Users: hrStaff(), Scope: &site.Scope{EmployeeNumber: true},
		Sites: map[string]*site.Document{"west": {Scope: &site.Scope{UserGroup: "Staff"}}}}
	west, back := doc.ForSite("west")
	if west.Scope == nil || west.Scope.UserGroup != "Staff" || west.Scope.EmployeeNumber {
		t.Fatalf("west scope %+v", west.Scope)
	}
	if got := back("scope.user_group"); got != "sites.west.scope.user_group" {
		t.Errorf("back(scope.user_group) = %q", got)
	}
	if east, _ := doc.ForSite("east"); east.Scope != doc.Scope {
		t.Errorf("east scope %+v", east.Scope)
	}
}

// TestPlanLeavers: Plan.Leavers is the console users inside the scope
// that the document does not list, deactivated ones included, with their
// console id and credentials; users listed or outside the scope are not.
func TestPlanLeavers(t *testing.T) {
	srv, c := hrConsole(t)
	ctx := context.Background()
	chloe := ""
	for _, u := range srv.Users() {
		if u.EmployeeNumber == "E01003" {
			chloe = u.ID
		}
	}
	if _, err := c.Users.AssignLicensePlates(ctx, chloe, []string{"AB-123"}); err != nil {
		t.Fatal(err)
	}
	p, err := site.MakePlan(ctx, c, &site.Document{Users: hrStaff()}, &site.PlanOptions{Scope: &site.Scope{EmployeeNumber: true}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.Leavers() {
		got = append(got, fmt.Sprintf("%s %s %d", u.EmployeeNumber, u.Status, len(u.LicensePlates)))
		if u.ID == "" {
			t.Errorf("leaver %s has no id", u.EmployeeNumber)
		}
	}
	want := []string{"E01003 ACTIVE 1", "E01005 DEACTIVATED 0", "G-7 ACTIVE 0"}
	if !slices.Equal(got, want) {
		t.Errorf("Leavers() = %q, want %q", got, want)
	}
	if l := (&site.Plan{}).Leavers(); l != nil {
		t.Errorf("a plan without users has leavers %v", l)
	}
}
