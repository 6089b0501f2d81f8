package review

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// Errors of the evaluator's answers.
var (
	// ErrUnknownPerson: no user or visitor has the id.
	ErrUnknownPerson = errors.New("review: no user or visitor with that id")
	// ErrUnknownDoor: no door has the id.
	ErrUnknownDoor = errors.New("review: no door with that id")
)

// Decision is the answer to "can this person open this door at this
// time".
type Decision struct {
	// Open reports whether the door opens.
	Open bool
	// Policy and PolicyID name the access policy that grants; empty for
	// a visitor, whom no policy grants.
	Policy   string
	PolicyID string
	// Schedule names the schedule in force: the granting policy's, or the
	// visitor's (empty for a one-time visit).
	Schedule string
	// Holiday is "group: holiday" when the door opens in the holiday
	// ranges of the schedule.
	Holiday string
	// Reason says why the door does not open, e.g. "outside Office hours",
	// "Public Holidays 2026: Good Friday" or "status DEACTIVATED"; empty
	// when it opens.
	Reason string
}

// Window is a span of time in which a person can open a door, [Start,
// End).
type Window struct {
	Start, End time.Time
	// Policy names the granting access policy (empty for a visitor).
	Policy string
	// Schedule names the schedule (empty for a visitor's one-time visit).
	Schedule string
	// Holiday is "group: holiday" when the window comes from the
	// schedule's holiday ranges.
	Holiday string
}

// Exception is a day on which a holiday replaces a schedule's week
// ranges for a person and door.
type Exception struct {
	// Date is the day, "2006-01-02", in the evaluator's zone.
	Date string
	// Schedule names the schedule the holiday applies to.
	Schedule string
	// Holiday is "group: holiday".
	Holiday string
}

// Calendar is when a person can open a door over some days.
type Calendar struct {
	// Windows are the spans, by start, then policy.
	Windows []Window
	// Exceptions are the holidays met, by date, then schedule.
	Exceptions []Exception
}

// Grant is one person who can open a door, as [Evaluator.WhoCanOpen]
// lists them.
type Grant struct {
	// ID is the user's or visitor's id; Name their full name.
	ID, Name string
	// Visitor reports a visitor (else a user).
	Visitor bool
	// Policy and Schedule are those of [Decision].
	Policy, Schedule, Holiday string
}

// span is a range of seconds of a day, both ends inclusive, as the
// console writes "HH:MM:SS" to "HH:MM:SS".
type span struct{ from, to int32 }

// holiday is a holiday as wall-clock seconds [start, end) since the Unix
// epoch read in UTC (the console writes "2026-04-03 00:00:00Z" for the
// day of 3 April wherever it stands).
type holiday struct {
	name       string // "group: holiday"
	repeat     bool
	start, end int64
	// A repeated holiday's month, day and second of the day of its start.
	month, day, sod int64
}

// newHoliday returns the holiday from start to end, wall-clock seconds.
func newHoliday(name string, repeat bool, start, end int64) holiday {
	h := holiday{name: name, repeat: repeat, start: start, end: end}
	days := floorDiv(start, 86400)
	_, h.month, h.day = civil(days)
	h.sod = start - days*86400
	return h
}

// floorDiv divides rounding down.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

type schedule struct {
	name     string
	group    string // the holiday group's name; empty when none
	week     [7][]span
	holidays []span    // the ranges in force on a holiday
	days     []holiday // the holidays of its group
}

type policy struct {
	id, name string
	doors    []uint64 // bit set of door indexes
	sched    *schedule
	schedID  string
}

type person struct {
	id, name string
	visitor  bool
	status   string   // a user's status, a visitor's
	policies []int    // indexes into Evaluator.policies, in order
	doors    []uint64 // a visitor's doors
	// A visitor's visit, [start, end) in Unix seconds, and schedule (nil
	// for a one-time visit).
	start, end int64
	sched      *schedule
}

// Evaluator answers who can open which door, when. It is built once from
// a [State] and a time zone by [New] and is safe for concurrent use.
type Evaluator struct {
	loc       *time.Location
	doorIdx   map[string]int
	doorNames []string
	people    map[string]*person
	order     []*person // users then visitors, by name, then id
	policies  []policy
}

