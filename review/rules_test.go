package review_test

import (
	"errors"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/review"
)

// The fixture of the vendor-semantics table. Its zone is Europe/Zurich
// (UTC+2 in April 2026), so that reading holidays in the console's zone
// shows. 2026-04-01 is a Wednesday; 2026-04-03 is Good Friday.
const (
	mainDoor = "door-main"
	labDoor  = "door-lab"
	roofDoor = "door-roof"
)

func zurich(t testing.TB) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Zurich")
	if err != nil {
		t.Skipf("no zone database: %v", err)
	}
	return loc
}

func week(days map[time.Weekday][]access.TimeRange) *access.WeekSchedule {
	w := &access.WeekSchedule{}
	for d, r := range days {
		switch d {
		case time.Sunday:
			w.Sunday = r
		case time.Monday:
			w.Monday = r
		case time.Tuesday:
			w.Tuesday = r
		case time.Wednesday:
			w.Wednesday = r
		case time.Thursday:
			w.Thursday = r
		case time.Friday:
			w.Friday = r
		case time.Saturday:
			w.Saturday = r
		}
	}
	return w
}

func weekdays(from, to string) *access.WeekSchedule {
	r := []access.TimeRange{{StartTime: from, EndTime: to}}
	return week(map[time.Weekday][]access.TimeRange{time.Monday: r, time.Tuesday: r, time.Wednesday: r, time.Thursday: r, time.Friday: r})
}

func fixture(t testing.TB) *review.State {
	loc := zurich(t)
	at := func(s string) access.UnixTime {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return access.UnixTimeOf(tm)
	}
	all := []access.TimeRange{{StartTime: "00:00:00", EndTime: "23:59:59"}}
	return &review.State{
		Doors: []access.Door{{ID: mainDoor, Name: "Main"}, {ID: labDoor, Name: "Lab"}, {ID: roofDoor, Name: "Roof"}},
		DoorGroups: []access.DoorGroup{
			{ID: "dg-floors", Name: "Floors", Type: access.DoorGroupAccess, Resources: []access.Resource{{ID: labDoor, Type: access.ResourceDoor}}},
			{ID: "dg-building", Name: "HQ", Type: access.DoorGroupBuilding},
		},
		HolidayGroups: []access.HolidayGroup{{ID: "hg-public", Name: "Public Holidays 2026", Holidays: []access.Holiday{
			{Name: "Good Friday", StartTime: "2026-04-03 00:00:00Z", EndTime: "2026-04-04 00:00:00Z"},
			{Name: "Christmas Day", StartTime: "2026-12-25 00:00:00Z", EndTime: "2026-12-26 00:00:00Z", Repeat: true},
		}}},
		Schedules: []access.Schedule{
			{ID: "s-office", Name: "Office hours", WeekSchedule: weekdays("08:00:00", "17:00:59"), HolidayGroupID: "hg-public",
				HolidaySchedule: []access.TimeRange{{StartTime: "09:00:00", EndTime: "12:00:59"}}},
			{ID: "s-always", Name: "Always", WeekSchedule: week(map[time.Weekday][]access.TimeRange{
				time.Sunday: all, time.Monday: all, time.Tuesday: all, time.Wednesday: all, time.Thursday: all, time.Friday: all, time.Saturday: all})},
			{ID: "s-nights", Name: "Nights", WeekSchedule: weekdays("20:00:00", "23:59:59")},
			{ID: "s-visit", Name: "Visiting hours", WeekSchedule: weekdays("09:00:00", "17:00:59")},
		},
		AccessPolicies: []access.AccessPolicy{
			{ID: "p-staff", Name: "Staff", ScheduleID: "s-office", Resources: []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}, {ID: "dg-floors", Type: access.ResourceDoorGroup}}},
			{ID: "p-it", Name: "IT", ScheduleID: "s-always", Resources: []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}}},
			{ID: "p-roof", Name: "Roof", ScheduleID: "s-nights", Resources: []access.Resource{{ID: "dg-building", Type: access.ResourceDoorGroup}}},
			{ID: "p-ghost", Name: "Ghost", ScheduleID: "s-gone", Resources: []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}}},
		},
		UserGroups: []access.UserGroup{
			{ID: "g-eng", Name: "Engineering", UpID: "g-company", UpIDs: []string{"g-company"}},
			{ID: "g-company", Name: "Company"},
		},
		Members:       map[string][]string{"g-eng": {"u-bob", "u-carl", "u-gina"}},
		GroupPolicies: map[string][]string{"g-company": {"p-roof"}},
		Users: []access.User{
			{ID: "u-ada", FullName: "Ada", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-staff"}},
			{ID: "u-bob", FullName: "Bob", Status: access.UserStatusActive},
			{ID: "u-carl", FullName: "Carl", Status: access.UserStatusDeactivated, AccessPolicyIDs: []string{"p-staff"}},
			{ID: "u-dana", FullName: "Dana", Status: access.UserStatusPending, AccessPolicyIDs: []string{"p-staff"}},
			{ID: "u-erin", FullName: "Erin", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-staff", "p-it"}},
			{ID: "u-fay", FullName: "Fay", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-ghost"}},
			{ID: "u-gina", FullName: "Gina", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-staff"}},
		},
		Visitors: []access.Visitor{
			{ID: "v-vic", FirstName: "Vic", LastName: "Tor", Status: "UPCOMING", StartTime: at("2026-04-06 10:00"), EndTime: at("2026-04-08 10:00"),
				Resources:  []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}, {ID: "dg-floors", Type: access.ResourceDoorGroup}},
				ScheduleID: "s-visit", Schedule: &access.Schedule{ID: "s-visit", Name: "Visiting hours", WeekSchedule: weekdays("09:00:00", "17:00:59")}},
			{ID: "v-vera", FirstName: "Vera", LastName: "Once", Status: "VISITING", StartTime: at("2026-04-05 01:00"), EndTime: at("2026-04-05 05:00"),
				Resources:  []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}},
				ScheduleID: "s-vera", Schedule: &access.Schedule{ID: "s-vera", Name: "visitor-1690337152955"}},
			{ID: "v-cal", FirstName: "Cal", LastName: "Off", Status: "CANCELLED", StartTime: at("2026-04-01 00:00"), EndTime: at("2026-04-30 00:00"),
				Resources: []access.Resource{{ID: mainDoor, Type: access.ResourceDoor}}},
		},
	}
}

