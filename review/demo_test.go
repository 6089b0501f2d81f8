package review_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// loadDemo reads the accesstest demo site through the SDK.
func loadDemo(t testing.TB) (*review.State, *review.Evaluator) {
	t.Helper()
	clock := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return clock }))
	st, err := review.Load(context.Background(), srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	e, err := review.New(st, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return st, e
}

// holderOf returns the id of the user holding the card number.
func holderOf(t testing.TB, st *review.State, card string) access.User {
	t.Helper()
	for _, u := range st.Users {
		for _, c := range u.NFCCards {
			if c.ID == card {
				return u
			}
		}
	}
	t.Fatalf("no user holds card %s", card)
	return access.User{}
}

func TestDemoSite(t *testing.T) {
	st, e := loadDemo(t)
	if len(st.Users) != accesstest.DemoUserCount || len(st.Visitors) != accesstest.DemoVisitorCount {
		t.Fatalf("loaded %d users, %d visitors; want %d, %d", len(st.Users), len(st.Visitors), accesstest.DemoUserCount, accesstest.DemoVisitorCount)
	}
	if !slices.ContainsFunc(st.DoorGroups, func(g access.DoorGroup) bool {
		return g.ID == accesstest.DemoBuildingID && g.Type == access.DoorGroupBuilding && len(g.Resources) == len(st.Doors)
	}) {
		t.Errorf("the building is not among the door groups with every door: %+v", st.DoorGroups)
	}

	// The demo cards' holders open the main entrance at any hour: at
	// 03:00 on a Sunday, by the IT policy on the Always schedule.
	sunday3am := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	for _, card := range accesstest.DemoCardNumbers() {
		u := holderOf(t, st, card)
		d, err := e.CanOpen(u.ID, accesstest.DemoDoorID, sunday3am)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Open || d.Policy != "IT" || d.Schedule != "Always" {
			t.Errorf("card %s (%s) at the main entrance, Sunday 03:00: %+v; want open by IT on Always", card, u.FullName, d)
		}
	}

	// Ada opens on a weekday by Staff, her first policy.
	d, _ := e.CanOpen(accesstest.DemoUserID, accesstest.DemoDoorID, time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	if want := (review.Decision{Open: true, Policy: "Staff", PolicyID: d.PolicyID, Schedule: "Office hours"}); d != want || d.PolicyID == "" {
		t.Errorf("Ada, Wednesday 10:00: %+v, want %+v", d, want)
	}

	// A Staff-only user is kept out on Christmas afternoon, let in on its
	// morning (the holiday ranges, 09:00 to 12:00:59).
	staff := holderOf(t, st, "100001")
	xmas := func(h int) time.Time { return time.Date(2026, 12, 25, h, 0, 0, 0, time.UTC) }
	d, _ = e.CanOpen(staff.ID, accesstest.DemoDoorID, xmas(15))
	if want := (review.Decision{Reason: "Public Holidays 2026: Christmas Day"}); d != want {
		t.Errorf("%s, Christmas 15:00: %+v, want %+v", staff.FullName, d, want)
	}
	d, _ = e.CanOpen(staff.ID, accesstest.DemoDoorID, xmas(10))
	if !d.Open || d.Holiday != "Public Holidays 2026: Christmas Day" {
		t.Errorf("%s, Christmas 10:00: %+v, want open in the holiday ranges", staff.FullName, d)
	}

	// A deactivated user opens nothing.
	i := slices.IndexFunc(st.Users, func(u access.User) bool { return u.Status == access.UserStatusDeactivated })
	if i < 0 {
		t.Fatal("no deactivated user in the demo")
	}
	d, _ = e.CanOpen(st.Users[i].ID, accesstest.DemoDoorID, xmas(10))
	if want := (review.Decision{Reason: "status DEACTIVATED"}); d != want {
		t.Errorf("deactivated user: %+v, want %+v", d, want)
	}

	// No policy or visit covers the roof hatch.
	var roof string
	for _, door := range st.Doors {
		if door.Name == "Roof hatch" {
			roof = door.ID
		}
	}
	who, err := e.WhoCanOpen(roof, xmas(10))
	if err != nil || len(who) != 0 {
		t.Errorf("WhoCanOpen(Roof hatch) = %+v, %v; want nobody", who, err)
	}
	// The IT policy's holders open the server room on Sunday night; only
	// they do (Security's weekend range starts at 06:00).
	who, err = e.WhoCanOpen("5c496423-6d25-4e4f-8cdf-95ad5135188a", sunday3am)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range who {
		ids = append(ids, g.ID)
	}
	it := st.AccessPolicies[slices.IndexFunc(st.AccessPolicies, func(p access.AccessPolicy) bool { return p.Name == "IT" })].ID
	var want []string
	for _, u := range st.Users {
		if slices.Contains(u.AccessPolicyIDs, it) && u.Status == access.UserStatusActive {
			want = append(want, u.ID)
		}
	}
	for _, card := range accesstest.DemoCardNumbers() {
		if id := holderOf(t, st, card).ID; !slices.Contains(want, id) {
			t.Errorf("card %s's holder has no IT policy", card)
		}
	}
	slices.Sort(ids)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("WhoCanOpen(Server room, Sunday 03:00) = %v, want the IT policy's active holders %v", ids, want)
	}
}
