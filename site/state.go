package site

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/bounded"
)

// entry is one console object in document form, with its id.
type entry[T any] struct {
	id      string
	obj     T
	builtin bool
}

// userEntry is a console user in document form.
type userEntry struct {
	id     string
	obj    User
	plates map[string]string // plate number -> plate id
	raw    *access.User      // as the users list answered it
}

// state is what was read of a console, in document form.
type state struct {
	read map[Kind]bool

	doors map[string][]string // door name -> ids

	holidayGroups  map[string]*entry[HolidayGroup]
	schedules      map[string]*entry[Schedule]
	doorGroups     map[string]*entry[DoorGroup]
	accessPolicies map[string]*entry[AccessPolicy]
	userGroups     map[string]*entry[UserGroup]
	users          map[string]*userEntry
	// byEmail maps the email of a console user known by employee number
	// to that number, for a document user that has only the email;
	// alias records such matches (document key -> console key).
	byEmail  map[string]string
	alias    map[string]string
	webhooks map[string]*entry[Webhook]

	// ambiguous holds, per kind, the names (user keys) that more than one
	// console object has; they are neither exported nor touched.
	ambiguous map[Kind]map[string]bool
	warnings  []string
}

// needs returns the kinds that must be read to plan or export kinds: the
// kinds themselves (whole) and the kinds they refer to (by name).
func needs(kinds []Kind) map[Kind]bool {
	refs := map[Kind][]Kind{
		KindSchedules:      {KindHolidayGroups},
		KindAccessPolicies: {KindSchedules, KindDoorGroups},
		KindUserGroups:     {KindAccessPolicies},
		KindUsers:          {KindUserGroups, KindAccessPolicies},
	}
	out := map[Kind]bool{}
	for _, k := range kinds {
		out[k] = true
		for _, r := range refs[k] {
			out[r] = true // by name only: its own references are not needed
		}
	}
	return out
}

func (st *state) ambiguousName(k Kind, name string) {
	if st.ambiguous[k] == nil {
		st.ambiguous[k] = map[string]bool{}
	}
	st.ambiguous[k][name] = true
}

// index builds name -> entry, setting aside names used twice.
func index[T any](st *state, k Kind, items []*entry[T], name func(T) string) map[string]*entry[T] {
	out := make(map[string]*entry[T], len(items))
	for _, e := range items {
		n := name(e.obj)
		if _, dup := out[n]; dup || st.ambiguous[k][n] {
			delete(out, n)
			st.ambiguousName(k, n)
			continue
		}
		out[n] = e
	}
	for _, n := range sortedKeys(st.ambiguous[k]) {
		st.warnings = append(st.warnings, fmt.Sprintf("%s %q: more than one on the console; left out and never touched", k.singular(), n))
	}
	return out
}

