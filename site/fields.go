package site

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// field is one normalised member of an object: value is what plans show,
// cmp what equality compares (value unless it is secret); managed is false
// for a member a desired object leaves to the console.
type field struct {
	name, value, cmp string
	managed          bool
}

func f(name, value string) field { return field{name: name, value: value, cmp: value, managed: true} }

// list normalises a set: sorted, duplicates dropped, joined by ", ".
func list(s []string) string {
	c := sortedCopy(s)
	return strings.Join(slices.Compact(c), ", ")
}

func rangeList(rs []Range) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.Start + "-" + r.End
	}
	return list(parts)
}

// The one equality function per kind: two objects are equal when their
// managed fields are; every fields function normalises (sets sorted,
// times in UTC, empty and absent alike).

func holidayGroupFields(g *HolidayGroup) []field {
	hs := make([]string, len(g.Holidays))
	for i, h := range g.Holidays {
		s := fmt.Sprintf("%s %s..%s", h.Name, fmtTime(h.Start), fmtTime(h.End))
		if h.Repeat {
			s += " yearly"
		}
		if h.Description != "" {
			s += " (" + h.Description + ")"
		}
		hs[i] = s
	}
	return []field{f("description", g.Description), f("holidays", list(hs))}
}

func scheduleFields(s *Schedule) []field {
	out := make([]field, 0, 9)
	for _, d := range s.Week.days() {
		out = append(out, f("week."+d.name, rangeList(d.ranges)))
	}
	return append(out, f("holiday_group", s.HolidayGroup), f("holiday_ranges", rangeList(s.Holidays)))
}

func doorGroupFields(g *DoorGroup) []field { return []field{f("doors", list(g.Doors))} }

func policyFields(p *AccessPolicy) []field {
	rs := make([]string, len(p.Resources))
	for i, r := range p.Resources {
		rs[i] = r.String()
	}
	return []field{f("schedule", p.Schedule), f("resources", list(rs))}
}

func userGroupFields(g *UserGroup) []field {
	pol := f("policies", list(g.Policies))
	pol.managed = g.Policies != nil
	return []field{f("parent", g.Parent), pol}
}

func userFields(u *User) []field {
	str := func(name, v string) field {
		x := f(name, v)
		x.managed = v != ""
		return x
	}
	set := func(name string, v []string) field {
		x := f(name, list(v))
		x.managed = v != nil
		return x
	}
	onboard := ""
	if u.OnboardTime != nil {
		onboard = fmtTime(*u.OnboardTime)
	}
	status := str("status", u.Status)
	status.managed = u.Status != "" && u.Status != "PENDING" // the console's state of an invitation: never set
	return []field{
		str("first_name", u.FirstName), str("last_name", u.LastName),
		str("employee_number", u.EmployeeNumber), str("email", strings.ToLower(u.Email)),
		status, str("onboard_time", onboard),
		set("groups", u.Groups), set("policies", u.Policies), set("license_plates", u.LicensePlates),
	}
}

// webhookFields shows header names only; the values are compared through
// a digest and shown masked.
func webhookFields(w *Webhook, headers map[string]string) []field {
	ev := f("events", list(w.Events))
	names := sortedKeys(headers)
	shown := make([]string, len(names))
	h := sha256.New()
	for i, n := range names {
		shown[i] = n + "=***"
		fmt.Fprintf(h, "%s\x00%s\x00", n, headers[n])
	}
	hd := field{name: "headers", value: strings.Join(shown, ", "), cmp: hex.EncodeToString(h.Sum(nil)), managed: w.Headers != nil}
	return []field{f("endpoint", w.Endpoint), ev, hd}
}

// digest is a short hash of an object's fields, kept in a plan to tell
// whether the console changed since.
func digest(fs []field) string {
	h := sha256.New()
	for _, x := range fs {
		fmt.Fprintf(h, "%s\x00%s\x00", x.name, x.cmp)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// diff returns the managed fields of want that differ from have.
func diff(have, want []field) []FieldChange {
	var out []FieldChange
	for i, w := range want {
		if !w.managed || have[i].cmp == w.cmp {
			continue
		}
		old, nw := have[i].value, w.value
		if old == nw { // a masked value changed
			old, nw = old+" (before)", nw+" (after)"
		}
		out = append(out, FieldChange{Field: w.name, Old: old, New: nw})
	}
	return out
}

// created returns the managed fields of a new object.
func created(want []field) []FieldChange {
	var out []FieldChange
	for _, w := range want {
		if w.managed && w.value != "" {
			out = append(out, FieldChange{Field: w.name, New: w.value})
		}
	}
	return out
}
