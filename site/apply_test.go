package site_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

func TestLostCreateAnswerIsFoundNotResent(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	doc := &site.Document{Users: []site.User{{EmployeeNumber: "E1", FirstName: "Ada", LastName: "Lovelace"}}}
	srv.Inject(accesstest.OpUsersCreate, accesstest.Fault{AfterHandling: true, DropConnection: true, Times: 1})
	rep, err := mustPlan(t, c, doc).Apply(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(srv.RequestsFor(accesstest.OpUsersCreate)); got != 1 {
		t.Fatalf("Users.Create sent %d times, want 1", got)
	}
	if r := rep.Results[0]; r.Status != site.StatusDone || !strings.Contains(r.Reason, "answer was lost") {
		t.Fatalf("result = %+v", r)
	}
	if n := len(srv.Users()); n != 1 {
		t.Fatalf("%d users, want 1", n)
	}
}

func TestDependantsOfAFailedCreateAreSkipped(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	doc := &site.Document{
		UserGroups: []site.UserGroup{{Name: "Crew"}, {Name: "Night", Parent: "Crew"}, {Name: "Other"}},
		Users: []site.User{{EmployeeNumber: "E1", FirstName: "A", LastName: "B", Groups: []string{"Night"}},
			{EmployeeNumber: "E2", FirstName: "C", LastName: "D", Groups: []string{"Other"}}},
	}
	p := mustPlan(t, c, doc)
	// The first group create (Crew: parents first, then by name) is refused.
	srv.Inject(accesstest.OpUserGroupsCreate, accesstest.Fault{Status: 400, Times: 1})
	rep, err := p.Apply(context.Background(), c, &site.ApplyOptions{Concurrency: 1})
	if err == nil {
		t.Fatal("no error")
	}
	got := map[string]site.Status{}
	for _, r := range rep.Results {
		got[r.Change.Ref().String()] = r.Status
	}
	want := map[string]site.Status{"user_group Crew": site.StatusFailed, "user_group Night": site.StatusSkipped,
		"user_group Other": site.StatusDone, "user E1": site.StatusSkipped, "user E2": site.StatusDone}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if rep.Failed != 1 || rep.Skipped != 2 || rep.Done != 2 {
		t.Errorf("report %d/%d/%d", rep.Done, rep.Failed, rep.Skipped)
	}
}

func TestStalePlanIsRefused(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	doc := &site.Document{UserGroups: []site.UserGroup{{Name: "Crew"}}}
	p := mustPlan(t, c, doc)
	srv.AddUserGroup("", "Crew", "")
	_, err := p.Apply(context.Background(), c, nil)
	var se *site.StaleError
	if !errors.As(err, &se) || !errors.Is(err, site.ErrStale) || len(se.Changed) != 1 || se.Changed[0].Key != "Crew" {
		t.Fatalf("err = %v", err)
	}
	if n := len(srv.RequestsFor(accesstest.OpUserGroupsCreate)); n != 0 {
		t.Fatalf("%d creates sent", n)
	}
}

func TestPruneDeactivatesAndNeverTouchesBuiltIns(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers, site.KindSchedules, site.KindHolidayGroups})
	if err != nil {
		t.Fatal(err)
	}
	keep := doc.Users[0]
	doc.Users = doc.Users[:1]
	doc.Schedules = []site.Schedule{}
	doc.HolidayGroups = []site.HolidayGroup{}
	if _, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true}); err == nil || !strings.Contains(err.Error(), "pruning would delete every") {
		t.Fatalf("an empty kind pruned without PruneEmpty: %v", err)
	}
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, PruneEmpty: true, MaxDeactivate: -1, MaxDeactivateShare: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range p.Changes {
		if ch.Key == "Always" || ch.Key == "No Holidays" {
			t.Fatalf("built-in %s in the plan", ch.Ref())
		}
		if ch.Kind == site.KindUsers && ch.Op != site.OpDeactivate {
			t.Fatalf("user change %s %s, want deactivate", ch.Op, ch.Key)
		}
	}
	// Schedules are used by policies the document does not list; their
	// deletion fails and is reported, users are deactivated.
	rep, _ := p.Apply(ctx, c, nil)
	if rep == nil {
		t.Fatal("no report")
	}
	for _, u := range srv.Users() {
		if u.EmployeeNumber == keep.EmployeeNumber {
			if u.Status == "DEACTIVATED" && keep.Status != "DEACTIVATED" {
				t.Fatal("the listed user was deactivated")
			}
			continue
		}
		if u.Status != "DEACTIVATED" {
			t.Fatalf("user %s is %s", u.EmployeeNumber, u.Status)
		}
	}
	if len(srv.Users()) != 300 {
		t.Fatalf("%d users: pruning deleted users without PruneDeleteUsers", len(srv.Users()))
	}
}

