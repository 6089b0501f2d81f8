package access_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Register a user and remove them again: only deactivated users can be
// deleted, so deactivate first with Update.
func ExampleUsersService_Delete() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	u, _, err := client.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Users.Delete(ctx, u.ID)
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("delete an active user:", apiErr.Code)
	}
	if _, err := client.Users.Update(ctx, u.ID, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		log.Fatal(err)
	}
	if _, err := client.Users.Delete(ctx, u.ID); err != nil {
		log.Fatal(err)
	}
	_, _, err = client.Users.Get(ctx, u.ID, nil)
	fmt.Println("gone:", errors.Is(err, access.ErrNotFound))
	// Output:
	// delete an active user: CODE_OPERATION_FORBIDDEN
	// gone: true
}

// Find users page by page: SearchAll sends the statuses as repeated keys
// and fetches pages as the loop advances.
func ExampleUsersService_SearchAll() {
	srv := accesstest.NewServer()
	defer srv.Close()
	for _, name := range []string{"Ada", "Alan", "Grace", "Adele"} {
		srv.AddUser(access.User{FirstName: name, LastName: "Example"})
	}
	srv.AddUser(access.User{FirstName: "Adam", LastName: "Gone", Status: access.UserStatusDeactivated})
	client := srv.Client()

	opts := &access.UserSearchOptions{Keyword: "ad", Statuses: []access.UserStatus{access.UserStatusActive}, PageSize: 1}
	for u, err := range client.Users.SearchAll(context.Background(), opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.FirstName, u.Status)
	}
	// Output:
	// Ada ACTIVE
	// Adele ACTIVE
}

// Stream a profile picture from any io.Reader (a file, an HTTP body); it
// is never held in memory whole.
func ExampleUsersService_UploadAvatar() {
	srv := accesstest.NewServer()
	defer srv.Close()
	u := srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace"})
	client := srv.Client()

	picture := strings.NewReader("\x89PNG\r\n\x1a\n...")
	_, _, err := client.Users.UploadAvatar(context.Background(), u.ID, &access.AvatarOptions{FileName: "ada.png", ContentType: "image/png"}, picture)
	if err != nil {
		log.Fatal(err)
	}
	stored, _ := srv.Avatar(u.ID)
	fmt.Println(stored.FileName, stored.ContentType, len(stored.Data), "bytes")
	// Output:
	// ada.png image/png 11 bytes
}

// Creating a user group answers without its id: CreateAndGet looks the
// group up by name and parent.
func ExampleUserGroupsService_CreateAndGet() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	eng, _, err := client.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Engineering"})
	if err != nil {
		log.Fatal(err)
	}
	fw, _, err := client.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Firmware", UpID: eng.ID})
	if err != nil {
		log.Fatal(err)
	}
	ada := srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace"})
	if _, err := client.UserGroups.AddUsers(ctx, fw.ID, []string{ada.ID}); err != nil {
		log.Fatal(err)
	}
	everyone, _, err := client.UserGroups.ListAllUsers(ctx, eng.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fw.FullName, "->", len(everyone), "member(s) under", eng.Name)
	// Output:
	// Engineering / Firmware -> 1 member(s) under Engineering
}

// An access policy opens doors and door groups on a schedule.
func ExampleAccessPoliciesService_Create() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()

	p, _, err := client.AccessPolicies.Create(context.Background(), &access.AccessPolicyRequest{
		Name:       "Front desk",
		ScheduleID: accesstest.DemoScheduleID,
		Resources: []access.Resource{
			{ID: accesstest.DemoDoorID, Type: access.ResourceDoor},
			{ID: accesstest.DemoDoorGroupID, Type: access.ResourceDoorGroup},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Name, len(p.Resources), "resources")
	_, _, err = client.AccessPolicies.Create(context.Background(), &access.AccessPolicyRequest{Name: "Nowhere", ScheduleID: "no-such-schedule"})
	fmt.Println(errors.Is(err, access.ErrNotFound))
	// Output:
	// Front desk 2 resources
	// true
}

// Schedules are written with week_schedule and read back as weekly; both
// land in WeekSchedule.
func ExampleSchedulesService_Create() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "17:59:59"}}
	s, _, err := client.Schedules.Create(ctx, &access.ScheduleRequest{
		Name:         "Office hours",
		WeekSchedule: &access.WeekSchedule{Monday: office, Tuesday: office, Wednesday: office, Thursday: office, Friday: office},
	})
	if err != nil {
		log.Fatal(err)
	}
	got, _, err := client.Schedules.Get(ctx, s.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Name, got.WeekSchedule.Day(time.Friday), len(got.WeekSchedule.Day(time.Sunday)))
	// Output:
	// Office hours [{08:00:00 17:59:59}] 0
}

// Holidays are sent as RFC 3339 and come back in the console's format;
// DateTime.Time parses it.
func ExampleHolidayGroupsService_Create() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()

	xmas := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	g, _, err := client.HolidayGroups.Create(context.Background(), &access.HolidayGroupRequest{
		Name:     "Public holidays",
		Holidays: []access.HolidayRequest{{Name: "Christmas", Repeat: true, StartTime: xmas, EndTime: xmas.AddDate(0, 0, 1)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	h := g.Holidays[0]
	start, err := h.StartTime.Time()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Name, h.StartTime, start.Equal(xmas))
	// Output:
	// Christmas 2026-12-25 00:00:00Z true
}

// Invitations answer SUCCESS even when some fail: the failures come back,
// and the error is an *access.InvitationError listing them.
func ExampleIdentityService_SendInvitations() {
	srv := accesstest.NewServer()
	defer srv.Close()
	ada := srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com"})
	bob := srv.AddUser(access.User{FirstName: "Bob", LastName: "NoMail"})
	client := srv.Client()

	failed, _, err := client.Identity.SendInvitations(context.Background(), []access.Invitation{{UserID: ada.ID}, {UserID: bob.ID}})
	var ie *access.InvitationError
	if errors.As(err, &ie) {
		fmt.Println(len(ie.Failures), "failed:", failed[0].UserID == bob.ID, failed[0].ErrorCode)
	}
	fmt.Println("invited:", len(srv.Invited()))
	// Output:
	// 1 failed: true CODE_USER_EMAIL_ERROR
	// invited: 1
}
