package site_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// seeds returns the seeds a property test runs: SITE_SEED when set (to
// replay a failure), else three from the clock. Each is logged.
func seeds(t *testing.T) []uint64 {
	if s := os.Getenv("SITE_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("SITE_SEED: %v", err)
		}
		return []uint64{n}
	}
	base := uint64(time.Now().UnixNano())
	return []uint64{base, base + 1, base + 2}
}

// randomSite builds a desired document over the demo console's doors:
// holiday groups, schedules with them, door groups, policies over doors
// and door groups, nested user groups and 0-300 users. Some objects keep
// the demo's names, so that the plan holds updates as well as creates.
func randomSite(r *rand.Rand, doors []string) *site.Document {
	d := &site.Document{}
	pick := func(s []string, n int) []string {
		out := []string{}
		for _, i := range r.Perm(len(s))[:min(n, len(s))] {
			out = append(out, s[i])
		}
		return out
	}
	day := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	hgNames := []string{"Public Holidays 2026"}
	d.HolidayGroups = []site.HolidayGroup{{Name: "Public Holidays 2026", Description: "Site closed", Holidays: []site.Holiday{
		{Name: "New Year", Start: day, End: day.AddDate(0, 0, 1), Repeat: true}}}}
	for i := range r.IntN(4) {
		n := fmt.Sprintf("Holidays %d", i)
		hgNames = append(hgNames, n)
		g := site.HolidayGroup{Name: n}
		for j := range r.IntN(3) {
			s := day.AddDate(0, j+1, i)
			g.Holidays = append(g.Holidays, site.Holiday{Name: fmt.Sprintf("Day %d", j), Start: s, End: s.AddDate(0, 0, 1+r.IntN(3))})
		}
		d.HolidayGroups = append(d.HolidayGroups, g)
	}
	rng := func() []site.Range {
		h := r.IntN(12)
		return []site.Range{{Start: fmt.Sprintf("%02d:00:00", h), End: fmt.Sprintf("%02d:30:59", h+1+r.IntN(10))}}
	}
	schedNames := []string{}
	for i := range 1 + r.IntN(4) {
		n := fmt.Sprintf("Shift %d", i)
		if i == 0 {
			n = "Office hours"
		}
		schedNames = append(schedNames, n)
		s := site.Schedule{Name: n, Week: site.Week{Monday: rng(), Wednesday: rng(), Friday: rng()}}
		if r.IntN(2) == 0 {
			s.HolidayGroup = hgNames[r.IntN(len(hgNames))]
			s.Holidays = rng()
		}
		d.Schedules = append(d.Schedules, s)
	}
	dgNames := []string{}
	d.DoorGroups = []site.DoorGroup{}
	for i := range r.IntN(4) {
		n := fmt.Sprintf("Doors %d", i)
		dgNames = append(dgNames, n)
		d.DoorGroups = append(d.DoorGroups, site.DoorGroup{Name: n, Doors: pick(doors, 1+r.IntN(3))})
	}
	polNames := []string{}
	for i := range 1 + r.IntN(5) {
		n := fmt.Sprintf("Policy %d", i)
		if i == 0 {
			n = "Staff"
		}
		polNames = append(polNames, n)
		p := site.AccessPolicy{Name: n, Schedule: schedNames[r.IntN(len(schedNames))], Resources: []site.Resource{}}
		for _, dn := range pick(doors, r.IntN(3)) {
			p.Resources = append(p.Resources, site.Resource{Door: dn})
		}
		for _, g := range pick(dgNames, r.IntN(2)) {
			p.Resources = append(p.Resources, site.Resource{DoorGroup: g})
		}
		d.AccessPolicies = append(d.AccessPolicies, p)
	}
	groupNames := []string{}
	d.UserGroups = []site.UserGroup{}
	for i := range r.IntN(8) {
		g := site.UserGroup{Name: fmt.Sprintf("Team %d", i), Policies: pick(polNames, r.IntN(2))}
		if i > 0 && r.IntN(2) == 0 {
			g.Parent = groupNames[r.IntN(len(groupNames))]
		}
		groupNames = append(groupNames, g.Name)
		d.UserGroups = append(d.UserGroups, g)
	}
	d.Users = []site.User{}
	for i := range r.IntN(301) {
		u := site.User{FirstName: fmt.Sprintf("First%d", i), LastName: fmt.Sprintf("Last%d", r.IntN(1000)),
			Groups: pick(groupNames, r.IntN(3)), Policies: pick(polNames, r.IntN(2)), Status: "ACTIVE"}
		switch r.IntN(3) {
		case 0:
			u.EmployeeNumber = fmt.Sprintf("E%05d", 1000+i) // the demo's numbers: updates
		case 1:
			u.EmployeeNumber = fmt.Sprintf("N%05d", i)
			u.Email = fmt.Sprintf("n%d@example.org", i)
		default:
			u.Email = fmt.Sprintf("only%d@example.org", i)
		}
		if r.IntN(10) == 0 {
			u.Status = "DEACTIVATED"
		}
		if r.IntN(8) == 0 {
			u.LicensePlates = []string{fmt.Sprintf("P%04d", i)}
		}
		if r.IntN(4) == 0 {
			t := day.AddDate(0, 0, -r.IntN(900))
			u.OnboardTime = &t
		}
		d.Users = append(d.Users, u)
	}
	return d
}

