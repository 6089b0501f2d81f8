package site_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// freshDoc is a group and a user in it, neither on the console yet.
func freshDoc() *site.Document {
	return &site.Document{UserGroups: []site.UserGroup{{Name: "Crew"}},
		Users: []site.User{{EmployeeNumber: "E1", FirstName: "Ada", LastName: "Lovelace", Groups: []string{"Crew"}}}}
}

// TestFreshPlanIsAppliedWithoutReadingAgain: with ApplyOptions.FreshFor, a
// plan applied right after MakePlan uses the plan's own reading: the
// users are not listed again, and the changes are made.
func TestFreshPlanIsAppliedWithoutReadingAgain(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	p := mustPlan(t, c, freshDoc())
	lists := len(srv.RequestsFor(accesstest.OpUsersList))
	rep, err := p.Apply(context.Background(), c, &site.ApplyOptions{FreshFor: time.Minute})
	if err != nil || rep.Done != 2 {
		t.Fatalf("%v %+v", err, rep)
	}
	if n := len(srv.RequestsFor(accesstest.OpUsersList)); n != lists {
		t.Fatalf("%d lists sent by Apply, want 0", n-lists)
	}
	if n := len(srv.Users()); n != 1 {
		t.Fatalf("%d users, want 1", n)
	}
}

// TestFreshPlanIsUsedOnce: the plan's reading serves one Apply only; a
// second Apply of the same plan reads the console, finds the plan stale
// (its creates are done) and sends no create again.
func TestFreshPlanIsUsedOnce(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	p := mustPlan(t, c, freshDoc())
	opts := &site.ApplyOptions{FreshFor: time.Minute}
	if _, err := p.Apply(context.Background(), c, opts); err != nil {
		t.Fatal(err)
	}
	_, err := p.Apply(context.Background(), c, opts)
	if !errors.Is(err, site.ErrStale) {
		t.Fatalf("second Apply: %v, want ErrStale", err)
	}
	if n := len(srv.RequestsFor(accesstest.OpUsersCreate)); n != 1 {
		t.Fatalf("Users.Create sent %d times, want 1", n)
	}
	if n := len(srv.RequestsFor(accesstest.OpUserGroupsCreate)); n != 1 {
		t.Fatalf("UserGroups.Create sent %d times, want 1", n)
	}
}

// TestOldPlanIsReadAgain: a plan older than FreshFor is checked against a
// new reading, and refused when the console changed.
func TestOldPlanIsReadAgain(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	p := mustPlan(t, c, freshDoc())
	srv.AddUserGroup("", "Crew", "")
	_, err := p.Apply(context.Background(), c, &site.ApplyOptions{FreshFor: time.Nanosecond})
	if !errors.Is(err, site.ErrStale) {
		t.Fatalf("err = %v, want ErrStale", err)
	}
	if n := len(srv.RequestsFor(accesstest.OpUserGroupsCreate)); n != 0 {
		t.Fatalf("%d creates sent", n)
	}
}

// TestFreshPlanStillGuarded: a plan refused by the guard is refused by
// Apply with FreshFor too, before any write.
func TestFreshPlanStillGuarded(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers})
	if err != nil {
		t.Fatal(err)
	}
	doc.Users = doc.Users[:1]
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, MaxDeactivate: 1})
	if !errors.Is(err, site.ErrGuard) {
		t.Fatalf("MakePlan: %v, want ErrGuard", err)
	}
	if _, err := p.Apply(ctx, c, &site.ApplyOptions{FreshFor: time.Minute}); !errors.Is(err, site.ErrGuard) {
		t.Fatalf("Apply: %v, want ErrGuard", err)
	}
}
