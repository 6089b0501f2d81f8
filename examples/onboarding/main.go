// Command onboarding walks an HR system's view of one employee through
// the people operations, on the embedded fake controller (package
// accesstest) with its demo site:
//
//   - it makes an office-hours schedule, an access policy on it for the
//     main entrance, and a "New starters" user group holding the policy
//     (creating a group answers without its id: CreateAndGet finds it);
//
//   - registers the employee and puts them in the group;
//
//   - assigns them a PIN code the console generated;
//
//   - searches them back and lists the policies they get through the
//     group;
//
//   - deactivates them (only deactivated users can be deleted) and
//     deletes them.
//
//     go run ./examples/onboarding
//
// Against a console the same calls change real records; run takes any
// client and the id of a door to open.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	if err := run(context.Background(), srv.Client(), accesstest.DemoDoorID, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run onboards and offboards one employee with client, giving them door
// doorID in office hours, and writes what happens to out.
func run(ctx context.Context, client *access.Client, doorID string, out io.Writer) error {
	// 1. An office-hours schedule, a policy on it and a group holding it.
	weekday := []access.TimeRange{{StartTime: "08:00:00", EndTime: "18:00:59"}}
	sched, _, err := client.Schedules.Create(ctx, &access.ScheduleRequest{
		Name:         "Onboarding office hours",
		WeekSchedule: &access.WeekSchedule{Monday: weekday, Tuesday: weekday, Wednesday: weekday, Thursday: weekday, Friday: weekday},
	})
	if err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	policy, _, err := client.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{
		Name:       "New starters: main entrance",
		ScheduleID: sched.ID,
		Resources:  []access.Resource{{ID: doorID, Type: access.ResourceDoor}},
	})
	if err != nil {
		return fmt.Errorf("policy: %w", err)
	}
	group, _, err := client.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "New starters"})
	if err != nil {
		return fmt.Errorf("group: %w", err)
	}
	if _, err := client.UserGroups.SetAccessPolicies(ctx, group.ID, []string{policy.ID}); err != nil {
		return fmt.Errorf("group policy: %w", err)
	}
	fmt.Fprintf(out, "group %q holds policy %q on schedule %q\n", group.Name, policy.Name, sched.Name)

	// 2. The employee, in the group.
	user, _, err := client.Users.Create(ctx, &access.UserRequest{
		FirstName: "Grace", LastName: "Hopper", UserEmail: "grace.hopper@example.com", EmployeeNumber: "E-1906",
	})
	if err != nil {
		return fmt.Errorf("create user: %w", err)
	}
	if _, err := client.UserGroups.AddUsers(ctx, group.ID, []string{user.ID}); err != nil {
		return fmt.Errorf("add to group: %w", err)
	}
	fmt.Fprintf(out, "registered %s %s\n", user.FirstName, user.LastName)

	// 3. A PIN for the keypads: the console generates one that no one
	// else holds, and it is assigned to the user.
	pin, _, err := client.PINCodes.Generate(ctx)
	if err != nil {
		return fmt.Errorf("generate PIN: %w", err)
	}
	if _, err := client.Users.AssignPINCode(ctx, user.ID, pin); err != nil {
		return fmt.Errorf("assign PIN: %w", err)
	}
	withPIN, _, err := client.Users.Get(ctx, user.ID, nil)
	if err != nil {
		return fmt.Errorf("get user: %w", err)
	}
	fmt.Fprintf(out, "assigned a generated %d-digit PIN (the console keeps only its hash: %t)\n",
		len(pin), withPIN.PINCode != nil && withPIN.PINCode.Token != "" && withPIN.PINCode.Token != pin)

	// 4. Search them back, and see what the group gives them.
	var found []access.User
	opts := &access.UserSearchOptions{Keyword: "E-1906", Statuses: []access.UserStatus{access.UserStatusActive}}
	for u, err := range client.Users.SearchAll(ctx, opts) {
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		found = append(found, u)
	}
	if len(found) != 1 || found[0].ID != user.ID {
		return fmt.Errorf("search found %d users", len(found))
	}
	fmt.Fprintf(out, "found %s (%s, %s)\n", found[0].FullName, found[0].EmployeeNumber, found[0].Status)
	policies, _, err := client.Users.ListAccessPolicies(ctx, user.ID, &access.UserPoliciesOptions{OnlyUserPolicies: access.Ptr(false)})
	if err != nil {
		return fmt.Errorf("policies: %w", err)
	}
	for _, p := range policies {
		fmt.Fprintf(out, "  policy %q (through the group)\n", p.Name)
	}

	// 5. Offboard: an active user cannot be deleted; deactivate first.
	_, err = client.Users.Delete(ctx, user.ID)
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Fprintf(out, "delete while active: %s\n", apiErr.Code)
	}
	if _, err := client.Users.Update(ctx, user.ID, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		return fmt.Errorf("deactivate: %w", err)
	}
	if _, err := client.Users.Delete(ctx, user.ID); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	_, _, err = client.Users.Get(ctx, user.ID, nil)
	fmt.Fprintf(out, "deactivated and deleted: %v\n", errors.Is(err, access.ErrNotFound))
	members, _, err := client.UserGroups.ListUsers(ctx, group.ID)
	if err != nil {
		return fmt.Errorf("members: %w", err)
	}
	fmt.Fprintf(out, "group %q now has %d member(s)\n", group.Name, len(members))
	return nil
}
