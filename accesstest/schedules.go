package accesstest

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// The schedule and holiday-group operations (Schedules.Get and
// HolidayGroups.List are in server.go).
const (
	OpSchedulesCreate     Op = "Schedules.Create"
	OpSchedulesUpdate     Op = "Schedules.Update"
	OpSchedulesList       Op = "Schedules.List"
	OpSchedulesDelete     Op = "Schedules.Delete"
	OpHolidayGroupsCreate Op = "HolidayGroups.Create"
	OpHolidayGroupsUpdate Op = "HolidayGroups.Update"
	OpHolidayGroupsDelete Op = "HolidayGroups.Delete"
	OpHolidayGroupsGet    Op = "HolidayGroups.Get"
)

// holidayLayout is how consoles write holiday times in their answers
// (not RFC 3339: a space instead of "T").
const holidayLayout = "2006-01-02 15:04:05Z"

// AddSchedule stores a schedule. Its HolidayGroup is filled, when read,
// from the group named by HolidayGroupID (see [Server.AddHolidayGroup]).
// Seeding does not check that the group exists.
func (s *Server) AddSchedule(sc access.Schedule) access.Schedule {
	return addRecord(s, "AddSchedule", "schedule id", sc,
		func(sc *access.Schedule) string {
			if sc.ID == "" {
				sc.ID = s.newID()
			}
			if sc.Type == "" {
				sc.Type = "access"
			}
			sc.HolidayGroup = nil
			return sc.ID
		},
		func(sc *access.Schedule) bool { return s.people.schedules[sc.ID] != nil },
		func(sc *access.Schedule) {
			s.people.schedules[sc.ID] = sc
			s.ppl().scheduleOrder = append(s.ppl().scheduleOrder, sc.ID)
		})
}

// Schedules returns every stored schedule, in insertion order, without
// their holiday groups.
func (s *Server) Schedules() []access.Schedule {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []access.Schedule
	for _, id := range s.ppl().scheduleOrder {
		out = append(out, clone(*s.people.schedules[id]))
	}
	return out
}

// AddHolidayGroup stores a holiday group; holidays without an ID get one.
func (s *Server) AddHolidayGroup(g access.HolidayGroup) access.HolidayGroup {
	return addRecord(s, "AddHolidayGroup", "id", g,
		func(g *access.HolidayGroup) string {
			if g.ID == "" {
				g.ID = s.newID()
			}
			g.Holidays = slices.Clone(g.Holidays)
			for i := range g.Holidays {
				if g.Holidays[i].ID == "" {
					g.Holidays[i].ID = s.newID()
				}
			}
			if g.Holidays == nil {
				g.Holidays = []access.Holiday{}
			}
			return g.ID
		},
		func(g *access.HolidayGroup) bool { return s.people.holidayGroups.has(g.ID) },
		s.people.holidayGroups.add)
}

// HolidayGroup returns a stored holiday group.
func (s *Server) HolidayGroup(id string) (access.HolidayGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.holidayGroup(id); g != nil {
		return clone(*g), true
	}
	return access.HolidayGroup{}, false
}

func (s *Server) holidayGroup(id string) *access.HolidayGroup { return s.people.holidayGroups.get(id) }

func scheduleNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeAccessPolicyScheduleNotFound, "The requested schedule could not be found.")
}

func holidayGroupNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeAccessPolicyHolidayGroupNotFound, "The requested holiday group could not be found.")
}

// ---- schedule handlers ----

func (s *Server) getSchedule(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, ok := s.people.schedules[r.PathValue("id")]
	if !ok {
		scheduleNotFound(w)
		return
	}
	writeData(w, wireSchedule(s.fullSchedule(sc)))
}

// fullSchedule is a copy of sc with its holiday group. The caller holds
// s.mu.
func (s *Server) fullSchedule(sc *access.Schedule) *access.Schedule {
	out := clone(*sc)
	if g := s.holidayGroup(out.HolidayGroupID); g != nil {
		hg := clone(*g)
		out.HolidayGroup = &hg
	}
	return &out
}

