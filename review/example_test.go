package review_test

import (
	"fmt"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/review"
)

// A console's state built by hand (review.Load reads it from a console):
// one door, office hours with a public holiday, and one user.
func Example() {
	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}
	st := &review.State{
		Doors: []access.Door{{ID: "d1", Name: "Main entrance"}},
		HolidayGroups: []access.HolidayGroup{{ID: "hg", Name: "Public Holidays 2026", Holidays: []access.Holiday{
			{Name: "Good Friday", StartTime: "2026-04-03 00:00:00Z", EndTime: "2026-04-04 00:00:00Z"},
		}}},
		Schedules: []access.Schedule{{ID: "s1", Name: "Office hours", HolidayGroupID: "hg", WeekSchedule: &access.WeekSchedule{
			Monday: office, Tuesday: office, Wednesday: office, Thursday: office, Friday: office}}},
		AccessPolicies: []access.AccessPolicy{{ID: "p1", Name: "Staff", ScheduleID: "s1",
			Resources: []access.Resource{{ID: "d1", Type: access.ResourceDoor}}}},
		Users: []access.User{{ID: "u1", FullName: "Ada Lovelace", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p1"}}},
	}
	e, err := review.New(st, time.UTC)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, at := range []string{"2026-04-02 10:00", "2026-04-02 19:00", "2026-04-03 10:00"} {
		t, _ := time.Parse("2006-01-02 15:04", at)
		d, _ := e.CanOpen("u1", "d1", t)
		if d.Open {
			fmt.Printf("%s: opens by %s (%s)\n", at, d.Policy, d.Schedule)
		} else {
			fmt.Printf("%s: stays shut: %s\n", at, d.Reason)
		}
	}
	cal, _ := e.Windows("u1", "d1", time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), 5)
	for _, w := range cal.Windows {
		fmt.Printf("window %s to %s\n", w.Start.Format("Mon 02 15:04"), w.End.Format("15:04"))
	}
	for _, x := range cal.Exceptions {
		fmt.Printf("exception %s: %s\n", x.Date, x.Holiday)
	}
	// Output:
	// 2026-04-02 10:00: opens by Staff (Office hours)
	// 2026-04-02 19:00: stays shut: outside Office hours
	// 2026-04-03 10:00: stays shut: Public Holidays 2026: Good Friday
	// window Thu 02 08:00 to 17:01
	// window Mon 06 08:00 to 17:01
	// exception 2026-04-03: Public Holidays 2026: Good Friday
}
