package review_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// TestReportDemo reviews the accesstest demo site, whose records an
// access review should flag: the stale user (last at the main entrance
// 120 days back: stale with the default 90-day look-back, not with 150
// days), the deactivated user holding a card, the visitor past their end
// holding a PIN, and the doors no policy names; the demo card holders
// badged in days ago and are not stale at the main entrance.
func TestReportDemo(t *testing.T) {
	clock := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return clock }))
	ctx := context.Background()
	st, err := review.Load(ctx, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	e, err := review.New(st, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	build := func(lookBack time.Duration) *review.Report {
		r, err := review.NewReport(ctx, srv.Client(), st, e, review.Options{At: clock, LookBack: lookBack, Directory: []string{"E01000"}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	person := func(r *review.Report, id string) review.Person {
		for _, p := range r.People {
			if p.ID == id {
				return p
			}
		}
		t.Fatalf("no person %s", id)
		return review.Person{}
	}
	has := func(flags []string, f string) bool { return slices.Contains(flags, f) }

	r := build(0)
	if p := person(r, accesstest.DemoStaleUserID); !has(p.Flags, review.FlagStale) || p.LastUse != nil || p.Doors == 0 {
		t.Errorf("the stale user with 90 days: %+v; want stale, no last use, some doors", p)
	}
	if p := person(r, accesstest.DemoDeactivatedUserID); !has(p.Flags, review.FlagInactiveWithCredentials) || p.Credentials.NFCCards == 0 {
		t.Errorf("the deactivated user: %+v; want inactive_with_credentials with a card", p)
	}
	if p := person(r, accesstest.DemoPastVisitorID); !has(p.Flags, review.FlagVisitorPastEnd) || !has(p.Flags, review.FlagInactiveWithCredentials) || p.Credentials.PINs != 1 {
		t.Errorf("the past visitor: %+v; want visitor_past_end and inactive_with_credentials with a PIN", p)
	}
	if p := person(r, accesstest.DemoUserID); has(p.Flags, review.FlagNotInDirectory) || has(p.Flags, review.FlagStale) || p.LastUse == nil {
		t.Errorf("Ada (E01000, a recent badge-in): %+v; want in the directory, not stale", p)
	}
	for _, a := range r.Access {
		if a.DoorID == accesstest.DemoDoorID && a.PersonID == accesstest.DemoUserID && (a.LastUse == nil || a.LastUse.Credential != "NFC" || has(a.Flags, review.FlagStale)) {
			t.Errorf("Ada at the main entrance: %+v; want a last use by NFC, not stale", a)
		}
	}
	var nobody []string
	for _, d := range r.Doors {
		if has(d.Flags, review.FlagDoorNobodyCanOpen) {
			nobody = append(nobody, d.Name)
		}
	}
	if want := []string{"Garage", "Loading dock", "Roof hatch"}; !slices.Equal(nobody, want) {
		t.Errorf("doors nobody can open: %q, want %q", nobody, want)
	}
	if r.Counts[review.FlagNotInDirectory] == 0 || r.Counts[review.FlagUnusedPolicy] != 0 {
		t.Errorf("counts %v: want users not in a one-person directory, no unused policy on this demo", r.Counts)
	}

	p := person(build(150*24*time.Hour), accesstest.DemoStaleUserID)
	if has(p.Flags, review.FlagStale) || p.LastUse == nil || p.LastUse.Door != "Main entrance" || p.LastUse.Credential != "NFC" ||
		clock.Sub(p.LastUse.At) < 119*24*time.Hour || clock.Sub(p.LastUse.At) > 121*24*time.Hour {
		t.Errorf("the stale user with 150 days: %+v (last use %+v); want not stale, last at the main entrance by NFC about 120 days back", p, p.LastUse)
	}
}
