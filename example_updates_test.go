package access_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// An update keeps every nil member, sets those given with access.Ptr, and
// clears a member set to its empty value.
func ExampleUsersService_Update() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	u, _, err := client.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace",
		UserEmail: "ada@example.com", OnboardTime: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Users.Update(ctx, u.ID, &access.UserUpdate{
		EmployeeNumber: access.Ptr("E-1042"), // set
		UserEmail:      access.Ptr(""),       // clear
	}) // FirstName, LastName, OnboardTime and Status: kept
	if err != nil {
		log.Fatal(err)
	}
	got, _, err := client.Users.Get(ctx, u.ID, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s, %s, email %q, onboarded %s\n", got.FirstName, got.LastName, got.EmployeeNumber,
		got.UserEmail, got.OnboardTime.Time().Format(time.DateOnly))
	// Output:
	// Ada Lovelace, E-1042, email "", onboarded 2026-01-05
}

// A visit is moved with pointers to the new times; the other members stay.
func ExampleVisitorsService_Update() {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return now }))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	v, _, err := client.Visitors.Create(ctx, &access.VisitorRequest{
		FirstName: "Grace", LastName: "Hopper", Remarks: "Parking spot 4",
		StartTime: now.Add(2 * time.Hour), EndTime: now.Add(3 * time.Hour),
		VisitReason: access.VisitReasonInterview,
		Resources:   []access.Resource{access.VisitDoor(accesstest.DemoDoorID)},
	})
	if err != nil {
		log.Fatal(err)
	}
	v, _, err = client.Visitors.Update(ctx, v.ID, &access.VisitorUpdate{
		StartTime: access.Ptr(now.Add(4 * time.Hour)),
		EndTime:   access.Ptr(now.Add(6 * time.Hour)),
		Remarks:   access.Ptr(""),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.FirstName, v.VisitReason, v.StartTime.Time().Format("15:04"), "to", v.EndTime.Time().Format("15:04"),
		fmt.Sprintf("remarks %q, %d door", v.Remarks, len(v.Resources)))
	// Output:
	// Grace Interview 13:00 to 15:00 remarks "", 1 door
}

// A schedule leaves its holiday group with Ptr("") and loses its holiday
// ranges with an empty, non-nil slice; its name and week stay.
func ExampleSchedulesService_Update() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	hg, _, err := client.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Public holidays"})
	if err != nil {
		log.Fatal(err)
	}
	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}
	s, _, err := client.Schedules.Create(ctx, &access.ScheduleRequest{Name: "Office", WeekSchedule: &access.WeekSchedule{Monday: office},
		HolidayGroupID: hg.ID, HolidaySchedule: []access.TimeRange{{StartTime: "10:00:00", EndTime: "12:00:59"}}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Schedules.Update(ctx, s.ID, &access.ScheduleUpdate{
		HolidayGroupID:  access.Ptr(""),
		HolidaySchedule: []access.TimeRange{},
	}); err != nil {
		log.Fatal(err)
	}
	s, _, err = client.Schedules.Get(ctx, s.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: holiday group %q, %d holiday ranges, Monday %s-%s\n", s.Name, s.HolidayGroupID, len(s.HolidaySchedule),
		s.WeekSchedule.Monday[0].StartTime, s.WeekSchedule.Monday[0].EndTime)
	// Output:
	// Office: holiday group "", 0 holiday ranges, Monday 08:00:00-17:00:59
}

// The vendor wants a holiday group's name on every update; the other
// members are kept when nil.
func ExampleHolidayGroupsService_Update() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	day := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	g, _, err := client.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Swiss", Description: "CH",
		Holidays: []access.HolidayRequest{{Name: "Christmas", StartTime: day, EndTime: day.AddDate(0, 0, 1)}}})
	if err != nil {
		log.Fatal(err)
	}
	g, _, err = client.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: "Swiss 2026"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Name, g.Description, len(g.Holidays), "holiday")
	g, _, err = client.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: g.Name, Holidays: []access.HolidayRequest{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Name, g.Description, len(g.Holidays), "holidays")
	// Output:
	// Swiss 2026 CH 1 holiday
	// Swiss 2026 CH 0 holidays
}