// New builds an evaluator of st in the console's time zone loc, in which
// schedules and holidays are read. st is not kept.
func New(st *State, loc *time.Location) (*Evaluator, error) {
	if st == nil {
		return nil, errors.New("review: New: nil state")
	}
	if loc == nil {
		return nil, errors.New("review: New: nil time zone")
	}
	e := &Evaluator{loc: loc, doorIdx: map[string]int{}, people: map[string]*person{}}
	for _, d := range st.Doors {
		if _, dup := e.doorIdx[d.ID]; dup {
			continue
		}
		e.doorIdx[d.ID] = len(e.doorNames)
		e.doorNames = append(e.doorNames, d.Name)
	}
	words := (len(e.doorNames) + 63) / 64
	groupDoors := map[string][]uint64{}
	for _, g := range st.DoorGroups {
		set := make([]uint64, words)
		if g.Type == access.DoorGroupBuilding && len(g.Resources) == 0 {
			for i := range e.doorNames {
				set[i/64] |= 1 << (i % 64)
			}
		}
		for _, r := range g.Resources {
			if i, ok := e.doorIdx[r.ID]; ok {
				set[i/64] |= 1 << (i % 64)
			}
		}
		groupDoors[g.ID] = set
	}
	resolve := func(rs []access.Resource) []uint64 {
		set := make([]uint64, words)
		for _, r := range rs {
			if i, ok := e.doorIdx[r.ID]; ok && r.Type != access.ResourceDoorGroup {
				set[i/64] |= 1 << (i % 64)
				continue
			}
			for w, b := range groupDoors[r.ID] {
				set[w] |= b
			}
		}
		return set
	}
	hgs := map[string][]holiday{}
	hgNames := map[string]string{}
	for _, g := range st.HolidayGroups {
		hgNames[g.ID] = g.Name
		var hs []holiday
		for _, h := range g.Holidays {
			start, err1 := h.StartTime.Time()
			end, err2 := h.EndTime.Time()
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("review: holiday group %q: holiday %q has an unreadable time", g.Name, h.Name)
			}
			hs = append(hs, newHoliday(g.Name+": "+h.Name, h.Repeat, wallOf(start), wallOf(end)))
		}
		hgs[g.ID] = hs
	}
	makeSched := func(s access.Schedule) (*schedule, error) {
		sc := &schedule{name: s.Name, days: hgs[s.HolidayGroupID], group: hgNames[s.HolidayGroupID]}
		if sc.days == nil && s.HolidayGroup != nil {
			sc.group = s.HolidayGroup.Name
			for _, h := range s.HolidayGroup.Holidays {
				start, err1 := h.StartTime.Time()
				end, err2 := h.EndTime.Time()
				if err1 != nil || err2 != nil {
					return nil, fmt.Errorf("review: schedule %q: holiday %q has an unreadable time", s.Name, h.Name)
				}
				sc.days = append(sc.days, newHoliday(s.HolidayGroup.Name+": "+h.Name, h.Repeat, wallOf(start), wallOf(end)))
			}
		}
		var err error
		for d := range 7 {
			if sc.week[d], err = spans(s.WeekSchedule.Day(time.Weekday(d))); err != nil {
				return nil, fmt.Errorf("review: schedule %q: %w", s.Name, err)
			}
		}
		if sc.holidays, err = spans(s.HolidaySchedule); err != nil {
			return nil, fmt.Errorf("review: schedule %q: %w", s.Name, err)
		}
		return sc, nil
	}
	scheds := map[string]*schedule{}
	for _, s := range st.Schedules {
		sc, err := makeSched(s)
		if err != nil {
			return nil, err
		}
		scheds[s.ID] = sc
	}
	polIdx := map[string]int{}
	for _, p := range st.AccessPolicies {
		polIdx[p.ID] = len(e.policies)
		e.policies = append(e.policies, policy{id: p.ID, name: p.Name, doors: resolve(p.Resources), sched: scheds[p.ScheduleID], schedID: p.ScheduleID})
	}
	// A user's groups: those naming them as a member, each followed by
	// its ancestors (UpID), each group once.
	parent := map[string]string{}
	for _, g := range st.UserGroups {
		parent[g.ID] = g.UpID
	}
	groupsOf := map[string][]string{}
	for _, g := range st.UserGroups {
		for _, uid := range st.Members[g.ID] {
			seen := map[string]bool{}
			for _, id := range groupsOf[uid] {
				seen[id] = true
			}
			for id := g.ID; id != "" && !seen[id]; id = parent[id] {
				seen[id] = true
				groupsOf[uid] = append(groupsOf[uid], id)
			}
		}
	}
	var users, visitors []*person
	for _, u := range st.Users {
		p := &person{id: u.ID, name: fullName(u.FullName, u.FirstName, u.LastName), status: string(u.Status)}
		add := func(ids []string) {
			for _, id := range ids {
				if i, ok := polIdx[id]; ok && !slices.Contains(p.policies, i) {
					p.policies = append(p.policies, i)
				}
			}
		}
		add(u.AccessPolicyIDs)
		for _, ap := range u.AccessPolicies {
			add([]string{ap.ID})
		}
		for _, g := range groupsOf[u.ID] {
			add(st.GroupPolicies[g])
		}
		e.people[u.ID] = p
		users = append(users, p)
	}
	for _, v := range st.Visitors {
		p := &person{id: v.ID, name: fullName("", v.FirstName, v.LastName), visitor: true, status: v.Status,
			doors: resolve(v.Resources), start: int64(v.StartTime), end: int64(v.EndTime)}
		switch {
		case v.Schedule != nil && v.Schedule.WeekSchedule != nil:
			sc, err := makeSched(*v.Schedule)
			if err != nil {
				return nil, err
			}
			if full, ok := scheds[v.Schedule.ID]; ok {
				sc.days, sc.holidays, sc.group = full.days, full.holidays, full.group
			}
			p.sched = sc
		case v.Schedule == nil && scheds[v.ScheduleID] != nil:
			p.sched = scheds[v.ScheduleID]
		}
		e.people[v.ID] = p
		visitors = append(visitors, p)
	}
	byName := func(a, b *person) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	}
	slices.SortFunc(users, byName)
	slices.SortFunc(visitors, byName)
	e.order = append(users, visitors...)
	return e, nil
}