// scheduleRequest is a create or update body: the weekly ranges under
// week_schedule, as the vendor requires (weekly is refused: it is the
// answers' name).
type scheduleRequest struct {
	Name            *string              `json:"name"`
	WeekSchedule    *access.WeekSchedule `json:"week_schedule"`
	Weekly          *access.WeekSchedule `json:"weekly"`
	HolidayGroupID  *string              `json:"holiday_group_id"`
	HolidaySchedule *[]access.TimeRange  `json:"holiday_schedule"`
}

func goodRanges(rs []access.TimeRange) bool {
	for _, r := range rs {
		a, err1 := time.Parse(time.TimeOnly, r.StartTime)
		b, err2 := time.Parse(time.TimeOnly, r.EndTime)
		if err1 != nil || err2 != nil || !a.Before(b) {
			return false
		}
	}
	return true
}

// checkSchedule validates a request against the stored records (self is
// the schedule's own id on update). The caller holds s.mu.
func (s *Server) checkSchedule(w http.ResponseWriter, req *scheduleRequest, self string) bool {
	if req.Weekly != nil {
		badParams(w, "Send the weekly ranges as week_schedule.")
		return false
	}
	if req.Name != nil {
		if strings.TrimSpace(*req.Name) == "" {
			badParams(w, "name must not be empty.")
			return false
		}
		for _, sc := range s.people.schedules {
			if sc.ID != self && sc.Name == *req.Name {
				writeError(w, http.StatusBadRequest, access.CodeAccessPolicyScheduleNameExist, "The provided schedule name already exists.")
				return false
			}
		}
	}
	if ws := req.WeekSchedule; ws != nil {
		for d := time.Sunday; d <= time.Saturday; d++ {
			if !goodRanges(ws.Day(d)) {
				badParams(w, "week_schedule ranges must be HH:MM:SS to a later HH:MM:SS.")
				return false
			}
		}
	}
	if req.HolidaySchedule != nil && !goodRanges(*req.HolidaySchedule) {
		badParams(w, "holiday_schedule ranges must be HH:MM:SS to a later HH:MM:SS.")
		return false
	}
	if req.HolidayGroupID != nil && *req.HolidayGroupID != "" && s.holidayGroup(*req.HolidayGroupID) == nil {
		holidayGroupNotFound(w)
		return false
	}
	return true
}

func fullWeek(w *access.WeekSchedule) *access.WeekSchedule {
	c := clone(*w)
	for _, d := range []*[]access.TimeRange{&c.Sunday, &c.Monday, &c.Tuesday, &c.Wednesday, &c.Thursday, &c.Friday, &c.Saturday} {
		if *d == nil {
			*d = []access.TimeRange{}
		}
	}
	return &c
}

