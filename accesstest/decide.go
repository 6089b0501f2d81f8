package accesstest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// How a reader decides a card (issue 37): the rules of package review,
// written here a second time, on the fake's own records and with the
// standard library's calendar, so that the property test of package
// review compares two implementations rather than one with itself. The
// rules and the choices where the vendor's reference is silent are those
// of review's package doc; TapDecision's fields are review.Decision's.

// TapDecision is what a reader decides for a card held to it at some
// moment, as [Server.Decide] reports it and [Server.PresentCard] acts on.
type TapDecision struct {
	// Granted reports whether the door opens.
	Granted bool
	// Token is the card's token; HolderID the id of the user or visitor
	// holding it ("" for an unknown card); Visitor reports a visitor.
	Token    string
	HolderID string
	Visitor  bool
	// DoorID is the door the reader opens.
	DoorID string
	// Policy and PolicyID name the access policy that grants (empty for a
	// visitor, whom no policy grants).
	Policy, PolicyID string
	// Schedule names the schedule in force: the granting policy's, or the
	// visitor's (empty for a one-time visit).
	Schedule string
	// Holiday is "group: holiday" when the door opens in the holiday
	// ranges of the schedule.
	Holiday string
	// Reason says why the door stays shut, e.g. "outside Office hours",
	// "Public Holidays 2026: Good Friday", "status DEACTIVATED",
	// "unknown card" or "the site is in lockdown"; empty when granted.
	Reason string
}

// Decide reports what the reader deviceID would decide for the card
// cardNumber held to it at the moment at, without acting on it: no door
// unlocks, nothing is logged or published, no timer runs, and an open
// enrollment session is ignored ([Server.PresentCard] would enroll the
// card instead). It is [Server.PresentCard]'s decision, which PresentCard
// takes at the fake's time.
//
// The card's holder decides it. A user opens while their status is ACTIVE,
// by their own access policies and those of their user groups and the
// groups' ancestors, each policy in the week ranges of its schedule (the
// end second included), a holiday of the schedule's holiday group
// replacing them with the schedule's holiday ranges. A visitor opens the
// doors of their resources from their start time (included) to their end
// time (excluded), in the week ranges of their schedule (throughout for a
// one-time visit without ranges), unless cancelled. The building names
// every door; a door group its doors. Schedules and holidays are read in
// the zone of the fake's clock (the zone [WithClock]'s times carry, which
// the location updates report; Local on the real clock). A lockdown
// keeps every door shut, and a door not bound to a hub does not open.
//
// The rules, and the choices made where the vendor's reference is silent
// (overlapping policies, a holiday in a schedule, a deactivated member of
// a group), are those of package review (see its doc); its property test
// checks that the two agree. A device not found answers [ErrNoDevice],
// one at no door [ErrNotSupported].
func (s *Server) Decide(deviceID, cardNumber string, at time.Time) (TapDecision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	_, d, err := sp.readerDoor(deviceID)
	if err != nil {
		return TapDecision{}, err
	}
	return s.decideTap(d, cardNumber, at), nil
}

// decideTap decides a card at the door d at the moment at. The caller
// holds s.mu.
func (s *Server) decideTap(d *doorRec, cardNumber string, at time.Time) TapDecision {
	sp := s.sp()
	dec := TapDecision{Token: cardToken(cardNumber), DoorID: d.door.ID}
	id, kind := s.nfcHolder(dec.Token)
	dec.HolderID = id
	local := at.In(s.clockNow().Location())
	switch kind {
	case "USER":
		if u := s.user(id); u != nil {
			s.decideUser(&dec, u, d, local)
		}
	case "VISITOR":
		dec.Visitor = true
		if v := s.visitor(id); v != nil {
			s.decideVisitor(&dec, v, d, local)
		}
	default:
		dec.Reason = "unknown card"
	}
	switch {
	case dec.Granted && sp.emergency.Lockdown:
		dec.Granted, dec.Reason = false, "the site is in lockdown"
		dec.Policy, dec.PolicyID, dec.Schedule, dec.Holiday = "", "", "", ""
	case !d.door.IsBindHub:
		dec.Granted, dec.Reason = false, "the door is not bound to a hub"
		dec.Policy, dec.PolicyID, dec.Schedule, dec.Holiday = "", "", "", ""
	}
	return dec
}

