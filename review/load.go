package review

import (
	"context"
	"fmt"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/bounded"
)

// State is what the evaluator needs of a console, as the SDK's values.
// [Load] reads it; a test or another source may build one by hand.
type State struct {
	// Users are the console's users with their own policies
	// (AccessPolicyIDs), status and credentials.
	Users []access.User
	// UserGroups are the user groups, with their parents (UpID).
	UserGroups []access.UserGroup
	// Members maps a user group's id to the ids of its direct members.
	Members map[string][]string
	// GroupPolicies maps a user group's id to the ids of its access
	// policies.
	GroupPolicies map[string][]string
	// AccessPolicies are the access policies with their resources.
	AccessPolicies []access.AccessPolicy
	// Schedules are the schedules with their week ranges, holiday group
	// and holiday ranges (as [access.SchedulesService.Get] returns them).
	Schedules []access.Schedule
	// HolidayGroups are the holiday groups with their holidays.
	HolidayGroups []access.HolidayGroup
	// Doors are the console's doors.
	Doors []access.Door
	// DoorGroups are the door groups with their doors. The building is
	// one of them, of type [access.DoorGroupBuilding]; a building listed
	// without doors holds every door.
	DoorGroups []access.DoorGroup
	// Visitors are the visitors with their resources, times and schedule.
	Visitors []access.Visitor
}

// readers bounds the requests Load keeps in flight at once.
const readers = 4

// Load reads a console's state through the SDK: users and visitors with
// the paged All iterators, the other kinds with their List and Get
// operations. It reads; it changes nothing.
func Load(ctx context.Context, c *access.Client) (*State, error) {
	if c == nil {
		return nil, fmt.Errorf("review: Load: nil client")
	}
	st := &State{Members: map[string][]string{}, GroupPolicies: map[string][]string{}}
	for u, err := range c.Users.All(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("reading users: %w", err)
		}
		st.Users = append(st.Users, u)
	}
	opts := &access.VisitorListOptions{Expand: []access.VisitorExpand{access.VisitorExpandResource, access.VisitorExpandSchedule,
		access.VisitorExpandNFCCard, access.VisitorExpandPINCode}}
	for v, err := range c.Visitors.All(ctx, opts) {
		if err != nil {
			return nil, fmt.Errorf("reading visitors: %w", err)
		}
		st.Visitors = append(st.Visitors, v)
	}
	groups, _, err := c.UserGroups.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading user groups: %w", err)
	}
	st.UserGroups = groups
	members, pols := make([][]string, len(groups)), make([][]string, len(groups))
	err = each(ctx, len(groups), func(ctx context.Context, i int) error {
		us, _, err := c.UserGroups.ListUsers(ctx, groups[i].ID)
		if err != nil {
			return fmt.Errorf("reading the members of user group %q: %w", groups[i].Name, err)
		}
		for _, u := range us {
			members[i] = append(members[i], u.ID)
		}
		ps, _, err := c.UserGroups.ListAccessPolicies(ctx, groups[i].ID)
		if err != nil {
			return fmt.Errorf("reading the access policies of user group %q: %w", groups[i].Name, err)
		}
		for _, p := range ps {
			pols[i] = append(pols[i], p.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, g := range groups {
		st.Members[g.ID], st.GroupPolicies[g.ID] = members[i], pols[i]
	}
	if st.AccessPolicies, _, err = c.AccessPolicies.List(ctx); err != nil {
		return nil, fmt.Errorf("reading access policies: %w", err)
	}
	scheds, _, err := c.Schedules.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading schedules: %w", err)
	}
	st.Schedules = make([]access.Schedule, len(scheds))
	err = each(ctx, len(scheds), func(ctx context.Context, i int) error {
		s, _, err := c.Schedules.Get(ctx, scheds[i].ID)
		if err != nil {
			return fmt.Errorf("reading schedule %q: %w", scheds[i].Name, err)
		}
		st.Schedules[i] = *s
		return nil
	})
	if err != nil {
		return nil, err
	}
	sums, _, err := c.HolidayGroups.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading holiday groups: %w", err)
	}
	st.HolidayGroups = make([]access.HolidayGroup, len(sums))
	err = each(ctx, len(sums), func(ctx context.Context, i int) error {
		g, _, err := c.HolidayGroups.Get(ctx, sums[i].ID)
		if err != nil {
			return fmt.Errorf("reading holiday group %q: %w", sums[i].Name, err)
		}
		st.HolidayGroups[i] = *g
		return nil
	})
	if err != nil {
		return nil, err
	}
	if st.Doors, _, err = c.Doors.List(ctx); err != nil {
		return nil, fmt.Errorf("reading doors: %w", err)
	}
	if st.DoorGroups, _, err = c.DoorGroups.List(ctx); err != nil {
		return nil, fmt.Errorf("reading door groups: %w", err)
	}
	// The list leaves out the building (§7.5); the topology has it.
	top, _, err := c.DoorGroups.Topology(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the door group topology: %w", err)
	}
	for _, t := range top {
		if t.Type != access.DoorGroupBuilding {
			continue
		}
		b := access.DoorGroup{ID: t.ID, Name: t.Name, Type: t.Type}
		for _, f := range t.Floors {
			for _, d := range f.Doors {
				b.Resources = append(b.Resources, access.Resource{ID: d.ID, Name: d.Name, Type: access.ResourceDoor})
			}
		}
		st.DoorGroups = append(st.DoorGroups, b)
	}
	return st, nil
}

// each runs f for 0..n-1 with at most readers at once and returns the
// first error; after an error no new call starts.
func each(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
	return bounded.Each(ctx, readers, n, f)
}
