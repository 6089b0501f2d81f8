package main

import (
	"strings"

	"github.com/access-dev/access"
)

var policyFlags = []flagSpec{{name: "name", usage: "policy name"}, {name: "schedule", usage: "schedule (name or id)"},
	{name: "door", kind: fStrings, usage: "doors (names or ids)"}, {name: "door-group", kind: fStrings, usage: "door groups (names or ids)"}}

// policyFields reads the policy flags into an update: a flag left out is
// nil; resources is nil when neither --door nor --door-group was given
// (--door "" gives none).
func policyFields(x *inv) (*access.AccessPolicyUpdate, error) {
	u := &access.AccessPolicyUpdate{Name: x.sp("name")}
	r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
	if x.set("schedule") {
		u.ScheduleID = access.Ptr("") // refused by the SDK
		if s := x.s("schedule"); s != "" {
			id, err := r.resolve("schedule", s)
			if err != nil {
				return nil, err
			}
			u.ScheduleID = &id
		}
	}
	if x.set("door") || x.set("door-group") {
		u.Resources = []access.Resource{}
		for _, d := range x.ss("door") {
			id, err := r.resolve("door", d)
			if err != nil {
				return nil, err
			}
			u.Resources = append(u.Resources, access.Resource{ID: id, Type: access.ResourceDoor})
		}
		for _, d := range x.ss("door-group") {
			id, err := r.resolve("door-group", d)
			if err != nil {
				return nil, err
			}
			u.Resources = append(u.Resources, access.Resource{ID: id, Type: access.ResourceDoorGroup})
		}
	}
	return u, nil
}

// holidayRequest reads --data or the flags of holiday-groups create.
func holidayRequest(x *inv) (*access.HolidayGroupRequest, error) {
	req, err := fromData(x, func() (access.HolidayGroupRequest, error) {
		return access.HolidayGroupRequest{Name: x.s("name"), Description: x.s("description")}, nil
	})
	return &req, err
}

// holidayUpdate reads --data or the flags of holiday-groups update: the
// holidays are kept, --description "" clears the description, and
// without --name the group's current name is read and sent again (the
// vendor requires the name on every update).
func holidayUpdate(x *inv) (*access.HolidayGroupUpdate, error) {
	req, err := fromData(x, func() (access.HolidayGroupUpdate, error) {
		u := access.HolidayGroupUpdate{Name: x.s("name"), Description: x.sp("description")}
		if !x.set("name") {
			g, _, err := x.c.HolidayGroups.Get(x.a.ctx, x.arg(0))
			if err != nil {
				return u, err
			}
			u.Name = g.Name
		}
		return u, nil
	})
	return &req, err
}

// scheduleFields reads the schedule flags into an update: --days mon,tue…
// and --hours 09:00:00-17:00:59 give the same range on each of those
// days; --holiday-group "" detaches the holiday group.
func scheduleFields(x *inv) (*access.ScheduleUpdate, error) {
	u := &access.ScheduleUpdate{Name: x.sp("name")}
	if x.set("holiday-group") {
		u.HolidayGroupID = access.Ptr("")
		if hg := x.s("holiday-group"); hg != "" {
			r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
			id, err := r.resolve("holiday-group", hg)
			if err != nil {
				return nil, err
			}
			u.HolidayGroupID = &id
		}
	}
	if x.set("days") || x.set("hours") {
		start, end, okk := strings.Cut(x.s("hours"), "-")
		if !okk {
			return nil, usageErrorf("--hours %q: want HH:MM:SS-HH:MM:SS", x.s("hours"))
		}
		tr := []access.TimeRange{{StartTime: start, EndTime: end}}
		ws := &access.WeekSchedule{}
		days := map[string]*[]access.TimeRange{"sun": &ws.Sunday, "mon": &ws.Monday, "tue": &ws.Tuesday, "wed": &ws.Wednesday,
			"thu": &ws.Thursday, "fri": &ws.Friday, "sat": &ws.Saturday}
		for _, d := range x.ss("days") {
			p, ok := days[strings.ToLower(d)[:min(3, len(d))]]
			if !ok {
				return nil, usageErrorf("--days: unknown day %q", d)
			}
			*p = tr
		}
		u.WeekSchedule = ws
	}
	return u, nil
}

