package site

import (
	"context"
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// Export reads the given kinds (all of them when kinds is empty) from the
// console and returns them as a document: names, not ids, in a stable
// order (by name, users by key). Webhook secrets and header values are
// never read into it, nor PIN codes or cards. What cannot be managed (a
// user with neither key, two objects of one kind with one name) is left
// out and named in the warnings; a plan never touches it either.
func Export(ctx context.Context, c *access.Client, kinds []Kind) (*Document, []string, error) {
	if c == nil {
		return nil, nil, ErrNoClient
	}
	if len(kinds) == 0 {
		kinds = AllKinds()
	}
	st, err := readState(ctx, c, kinds)
	if err != nil {
		return nil, nil, err
	}
	want := map[Kind]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	d := &Document{}
	if want[KindHolidayGroups] {
		d.HolidayGroups = values(st.holidayGroups)
		for i := range d.HolidayGroups {
			slices.SortFunc(d.HolidayGroups[i].Holidays, func(a, b Holiday) int {
				if c := a.Start.Compare(b.Start); c != 0 {
					return c
				}
				return strings.Compare(a.Name, b.Name)
			})
		}
	}
	if want[KindSchedules] {
		d.Schedules = values(st.schedules)
	}
	if want[KindDoorGroups] {
		d.DoorGroups = values(st.doorGroups)
		for i := range d.DoorGroups {
			slices.Sort(d.DoorGroups[i].Doors)
		}
	}
	if want[KindAccessPolicies] {
		d.AccessPolicies = values(st.accessPolicies)
		for i := range d.AccessPolicies {
			slices.SortFunc(d.AccessPolicies[i].Resources, func(a, b Resource) int { return strings.Compare(a.String(), b.String()) })
		}
	}
	if want[KindUserGroups] {
		d.UserGroups = values(st.userGroups)
		for i := range d.UserGroups {
			slices.Sort(d.UserGroups[i].Policies)
		}
	}
	if want[KindUsers] {
		d.Users = make([]User, 0, len(st.users))
		for _, k := range sortedKeys(st.users) {
			u := st.users[k].obj
			slices.Sort(u.Groups)
			slices.Sort(u.Policies)
			slices.Sort(u.LicensePlates)
			d.Users = append(d.Users, u)
		}
	}
	if want[KindWebhooks] {
		d.Webhooks = values(st.webhooks)
		for i := range d.Webhooks {
			d.Webhooks[i].Headers = nil // values are secrets; names alone would not plan empty
			slices.Sort(d.Webhooks[i].Events)
		}
	}
	return d, st.warnings, nil
}

// values returns the objects of a kind sorted by name, never nil.
func values[T any](m map[string]*entry[T]) []T {
	out := make([]T, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, m[k].obj)
	}
	return out
}