// A nil Resources keeps a policy's doors; an empty, non-nil one removes
// them all. A policy always has a name and a schedule: Ptr("") is refused.
func ExampleAccessPoliciesService_Update() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	p, _, err := client.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "Front desk", ScheduleID: accesstest.DemoScheduleID,
		Resources: []access.Resource{{ID: accesstest.DemoDoorID, Type: access.ResourceDoor}}})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.AccessPolicies.Update(ctx, p.ID, &access.AccessPolicyUpdate{Name: access.Ptr("Reception")}); err != nil {
		log.Fatal(err)
	}
	p, _, err = client.AccessPolicies.Get(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, len(p.Resources), "door")
	if _, err := client.AccessPolicies.Update(ctx, p.ID, &access.AccessPolicyUpdate{Resources: []access.Resource{}}); err != nil {
		log.Fatal(err)
	}
	p, _, err = client.AccessPolicies.Get(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, len(p.Resources), "doors")
	_, err = client.AccessPolicies.Update(ctx, p.ID, &access.AccessPolicyUpdate{Name: access.Ptr("")})
	fmt.Println(err)
	// Output:
	// Reception 1 door
	// Reception 0 doors
	// access: AccessPolicies.Update: invalid Name: must not be empty when set
}

// The vendor wants a webhook's URL, name and events on every update; an
// empty, non-nil Headers removes the endpoint's headers. The id and the
// secret stay.
func ExampleWebhooksService_Update() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	ep, _, err := client.Webhooks.Create(ctx, &access.WebhookEndpointRequest{
		Endpoint: "https://receiver.example/hooks/access",
		Name:     "door events",
		Events:   []access.EventType{access.EventDoorUnlock},
		Headers:  map[string]string{"Authorization": "Bearer hook-credential"},
	})
	if err != nil {
		log.Fatal(err)
	}
	upd := &access.WebhookEndpointUpdate{
		Endpoint: ep.Endpoint,
		Name:     "doors and doorbells",
		Events:   []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming},
		Headers:  map[string]string{},
	}
	fmt.Println(upd)
	updated, _, err := client.Webhooks.Update(ctx, ep.ID, upd)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(updated.Name, updated.Events, len(updated.Headers), "headers")
	fmt.Println("same id and secret:", updated.ID == ep.ID && updated.Secret.Value() == ep.Secret.Value())
	// Output:
	// WebhookEndpointUpdate{Name:"doors and doorbells" Endpoint:https://receiver.example/hooks/access Events:[access.door.unlock access.doorbell.incoming] Headers:[]}
	// doors and doorbells [access.door.unlock access.doorbell.incoming] 0 headers
	// same id and secret: true
}

// A user group keeps its parent when UpID is nil; Ptr("") asks for a
// top-level group. The vendor wants the name on every update.
func ExampleUserGroupsService_Update() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	staff, _, err := client.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Staff"})
	if err != nil {
		log.Fatal(err)
	}
	g, _, err := client.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Night shift", UpID: staff.ID})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.UserGroups.Update(ctx, g.ID, &access.UserGroupUpdate{Name: "Late shift"}); err != nil {
		log.Fatal(err)
	}
	g, _, err = client.UserGroups.Get(ctx, g.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Name, "under Staff:", g.UpID == staff.ID)
	if _, err := client.UserGroups.Update(ctx, g.ID, &access.UserGroupUpdate{Name: g.Name, UpID: access.Ptr("")}); err != nil {
		log.Fatal(err)
	}
	g, _, err = client.UserGroups.Get(ctx, g.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: parent %q\n", g.Name, g.UpID)
	// Output:
	// Late shift under Staff: true
	// Late shift: parent ""
}