func TestValidatePositions(t *testing.T) {
	doc := &site.Document{
		Schedules:      []site.Schedule{{Name: "S", Week: site.Week{Monday: []site.Range{{Start: "18:00:00", End: "08:00:00"}}}}},
		AccessPolicies: []site.AccessPolicy{{Name: "P", Schedule: "Nope", Resources: []site.Resource{{Door: "a", DoorGroup: "b"}}}},
		Users:          []site.User{{FirstName: "No", LastName: "Key"}},
		Webhooks:       []site.Webhook{{Name: "W", Endpoint: "https://x", Events: []string{"e"}, Headers: map[string]string{"X-Token": "literal"}}},
	}
	lines := map[string]int{"schedules[0].week.monday[0]": 3, "access_policies[0].schedule": 7,
		"access_policies[0].resources[0]": 8, "users[0]": 10, "webhooks[0].headers.X-Token": 12}
	err := site.Validate(doc, func(p string) site.Position { return site.Position{File: "site.yaml", Line: lines[p], Column: 5} })
	var de *site.DocumentError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v", err)
	}
	var got []string
	for _, p := range de.Problems {
		got = append(got, p.String())
	}
	want := []string{
		"site.yaml:3:5: schedules[0].week.monday[0]: the range 18:00:00-08:00:00 ends before it starts",
		"site.yaml:8:5: access_policies[0].resources[0]: a resource is exactly one of door: NAME and door_group: NAME",
		"site.yaml:10:5: users[0]: a user needs an employee_number or an email to be managed",
		"site.yaml:12:5: webhooks[0].headers.X-Token: a header value must be a ${ENV_VAR} reference, never a literal value",
		`site.yaml:7:5: access_policies[0].schedule: no schedule named "Nope" in the document`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWebhookHeadersFromTheEnvironmentAreMasked(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	doc := &site.Document{Webhooks: []site.Webhook{{Name: "hr", Endpoint: "https://hooks.example.com/a",
		Events: []string{"access.door.unlock"}, Headers: map[string]string{"X-Token": "${HOOK_TOKEN}"}}}}
	env := map[string]string{"HOOK_TOKEN": "s3cret-one"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(ctx, c, &site.ApplyOptions{LookupEnv: lookup}); err != nil {
		t.Fatal(err)
	}
	hooks, _, err := c.Webhooks.List(ctx)
	if err != nil || len(hooks) != 1 || hooks[0].Headers["X-Token"] != "s3cret-one" {
		t.Fatalf("webhooks %+v, %v", hooks, err)
	}
	if p, err = site.MakePlan(ctx, c, doc, &site.PlanOptions{LookupEnv: lookup}); err != nil || len(p.Changes) != 0 {
		t.Fatalf("second plan: %v %+v", err, p)
	}
	env["HOOK_TOKEN"] = "s3cret-two"
	p, err = site.MakePlan(ctx, c, doc, &site.PlanOptions{LookupEnv: lookup})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	if strings.Contains(string(b), "s3cret") {
		t.Fatalf("a header value is in the plan: %s", b)
	}
	want := []site.FieldChange{{Field: "headers", Old: "X-Token=*** (before)", New: "X-Token=*** (after)"}}
	if len(p.Changes) != 1 || !slices.Equal(p.Changes[0].Fields, want) {
		t.Fatalf("changes %+v", p.Changes)
	}
	delete(env, "HOOK_TOKEN")
	_, err = site.MakePlan(ctx, c, doc, &site.PlanOptions{LookupEnv: lookup})
	if err == nil || !strings.Contains(err.Error(), "HOOK_TOKEN is not set") {
		t.Fatalf("err = %v", err)
	}
}

func TestForSiteReplacesObjectsByKindAndName(t *testing.T) {
	doc := &site.Document{
		UserGroups: []site.UserGroup{{Name: "Crew"}, {Name: "Office"}},
		Users:      []site.User{{EmployeeNumber: "E1", FirstName: "A", LastName: "B"}},
		Sites: map[string]*site.Document{"north": {
			UserGroups: []site.UserGroup{{Name: "Office", Parent: "Crew"}, {Name: "Night"}},
		}},
	}
	got, back := doc.ForSite("north")
	want := []site.UserGroup{{Name: "Crew"}, {Name: "Office", Parent: "Crew"}, {Name: "Night"}}
	if !slices.EqualFunc(got.UserGroups, want, func(a, b site.UserGroup) bool { return a.Name == b.Name && a.Parent == b.Parent }) {
		t.Fatalf("user groups %+v", got.UserGroups)
	}
	if got.Sites != nil || len(got.Users) != 1 || len(doc.UserGroups) != 2 || doc.UserGroups[1].Parent != "" {
		t.Fatalf("merged %+v, document %+v", got, doc)
	}
	for from, to := range map[string]string{"user_groups[1].parent": "sites.north.user_groups[0].parent",
		"user_groups[2]": "sites.north.user_groups[1]", "user_groups[0]": "user_groups[0]", "users[0]": "users[0]"} {
		if p := back(from); p != to {
			t.Errorf("back(%s) = %s, want %s", from, p, to)
		}
	}
	if same, _ := doc.ForSite("south"); len(same.UserGroups) != 2 || same.Sites != nil {
		t.Fatalf("south %+v", same)
	}
}

func TestInterruptedApplySkipsTheRestAndARerunFinishes(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	doc := &site.Document{Users: []site.User{}}
	for _, k := range []string{"E1", "E2", "E3", "E4", "E5"} {
		doc.Users = append(doc.Users, site.User{EmployeeNumber: k, FirstName: "F", LastName: k})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rep, err := mustPlan(t, c, doc).Apply(ctx, c, &site.ApplyOptions{Concurrency: 1, Progress: func(site.Result) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if rep.Done != 1 || rep.Skipped != 4 || rep.Results[4].Reason != "interrupted" {
		t.Fatalf("report %d done, %d skipped: %+v", rep.Done, rep.Skipped, rep.Results)
	}
	p := mustPlan(t, c, doc)
	if p.Summary.Create != 4 {
		t.Fatalf("rerun plan: %s", p.Summary)
	}
	if _, err := p.Apply(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Users()); n != 5 {
		t.Fatalf("%d users", n)
	}
}

func TestPruneDeleteUsersDeletesAfterDeactivating(t *testing.T) {
	srv := accesstest.New(t)
	srv.AddUser(access.User{FirstName: "Old", LastName: "Timer", EmployeeNumber: "OLD", Status: access.UserStatusActive})
	srv.AddUser(access.User{FirstName: "Keep", LastName: "Me", EmployeeNumber: "KEEP"})
	c := srv.Client()
	doc := &site.Document{Users: []site.User{{EmployeeNumber: "KEEP", FirstName: "Keep", LastName: "Me"}}}
	p, err := site.MakePlan(context.Background(), c, doc, &site.PlanOptions{Prune: true, PruneDeleteUsers: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Op != site.OpDelete || p.Changes[0].Key != "OLD" {
		t.Fatalf("changes %+v", p.Changes)
	}
	if _, err := p.Apply(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	users := srv.Users()
	if len(users) != 1 || users[0].EmployeeNumber != "KEEP" {
		t.Fatalf("users %+v", users)
	}
	if n := len(srv.RequestsFor(accesstest.OpUsersUpdate)); n != 1 {
		t.Fatalf("%d updates (the deactivation), want 1", n)
	}
}

func TestReadUsersCSV(t *testing.T) {
	users, err := site.ReadUsersCSV(strings.NewReader("First_Name, last_name ,email,employee_number,groups,onboard_time\nAda,Lovelace,ada@x.org,E1,Crew;Night,2024-02-01\nAlan,Turing,,E2,,\n"), "hr.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(users) != 2 || !slices.Equal(users[0].Groups, []string{"Crew", "Night"}) || users[0].OnboardTime.Format("2006-01-02") != "2024-02-01" ||
		users[1].Groups == nil || len(users[1].Groups) != 0 || users[1].Policies != nil {
		t.Fatalf("users %+v", users)
	}
	_, err = site.ReadUsersCSV(strings.NewReader("first_name,last_name,nickname\nA,B,C\n"), "hr.csv", nil)
	if err == nil || err.Error() != `site: bad document: hr.csv:1:22: header: unknown column "nickname" (want first_name,last_name,email,employee_number,onboard_time,status,groups,policies,license_plates)` {
		t.Fatalf("err = %v", err)
	}
	_, err = site.ReadUsersCSV(strings.NewReader("first_name,last_name,employee_number,onboard_time\nA,B,E1,C\nD,E,E2,2024-01-01\nF,G,E3,soon\n"), "hr.csv", nil)
	var de *site.DocumentError
	if !errors.As(err, &de) || len(de.Problems) != 2 || de.Problems[1].Pos.String() != "hr.csv:4:8" {
		t.Fatalf("err = %v", err)
	}
}

func TestAUserKnownByEmailMatchesTheConsolesUserWithANumber(t *testing.T) {
	srv := accesstest.New(t)
	srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace", EmployeeNumber: "E1", UserEmail: "ada@example.com"})
	c := srv.Client()
	doc := &site.Document{Users: []site.User{{Email: "ADA@example.com", FirstName: "Ada", LastName: "King"}}}
	p, err := site.MakePlan(context.Background(), c, doc, &site.PlanOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []site.FieldChange{{Field: "last_name", Old: "Lovelace", New: "King"}}
	if len(p.Changes) != 1 || p.Changes[0].Op != site.OpUpdate || !slices.Equal(p.Changes[0].Fields, want) {
		t.Fatalf("changes %+v", p.Changes)
	}
	if _, err := p.Apply(context.Background(), c, nil); err != nil {
		t.Fatal(err)
	}
	users := srv.Users()
	if len(users) != 1 || users[0].LastName != "King" || users[0].Status != access.UserStatusActive {
		t.Fatalf("users %+v", users)
	}
	if p := mustPlan(t, c, doc); len(p.Changes) != 0 {
		t.Fatalf("second plan %+v", p.Changes)
	}
}

func TestDuplicateNamesAreLeftOutAndNeverTouched(t *testing.T) {
	srv := accesstest.New(t)
	a := srv.AddUserGroup("", "A", "")
	b := srv.AddUserGroup("", "B", "")
	srv.AddUserGroup("", "Dup", a)
	srv.AddUserGroup("", "Dup", b)
	srv.AddUser(access.User{FirstName: "No", LastName: "Key"})
	c := srv.Client()
	ctx := context.Background()
	doc, warnings, err := site.Export(ctx, c, []site.Kind{site.KindUserGroups, site.KindUsers})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`user_group "Dup": more than one on the console; left out and never touched`}
	if len(warnings) != 2 || warnings[0] != want[0] || !strings.HasPrefix(warnings[1], `user "No Key" (`) {
		t.Fatalf("warnings %q", warnings)
	}
	if len(doc.UserGroups) != 2 || len(doc.Users) != 0 {
		t.Fatalf("export %+v", doc)
	}
	doc.UserGroups = append(doc.UserGroups, site.UserGroup{Name: "Dup"})
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, PruneEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 0 {
		t.Fatalf("changes %+v", p.Changes)
	}
}

func TestNilArgumentsAreTypedErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := site.MakePlan(ctx, nil, &site.Document{}, nil); !errors.Is(err, site.ErrNoClient) {
		t.Errorf("MakePlan(nil client) = %v", err)
	}
	if _, _, err := site.Export(ctx, nil, nil); !errors.Is(err, site.ErrNoClient) {
		t.Errorf("Export(nil client) = %v", err)
	}
	srv := accesstest.New(t)
	var de *site.DocumentError
	if _, err := site.MakePlan(ctx, srv.Client(), nil, nil); !errors.As(err, &de) {
		t.Errorf("MakePlan(nil document) = %v", err)
	}
	var p *site.Plan
	if _, err := p.Apply(ctx, srv.Client(), nil); !errors.As(err, &de) {
		t.Errorf("nil plan Apply = %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