func doorNames(t *testing.T, c *access.Client) []string {
	doors, _, err := c.Doors.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]int{}
	for _, d := range doors {
		seen[d.Name]++
	}
	for _, d := range doors {
		if seen[d.Name] == 1 {
			out = append(out, d.Name)
		}
	}
	return out
}

// writes counts the requests that could change the console.
func writes(srv *accesstest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.Op != accesstest.OpSystemLogsList {
			out = append(out, string(r.Op))
		}
	}
	return out
}

func mustPlan(t *testing.T, c *access.Client, d *site.Document) *site.Plan {
	t.Helper()
	p, err := site.MakePlan(context.Background(), c, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPropertyApplyConverges: a random document applied to the demo
// console leaves nothing to plan, and a second apply sends no write.
func TestPropertyApplyConverges(t *testing.T) {
	for _, seed := range seeds(t) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Logf("seed %d (replay with SITE_SEED=%d)", seed, seed)
			r := rand.New(rand.NewPCG(seed, 25))
			srv := accesstest.New(t, accesstest.WithDemoData())
			c := srv.Client()
			ctx := context.Background()
			doc := randomSite(r, doorNames(t, c))
			p := mustPlan(t, c, doc)
			if p.Summary.Total() == 0 {
				t.Fatal("the random document needs no change; the test would prove nothing")
			}
			rep, err := p.Apply(ctx, c, &site.ApplyOptions{Concurrency: 1 + r.IntN(8)})
			if err != nil {
				for _, x := range rep.Results {
					if x.Status != site.StatusDone {
						t.Logf("%s %s: %s %s", x.Change.Op, x.Change.Ref(), x.Status, x.Reason)
					}
				}
				t.Fatal(err)
			}
			if rep.Done != len(p.Changes) {
				t.Fatalf("done %d of %d", rep.Done, len(p.Changes))
			}
			again := mustPlan(t, c, doc)
			if len(again.Changes) != 0 {
				t.Fatalf("after apply the plan still has %d changes, first %+v", len(again.Changes), again.Changes[0])
			}
			srv.ResetRequests()
			rep, err = again.Apply(ctx, c, nil)
			if err != nil || rep.Done != 0 {
				t.Fatalf("second apply: %v, %+v", err, rep)
			}
			if w := writes(srv); len(w) != 0 {
				t.Fatalf("the second apply sent %d writes: %v", len(w), w[:min(5, len(w))])
			}
			// The export of the result plans empty too.
			exp, _, err := site.Export(ctx, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			if p := mustPlan(t, c, exp); len(p.Changes) != 0 {
				t.Fatalf("export -> plan: %d changes, first %+v", len(p.Changes), p.Changes[0])
			}
		})
	}
}