func evaluator(t testing.TB) (*review.Evaluator, *time.Location) {
	t.Helper()
	loc := zurich(t)
	e, err := review.New(fixture(t), loc)
	if err != nil {
		t.Fatal(err)
	}
	return e, loc
}

// vendorRule is a case of the table of vendor semantics.
type vendorRule struct {
	name, person, door, at string // at: local time in Europe/Zurich
	want                   review.Decision
}

// vendorRules is the table of vendor semantics, written from the
// reference (see the package doc), with the exact reasons, on the
// fixture. The evaluator (TestVendorRules) and the simulator
// (TestSimulatorVendorRules) both answer it.
var vendorRules = []vendorRule{
	{"own policy in its week range", "u-ada", mainDoor, "2026-04-01 10:00:00",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours"}},
	{"before the range", "u-ada", mainDoor, "2026-04-01 07:59:59", review.Decision{Reason: "outside Office hours"}},
	{"the end second is inclusive", "u-ada", mainDoor, "2026-04-01 17:00:59",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours"}},
	{"after the end second", "u-ada", mainDoor, "2026-04-01 17:01:00", review.Decision{Reason: "outside Office hours"}},
	{"a day without ranges", "u-ada", mainDoor, "2026-04-05 10:00:00", review.Decision{Reason: "outside Office hours"}},
	{"a door of a door group", "u-ada", labDoor, "2026-04-01 10:00:00",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours"}},
	{"no policy covers the door", "u-ada", roofDoor, "2026-04-01 10:00:00", review.Decision{Reason: "no access policy covers Roof"}},
	{"a holiday outside its holiday ranges", "u-ada", mainDoor, "2026-04-03 15:00:00", review.Decision{Reason: "Public Holidays 2026: Good Friday"}},
	{"a holiday in its holiday ranges", "u-ada", mainDoor, "2026-04-03 10:00:00",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours", Holiday: "Public Holidays 2026: Good Friday"}},
	{"a holiday's day is read in the console's zone (start)", "u-ada", mainDoor, "2026-04-03 00:30:00", review.Decision{Reason: "Public Holidays 2026: Good Friday"}},
	{"a holiday's day is read in the console's zone (end)", "u-ada", mainDoor, "2026-04-04 00:30:00", review.Decision{Reason: "outside Office hours"}},
	{"a repeating holiday in a later year", "u-ada", mainDoor, "2028-12-25 15:00:00", review.Decision{Reason: "Public Holidays 2026: Christmas Day"}},
	{"a holiday's ranges replace a weekend", "u-ada", mainDoor, "2027-12-25 10:00:00",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours", Holiday: "Public Holidays 2026: Christmas Day"}},
	{"a group parent's policy; the building is every door", "u-bob", mainDoor, "2026-04-01 21:00:00",
		review.Decision{Open: true, Policy: "Roof", PolicyID: "p-roof", Schedule: "Nights"}},
	{"a group parent's policy outside its schedule", "u-bob", labDoor, "2026-04-01 10:00:00", review.Decision{Reason: "outside Nights"}},
	{"a deactivated user, even as a group member", "u-carl", mainDoor, "2026-04-01 21:00:00", review.Decision{Reason: "status DEACTIVATED"}},
	{"a pending user", "u-dana", mainDoor, "2026-04-01 10:00:00", review.Decision{Reason: "status PENDING"}},
	{"overlap: the first policy in force grants", "u-erin", mainDoor, "2026-04-01 10:00:00",
		review.Decision{Open: true, Policy: "Staff", PolicyID: "p-staff", Schedule: "Office hours"}},
	{"overlap: another policy in force grants", "u-erin", mainDoor, "2026-04-05 03:00:00",
		review.Decision{Open: true, Policy: "IT", PolicyID: "p-it", Schedule: "Always"}},
	{"overlap: every reason of a refusal", "u-gina", mainDoor, "2026-04-05 10:00:00", review.Decision{Reason: "outside Office hours; outside Nights"}},
	{"a policy whose schedule is gone", "u-fay", mainDoor, "2026-04-01 10:00:00", review.Decision{Reason: "policy Ghost: schedule s-gone not found"}},
	{"a visitor before the visit", "v-vic", mainDoor, "2026-04-06 09:59:59", review.Decision{Schedule: "Visiting hours", Reason: "before the visit"}},
	{"a visitor in the visit and schedule", "v-vic", labDoor, "2026-04-07 10:00:00", review.Decision{Open: true, Schedule: "Visiting hours"}},
	{"a visitor outside their schedule", "v-vic", mainDoor, "2026-04-07 18:00:00", review.Decision{Schedule: "Visiting hours", Reason: "outside Visiting hours"}},
	{"a visitor's end is exclusive", "v-vic", mainDoor, "2026-04-08 10:00:00", review.Decision{Schedule: "Visiting hours", Reason: "after the visit"}},
	{"a door outside the visit", "v-vic", roofDoor, "2026-04-07 10:00:00", review.Decision{Schedule: "Visiting hours", Reason: "the visit does not cover Roof"}},
	{"a one-time visit opens at any hour of it", "v-vera", mainDoor, "2026-04-05 03:00:00", review.Decision{Open: true}},
	{"a cancelled visitor", "v-cal", mainDoor, "2026-04-07 10:00:00", review.Decision{Reason: "status CANCELLED"}},
}

// TestVendorRules checks the evaluator against the table of vendor
// semantics.
func TestVendorRules(t *testing.T) {
	e, loc := evaluator(t)
	for _, c := range vendorRules {
		t.Run(c.name, func(t *testing.T) {
			at, err := time.ParseInLocation(time.DateTime, c.at, loc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.CanOpen(c.person, c.door, at)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("CanOpen(%s, %s, %s)\n got %+v\nwant %+v", c.person, c.door, c.at, got, c.want)
			}
		})
	}
}

func TestUnknownPersonAndDoor(t *testing.T) {
	e, _ := evaluator(t)
	now := time.Now()
	if _, err := e.CanOpen("nobody", mainDoor, now); !errors.Is(err, review.ErrUnknownPerson) {
		t.Errorf("unknown person: %v, want ErrUnknownPerson", err)
	}
	if _, err := e.CanOpen("u-ada", "no-door", now); !errors.Is(err, review.ErrUnknownDoor) {
		t.Errorf("unknown door: %v, want ErrUnknownDoor", err)
	}
	if _, err := e.WhoCanOpen("no-door", now); !errors.Is(err, review.ErrUnknownDoor) {
		t.Errorf("WhoCanOpen, unknown door: %v, want ErrUnknownDoor", err)
	}
	if _, err := e.Windows("nobody", mainDoor, now, 7); !errors.Is(err, review.ErrUnknownPerson) {
		t.Errorf("Windows, unknown person: %v, want ErrUnknownPerson", err)
	}
	if _, err := review.New(fixture(t), nil); err == nil {
		t.Error("New without a zone: no error")
	}
}

func TestWhoCanOpen(t *testing.T) {
	e, loc := evaluator(t)
	got, err := e.WhoCanOpen(mainDoor, time.Date(2026, 4, 7, 10, 0, 0, 0, loc))
	if err != nil {
		t.Fatal(err)
	}
	want := []review.Grant{
		{ID: "u-ada", Name: "Ada", Policy: "Staff", Schedule: "Office hours"},
		{ID: "u-erin", Name: "Erin", Policy: "Staff", Schedule: "Office hours"},
		{ID: "u-gina", Name: "Gina", Policy: "Staff", Schedule: "Office hours"},
		{ID: "v-vic", Name: "Vic Tor", Visitor: true, Schedule: "Visiting hours"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("[%d] got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestWindows(t *testing.T) {
	e, loc := evaluator(t)
	at := func(d, h, m int) time.Time { return time.Date(2026, 4, d, h, m, 0, 0, loc) }
	cal, err := e.Windows("u-ada", mainDoor, at(1, 15, 0), 5) // Wed 1 to Sun 5 April
	if err != nil {
		t.Fatal(err)
	}
	want := []review.Window{
		{Start: at(1, 8, 0), End: at(1, 17, 1), Policy: "Staff", Schedule: "Office hours"},
		{Start: at(2, 8, 0), End: at(2, 17, 1), Policy: "Staff", Schedule: "Office hours"},
		{Start: at(3, 9, 0), End: at(3, 12, 1), Policy: "Staff", Schedule: "Office hours", Holiday: "Public Holidays 2026: Good Friday"},
	}
	if len(cal.Windows) != len(want) {
		t.Fatalf("windows: got %+v\nwant %+v", cal.Windows, want)
	}
	for i := range want {
		g := cal.Windows[i]
		if !g.Start.Equal(want[i].Start) || !g.End.Equal(want[i].End) || g.Policy != want[i].Policy || g.Schedule != want[i].Schedule || g.Holiday != want[i].Holiday {
			t.Errorf("window %d: got %+v, want %+v", i, g, want[i])
		}
	}
	wantX := []review.Exception{{Date: "2026-04-03", Schedule: "Office hours", Holiday: "Public Holidays 2026: Good Friday"}}
	if len(cal.Exceptions) != 1 || cal.Exceptions[0] != wantX[0] {
		t.Errorf("exceptions: got %+v, want %+v", cal.Exceptions, wantX)
	}

	// A visitor's windows are cut to the visit.
	cal, err = e.Windows("v-vic", mainDoor, at(6, 0, 0), 3)
	if err != nil {
		t.Fatal(err)
	}
	wantV := [][2]time.Time{{at(6, 10, 0), at(6, 17, 1)}, {at(7, 9, 0), at(7, 17, 1)}, {at(8, 9, 0), at(8, 10, 0)}}
	if len(cal.Windows) != len(wantV) {
		t.Fatalf("visitor windows: got %+v, want %v", cal.Windows, wantV)
	}
	for i, w := range wantV {
		if !cal.Windows[i].Start.Equal(w[0]) || !cal.Windows[i].End.Equal(w[1]) {
			t.Errorf("visitor window %d: got %+v, want %v", i, cal.Windows[i], w)
		}
	}

	// A deactivated user has none.
	cal, err = e.Windows("u-carl", mainDoor, at(1, 0, 0), 7)
	if err != nil || len(cal.Windows) != 0 {
		t.Errorf("deactivated user: %+v, %v; want no windows", cal, err)
	}
}