// readState reads the kinds of want from the console: those of full
// whole, the others (only referred to) by name.
func readState(ctx context.Context, c *access.Client, full []Kind) (*state, error) {
	want := needs(full)
	whole := map[Kind]bool{}
	for _, k := range full {
		whole[k] = true
	}
	st := &state{read: want, ambiguous: map[Kind]map[string]bool{}}
	// The users' pages are read on a connection of their own while the
	// other kinds are: they need nothing the others give, and on a large
	// site they are most of the bytes. Their error comes after the other
	// kinds' (as when they were read in turn).
	// slots bounds the reads in flight, the users' included, at readers.
	slots := make(chan struct{}, readers)
	each := func(ctx context.Context, n int, f func(ctx context.Context, i int) error) error {
		return eachIn(ctx, slots, n, f)
	}
	var users usersRead
	if want[KindUsers] {
		uctx, cancel := context.WithCancel(ctx)
		defer cancel()
		users.done = make(chan struct{})
		go users.read(uctx, c, slots)
		defer func() { cancel(); <-users.done }()
	}
	hgNames, schedNames, dgNames, polNames, ugNames := map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}, map[string]string{}
	if want[KindHolidayGroups] {
		sums, _, err := c.HolidayGroups.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading holiday groups: %w", err)
		}
		items := make([]*entry[HolidayGroup], len(sums))
		err = each(ctx, len(sums), func(ctx context.Context, i int) error {
			if !whole[KindHolidayGroups] {
				items[i] = &entry[HolidayGroup]{id: sums[i].ID, obj: HolidayGroup{Name: sums[i].Name}, builtin: sums[i].IsDefault}
				return nil
			}
			g, _, err := c.HolidayGroups.Get(ctx, sums[i].ID)
			if err != nil {
				return fmt.Errorf("reading holiday group %q: %w", sums[i].Name, err)
			}
			hg := HolidayGroup{Name: g.Name, Description: g.Description}
			for _, h := range g.Holidays {
				start, err1 := h.StartTime.Time()
				end, err2 := h.EndTime.Time()
				if err1 != nil || err2 != nil {
					return fmt.Errorf("holiday group %q: holiday %q has an unreadable time", g.Name, h.Name)
				}
				hg.Holidays = append(hg.Holidays, Holiday{Name: h.Name, Description: h.Description, Repeat: h.Repeat, Start: start.UTC(), End: end.UTC()})
			}
			items[i] = &entry[HolidayGroup]{id: g.ID, obj: hg, builtin: g.IsDefault || sums[i].IsDefault}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, e := range items {
			hgNames[e.id] = e.obj.Name
		}
		st.holidayGroups = index(st, KindHolidayGroups, items, func(g HolidayGroup) string { return g.Name })
	}
	if want[KindSchedules] {
		list, _, err := c.Schedules.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading schedules: %w", err)
		}
		items := make([]*entry[Schedule], len(list))
		err = each(ctx, len(list), func(ctx context.Context, i int) error {
			if !whole[KindSchedules] {
				items[i] = &entry[Schedule]{id: list[i].ID, obj: Schedule{Name: list[i].Name}, builtin: list[i].IsDefault}
				return nil
			}
			s, _, err := c.Schedules.Get(ctx, list[i].ID)
			if err != nil {
				return fmt.Errorf("reading schedule %q: %w", list[i].Name, err)
			}
			sc := Schedule{Name: s.Name, HolidayGroup: hgNames[s.HolidayGroupID], Holidays: ranges(s.HolidaySchedule)}
			if s.HolidayGroupID != "" && sc.HolidayGroup == "" && s.HolidayGroup != nil {
				sc.HolidayGroup = s.HolidayGroup.Name
			}
			if w := s.WeekSchedule; w != nil {
				sc.Week = Week{Monday: ranges(w.Monday), Tuesday: ranges(w.Tuesday), Wednesday: ranges(w.Wednesday),
					Thursday: ranges(w.Thursday), Friday: ranges(w.Friday), Saturday: ranges(w.Saturday), Sunday: ranges(w.Sunday)}
			}
			items[i] = &entry[Schedule]{id: s.ID, obj: sc, builtin: s.IsDefault || list[i].IsDefault}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, e := range items {
			schedNames[e.id] = e.obj.Name
		}
		st.schedules = index(st, KindSchedules, items, func(s Schedule) string { return s.Name })
	}
	doorNames := map[string]string{}
	if whole[KindDoorGroups] || whole[KindAccessPolicies] {
		doors, _, err := c.Doors.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading doors: %w", err)
		}
		st.doors = map[string][]string{}
		for _, d := range doors {
			st.doors[d.Name] = append(st.doors[d.Name], d.ID)
			doorNames[d.ID] = d.Name
		}
	}
	if want[KindDoorGroups] {
		list, _, err := c.DoorGroups.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading door groups: %w", err)
		}
		items := make([]*entry[DoorGroup], 0, len(list))
		for _, g := range list {
			dg := DoorGroup{Name: g.Name, Doors: []string{}}
			for _, r := range g.Resources {
				if n, ok := doorNames[r.ID]; ok && len(st.doors[n]) == 1 {
					dg.Doors = append(dg.Doors, n)
				}
			}
			items = append(items, &entry[DoorGroup]{id: g.ID, obj: dg, builtin: g.Type != "" && g.Type != access.DoorGroupAccess})
			dgNames[g.ID] = g.Name
		}
		st.doorGroups = index(st, KindDoorGroups, items, func(g DoorGroup) string { return g.Name })
	}
	if want[KindAccessPolicies] {
		list, _, err := c.AccessPolicies.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading access policies: %w", err)
		}
		items := make([]*entry[AccessPolicy], 0, len(list))
		for _, p := range list {
			ap := AccessPolicy{Name: p.Name, Schedule: schedNames[p.ScheduleID], Resources: []Resource{}}
			for _, r := range p.Resources {
				switch r.Type {
				case access.ResourceDoor:
					if n, ok := doorNames[r.ID]; ok && len(st.doors[n]) == 1 {
						ap.Resources = append(ap.Resources, Resource{Door: n})
					}
				case access.ResourceDoorGroup:
					if n, ok := dgNames[r.ID]; ok && !st.ambiguous[KindDoorGroups][n] {
						ap.Resources = append(ap.Resources, Resource{DoorGroup: n})
					}
				}
			}
			items = append(items, &entry[AccessPolicy]{id: p.ID, obj: ap})
			polNames[p.ID] = p.Name
		}
		st.accessPolicies = index(st, KindAccessPolicies, items, func(p AccessPolicy) string { return p.Name })
	}
	polRefs := func(ids []string) []string {
		out := []string{}
		for _, id := range ids {
			if n, ok := polNames[id]; ok && !st.ambiguous[KindAccessPolicies][n] {
				out = append(out, n)
			}
		}
		return out
	}
	var groups []access.UserGroup
	if want[KindUserGroups] {
		var err error
		groups, _, err = c.UserGroups.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading user groups: %w", err)
		}
		for _, g := range groups {
			ugNames[g.ID] = g.Name
		}
		items := make([]*entry[UserGroup], len(groups))
		err = each(ctx, len(groups), func(ctx context.Context, i int) error {
			g := groups[i]
			ug := UserGroup{Name: g.Name, Parent: ugNames[g.UpID]}
			if !whole[KindUserGroups] {
				items[i] = &entry[UserGroup]{id: g.ID, obj: ug}
				return nil
			}
			pols, _, err := c.UserGroups.ListAccessPolicies(ctx, g.ID)
			if err != nil {
				return fmt.Errorf("reading the policies of user group %q: %w", g.Name, err)
			}
			ids := make([]string, len(pols))
			for j, p := range pols {
				ids[j] = p.ID
			}
			ug.Policies = polRefs(ids)
			items[i] = &entry[UserGroup]{id: g.ID, obj: ug}
			return nil
		})
		if err != nil {
			return nil, err
		}
		st.userGroups = index(st, KindUserGroups, items, func(g UserGroup) string { return g.Name })
		// A parent whose name is ambiguous cannot be written; such a
		// group is left alone too.
		for n, e := range st.userGroups {
			if st.ambiguous[KindUserGroups][e.obj.Parent] {
				delete(st.userGroups, n)
				st.warnings = append(st.warnings, fmt.Sprintf("user_group %q: its parent's name is used twice; left out and never touched", n))
			}
		}
	}
	if want[KindUsers] {
		member := map[string][]string{} // user id -> group names
		var mu sync.Mutex
		merr := each(ctx, len(groups), func(ctx context.Context, i int) error {
			g := groups[i]
			if st.ambiguous[KindUserGroups][g.Name] {
				return nil
			}
			us, _, err := c.UserGroups.ListUsers(ctx, g.ID)
			if err != nil {
				return fmt.Errorf("reading the members of user group %q: %w", g.Name, err)
			}
			mu.Lock()
			for _, u := range us {
				member[u.ID] = append(member[u.ID], g.Name)
			}
			mu.Unlock()
			return nil
		})
		<-users.done
		if users.err != nil {
			return nil, fmt.Errorf("reading users: %w", users.err)
		}
		if merr != nil {
			return nil, merr
		}
		list := users.list
		st.users = make(map[string]*userEntry, len(list))
		for _, u := range list {
			e := &userEntry{id: u.ID, raw: u}
			email := u.UserEmail
			if email == "" {
				email = u.Email
			}
			e.obj = User{EmployeeNumber: u.EmployeeNumber, Email: email, FirstName: u.FirstName, LastName: u.LastName,
				Status: string(u.Status), Policies: polRefs(u.AccessPolicyIDs), LicensePlates: []string{}, Groups: []string{}}
			if !u.OnboardTime.IsZero() {
				t := u.OnboardTime.Time().UTC()
				e.obj.OnboardTime = &t
			}
			if gs := member[u.ID]; gs != nil {
				e.obj.Groups = gs
			}
			for _, p := range u.LicensePlates {
				e.obj.LicensePlates = append(e.obj.LicensePlates, p.Credential)
				if e.plates == nil {
					e.plates = map[string]string{}
				}
				e.plates[p.Credential] = p.ID
			}
			k := e.obj.Key()
			switch {
			case k == "":
				st.warnings = append(st.warnings, fmt.Sprintf("user %q (%s): neither an employee number nor an email; left out and never touched", strings.TrimSpace(u.FirstName+" "+u.LastName), u.ID))
				continue
			case st.users[k] != nil || st.ambiguous[KindUsers][k]:
				delete(st.users, k)
				st.ambiguousName(KindUsers, k)
				continue
			}
			st.users[k] = e
		}
		st.byEmail, st.alias = map[string]string{}, map[string]string{}
		twice := map[string]bool{}
		for k, e := range st.users {
			em := strings.ToLower(e.obj.Email)
			if e.obj.EmployeeNumber == "" || em == "" {
				continue
			}
			if _, dup := st.byEmail[em]; dup || twice[em] {
				delete(st.byEmail, em)
				twice[em] = true
				continue
			}
			st.byEmail[em] = k
		}
		for _, k := range sortedKeys(st.ambiguous[KindUsers]) {
			st.warnings = append(st.warnings, fmt.Sprintf("user %q: more than one on the console; left out and never touched", k))
		}
	}
	if want[KindWebhooks] {
		list, _, err := c.Webhooks.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("reading webhooks: %w", err)
		}
		items := make([]*entry[Webhook], 0, len(list))
		for _, w := range list {
			ev := make([]string, len(w.Events))
			for i, e := range w.Events {
				ev[i] = string(e)
			}
			items = append(items, &entry[Webhook]{id: w.ID, obj: Webhook{Name: w.Name, Endpoint: w.Endpoint, Events: ev, Headers: w.Headers}})
		}
		st.webhooks = index(st, KindWebhooks, items, func(w Webhook) string { return w.Name })
	}
	return st, nil
}