// policiesOfUser returns the ids of the access policies a user holds, in
// the order the decision weighs them: their own (access_policy_ids, then
// access_policies), then those of their groups in the order of the group
// list, each group followed by its ancestors, nearest first; each policy
// once. The caller holds s.mu.
func (s *Server) policiesOfUser(u *access.User) []string {
	var out []string
	add := func(id string) {
		if s.people.policies[id] != nil && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, id := range u.AccessPolicyIDs {
		add(id)
	}
	for _, p := range u.AccessPolicies {
		add(p.ID)
	}
	p := s.ppl()
	var groups []*groupRec
	for _, g := range p.groups.list {
		if !g.hasMember(u.ID) {
			continue
		}
		for _, x := range append([]*groupRec{g}, groupsOf(p, p.ancestors(g))...) {
			if !slices.Contains(groups, x) {
				groups = append(groups, x)
			}
		}
	}
	for _, g := range groups {
		for _, id := range g.policyIDs {
			add(id)
		}
	}
	return out
}

func groupsOf(p *peopleState, ids []string) []*groupRec {
	out := make([]*groupRec, 0, len(ids))
	for _, id := range ids {
		out = append(out, p.group(id))
	}
	return out
}

// decideUser decides a user's tap at the door d at local, a time in the
// console's zone. The caller holds s.mu.
func (s *Server) decideUser(dec *TapDecision, u *access.User, d *doorRec, local time.Time) {
	if u.Status != access.UserStatusActive {
		dec.Reason = "status " + string(u.Status)
		return
	}
	var reasons []string
	note := func(r string) {
		if !slices.Contains(reasons, r) {
			reasons = append(reasons, r)
		}
	}
	for _, id := range s.policiesOfUser(u) {
		p := s.people.policies[id]
		if !s.covers(p.Resources, d.door.ID) {
			continue
		}
		sc := s.people.schedules[p.ScheduleID]
		if sc == nil {
			note("policy " + p.Name + ": schedule " + p.ScheduleID + " not found")
			continue
		}
		open, holiday := s.scheduleAt(sc.WeekSchedule, sc.HolidaySchedule, sc.HolidayGroupID, local)
		switch {
		case open:
			dec.Granted, dec.Policy, dec.PolicyID, dec.Schedule, dec.Holiday = true, p.Name, p.ID, sc.Name, holiday
			return
		case holiday != "":
			note(holiday)
		default:
			note("outside " + sc.Name)
		}
	}
	if reasons == nil {
		dec.Reason = "no access policy covers " + d.door.Name
		return
	}
	dec.Reason = strings.Join(reasons, "; ")
}

// decideVisitor decides a visitor's tap at the door d at local. The
// caller holds s.mu.
func (s *Server) decideVisitor(dec *TapDecision, v *access.Visitor, d *doorRec, local time.Time) {
	// The visitor's schedule: their own when it has week ranges (with the
	// holidays of the console's schedule of that id, if any), else the
	// console's schedule they name when they carry none; no schedule is a
	// one-time visit.
	var week *access.WeekSchedule
	var holidayRanges []access.TimeRange
	var holidayGroup, name string
	scheduled := false
	switch {
	case v.Schedule != nil && v.Schedule.WeekSchedule != nil:
		scheduled, name, week = true, v.Schedule.Name, v.Schedule.WeekSchedule
		holidayRanges, holidayGroup = v.Schedule.HolidaySchedule, v.Schedule.HolidayGroupID
		if full := s.people.schedules[v.Schedule.ID]; full != nil {
			holidayRanges, holidayGroup = full.HolidaySchedule, full.HolidayGroupID
		}
	case v.Schedule == nil && s.people.schedules[v.ScheduleID] != nil:
		sc := s.people.schedules[v.ScheduleID]
		scheduled, name, week, holidayRanges, holidayGroup = true, sc.Name, sc.WeekSchedule, sc.HolidaySchedule, sc.HolidayGroupID
	}
	dec.Schedule = name
	now := local.Unix()
	switch {
	case v.Status == "CANCELLED" || v.Status == "CANCELED":
		dec.Reason = "status " + v.Status
	case !s.covers(v.Resources, d.door.ID):
		dec.Reason = "the visit does not cover " + d.door.Name
	case now < int64(v.StartTime):
		dec.Reason = "before the visit"
	case now >= int64(v.EndTime):
		dec.Reason = "after the visit"
	case !scheduled:
		dec.Granted = true
	default:
		open, holiday := s.scheduleAt(week, holidayRanges, holidayGroup, local)
		switch {
		case open:
			dec.Granted, dec.Holiday = true, holiday
		case holiday != "":
			dec.Reason = holiday
		default:
			dec.Reason = "outside " + name
		}
	}
}

// covers reports whether resources name the door: the door itself, a
// door group holding it, or the building. The caller holds s.mu.
func (s *Server) covers(resources []access.Resource, doorID string) bool {
	sp := s.sp()
	for _, r := range resources {
		if sp.door(r.ID) != nil && r.Type != access.ResourceDoorGroup {
			if r.ID == doorID {
				return true
			}
			continue
		}
		if r.ID == sp.buildingID && sp.door(doorID) != nil {
			return true
		}
		if g := sp.group(r.ID); g != nil && slices.ContainsFunc(g.Resources, func(x access.Resource) bool { return x.ID == doorID }) {
			return true
		}
	}
	return false
}

// scheduleAt decides a schedule at local, a time in the console's zone:
// whether it is in force, and the holiday ("group: holiday") of its
// holiday group in force then, if any, whose holiday ranges then replace
// the week's. The caller holds s.mu.
func (s *Server) scheduleAt(week *access.WeekSchedule, holidayRanges []access.TimeRange, groupID string, local time.Time) (bool, string) {
	sec := local.Hour()*3600 + local.Minute()*60 + local.Second()
	if g := s.holidayGroup(groupID); g != nil {
		if h := holidayAt(g.Holidays, local); h != nil {
			return inRanges(holidayRanges, sec), g.Name + ": " + h.Name
		}
	}
	return inRanges(week.Day(local.Weekday()), sec), ""
}

// holidayAt returns the first of holidays in force at local. A holiday's
// times are wall-clock times where the console stands ("2026-04-03
// 00:00:00Z" is the start of 3 April there), start included, end
// excluded; a repeating one comes back on the same month, day and time
// every year (29 February on 1 March in other years).
func holidayAt(holidays []access.Holiday, local time.Time) *access.Holiday {
	wall := time.Date(local.Year(), local.Month(), local.Day(), local.Hour(), local.Minute(), local.Second(), 0, time.UTC)
	for i := range holidays {
		h := &holidays[i]
		start, err1 := h.StartTime.Time()
		end, err2 := h.EndTime.Time()
		if err1 != nil || err2 != nil {
			continue
		}
		start, end = asWall(start), asWall(end)
		if !wall.Before(start) && wall.Before(end) {
			return h
		}
		if !h.Repeat {
			continue
		}
		for _, y := range []int{wall.Year(), wall.Year() - 1} {
			from := time.Date(y, start.Month(), start.Day(), start.Hour(), start.Minute(), start.Second(), 0, time.UTC)
			if !wall.Before(from) && wall.Before(from.Add(end.Sub(start))) {
				return h
			}
		}
	}
	return nil
}

// asWall is t's clock reading as a time in UTC.
func asWall(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
}

// inRanges reports whether sec, a second of the day, falls in one of the
// ranges, both ends included ("08:00:00" to "17:00:59"). A range that
// does not read as "HH:MM:SS" (or "HH:MM") holds no second.
func inRanges(ranges []access.TimeRange, sec int) bool {
	for _, r := range ranges {
		from, err1 := secondOfDay(r.StartTime)
		to, err2 := secondOfDay(r.EndTime)
		if err1 == nil && err2 == nil && from <= sec && sec <= to {
			return true
		}
	}
	return false
}

// secondOfDay reads "HH:MM:SS" or "HH:MM".
func secondOfDay(s string) (int, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 2 && len(parts) != 3 {
		return 0, fmt.Errorf("bad time of day %q", s)
	}
	n := 0
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 59 || i == 0 && v > 23 {
			return 0, fmt.Errorf("bad time of day %q", s)
		}
		n = n*60 + v
	}
	if len(parts) == 2 {
		n *= 60
	}
	return n, nil
}
