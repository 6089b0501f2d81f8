package review

import (
	"fmt"
	"slices"
	"strings"
)

// The kinds of a [Change].
const (
	// ChangeGranted: a person's access covers a door it did not.
	ChangeGranted = "granted"
	// ChangeRevoked: a person's access no longer covers a door.
	ChangeRevoked = "revoked"
	// ChangeWidened: the weekly window (or a visit) takes in times it did
	// not.
	ChangeWidened = "widened"
	// ChangeNarrowed: the weekly window (or a visit) leaves out times it
	// took in. A window can be both widened and narrowed.
	ChangeNarrowed = "narrowed"
	// ChangeNewCredentials: a person holds more credentials of a kind.
	ChangeNewCredentials = "new_credentials"
)

// Change is one difference between two reviews.
type Change struct {
	Kind     string `json:"kind"`
	Console  string `json:"console,omitempty"`
	Person   string `json:"person"`
	PersonID string `json:"person_id"`
	// Door is empty for a change of credentials.
	Door   string `json:"door,omitempty"`
	DoorID string `json:"door_id,omitempty"`
	// Old and New say what changed, e.g. the windows or the counts.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

type rowKey struct{ console, person, door string }

// Diff compares two reviews (an earlier and a later one, as [ReadJSON]
// reads them) row by row, a row known by its console, person id and door
// id: access granted and revoked, windows widened and narrowed (weekly
// ranges at the minute, a visit's bounds), and credentials gained. The
// changes are by console, person, door, then kind; none when the access
// is the same.
func Diff(old, cur *Document) []Change {
	rows := func(d *Document) map[rowKey]*Access {
		m := map[rowKey]*Access{}
		if d == nil {
			return m
		}
		for _, r := range d.Reports {
			for i := range r.Access {
				a := &r.Access[i]
				m[rowKey{r.Console, a.PersonID, a.DoorID}] = a
			}
		}
		return m
	}
	people := func(d *Document) map[rowKey]*Person {
		m := map[rowKey]*Person{}
		if d == nil {
			return m
		}
		for _, r := range d.Reports {
			for i := range r.People {
				p := &r.People[i]
				m[rowKey{r.Console, p.ID, ""}] = p
			}
		}
		return m
	}
	before, after := rows(old), rows(cur)
	var out []Change
	change := func(kind string, k rowKey, a *Access, o, n string) {
		out = append(out, Change{Kind: kind, Console: k.console, Person: a.Person, PersonID: k.person, Door: a.Door, DoorID: k.door, Old: o, New: n})
	}
	for k, n := range after {
		o, ok := before[k]
		if !ok {
			change(ChangeGranted, k, n, "", n.Window)
			continue
		}
		ow, nw := weekMinutes(o.Week), weekMinutes(n.Week)
		wider, narrower := false, false
		for i := range ow {
			wider = wider || nw[i]&^ow[i] != 0
			narrower = narrower || ow[i]&^nw[i] != 0
		}
		if o.VisitStart != nil && n.VisitStart != nil && o.VisitEnd != nil && n.VisitEnd != nil {
			wider = wider || n.VisitStart.Before(*o.VisitStart) || n.VisitEnd.After(*o.VisitEnd)
			narrower = narrower || n.VisitStart.After(*o.VisitStart) || n.VisitEnd.Before(*o.VisitEnd)
		}
		if wider {
			change(ChangeWidened, k, n, o.Window, n.Window)
		}
		if narrower {
			change(ChangeNarrowed, k, n, o.Window, n.Window)
		}
	}
	for k, o := range before {
		if _, ok := after[k]; !ok {
			change(ChangeRevoked, k, o, o.Window, "")
		}
	}
	pb := people(old)
	for k, n := range people(cur) {
		var oc Credentials
		if o, ok := pb[k]; ok {
			oc = o.Credentials
		}
		nc := n.Credentials
		if nc.NFCCards > oc.NFCCards || nc.PINs > oc.PINs || nc.TouchPasses > oc.TouchPasses || nc.LicensePlates > oc.LicensePlates {
			out = append(out, Change{Kind: ChangeNewCredentials, Console: k.console, Person: n.Name, PersonID: k.person, Old: oc.String(), New: nc.String()})
		}
	}
	order := []string{ChangeGranted, ChangeRevoked, ChangeWidened, ChangeNarrowed, ChangeNewCredentials}
	slices.SortFunc(out, func(a, b Change) int {
		for _, c := range []int{strings.Compare(a.Console, b.Console), strings.Compare(a.Person, b.Person), strings.Compare(a.PersonID, b.PersonID),
			strings.Compare(a.Door, b.Door), strings.Compare(a.DoorID, b.DoorID)} {
			if c != 0 {
				return c
			}
		}
		return slices.Index(order, a.Kind) - slices.Index(order, b.Kind)
	})
	return out
}

// weekMinutes is a row's weekly window as a bit set of the week's minutes
// (a range's end minute included, as its end second is).
func weekMinutes(week map[string][]string) [(7*1440 + 63) / 64]uint64 {
	var set [(7*1440 + 63) / 64]uint64
	for d, key := range dayKeys {
		for _, r := range week[key] {
			from, to, ok := strings.Cut(r, "-")
			if !ok {
				continue
			}
			a, err1 := clock(from)
			b, err2 := clock(to)
			if err1 != nil || err2 != nil {
				continue
			}
			for m := int(a) / 60; m <= int(b)/60; m++ {
				i := d*1440 + m
				set[i/64] |= 1 << (i % 64)
			}
		}
	}
	return set
}

// String is e.g. "granted: Ada Lovelace at Server room (always)".
func (c Change) String() string {
	s := c.Kind + ": " + c.Person
	if c.Door != "" {
		s += " at " + c.Door
	}
	switch {
	case c.Old != "" && c.New != "":
		s += fmt.Sprintf(" (%s -> %s)", c.Old, c.New)
	case c.New != "":
		s += " (" + c.New + ")"
	case c.Old != "":
		s += " (was " + c.Old + ")"
	}
	if c.Console != "" {
		s = c.Console + ": " + s
	}
	return s
}