// usersRead is the reading of every user, on a goroutine of its own;
// list and err are set when done is closed.
type usersRead struct {
	done chan struct{}
	list []*access.User
	err  error
}

func (r *usersRead) read(ctx context.Context, c *access.Client, slots chan struct{}) {
	defer close(r.done)
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		r.err = ctx.Err()
		return
	}
	for u, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
		if err != nil {
			r.err = err
			return
		}
		// One record each, not one growing slice of them: appending
		// 10,000 users copied the records again at every growth.
		r.list = append(r.list, &u)
	}
}

// user returns the console user of a document key, through an email
// match if the plan made one.
func (st *state) user(key string) *userEntry {
	if k, ok := st.alias[key]; ok {
		return st.users[k]
	}
	return st.users[key]
}

func ranges(rs []access.TimeRange) []Range {
	if len(rs) == 0 {
		return nil
	}
	out := make([]Range, len(rs))
	for i, r := range rs {
		out[i] = Range{Start: r.StartTime, End: r.EndTime}
	}
	return out
}

// readers bounds the concurrent reads of one plan. More than the two idle
// connections per host that net/http keeps (the SDK's transport does not
// raise it) makes each extra read a new TLS handshake: on the fake, 8
// readers planned 10,000 users in 1.0 s, 2 in 0.7 s; the users' pages
// read beside two other readers opened 4 to 9 connections per plan.
const readers = 2

// eachIn runs f for 0..n-1, each call holding one of slots (at most
// readers at once, fewer while the users' pages hold one), and returns
// the first error; after an error no new call starts.
func eachIn(ctx context.Context, slots chan struct{}, n int, f func(ctx context.Context, i int) error) error {
	return bounded.Each(ctx, readers, n, func(ctx context.Context, i int) error {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		defer func() { <-slots }()
		return f(ctx, i)
	})
}

// sortedCopy returns a sorted copy of s.
func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