func (s *Server) createSchedule(w http.ResponseWriter, r *http.Request) {
	var req scheduleRequest
	if err := decodeBody(r, &req); err != nil || req.Name == nil || (req.WeekSchedule == nil && req.Weekly == nil) {
		badParams(w, "Body must be an object with name and week_schedule.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.checkSchedule(w, &req, "") {
		return
	}
	sc := &access.Schedule{ID: s.newID(), Name: *req.Name, Type: "access", WeekSchedule: fullWeek(req.WeekSchedule)}
	if req.HolidayGroupID != nil {
		sc.HolidayGroupID = *req.HolidayGroupID
	}
	if req.HolidaySchedule != nil {
		sc.HolidaySchedule = clone(*req.HolidaySchedule)
	}
	s.people.schedules[sc.ID] = sc
	s.ppl().scheduleOrder = append(s.ppl().scheduleOrder, sc.ID)
	s.publish(change{Log: "schedule created: " + sc.ID})
	writeData(w, wireSchedule(s.fullSchedule(sc)))
}

// updateSchedule changes what the body sets and answers {} like the
// vendor's sample.
func (s *Server) updateSchedule(w http.ResponseWriter, r *http.Request) {
	var req scheduleRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be a schedule object.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, ok := s.people.schedules[r.PathValue("id")]
	if !ok {
		scheduleNotFound(w)
		return
	}
	if !s.checkSchedule(w, &req, sc.ID) {
		return
	}
	if req.Name != nil {
		sc.Name = *req.Name
	}
	if req.WeekSchedule != nil {
		sc.WeekSchedule = fullWeek(req.WeekSchedule)
	}
	if req.HolidayGroupID != nil {
		sc.HolidayGroupID = *req.HolidayGroupID
	}
	if req.HolidaySchedule != nil {
		sc.HolidaySchedule = clone(*req.HolidaySchedule)
	}
	s.publish(change{Log: "schedule updated: " + sc.ID})
	writeData(w, struct{}{})
}

// listSchedules answers the summaries of the vendor's sample: no ranges,
// and a status of 1.
func (s *Server) listSchedules(w http.ResponseWriter, _ *http.Request) {
	type summary struct {
		ID             string `json:"id"`
		Name           string `json:"name"`
		Type           string `json:"type"`
		IsDefault      bool   `json:"is_default"`
		HolidayGroupID string `json:"holiday_group_id"`
		Status         int    `json:"status"`
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []summary{}
	for _, id := range s.ppl().scheduleOrder {
		sc := s.people.schedules[id]
		out = append(out, summary{sc.ID, sc.Name, sc.Type, sc.IsDefault, sc.HolidayGroupID, 1})
	}
	writeData(w, out)
}

// deleteSchedule refuses a schedule that access policies or visitors
// still use (CODE_ACCESS_POLICY_SCHEDULE_CAN_NOT_DELETE).
func (s *Server) deleteSchedule(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.people.schedules[id]; !ok {
		scheduleNotFound(w)
		return
	}
	used := slices.ContainsFunc(s.people.visitors.list, func(v *access.Visitor) bool { return v.ScheduleID == id })
	for _, p := range s.people.policies {
		used = used || p.ScheduleID == id
	}
	if used {
		writeError(w, http.StatusBadRequest, access.CodeAccessPolicyScheduleCanNotDelete, "The schedule could not be deleted: access policies use it.")
		return
	}
	delete(s.people.schedules, id)
	p := s.ppl()
	p.scheduleOrder = slices.DeleteFunc(p.scheduleOrder, func(x string) bool { return x == id })
	s.publish(change{Log: "schedule deleted: " + id})
	writeSuccess(w)
}

// ---- holiday-group handlers ----

func (s *Server) listHolidayGroups(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	out := make([]access.HolidayGroupSummary, s.people.holidayGroups.len())
	for i, g := range s.people.holidayGroups.list {
		out[i] = access.HolidayGroupSummary{ID: g.ID, Name: g.Name, Description: g.Description, Count: len(g.Holidays), IsDefault: g.IsDefault}
	}
	s.mu.Unlock()
	writeData(w, out)
}

func (s *Server) getHolidayGroup(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.holidayGroup(r.PathValue("id"))
	if g == nil {
		holidayGroupNotFound(w)
		return
	}
	writeData(w, clone(*g))
}

// holidayGroupRequest is a create or update body. Holiday times must be
// RFC 3339; they are stored and answered in the console's own format.
type holidayGroupRequest struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	Holidays    []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Repeat      bool   `json:"repeat"`
		IsTemplate  bool   `json:"is_template"`
		StartTime   string `json:"start_time"`
		EndTime     string `json:"end_time"`
	} `json:"holidays"`
}

