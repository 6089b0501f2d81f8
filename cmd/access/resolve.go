package main

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// named is a record a person may name instead of giving its id.
type named struct {
	id, name, alt string
}

var (
	uuidRE   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	deviceRE = regexp.MustCompile(`^[0-9a-fA-F]{12}$`)
)

// kindLabel is how errors call each kind of record.
var kindLabel = map[string]string{
	"door": "door", "door-group": "door group", "device": "device", "user-group": "user group",
	"policy": "access policy", "schedule": "schedule", "holiday-group": "holiday group",
}

// listNamed fetches the records of a kind with their names.
func listNamed(ctx context.Context, c *access.Client, kind string) ([]named, error) {
	var out []named
	switch kind {
	case "door":
		ds, _, err := c.Doors.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			out = append(out, named{d.ID, d.Name, d.FullName})
		}
	case "door-group":
		gs, _, err := c.DoorGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, named{g.ID, g.Name, ""})
		}
	case "device":
		groups, _, err := c.Devices.List(ctx, nil)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, g := range groups {
			for _, d := range g {
				if !seen[d.ID] {
					seen[d.ID] = true
					out = append(out, named{d.ID, d.Name, d.Alias})
				}
			}
		}
	case "user-group":
		gs, _, err := c.UserGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, named{g.ID, g.Name, g.FullName})
		}
	case "policy":
		ps, _, err := c.AccessPolicies.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out = append(out, named{p.ID, p.Name, ""})
		}
	case "schedule":
		ss, _, err := c.Schedules.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			out = append(out, named{s.ID, s.Name, ""})
		}
	case "holiday-group":
		hs, _, err := c.HolidayGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			out = append(out, named{h.ID, h.Name, ""})
		}
	default:
		return nil, fmt.Errorf("internal: no names for %q", kind)
	}
	return out, nil
}

// looksLikeID reports whether s has the form of the kind's ids, so that no
// list is fetched to resolve it.
func looksLikeID(kind, s string) bool {
	if kind == "device" {
		return deviceRE.MatchString(s)
	}
	return uuidRE.MatchString(s)
}

// resolver resolves names of several arguments with one list per kind.
type resolver struct {
	ctx   context.Context
	c     *access.Client
	lists map[string][]named
}

func (r *resolver) resolve(kind, s string) (string, error) {
	if looksLikeID(kind, s) {
		return s, nil
	}
	list, ok := r.lists[kind]
	if !ok {
		var err error
		if list, err = listNamed(r.ctx, r.c, kind); err != nil {
			return "", err
		}
		r.lists[kind] = list
	}
	for _, n := range list {
		if n.id == s {
			return s, nil
		}
	}
	var hits []named
	for _, n := range list {
		if strings.EqualFold(n.name, s) || (n.alt != "" && strings.EqualFold(n.alt, s)) {
			hits = append(hits, n)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0].id, nil
	case 0:
		return "", notFoundErrorf("no %s named or with id %q%s", kindLabel[kind], s, didYouMean(s, namesOf(list)))
	}
	lines := make([]string, len(hits))
	for i, h := range hits {
		label := h.name
		if h.alt != "" && h.alt != h.name {
			label = h.alt
		}
		lines[i] = fmt.Sprintf("%q (%s)", label, h.id)
	}
	sort.Strings(lines)
	return "", usageErrorf("%q names %d %ss: %s; give the id", s, len(hits), kindLabel[kind], strings.Join(lines, ", "))
}

// resolveArgs turns the names among args into ids.
func (a *app) resolveArgs(ctx context.Context, c *access.Client, spec *opSpec, args []string) ([]string, error) {
	r := &resolver{ctx: ctx, c: c, lists: map[string][]named{}}
	out := make([]string, len(args))
	for i, s := range args {
		ar := spec.args[min(i, len(spec.args)-1)]
		if ar.kind == "" {
			out[i] = s
			continue
		}
		id, err := r.resolve(ar.kind, s)
		if err != nil {
			return nil, err
		}
		out[i] = id
	}
	return out, nil
}

// completeArgs completes the names of doors, devices and groups from the
// console.
func (a *app) completeArgs(spec *opSpec) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(spec.args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ar := spec.args[min(len(args), len(spec.args)-1)]
		if len(args) >= len(spec.args) && !ar.variadic {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if ar.kind == "" {
			if ar.name == "file" {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.completeNames(ar.kind)(cmd, args, toComplete)
	}
}

// completeNames completes the names of the console's records of a kind
// (the kinds of kindLabel), each with its id as the description.
func (a *app) completeNames(kind string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		c, err := a.Client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		list, err := listNamed(cmd.Context(), c, kind)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []string
		for _, n := range list {
			if strings.HasPrefix(strings.ToLower(n.name), strings.ToLower(toComplete)) {
				out = append(out, n.name+"\t"+n.id)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// parseWhen reads a time flag: a duration back from now ("24h", "90m",
// "7d") or a date ("2026-01-31", "2026-01-31T08:00:00Z", "2026-01-31 08:00").
func parseWhen(s string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration back from now must not be negative", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if u, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(u, 0), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (24h, 7d) nor a date (2006-01-02, RFC 3339)", s)
}

// timeNow is the clock of relative times (a variable for tests).
var timeNow = time.Now