// scheduleRequest reads --data or the flags of schedules create.
func scheduleRequest(x *inv) (*access.ScheduleRequest, error) {
	req, err := fromData(x, func() (access.ScheduleRequest, error) {
		u, err := scheduleFields(x)
		if err != nil {
			return access.ScheduleRequest{}, err
		}
		return access.ScheduleRequest{Name: deref(u.Name), WeekSchedule: u.WeekSchedule, HolidayGroupID: deref(u.HolidayGroupID)}, nil
	})
	return &req, err
}

// scheduleUpdate reads --data or the flags of schedules update.
func scheduleUpdate(x *inv) (*access.ScheduleUpdate, error) {
	req, err := fromData(x, func() (access.ScheduleUpdate, error) {
		u, err := scheduleFields(x)
		if err != nil {
			return access.ScheduleUpdate{}, err
		}
		return *u, nil
	})
	return &req, err
}

// policyOps adds the operations of access policies, holiday groups and schedules to the registry.
func policyOps(r *registry) {
	pArg := []argSpec{{name: "policy", kind: "policy"}}
	r.add(
		&opSpec{path: "access-policies create", sdk: "AccessPolicies.Create", perm: "edit:policy", short: "Create an access policy", write: true, body: bodyOf[access.AccessPolicyRequest](), flags: policyFlagList(), cols: polCols,
			ex: `  access --fake access-policies create --name Night --schedule "Office hours" --door "Main entrance"`,
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.AccessPolicyRequest, error) {
					u, err := policyFields(x)
					if err != nil {
						return access.AccessPolicyRequest{}, err
					}
					return access.AccessPolicyRequest{Name: deref(u.Name), Resources: orEmptyRes(u.Resources), ScheduleID: deref(u.ScheduleID)}, nil
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.AccessPolicies.Create(x.a.ctx, &req)
				return v, err
			}},
		&opSpec{path: "access-policies update", ex: `  access --fake access-policies update Staff --schedule Always`, sdk: "AccessPolicies.Update", perm: "edit:policy", short: "Change an access policy", write: true, body: bodyOf[access.AccessPolicyUpdate](), args: pArg, flags: policyFlagList(),
			long: "A flag left out keeps the policy's value; --door and --door-group replace the doors and door groups (--door \"\" removes them all).",
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.AccessPolicyUpdate, error) {
					u, err := policyFields(x)
					if err != nil {
						return access.AccessPolicyUpdate{}, err
					}
					return *u, nil
				})
				if err != nil {
					return nil, err
				}
				_, err = x.c.AccessPolicies.Update(x.a.ctx, x.arg(0), &req)
				return x.then("updated access policy "+x.arg(0), err, reader(func() (*access.AccessPolicy, *access.Response, error) {
					return x.c.AccessPolicies.Get(x.a.ctx, x.arg(0))
				}))
			}},
		&opSpec{path: "access-policies delete", ex: `  access --fake access-policies delete "Former contractors"`, sdk: "AccessPolicies.Delete", perm: "edit:policy", short: "Delete an access policy", write: true, args: pArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.AccessPolicies.Delete(x.a.ctx, x.arg(0))
				return done{"deleted access policy " + x.arg(0)}, err
			}},
		&opSpec{path: "access-policies get", ex: `  access --fake access-policies get Staff -o yaml`, sdk: "AccessPolicies.Get", perm: "view:policy", short: "Fetch an access policy", args: pArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.AccessPolicies.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "access-policies list", ex: `  access --fake access-policies list`, sdk: "AccessPolicies.List", perm: "view:policy", short: "List access policies", cols: polCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.AccessPolicies.List(x.a.ctx); return v, err }},
	)
	hArg := []argSpec{{name: "group", kind: "holiday-group"}}
	hFlags := []flagSpec{{name: "name", usage: "group name"}, {name: "description"}}
	hCols := []string{"id", "name", "description", "count", "is_default"}
	r.add(
		&opSpec{path: "holiday-groups create", ex: `  access --fake holiday-groups create --name "Summer closure" --description "Plant closed in August"`, sdk: "HolidayGroups.Create", perm: "edit:policy", short: "Create a holiday group (holidays with --data)", write: true, body: bodyOf[access.HolidayGroupRequest](), flags: requiredFlags(hFlags, "name"),
			run: func(x *inv) (any, error) {
				req, err := holidayRequest(x)
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.HolidayGroups.Create(x.a.ctx, req)
				return v, err
			}},
		&opSpec{path: "holiday-groups update", ex: `  access --fake holiday-groups update "Winter Shutdown" --name "Winter shutdown" --description "Closed for maintenance"`, sdk: "HolidayGroups.Update", perm: "edit:policy", short: "Change a holiday group (holidays with --data)", write: true, body: bodyOf[access.HolidayGroupUpdate](), args: hArg,
			flags: []flagSpec{{name: "name", usage: "group name (left out: kept)"}, {name: "description"}},
			long:  "The holidays are kept (replace them with --data); --description left out keeps the description, --description \"\" clears it; --name left out keeps the name (the console requires one on every update: the current name is read and sent again).",
			run: func(x *inv) (any, error) {
				req, err := holidayUpdate(x)
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.HolidayGroups.Update(x.a.ctx, x.arg(0), req)
				return v, err
			}},
		&opSpec{path: "holiday-groups delete", ex: `  access --fake holiday-groups delete "Holidays 2025"`, sdk: "HolidayGroups.Delete", perm: "edit:policy", short: "Delete a holiday group", write: true, args: hArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.HolidayGroups.Delete(x.a.ctx, x.arg(0))
				return done{"deleted holiday group " + x.arg(0)}, err
			}},
		&opSpec{path: "holiday-groups get", ex: `  access --fake holiday-groups get "Public Holidays 2026"`, sdk: "HolidayGroups.Get", perm: "view:policy", short: "Fetch a holiday group and its holidays", args: hArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.HolidayGroups.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "holiday-groups list", ex: `  access --fake holiday-groups list`, sdk: "HolidayGroups.List", perm: "view:policy", short: "List holiday groups", cols: hCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.HolidayGroups.List(x.a.ctx); return v, err }},
	)
	sArg := []argSpec{{name: "schedule", kind: "schedule"}}
	sFlags := []flagSpec{{name: "name", usage: "schedule name (unique)"}, {name: "days", kind: fStrings, usage: "weekdays of --hours (mon,tue,…)"},
		{name: "hours", usage: "HH:MM:SS-HH:MM:SS on each of --days"}, {name: "holiday-group", usage: "holiday group (name or id)"}}
	r.add(
		&opSpec{path: "schedules create", sdk: "Schedules.Create", perm: "edit:policy", short: "Create a schedule", write: true, body: bodyOf[access.ScheduleRequest](), flags: sFlags,
			ex: "  access --fake schedules create --name Lab --days mon,tue,wed,thu,fri --hours 08:00:00-18:00:59",
			run: func(x *inv) (any, error) {
				req, err := scheduleRequest(x)
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.Schedules.Create(x.a.ctx, req)
				return v, err
			}},
		&opSpec{path: "schedules update", ex: `  access --fake schedules update "Office hours" --days mon,tue,wed,thu,fri --hours 07:00:00-19:00:00`, sdk: "Schedules.Update", perm: "edit:policy", short: "Change a schedule", write: true, body: bodyOf[access.ScheduleUpdate](), args: sArg, flags: sFlags,
			long: "A flag left out keeps the schedule's value; --days with --hours replace the weekly ranges; --holiday-group \"\" detaches the holiday group.",
			run: func(x *inv) (any, error) {
				req, err := scheduleUpdate(x)
				if err != nil {
					return nil, err
				}
				_, err = x.c.Schedules.Update(x.a.ctx, x.arg(0), req)
				return x.then("updated schedule "+x.arg(0), err, reader(func() (*access.Schedule, *access.Response, error) { return x.c.Schedules.Get(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "schedules get", ex: `  access --fake schedules get "Office hours" -o yaml`, sdk: "Schedules.Get", perm: "view:policy", short: "Fetch a schedule", args: sArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.Schedules.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "schedules list", ex: `  access --fake schedules list`, sdk: "Schedules.List", perm: "view:policy", short: "List schedules", cols: []string{"id", "name", "type", "is_default", "holiday_group_id"},
			run: func(x *inv) (any, error) { v, _, err := x.c.Schedules.List(x.a.ctx); return v, err }},
		&opSpec{path: "schedules delete", ex: `  access --fake schedules delete "Summer hours"`, sdk: "Schedules.Delete", perm: "edit:policy", short: "Delete a schedule", write: true, args: sArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.Schedules.Delete(x.a.ctx, x.arg(0))
				return done{"deleted schedule " + x.arg(0)}, err
			}},
	)
}

func policyFlagList() []flagSpec { return policyFlags }

func orEmptyRes(r []access.Resource) []access.Resource {
	if r == nil {
		return []access.Resource{}
	}
	return r
}