// TestPropertyFaultsThenRerunConverges: creates whose answers are lost
// (after taking effect), 503s before handling and dropped connections at
// random points, on creates and on the writes and reads around them; a
// rerun converges with no duplicate and nothing listed deleted.
func TestPropertyFaultsThenRerunConverges(t *testing.T) {
	creates := []accesstest.Op{accesstest.OpUsersCreate, accesstest.OpUserGroupsCreate, accesstest.OpAccessPoliciesCreate,
		accesstest.OpSchedulesCreate, accesstest.OpHolidayGroupsCreate, accesstest.OpDoorGroupsCreate}
	others := []accesstest.Op{accesstest.OpUserGroupsAddUsers, accesstest.OpUsersSetAccessPolicies, accesstest.OpUsersUpdate,
		accesstest.OpUsersList, accesstest.OpUsersSearch, accesstest.OpUserGroupsList}
	for _, seed := range seeds(t) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			t.Logf("seed %d (replay with SITE_SEED=%d)", seed, seed)
			r := rand.New(rand.NewPCG(seed, 52))
			srv := accesstest.New(t, accesstest.WithDemoData())
			c := srv.Client()
			ctx := context.Background()
			doc := randomSite(r, doorNames(t, c))
			p := mustPlan(t, c, doc)
			for range 1 + r.IntN(6) {
				op := creates[r.IntN(len(creates))]
				f := accesstest.Fault{Times: 1 + r.IntN(3)}
				switch r.IntN(3) {
				case 0:
					f.AfterHandling, f.Status = true, 503
				case 1:
					f.AfterHandling, f.DropConnection = true, true
				default:
					f.Status = 503
				}
				srv.Inject(op, f)
			}
			for range r.IntN(3) {
				f := accesstest.Fault{Status: 503, Times: 1 + r.IntN(5)}
				switch r.IntN(3) {
				case 0:
					f.AfterHandling = true
				case 1:
					f.Status, f.DropConnection = 0, true
				}
				srv.Inject(others[r.IntN(len(others))], f)
			}
			// The first run may fail in part (or be refused when a read
			// fails); either way it must not duplicate anything.
			rep, err := p.Apply(ctx, c, &site.ApplyOptions{Concurrency: 1 + r.IntN(6)})
			if rep != nil {
				t.Logf("first run: %d done, %d failed, %d skipped of %d (%v)", rep.Done, rep.Failed, rep.Skipped, len(p.Changes), err)
			} else {
				t.Logf("first run refused: %v", err)
			}
			srv.ClearFaults()
			checkNoDuplicates(t, srv)
			p2 := mustPlan(t, c, doc)
			if _, err := p2.Apply(ctx, c, nil); err != nil {
				t.Fatalf("rerun: %v", err)
			}
			if again := mustPlan(t, c, doc); len(again.Changes) != 0 {
				t.Fatalf("after the rerun the plan has %d changes, first %+v", len(again.Changes), again.Changes[0])
			}
			checkNoDuplicates(t, srv)
			// Nothing the document lists was deleted: every listed user
			// and group is there.
			exp, _, err := site.Export(ctx, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			for _, u := range exp.Users {
				keys[u.Key()] = true
			}
			for _, u := range doc.Users {
				if !keys[u.Key()] {
					t.Fatalf("user %s is missing", u.Key())
				}
			}
		})
	}
}

func checkNoDuplicates(t *testing.T, srv *accesstest.Server) {
	t.Helper()
	seen := map[string]bool{}
	for _, u := range srv.Users() {
		k := u.EmployeeNumber
		if k == "" {
			k = u.UserEmail
		}
		if seen[k] {
			t.Fatalf("user %s exists twice", k)
		}
		seen[k] = true
	}
	c := srv.Client()
	ctx := context.Background()
	names := func(kind string, ns []string) {
		seen := map[string]bool{}
		for _, n := range ns {
			if seen[n] {
				t.Fatalf("%s %q exists twice", kind, n)
			}
			seen[n] = true
		}
	}
	gs, _, err := c.UserGroups.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, g := range gs {
		ns = append(ns, g.Name)
	}
	names("user group", ns)
	ps, _, err := c.AccessPolicies.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ns = nil
	for _, p := range ps {
		ns = append(ns, p.Name)
	}
	names("policy", ns)
	ss, _, err := c.Schedules.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ns = nil
	for _, s := range ss {
		ns = append(ns, s.Name)
	}
	names("schedule", ns)
	hs, _, err := c.HolidayGroups.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ns = nil
	for _, h := range hs {
		ns = append(ns, h.Name)
	}
	names("holiday group", ns)
}
