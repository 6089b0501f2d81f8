package site

import (
	"fmt"
	"slices"
	"strings"
)

// mergeByName replaces the objects of base whose key an object of over
// has, and appends the others; moved maps the merged paths that came
// from over to their paths in the document.
func mergeByName[T any](k Kind, base, over []T, key func(*T) string, prefix string, moved map[string]string) []T {
	if over == nil {
		return base
	}
	out := slices.Clone(base)
	idx := map[string]int{}
	for i := range out {
		idx[key(&out[i])] = i
	}
	for j := range over {
		from := fmt.Sprintf("%s%s[%d]", prefix, k, j)
		if i, ok := idx[key(&over[j])]; ok {
			out[i] = over[j]
			moved[fmt.Sprintf("%s[%d]", k, i)] = from
			continue
		}
		moved[fmt.Sprintf("%s[%d]", k, len(out))] = from
		out = append(out, over[j])
	}
	if out == nil {
		out = []T{}
	}
	return out
}

// ForSite returns the document for the console called name: d with the
// objects of d.Sites[name] replacing those of the same kind and name (or
// user key) of d, or added, and without Sites. The function it returns
// maps a path of the merged document to the path in d, so that a
// [Locator] of d places problems of the merged document.
func (d *Document) ForSite(name string) (*Document, func(path string) string) {
	out := *d
	out.Sites = nil
	o := d.Sites[name]
	if o == nil {
		return &out, func(p string) string { return p }
	}
	moved := map[string]string{}
	prefix := "sites." + name + "."
	out.HolidayGroups = mergeByName(KindHolidayGroups, d.HolidayGroups, o.HolidayGroups, func(x *HolidayGroup) string { return x.Name }, prefix, moved)
	out.Schedules = mergeByName(KindSchedules, d.Schedules, o.Schedules, func(x *Schedule) string { return x.Name }, prefix, moved)
	out.DoorGroups = mergeByName(KindDoorGroups, d.DoorGroups, o.DoorGroups, func(x *DoorGroup) string { return x.Name }, prefix, moved)
	out.AccessPolicies = mergeByName(KindAccessPolicies, d.AccessPolicies, o.AccessPolicies, func(x *AccessPolicy) string { return x.Name }, prefix, moved)
	out.UserGroups = mergeByName(KindUserGroups, d.UserGroups, o.UserGroups, func(x *UserGroup) string { return x.Name }, prefix, moved)
	out.Users = mergeByName(KindUsers, d.Users, o.Users, func(x *User) string { return x.Key() }, prefix, moved)
	if o.Scope != nil {
		out.Scope = o.Scope
		moved["scope"] = prefix + "scope"
	}
	out.Webhooks = mergeByName(KindWebhooks, d.Webhooks, o.Webhooks, func(x *Webhook) string { return x.Name }, prefix, moved)
	return &out, func(p string) string {
		for from, to := range moved {
			if p == from || strings.HasPrefix(p, from+".") || strings.HasPrefix(p, from+"[") {
				return to + p[len(from):]
			}
		}
		return p
	}
}
