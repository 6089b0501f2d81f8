package review

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ival is a half-open range [a, b) of wall-clock seconds.
type ival struct{ a, b int64 }

// occurrences returns the holidays of days met in [a, b), clipped to it.
func occurrences(days []holiday, a, b int64) (out []ival, names []string) {
	y := int64(time.Unix(a, 0).UTC().Year())
	for i := range days {
		h := &days[i]
		starts := []int64{h.start}
		if h.repeat {
			starts = []int64{h.in(y - 1), h.in(y), h.in(y + 1)}
		}
		for _, s := range starts {
			e := s + h.end - h.start
			if s < b && e > a {
				out = append(out, ival{max(s, a), min(e, b)})
				names = appendNew(names, h.name)
			}
		}
	}
	return out, names
}

// clip returns the parts of x inside (in) or outside (!in) the ranges of
// hs.
func clip(x ival, hs []ival, in bool) []ival {
	if in {
		var out []ival
		for _, h := range hs {
			if a, b := max(x.a, h.a), min(x.b, h.b); a < b {
				out = append(out, ival{a, b})
			}
		}
		return out
	}
	out := []ival{x}
	for _, h := range hs {
		var next []ival
		for _, r := range out {
			if h.b <= r.a || h.a >= r.b {
				next = append(next, r)
				continue
			}
			if r.a < h.a {
				next = append(next, ival{r.a, h.a})
			}
			if h.b < r.b {
				next = append(next, ival{h.b, r.b})
			}
		}
		out = next
	}
	return out
}

// Windows returns when the person can open the door over the days days
// from the day of from (in the evaluator's zone): the spans of every
// policy that covers the door (a visitor's: of their visit and
// schedule), and the holidays that replace a schedule's week ranges. A
// person who cannot open the door at all (a user who is not ACTIVE, a
// cancelled visitor) has none.
func (e *Evaluator) Windows(personID, doorID string, from time.Time, days int) (Calendar, error) {
	var cal Calendar
	p, ok := e.people[personID]
	if !ok {
		return cal, fmt.Errorf("%w: %q", ErrUnknownPerson, personID)
	}
	d, ok := e.doorIdx[doorID]
	if !ok {
		return cal, fmt.Errorf("%w: %q", ErrUnknownDoor, doorID)
	}
	if days < 0 || days > 3660 {
		return cal, errors.New("review: Windows: days must be between 0 and 3660")
	}
	lf := from.In(e.loc)
	y, m, dd := lf.Date()
	day0 := daysFromCivil(int64(y), int64(m), int64(dd))
	type source struct {
		policy string
		sched  *schedule
	}
	var srcs []source
	switch {
	case p.visitor:
		if p.status == "CANCELLED" || p.status == "CANCELED" || !has(p.doors, d) {
			return cal, nil
		}
		srcs = append(srcs, source{sched: p.sched})
	case p.status != "ACTIVE":
		return cal, nil
	default:
		for _, i := range p.policies {
			if pol := &e.policies[i]; has(pol.doors, d) && pol.sched != nil {
				srcs = append(srcs, source{policy: pol.name, sched: pol.sched})
			}
		}
	}
	toTime := func(w int64) time.Time {
		days := w / 86400
		if w%86400 < 0 {
			days--
		}
		cy, cm, cd := civil(days)
		return time.Date(int(cy), time.Month(cm), int(cd), 0, 0, int(w-days*86400), 0, e.loc)
	}
	for k := range int64(days) {
		a := (day0 + k) * 86400
		b := a + 86400
		date := toTime(a).Format(time.DateOnly)
		for _, s := range srcs {
			add := func(r ival, holiday string) {
				start, end := toTime(r.a), toTime(r.b)
				if p.visitor {
					start = maxTime(start, time.Unix(p.start, 0).In(e.loc))
					end = minTime(end, time.Unix(p.end, 0).In(e.loc))
				}
				if start.Before(end) {
					name := ""
					if s.sched != nil {
						name = s.sched.name
					}
					cal.Windows = append(cal.Windows, Window{Start: start, End: end, Policy: s.policy, Schedule: name, Holiday: holiday})
				}
			}
			if s.sched == nil { // a one-time visit
				add(ival{a, b}, "")
				continue
			}
			hs, names := occurrences(s.sched.days, a, b)
			for _, n := range names {
				if x := (Exception{Date: date, Schedule: s.sched.name, Holiday: n}); !slices.Contains(cal.Exceptions, x) {
					cal.Exceptions = append(cal.Exceptions, x)
				}
			}
			for _, sp := range s.sched.week[weekday(a)] {
				for _, r := range clip(ival{a + int64(sp.from), a + int64(sp.to) + 1}, hs, false) {
					add(r, "")
				}
			}
			for _, sp := range s.sched.holidays {
				for _, r := range clip(ival{a + int64(sp.from), a + int64(sp.to) + 1}, hs, true) {
					add(r, holidayFor(s.sched.days, r.a))
				}
			}
		}
	}
	slices.SortStableFunc(cal.Windows, func(x, y Window) int {
		if c := x.Start.Compare(y.Start); c != 0 {
			return c
		}
		return strings.Compare(x.Policy, y.Policy)
	})
	return cal, nil
}

func holidayFor(days []holiday, w int64) string {
	if h := holidayAt(days, w); h != nil {
		return h.name
	}
	return ""
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