// Location returns the time zone the evaluator reads schedules in.
func (e *Evaluator) Location() *time.Location { return e.loc }

func fullName(full, first, last string) string {
	if full != "" {
		return full
	}
	return strings.TrimSpace(first + " " + last)
}

// wallOf returns t's clock reading, as if in UTC, in seconds since the
// epoch.
func wallOf(t time.Time) int64 {
	_, off := t.Zone()
	return t.Unix() + int64(off)
}

// spans parses a day's ranges.
func spans(rs []access.TimeRange) ([]span, error) {
	out := make([]span, 0, len(rs))
	for _, r := range rs {
		a, err1 := clock(r.StartTime)
		b, err2 := clock(r.EndTime)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("unreadable time range %q-%q", r.StartTime, r.EndTime)
		}
		out = append(out, span{a, b})
	}
	return out, nil
}

// clock parses "HH:MM:SS" (or "HH:MM") into seconds of the day.
func clock(s string) (int32, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("bad clock %q", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 59 || (i == 0 && v > 23) {
			return 0, fmt.Errorf("bad clock %q", s)
		}
		n[i] = v
	}
	return int32(n[0]*3600 + n[1]*60 + n[2]), nil
}

func has(set []uint64, i int) bool { return set[i/64]&(1<<(i%64)) != 0 }

func inSpans(ss []span, sec int32) bool {
	for _, s := range ss {
		if sec >= s.from && sec <= s.to {
			return true
		}
	}
	return false
}

// holidayAt returns the holiday of days in force at the wall-clock second
// w, or nil.
func holidayAt(days []holiday, w int64) *holiday {
	y := int64(-1 << 62)
	for i := range days {
		h := &days[i]
		if w >= h.start && w < h.end {
			return h
		}
		if !h.repeat {
			continue
		}
		if y == -1<<62 {
			y, _, _ = civil(floorDiv(w, 86400))
		}
		for _, yy := range [...]int64{y, y - 1} {
			if s := h.in(yy); w >= s && w < s+h.end-h.start {
				return h
			}
		}
	}
	return nil
}

