package review_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata" // the zones of the random sites, wherever the test runs

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// The simulator (accesstest's Server.Decide, which Server.PresentCard
// acts on) decides taps by rules of its own code, written apart from the
// evaluator's: these tests check that the two agree, on the table of
// vendor semantics and on random sites.

var (
	propertyCases = flag.Int("review.cases", 2000, "how many (site, person, door, time) cases TestSimulatorAgrees draws (100 a site)")
	propertySeed  = flag.Uint64("review.seed", 37, "the seed of TestSimulatorAgrees's random sites")
)

// fakeSite is a simulator seeded with a State: a reader at each door and
// a card for each user and visitor.
type fakeSite struct {
	srv     *accesstest.Server
	readers map[string]string // door id -> reader id
	cards   map[string]string // person id -> card number
}

// seedFake builds a simulator holding st, whose clock reads now in the
// zone loc. Door groups of type building become the building; doors go
// on one floor; each door gets a reader and is bound to a hub.
func seedFake(t testing.TB, st *review.State, loc *time.Location, now time.Time) *fakeSite {
	t.Helper()
	now = now.In(loc)
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return now }))
	fs := &fakeSite{srv: srv, readers: map[string]string{}, cards: map[string]string{}}
	floor := srv.AddFloor("", "Floor")
	for _, d := range st.Doors {
		srv.AddDoor(access.Door{ID: d.ID, Name: d.Name, FloorID: floor, IsBindHub: true})
		dev := srv.AddDeviceInfo(access.Device{Name: "Reader " + d.Name, Type: "UA-Reader-Lite", LocationID: d.ID,
			Capabilities: []string{"is_reader", "nfc"}, IsAdopted: true, IsConnected: true, IsManaged: true, IsOnline: true})
		fs.readers[d.ID] = dev.ID
	}
	for _, g := range st.DoorGroups {
		if g.Type == access.DoorGroupBuilding {
			srv.SetBuilding(g.ID, g.Name)
			continue
		}
		srv.AddDoorGroup(g)
	}
	for _, g := range st.HolidayGroups {
		srv.AddHolidayGroup(g)
	}
	for _, s := range st.Schedules {
		srv.AddSchedule(s)
	}
	for _, p := range st.AccessPolicies {
		srv.AddAccessPolicy(p)
	}
	anyReader := fs.readers[st.Doors[0].ID]
	card := func(id string) []access.NFCCard {
		number := "C-" + id
		d, err := srv.Decide(anyReader, number, now)
		if err != nil {
			t.Fatal(err)
		}
		fs.cards[id] = number
		return []access.NFCCard{{ID: number, Token: d.Token, Type: "ua_card"}}
	}
	for _, u := range st.Users {
		u.NFCCards = card(u.ID)
		srv.AddUser(u)
	}
	// Groups after their parents.
	added := map[string]bool{}
	for len(added) < len(st.UserGroups) {
		progress := false
		for _, g := range st.UserGroups {
			if added[g.ID] || g.UpID != "" && !added[g.UpID] {
				continue
			}
			srv.AddUserGroup(g.ID, g.Name, g.UpID, st.Members[g.ID]...)
			added[g.ID], progress = true, true
		}
		if !progress {
			t.Fatal("seedFake: the user groups' parents make a cycle")
		}
	}
	for _, g := range st.UserGroups {
		if ids := st.GroupPolicies[g.ID]; len(ids) > 0 {
			if _, err := srv.Client().UserGroups.SetAccessPolicies(context.Background(), g.ID, ids); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, v := range st.Visitors {
		v.NFCCards = card(v.ID)
		srv.AddVisitor(v)
	}
	return fs
}

// decide is the simulator's decision as a review.Decision.
func (fs *fakeSite) decide(t testing.TB, person, door string, at time.Time) review.Decision {
	t.Helper()
	d, err := fs.srv.Decide(fs.readers[door], fs.cards[person], at)
	if err != nil {
		t.Fatal(err)
	}
	return review.Decision{Open: d.Granted, Policy: d.Policy, PolicyID: d.PolicyID, Schedule: d.Schedule, Holiday: d.Holiday, Reason: d.Reason}
}

// TestSimulatorVendorRules checks the simulator against the table of
// vendor semantics the evaluator answers (TestVendorRules).
func TestSimulatorVendorRules(t *testing.T) {
	loc := zurich(t)
	fs := seedFake(t, fixture(t), loc, time.Date(2026, 4, 1, 9, 0, 0, 0, loc))
	for _, c := range vendorRules {
		t.Run(c.name, func(t *testing.T) {
			at, err := time.ParseInLocation(time.DateTime, c.at, loc)
			if err != nil {
				t.Fatal(err)
			}
			if got := fs.decide(t, c.person, c.door, at); got != c.want {
				t.Errorf("Decide(%s, %s, %s)\n got %+v\nwant %+v", c.person, c.door, c.at, got, c.want)
			}
		})
	}
}

// TestSimulatorAgrees is the property test of issue 37: on random sites
// (users, groups with parents, policies, schedules with week ranges,
// holidays, visitors, doors and door groups) read back through the SDK,
// the evaluator's answer and the simulator's decision agree for random
// people, doors and times, half of them on a boundary (a range's ends,
// a holiday's, a visit's, a second either side). -review.cases sets how
// many (2,000 by default; 100,000 for a long run) and -review.seed the
// sites.
func TestSimulatorAgrees(t *testing.T) {
	const perSite = 100
	sites := max(1, (*propertyCases+perSite-1)/perSite)
	ctx := context.Background()
	checked := 0
	for i := range sites {
		seed := *propertySeed*1_000_003 + uint64(i)
		r := rand.New(rand.NewPCG(seed, 37))
		gen := randomSite(r)
		fs := seedFake(t, gen.st, gen.loc, gen.instant(r))
		st, err := review.Load(ctx, fs.srv.Client())
		if err != nil {
			t.Fatal(err)
		}
		e, err := review.New(st, gen.loc)
		if err != nil {
			t.Fatalf("site %d (seed %d): %v", i, seed, err)
		}
		for n := 0; n < perSite && checked < *propertyCases; n++ {
			person := gen.users[r.IntN(len(gen.users))]
			if len(gen.visitors) > 0 && r.IntN(3) == 0 {
				person = gen.visitors[r.IntN(len(gen.visitors))]
			}
			door := gen.st.Doors[r.IntN(len(gen.st.Doors))].ID
			at := gen.instant(r)
			if v, ok := gen.visits[person]; ok && r.IntN(2) == 0 { // in the visit
				at = v[0].Add(time.Duration(r.Int64N(int64(v[1].Sub(v[0]))))).Truncate(time.Second)
			}
			want, err := e.CanOpen(person, door, at)
			if err != nil {
				t.Fatal(err)
			}
			if got := fs.decide(t, person, door, at); got != want {
				t.Fatalf("site %d (-review.seed=%d, seed %d, zone %s): %s at %s, %s:\nsimulator %+v\nevaluator %+v",
					i, *propertySeed, seed, gen.loc, person, door, at.Format(time.RFC3339), got, want)
			}
			checked++
		}
		fs.srv.Close()
	}
	t.Logf("%d cases on %d sites agree", checked, sites)
}

// genSite is a random site and the instants worth trying on it.
type genSite struct {
	st              *review.State
	loc             *time.Location
	users, visitors []string
	visits          map[string][2]time.Time // a visitor's start and end
	edges           []time.Time             // boundaries: holidays', visits'
	ranges          []int                   // seconds of the day at which ranges start or end
}

var zones = []string{"UTC", "Europe/Zurich", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham"}

// The years the random sites live in.
var (
	genStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	genDays  = 730
)

// instant draws a time: uniform over the two years, or on a boundary,
// or a second either side of one.
func (g *genSite) instant(r *rand.Rand) time.Time {
	var at time.Time
	switch k := r.IntN(10); {
	case k < 3 || len(g.edges) == 0 && len(g.ranges) == 0:
		at = genStart.Add(time.Duration(r.Int64N(int64(genDays)*86400)) * time.Second).In(g.loc)
		y, m, d := at.Date()
		at = time.Date(y, m, d, at.Hour(), at.Minute(), at.Second(), 0, g.loc)
	case k < 7 && len(g.edges) > 0:
		at = g.edges[r.IntN(len(g.edges))]
	default:
		day := genStart.AddDate(0, 0, r.IntN(genDays))
		sec := 12 * 3600
		if len(g.ranges) > 0 {
			sec = g.ranges[r.IntN(len(g.ranges))]
		}
		at = time.Date(day.Year(), day.Month(), day.Day(), 0, 0, sec, 0, g.loc)
	}
	return at.Add(time.Duration(r.IntN(3)-1) * time.Second)
}

// randomSite draws a site.
func randomSite(r *rand.Rand) *genSite {
	loc, err := time.LoadLocation(zones[r.IntN(len(zones))])
	if err != nil {
		panic(err)
	}
	g := &genSite{loc: loc, visits: map[string][2]time.Time{}, st: &review.State{Members: map[string][]string{}, GroupPolicies: map[string][]string{}}}
	st := g.st
	pick := func(n, upTo int) []int { // up to upTo distinct indexes of n, in random order
		return r.Perm(n)[:r.IntN(min(n, upTo)+1)]
	}

	for i := range 1 + r.IntN(5) {
		st.Doors = append(st.Doors, access.Door{ID: fmt.Sprintf("door-%d", i), Name: fmt.Sprintf("Door %d", i)})
	}
	st.DoorGroups = append(st.DoorGroups, access.DoorGroup{ID: "building", Name: "HQ", Type: access.DoorGroupBuilding})
	for i := range r.IntN(3) {
		dg := access.DoorGroup{ID: fmt.Sprintf("dg-%d", i), Name: fmt.Sprintf("Group %d", i), Type: access.DoorGroupAccess}
		for _, j := range r.Perm(len(st.Doors))[:1+r.IntN(len(st.Doors))] {
			dg.Resources = append(dg.Resources, access.Resource{ID: st.Doors[j].ID, Type: access.ResourceDoor})
		}
		st.DoorGroups = append(st.DoorGroups, dg)
	}

	for i := range r.IntN(4) {
		hg := access.HolidayGroup{ID: fmt.Sprintf("hg-%d", i), Name: fmt.Sprintf("Holidays %d", i)}
		for j := range 1 + r.IntN(4) {
			start := genStart.AddDate(0, 0, r.IntN(genDays))
			if r.IntN(4) == 0 {
				start = start.Add(time.Duration(r.IntN(24)) * time.Hour)
			}
			var end time.Time
			switch r.IntN(4) {
			case 0, 1:
				end = start.AddDate(0, 0, 1)
			case 2:
				end = start.AddDate(0, 0, 2+r.IntN(2))
			default:
				end = start.Add(time.Duration(1+r.IntN(12)) * time.Hour)
			}
			const layout = "2006-01-02 15:04:05Z"
			h := access.Holiday{ID: fmt.Sprintf("h-%d-%d", i, j), Name: fmt.Sprintf("Day %d", j), Repeat: r.IntN(3) == 0,
				StartTime: access.DateTime(start.Format(layout)), EndTime: access.DateTime(end.Format(layout))}
			hg.Holidays = append(hg.Holidays, h)
			for _, y := range []int{0, 1, -1} {
				if y != 0 && !h.Repeat {
					continue
				}
				inside := start.Add(time.Duration(r.Int64N(int64(end.Sub(start)))))
				for _, w := range []time.Time{start, end, inside} {
					w = w.AddDate(y, 0, 0)
					g.edges = append(g.edges, time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, loc))
				}
			}
		}
		st.HolidayGroups = append(st.HolidayGroups, hg)
	}

	clock := func(sec int) string { return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60) }
	someRanges := func(upTo int) []access.TimeRange {
		out := []access.TimeRange{}
		for range r.IntN(upTo + 1) {
			if r.IntN(8) == 0 {
				out = append(out, access.TimeRange{StartTime: "00:00:00", EndTime: "23:59:59"})
				g.ranges = append(g.ranges, 0, 86399)
				continue
			}
			from := r.IntN(1440) * 60
			to := from + r.IntN(86400-from)
			if r.IntN(2) == 0 {
				to = to/60*60 + 59
			}
			out = append(out, access.TimeRange{StartTime: clock(from), EndTime: clock(to)})
			g.ranges = append(g.ranges, from, to, to+1)
		}
		return out
	}
	someWeek := func() *access.WeekSchedule {
		return &access.WeekSchedule{Sunday: someRanges(2), Monday: someRanges(2), Tuesday: someRanges(2), Wednesday: someRanges(2),
			Thursday: someRanges(2), Friday: someRanges(2), Saturday: someRanges(2)}
	}
	for i := range 1 + r.IntN(4) {
		s := access.Schedule{ID: fmt.Sprintf("s-%d", i), Name: fmt.Sprintf("Schedule %d", i), Type: "access", WeekSchedule: someWeek(),
			HolidaySchedule: someRanges(1)}
		if len(st.HolidayGroups) > 0 && r.IntN(4) != 0 {
			s.HolidayGroupID = st.HolidayGroups[r.IntN(len(st.HolidayGroups))].ID
		}
		st.Schedules = append(st.Schedules, s)
	}

	resources := func(upTo int) []access.Resource {
		var out []access.Resource
		for range 1 + r.IntN(upTo) {
			if j := r.IntN(len(st.Doors) + len(st.DoorGroups)); j < len(st.Doors) {
				out = append(out, access.Resource{ID: st.Doors[j].ID, Type: access.ResourceDoor})
			} else {
				out = append(out, access.Resource{ID: st.DoorGroups[j-len(st.Doors)].ID, Type: access.ResourceDoorGroup})
			}
		}
		return out
	}
	for i := range 1 + r.IntN(5) {
		p := access.AccessPolicy{ID: fmt.Sprintf("p-%d", i), Name: fmt.Sprintf("Policy %d", i), Resources: resources(3),
			ScheduleID: st.Schedules[r.IntN(len(st.Schedules))].ID}
		if r.IntN(20) == 0 {
			p.ScheduleID = "s-gone"
		}
		st.AccessPolicies = append(st.AccessPolicies, p)
	}
	policyIDs := func(upTo int) []string {
		ids := []string{}
		for _, j := range pick(len(st.AccessPolicies), upTo) {
			ids = append(ids, st.AccessPolicies[j].ID)
		}
		return ids
	}

	statuses := []access.UserStatus{access.UserStatusActive, access.UserStatusActive, access.UserStatusActive, access.UserStatusActive,
		access.UserStatusActive, access.UserStatusActive, access.UserStatusActive, access.UserStatusActive,
		access.UserStatusDeactivated, access.UserStatusPending}
	for i := range 1 + r.IntN(6) {
		u := access.User{ID: fmt.Sprintf("u-%d", i), FirstName: "User", LastName: fmt.Sprint(i), Status: statuses[r.IntN(len(statuses))],
			AccessPolicyIDs: policyIDs(3)}
		st.Users = append(st.Users, u)
		g.users = append(g.users, u.ID)
	}
	for i := range r.IntN(5) {
		ug := access.UserGroup{ID: fmt.Sprintf("ug-%d", i), Name: fmt.Sprintf("Team %d", i)}
		if i > 0 && r.IntN(3) != 0 {
			ug.UpID = st.UserGroups[r.IntN(i)].ID
		}
		st.UserGroups = append(st.UserGroups, ug)
		for _, j := range pick(len(st.Users), 3) {
			st.Members[ug.ID] = append(st.Members[ug.ID], st.Users[j].ID)
		}
		st.GroupPolicies[ug.ID] = policyIDs(2)
	}

	visitorStatuses := []string{"UPCOMING", "VISITING", "VISITED", "CANCELLED", "ACTIVE"}
	for i := range r.IntN(4) {
		start := genStart.Add(time.Duration(r.Int64N(int64(genDays)*86400)) * time.Second)
		end := start.Add(time.Duration(1+r.IntN(240)) * time.Hour)
		v := access.Visitor{ID: fmt.Sprintf("v-%d", i), FirstName: "Visitor", LastName: fmt.Sprint(i),
			Status: visitorStatuses[r.IntN(len(visitorStatuses))], StartTime: access.UnixTimeOf(start), EndTime: access.UnixTimeOf(end),
			Resources: resources(2)}
		switch r.IntN(4) {
		case 0: // a console schedule, carried
			s := st.Schedules[r.IntN(len(st.Schedules))]
			v.ScheduleID, v.Schedule = s.ID, &access.Schedule{ID: s.ID, Name: s.Name, Type: "access", WeekSchedule: s.WeekSchedule}
		case 1: // a console schedule, named only
			v.ScheduleID = st.Schedules[r.IntN(len(st.Schedules))].ID
		case 2: // weekly ranges of the visit's own
			v.ScheduleID = fmt.Sprintf("vs-%d", i)
			v.Schedule = &access.Schedule{ID: v.ScheduleID, Name: fmt.Sprintf("visitor-%d", i), Type: "access", WeekSchedule: someWeek()}
		default: // a one-time visit
			v.ScheduleID = fmt.Sprintf("vs-%d", i)
			v.Schedule = &access.Schedule{ID: v.ScheduleID, Name: fmt.Sprintf("visitor-%d", i), Type: "access"}
		}
		st.Visitors = append(st.Visitors, v)
		g.visitors = append(g.visitors, v.ID)
		g.visits[v.ID] = [2]time.Time{start, end}
		g.edges = append(g.edges, start.In(loc), end.In(loc), start.Add(time.Duration(r.Int64N(int64(end.Sub(start))))).In(loc))
	}
	return g
}

// TestDemoReviewRecords: on the demo site, read through the SDK, the
// stale user can open the main entrance in office hours, the deactivated
// user holding a card cannot, and the past visitor's visit is over
// (issue 37's flags).
func TestDemoReviewRecords(t *testing.T) {
	_, e := loadDemo(t)
	wednesday := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	d, err := e.CanOpen(accesstest.DemoStaleUserID, accesstest.DemoDoorID, wednesday)
	if err != nil || !d.Open {
		t.Errorf("the stale user at the main entrance, Wednesday 10:00: %+v, %v; want open", d, err)
	}
	d, err = e.CanOpen(accesstest.DemoDeactivatedUserID, accesstest.DemoDoorID, wednesday)
	if want := (review.Decision{Reason: "status DEACTIVATED"}); err != nil || d != want {
		t.Errorf("the deactivated user: %+v, %v; want %+v", d, err, want)
	}
	d, err = e.CanOpen(accesstest.DemoPastVisitorID, accesstest.DemoDoorID, wednesday)
	if err != nil || d.Open || d.Reason != "after the visit" {
		t.Errorf("the past visitor: %+v, %v; want shut after the visit", d, err)
	}
}
