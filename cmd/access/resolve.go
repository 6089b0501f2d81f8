package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
)

// named is a record a person may name instead of giving its id: by its
// name or one of its alternative names (a door's full name, a person's
// email), without regard to case.
type named struct {
	id, name string
	alts     []string
	// label shows the record in the list of an ambiguous name ("" is
	// its name, or its first alternative when that differs).
	label string
}

// person is the named record of a user or visitor: the full name (first
// and last when the console sends none), the other spelling of it and
// the emails as alternatives, shown as "Name <email>".
func person(id, full, first, last string, emails ...string) named {
	fl := strings.TrimSpace(first + " " + last)
	if full == "" {
		full = fl
	}
	n := named{id: id, name: full, label: full}
	if fl != full {
		n.alts = append(n.alts, fl)
	}
	for _, e := range emails {
		if e != "" && !slices.Contains(n.alts, e) {
			n.alts = append(n.alts, e)
			if !strings.Contains(n.label, "<") {
				n.label += " <" + e + ">"
			}
		}
	}
	return n
}

// matches reports whether s names n.
func (n named) matches(s string) bool {
	if strings.EqualFold(n.name, s) {
		return true
	}
	for _, a := range n.alts {
		if strings.EqualFold(a, s) {
			return true
		}
	}
	return false
}

func alts(s ...string) []string {
	var out []string
	for _, a := range s {
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

var (
	uuidRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	})
	deviceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-fA-F]{12}$`) })
)

// kindLabel is how errors call each kind of record.
var kindLabel = map[string]string{
	"door": "door", "door-group": "door group", "device": "device", "user-group": "user group",
	"policy": "access policy", "schedule": "schedule", "holiday-group": "holiday group",
	"user": "user", "visitor": "visitor",
}

// kindAccepts says what an argument of each kind accepts, for the help.
var kindAccepts = map[string]string{
	"door":          "a door's name, full name (\"Building / Door\") or id",
	"door-group":    "a door group's name or id",
	"device":        "a device's name, alias or id",
	"user-group":    "a user group's name, full name (\"Parent / Group\") or id",
	"policy":        "an access policy's name or id",
	"schedule":      "a schedule's name or id",
	"holiday-group": "a holiday group's name or id",
	"user":          "a user's full name, email, employee number or id",
	"visitor":       "a visitor's full name, email or id",
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
			out = append(out, named{id: d.ID, name: d.Name, alts: alts(d.FullName)})
		}
	case "door-group":
		gs, _, err := c.DoorGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, named{id: g.ID, name: g.Name})
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
					out = append(out, named{id: d.ID, name: d.Name, alts: alts(d.Alias)})
				}
			}
		}
	case "user-group":
		gs, _, err := c.UserGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out = append(out, named{id: g.ID, name: g.Name, alts: alts(g.FullName)})
		}
	case "policy":
		ps, _, err := c.AccessPolicies.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out = append(out, named{id: p.ID, name: p.Name})
		}
	case "schedule":
		ss, _, err := c.Schedules.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range ss {
			out = append(out, named{id: s.ID, name: s.Name})
		}
	case "holiday-group":
		hs, _, err := c.HolidayGroups.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, h := range hs {
			out = append(out, named{id: h.ID, name: h.Name})
		}
	case "user":
		for u, err := range c.Users.All(ctx, nil) {
			if err != nil {
				return nil, err
			}
			n := person(u.ID, u.FullName, u.FirstName, u.LastName, u.UserEmail, u.Email)
			// The employee number names the user too (the key of a site
			// document and of an HR export).
			if u.EmployeeNumber != "" && !slices.Contains(n.alts, u.EmployeeNumber) {
				n.alts = append(n.alts, u.EmployeeNumber)
			}
			out = append(out, n)
		}
	case "visitor":
		for v, err := range c.Visitors.All(ctx, nil) {
			if err != nil {
				return nil, err
			}
			out = append(out, person(v.ID, "", v.FirstName, v.LastName, v.Email))
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
		return deviceRE().MatchString(s)
	}
	return uuidRE().MatchString(s)
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
		if n.matches(s) {
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
		label := h.label
		switch {
		case label != "":
		case len(h.alts) > 0 && h.alts[0] != h.name:
			label = h.alts[0]
		default:
			label = h.name
		}
		lines[i] = fmt.Sprintf("%q (%s)", label, h.id)
	}
	sort.Strings(lines)
	return "", usageErrorf("%q names %d %ss: %s; give the id", s, len(hits), kindLabel[kind], strings.Join(lines, ", "))
}

// newResolver returns a resolver that fetches each kind's list once.
func newResolver(ctx context.Context, c *access.Client) *resolver {
	return &resolver{ctx: ctx, c: c, lists: map[string][]named{}}
}

// resolveArgs turns the names among args into ids.
func (a *app) resolveArgs(r *resolver, spec *opSpec, args []string) ([]string, error) {
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

// completeArgs completes the names of the records an argument names (doors,
// devices, groups, people…) from the console.
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
		// Each record once: its name, or else the first alternative
		// (a full name, an email) that starts with what was typed.
		var out []string
		prefix := strings.ToLower(toComplete)
		for _, n := range list {
			for _, cand := range append([]string{n.name}, n.alts...) {
				if cand != "" && strings.HasPrefix(strings.ToLower(cand), prefix) {
					out = append(out, cand+"\t"+n.id)
					break
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// parseWhen reads a time flag (cmdutil.ParseWhen).
var parseWhen = cmdutil.ParseWhen