// in returns the start of a repeated holiday in year y, in wall-clock
// seconds: the same month, day and time of day as its first year.
func (h *holiday) in(y int64) int64 {
	return daysFromCivil(y, h.month, h.day)*86400 + h.sod
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic
// Gregorian date (H. Hinnant's algorithm); day and month out of range
// roll over.
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civil is the inverse of daysFromCivil.
func civil(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// at decides a schedule at the wall-clock second w: whether it is in
// force, and the holiday that applies, if any.
func (s *schedule) at(w int64) (bool, *holiday) {
	sec := int32(((w % 86400) + 86400) % 86400)
	if h := holidayAt(s.days, w); h != nil {
		return inSpans(s.holidays, sec), h
	}
	return inSpans(s.week[weekday(w)], sec), nil
}

// weekday returns the weekday of the wall-clock second w.
func weekday(w int64) time.Weekday {
	days := w / 86400
	if w%86400 < 0 {
		days--
	}
	return time.Weekday(((days+4)%7 + 7) % 7) // 1970-01-01 was a Thursday
}

// CanOpen reports whether the person (a user's or visitor's id) can open
// the door (its id) at t, by which policy and schedule, or why not.
func (e *Evaluator) CanOpen(personID, doorID string, t time.Time) (Decision, error) {
	p, ok := e.people[personID]
	if !ok {
		return Decision{}, fmt.Errorf("%w: %q", ErrUnknownPerson, personID)
	}
	d, ok := e.doorIdx[doorID]
	if !ok {
		return Decision{}, fmt.Errorf("%w: %q", ErrUnknownDoor, doorID)
	}
	return e.decide(p, d, t), nil
}

func (e *Evaluator) decide(p *person, d int, t time.Time) Decision {
	w := wallOf(t.In(e.loc))
	if p.visitor {
		return e.decideVisitor(p, d, t, w)
	}
	if p.status != string(access.UserStatusActive) {
		return Decision{Reason: "status " + p.status}
	}
	var reasons []string
	for _, i := range p.policies {
		pol := &e.policies[i]
		if !has(pol.doors, d) {
			continue
		}
		if pol.sched == nil {
			reasons = appendNew(reasons, "policy "+pol.name+": schedule "+pol.schedID+" not found")
			continue
		}
		open, h := pol.sched.at(w)
		if open {
			dec := Decision{Open: true, Policy: pol.name, PolicyID: pol.id, Schedule: pol.sched.name}
			if h != nil {
				dec.Holiday = h.name
			}
			return dec
		}
		if h != nil {
			reasons = appendNew(reasons, h.name)
		} else {
			reasons = appendNew(reasons, "outside "+pol.sched.name)
		}
	}
	if reasons == nil {
		return Decision{Reason: "no access policy covers " + e.doorNames[d]}
	}
	return Decision{Reason: strings.Join(reasons, "; ")}
}

func (e *Evaluator) decideVisitor(p *person, d int, t time.Time, w int64) Decision {
	var dec Decision
	if p.sched != nil {
		dec.Schedule = p.sched.name
	}
	switch u := t.Unix(); {
	case p.status == "CANCELLED" || p.status == "CANCELED":
		dec.Reason = "status " + p.status
	case !has(p.doors, d):
		dec.Reason = "the visit does not cover " + e.doorNames[d]
	case u < p.start:
		dec.Reason = "before the visit"
	case u >= p.end:
		dec.Reason = "after the visit"
	case p.sched == nil:
		dec.Open = true
	default:
		open, h := p.sched.at(w)
		switch {
		case open:
			dec.Open = true
			if h != nil {
				dec.Holiday = h.name
			}
		case h != nil:
			dec.Reason = h.name
		default:
			dec.Reason = "outside " + p.sched.name
		}
	}
	return dec
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// WhoCanOpen lists the people who can open the door at t: users, then
// visitors, each by name.
func (e *Evaluator) WhoCanOpen(doorID string, t time.Time) ([]Grant, error) {
	d, ok := e.doorIdx[doorID]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownDoor, doorID)
	}
	var out []Grant
	for _, p := range e.order {
		if dec := e.decide(p, d, t); dec.Open {
			out = append(out, Grant{ID: p.id, Name: p.name, Visitor: p.visitor, Policy: dec.Policy, Schedule: dec.Schedule, Holiday: dec.Holiday})
		}
	}
	return out, nil
}