// holidays checks and converts the request's holidays; old are the
// group's current holidays (ids on update must be among them). The
// caller holds s.mu.
func (s *Server) holidays(w http.ResponseWriter, req *holidayGroupRequest, self string, old []access.Holiday) ([]access.Holiday, bool) {
	if req.Name == nil || strings.TrimSpace(*req.Name) == "" {
		badParams(w, "name is required.")
		return nil, false
	}
	for _, g := range s.people.holidayGroups.list {
		if g.ID != self && g.Name == *req.Name {
			writeError(w, http.StatusBadRequest, access.CodeAccessPolicyHolidayGroupNameExist, "The provided holiday group name already exists.")
			return nil, false
		}
	}
	out := []access.Holiday{}
	for _, h := range req.Holidays {
		start, err1 := time.Parse(time.RFC3339, h.StartTime)
		end, err2 := time.Parse(time.RFC3339, h.EndTime)
		switch {
		case strings.TrimSpace(h.Name) == "":
			badParams(w, "holidays[].name is required.")
			return nil, false
		case err1 != nil || err2 != nil:
			badParams(w, "holidays[].start_time and end_time must be RFC 3339.")
			return nil, false
		case !end.After(start):
			badParams(w, "A holiday must end after it starts.")
			return nil, false
		case slices.ContainsFunc(out, func(x access.Holiday) bool { return x.Name == h.Name }):
			writeError(w, http.StatusBadRequest, access.CodeAccessPolicyHolidayNameExist, "The provided holiday name already exists.")
			return nil, false
		}
		id := h.ID
		if id == "" {
			id = s.newID()
		} else if !slices.ContainsFunc(old, func(x access.Holiday) bool { return x.ID == id }) {
			writeError(w, http.StatusBadRequest, access.CodeAccessPolicyHolidayNotFound, "The requested holiday could not be found.")
			return nil, false
		}
		out = append(out, access.Holiday{ID: id, Name: h.Name, Description: h.Description, Repeat: h.Repeat, IsTemplate: h.IsTemplate,
			StartTime: access.DateTime(start.UTC().Format(holidayLayout)), EndTime: access.DateTime(end.UTC().Format(holidayLayout))})
	}
	return out, true
}

func (s *Server) createHolidayGroup(w http.ResponseWriter, r *http.Request) {
	var req holidayGroupRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be a holiday group object.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	hs, ok := s.holidays(w, &req, "", nil)
	if !ok {
		return
	}
	g := &access.HolidayGroup{ID: s.newID(), Name: *req.Name, Holidays: hs}
	if req.Description != nil {
		g.Description = *req.Description
	}
	s.people.holidayGroups.add(g)
	s.publish(change{Log: "holiday group created: " + g.ID})
	writeData(w, clone(*g))
}

// updateHolidayGroup changes the group's name and, when present, its
// description and holidays (given holidays, those left out are removed).
// The default group cannot be edited.
func (s *Server) updateHolidayGroup(w http.ResponseWriter, r *http.Request) {
	var req holidayGroupRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be a holiday group object.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.holidayGroup(r.PathValue("id"))
	if g == nil {
		holidayGroupNotFound(w)
		return
	}
	if g.IsDefault {
		writeError(w, http.StatusBadRequest, access.CodeHolidayGroupCanNotEdit, "The holiday group could not be edited.")
		return
	}
	hs, ok := s.holidays(w, &req, g.ID, g.Holidays)
	if !ok {
		return
	}
	g.Name = *req.Name
	if req.Description != nil {
		g.Description = *req.Description
	}
	if req.Holidays != nil {
		g.Holidays = hs
	}
	s.publish(change{Log: "holiday group updated: " + g.ID})
	writeData(w, clone(*g))
}

// deleteHolidayGroup refuses the default group
// (CODE_HOLIDAY_GROUP_CAN_NOT_DELETE) and groups schedules use
// (CODE_ACCESS_POLICY_HOLIDAY_GROUP_CAN_NOT_DELETE).
func (s *Server) deleteHolidayGroup(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.holidayGroup(id)
	if g == nil {
		holidayGroupNotFound(w)
		return
	}
	if g.IsDefault {
		writeError(w, http.StatusBadRequest, access.CodeHolidayGroupCanNotDelete, "The holiday group could not be deleted.")
		return
	}
	for _, sc := range s.people.schedules {
		if sc.HolidayGroupID == id {
			writeError(w, http.StatusBadRequest, access.CodeAccessPolicyHolidayGroupCanNotDelete, "The holiday group could not be deleted: schedules use it.")
			return
		}
	}
	s.people.holidayGroups.remove(id)
	s.publish(change{Log: "holiday group deleted: " + id})
	writeSuccess(w)
}
