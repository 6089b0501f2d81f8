package accesstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// The visitor operations: the list, create, get, update, cancel and
// delete, and the visitors' credentials (NFC cards, PIN codes, QR codes,
// licence plates). A visitor created through the API changes status on
// the fake's time: UPCOMING until its start time, VISITING until its end
// time, then VISITED; each change publishes
// access.visitor.status.changed.

// EditVisitor is the permission of the visitor writes.
const EditVisitor Permission = "edit:visitor"

// The visitor operations beyond the list.
const (
	OpVisitorsCreate               Op = "Visitors.Create"
	OpVisitorsGet                  Op = "Visitors.Get"
	OpVisitorsUpdate               Op = "Visitors.Update"
	OpVisitorsDelete               Op = "Visitors.Delete"
	OpVisitorsAssignNFCCard        Op = "Visitors.AssignNFCCard"
	OpVisitorsUnassignNFCCard      Op = "Visitors.UnassignNFCCard"
	OpVisitorsAssignPINCode        Op = "Visitors.AssignPINCode"
	OpVisitorsUnassignPINCode      Op = "Visitors.UnassignPINCode"
	OpVisitorsAssignQRCode         Op = "Visitors.AssignQRCode"
	OpVisitorsUnassignQRCode       Op = "Visitors.UnassignQRCode"
	OpVisitorsAssignLicensePlates  Op = "Visitors.AssignLicensePlates"
	OpVisitorsUnassignLicensePlate Op = "Visitors.UnassignLicensePlate"
)

// visitorStatusObject is the data.object of access.visitor.status.changed,
// whose payload the vendor does not document.
type visitorStatusObject struct {
	VisitorID      string `json:"visitor_id"`
	FirstName      string `json:"first_name"`
	LastName       string `json:"last_name"`
	Status         string `json:"status"`
	PreviousStatus string `json:"previous_status"`
}

type wireVisitor struct {
	access.Visitor
	Schedule *weeklySchedule `json:"schedule,omitempty"`
	// Always present, as consoles send them.
	NFCCards      []access.NFCCard      `json:"nfc_cards"`
	PINCode       *access.PINCode       `json:"pin_code"`
	LicensePlates []access.LicensePlate `json:"license_plates"`
	// Resources are left out of a list not expanded with resource.
	Resources *[]access.Resource `json:"resources,omitempty"`
}

// visitorView is v (a copy the caller may share) as the API sends it,
// with sched as its schedule and its resources unless withResources is
// false.
func visitorView(v access.Visitor, sched *access.Schedule, withResources bool) wireVisitor {
	v.Schedule = nil
	w := wireVisitor{Visitor: v, Schedule: wireSchedule(sched), NFCCards: nonNilSlice(v.NFCCards), PINCode: v.PINCode,
		LicensePlates: nonNilSlice(v.LicensePlates)}
	if withResources {
		rs := nonNilSlice(v.Resources)
		w.Resources = &rs
	}
	return w
}

// AddVisitor stores a visitor; an empty ID gets a new UUID and an empty
// Status UPCOMING. The visitor list returns visitors in insertion order.
func (s *Server) AddVisitor(v access.Visitor) access.Visitor {
	return addRecord(s, "AddVisitor", "visitor id", v,
		func(v *access.Visitor) string {
			if v.ID == "" {
				v.ID = s.newID()
			}
			if v.Status == "" {
				v.Status = access.VisitorStatusUpcoming.String()
			}
			return v.ID
		},
		func(v *access.Visitor) bool { return s.people.visitors.has(v.ID) },
		func(v *access.Visitor) { s.people.visitors.add(v); s.holdCards(v.ID, true, v.NFCCards) })
}

// Visitors returns every stored visitor, in insertion order, their status
// as the fake's time has made it.
func (s *Server) Visitors() []access.Visitor {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	out := make([]access.Visitor, s.people.visitors.len())
	for i, v := range s.people.visitors.list {
		out[i] = clone(*v)
	}
	return out
}

var visitorExpands = []string{"none", "access_policy", "resource", "schedule", "nfc_card", "pin_code"}

func (s *Server) listVisitors(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, ok1 := positiveParam(q, "page_num", 1)
	size, ok2 := positiveParam(q, "page_size", defaultPageSize)
	if !ok1 || !ok2 {
		badParams(w, "page_num and page_size must be positive integers.")
		return
	}
	status := access.VisitorStatus(0)
	if q.Has("status") {
		n, err := strconv.Atoi(q.Get("status"))
		if err != nil || !access.VisitorStatus(n).Valid() {
			badParams(w, "status must be an integer from 1 to 6.")
			return
		}
		status = access.VisitorStatus(n)
	}
	expand, ok := q["expand[]"]
	for _, e := range expand {
		if !slices.Contains(visitorExpands, e) {
			badParams(w, "unknown expand[] value "+strconv.Quote(e)+".")
			return
		}
	}
	want := func(obj string) bool { return !ok || slices.Contains(expand, obj) }
	keyword := strings.ToLower(strings.TrimSpace(q.Get("keyword")))

	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue() // visitors due to start or end on a clock that moves by itself
	var matched []*access.Visitor
	for _, v := range s.people.visitors.list {
		switch {
		case keyword != "": // the status filter is off while searching
			if !strings.HasPrefix(strings.ToLower(v.FirstName), keyword) && !strings.HasPrefix(strings.ToLower(v.LastName), keyword) &&
				!strings.HasPrefix(strings.ToLower(v.FirstName+" "+v.LastName), keyword) {
				continue
			}
		case status != 0:
			if st, _ := v.StatusCode(); st != status {
				continue
			}
		}
		matched = append(matched, v)
	}
	total := len(matched)
	start := total
	if page-1 <= total/size { // (page-1)*size cannot overflow here
		start = min((page-1)*size, total)
	}
	end := total
	if size < total-start {
		end = start + size
	}
	out := make([]wireVisitor, 0, end-start)
	// Shallow copies: only their top-level fields change, and stored
	// records are not modified while the lock, held until the answer is
	// written, is ours.
	for _, v := range matched[start:end] {
		c := *v
		if !want("resource") {
			c.Resources = nil
		}
		if !want("nfc_card") {
			c.NFCCards = nil
		}
		if !want("pin_code") {
			c.PINCode = nil
		}
		sched := c.Schedule
		if !want("schedule") {
			sched = nil
		}
		out = append(out, visitorView(c, sched, want("resource")))
	}
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "success", Data: out,
		Pagination: &pagination{PageNum: page, PageSize: size, Total: total}})
}

// Visitor returns a stored visitor, its status as the fake's time has
// made it.
func (s *Server) Visitor(id string) (access.Visitor, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	if v := s.visitor(id); v != nil {
		return clone(*v), true
	}
	return access.Visitor{}, false
}

// visitor finds a stored visitor. The caller holds s.mu.
func (s *Server) visitor(id string) *access.Visitor { return s.people.visitors.get(id) }

// setVisitorStatus changes a visitor's status and publishes the change.
// The caller holds s.mu.
func (s *Server) setVisitorStatus(v *access.Visitor, st access.VisitorStatus, byAPI bool) {
	prev := v.Status
	if prev == st.String() {
		return
	}
	v.Status = st.String()
	if prev == "" {
		return // a new visitor's first status is no change
	}
	s.publish(change{Event: access.EventVisitorStatusChanged, Object: visitorStatusObject{
		VisitorID: v.ID, FirstName: v.FirstName, LastName: v.LastName, Status: v.Status, PreviousStatus: prev}, ByAPI: byAPI})
}

// planVisit sets a visitor's status from its times and schedules the
// timers that move it on: VISITING at the start, VISITED at the end. A
// cancelled visitor keeps its status. The caller holds s.mu.
func (s *Server) planVisit(v *access.Visitor) {
	c := s.cr()
	for _, t := range c.visitTimers[v.ID] {
		t.stop()
	}
	delete(c.visitTimers, v.ID)
	if v.Status == access.VisitorStatusCancelled.String() {
		return
	}
	now := s.clockNow()
	start, end := v.StartTime.Time(), v.EndTime.Time()
	id := v.ID
	move := func(st access.VisitorStatus) timerKey {
		return timerKey{Kind: timerVisit, ID: id, Arg: strconv.Itoa(int(st))}
	}
	switch {
	case now.Before(start):
		s.setVisitorStatus(v, access.VisitorStatusUpcoming, false)
		c.visitTimers[id] = []*timer{s.after(start.Sub(now), move(access.VisitorStatusVisiting)), s.after(end.Sub(now), move(access.VisitorStatusVisited))}
	case now.Before(end):
		s.setVisitorStatus(v, access.VisitorStatusVisiting, false)
		c.visitTimers[id] = []*timer{s.after(end.Sub(now), move(access.VisitorStatusVisited))}
	default:
		s.setVisitorStatus(v, access.VisitorStatusVisited, false)
	}
}

// visitorBody is a create or update body as the fake reads it; pointers
// tell absent from empty.
type visitorBody struct {
	FirstName      *string              `json:"first_name"`
	LastName       *string              `json:"last_name"`
	Remarks        *string              `json:"remarks"`
	MobilePhone    *string              `json:"mobile_phone"`
	Email          *string              `json:"email"`
	VisitorCompany *string              `json:"visitor_company"`
	StartTime      *int64               `json:"start_time"`
	EndTime        *int64               `json:"end_time"`
	VisitReason    *access.VisitReason  `json:"visit_reason"`
	Resources      *[]access.Resource   `json:"resources"`
	WeekSchedule   *access.WeekSchedule `json:"week_schedule"`
	Status         json.RawMessage      `json:"status"`
}

// applyVisitor checks a body and applies it to v; it returns a message
// for CODE_PARAMS_INVALID, or "". The caller holds s.mu.
func (s *Server) applyVisitor(v *access.Visitor, b *visitorBody) string {
	if len(b.Status) > 0 {
		return "Status change is not supported."
	}
	if b.VisitReason != nil && !b.VisitReason.Valid() {
		return "visit_reason must be Interview, Business, Cooperation or Others."
	}
	if b.FirstName != nil && strings.TrimSpace(*b.FirstName) == "" || b.LastName != nil && strings.TrimSpace(*b.LastName) == "" {
		return "first_name and last_name must not be empty."
	}
	start, end := v.StartTime, v.EndTime
	if b.StartTime != nil {
		start = access.UnixTime(*b.StartTime)
	}
	if b.EndTime != nil {
		end = access.UnixTime(*b.EndTime)
	}
	if start <= 0 || end <= start {
		return "start_time and end_time must be Unix seconds, end after start."
	}
	var resources []access.Resource
	if b.Resources != nil {
		sp := s.sp()
		for _, r := range *b.Resources {
			switch r.Type {
			case access.ResourceDoor:
				d := sp.door(r.ID)
				if d == nil {
					return "unknown door " + strconv.Quote(r.ID) + "."
				}
				resources = append(resources, access.Resource{ID: r.ID, Name: d.door.Name, Type: r.Type})
			case access.ResourceDoorGroup:
				g := sp.group(r.ID)
				if g == nil {
					return "unknown door group " + strconv.Quote(r.ID) + "."
				}
				resources = append(resources, access.Resource{ID: r.ID, Name: g.Name, Type: r.Type})
			default:
				return "resource type must be door or door_group."
			}
		}
	}
	if b.WeekSchedule != nil {
		for d := time.Sunday; d <= time.Saturday; d++ {
			for _, tr := range b.WeekSchedule.Day(d) {
				if !validClock(tr.StartTime) || !validClock(tr.EndTime) || tr.EndTime <= tr.StartTime {
					return "week_schedule ranges must be HH:MM:SS, end after start."
				}
			}
		}
	}
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&v.FirstName, b.FirstName)
	set(&v.LastName, b.LastName)
	set(&v.Remarks, b.Remarks)
	set(&v.MobilePhone, b.MobilePhone)
	set(&v.Email, b.Email)
	set(&v.VisitorCompany, b.VisitorCompany)
	if b.VisitReason != nil {
		v.VisitReason = *b.VisitReason
	}
	v.StartTime, v.EndTime = start, end
	if b.Resources != nil {
		v.Resources = resources
	}
	if b.WeekSchedule != nil || v.Schedule == nil {
		if v.Schedule == nil {
			v.Schedule = &access.Schedule{ID: s.newID(), Name: fmt.Sprintf("visitor-%d", s.clockNow().UnixMilli()), Type: "access"}
			v.ScheduleID = v.Schedule.ID
		}
		if b.WeekSchedule != nil {
			ws := clone(*b.WeekSchedule)
			v.Schedule.WeekSchedule = &ws
		}
	}
	return ""
}

func validClock(s string) bool {
	_, err := time.Parse("15:04:05", s)
	return err == nil && len(s) == 8
}

// wire returns a visitor as the controller sends it (schedule ranges as
// weekly). The caller holds s.mu.
func wireVisitorOf(v *access.Visitor) wireVisitor {
	c := clone(*v)
	return visitorView(c, c.Schedule, true)
}

// visitorBodyError answers a visitor body applyVisitor refused: an unknown
// door or door group is not found, like in access policies and door
// groups; anything else is an invalid parameter.
func visitorBodyError(w http.ResponseWriter, msg string) {
	if strings.HasPrefix(msg, "unknown door") {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found: "+msg)
		return
	}
	badParams(w, msg)
}

func visitorNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The visitor does not exist.")
}

func (s *Server) createVisitor(w http.ResponseWriter, r *http.Request) {
	var b visitorBody
	if err := decodeBody(r, &b); err != nil {
		badParams(w, "Body is not a JSON visitor.")
		return
	}
	if b.FirstName == nil || b.LastName == nil || b.StartTime == nil || b.EndTime == nil || b.VisitReason == nil {
		badParams(w, "first_name, last_name, start_time, end_time and visit_reason are required.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &access.Visitor{ID: s.newID(), NFCCards: []access.NFCCard{}, Resources: []access.Resource{}, CreateTime: access.UnixTimeOf(s.clockNow())}
	if msg := s.applyVisitor(v, &b); msg != "" {
		visitorBodyError(w, msg)
		return
	}
	v.Status = ""
	s.people.visitors.add(v)
	s.planVisit(v)
	s.publish(change{Log: "visitor created: " + v.ID, LogTopic: access.SystemLogTopicVisitor})
	writeData(w, wireVisitorOf(v))
}

func (s *Server) getVisitor(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	v := s.visitor(r.PathValue("id"))
	if v == nil {
		visitorNotFound(w)
		return
	}
	writeData(w, wireVisitorOf(v))
}

func (s *Server) updateVisitor(w http.ResponseWriter, r *http.Request) {
	var b visitorBody
	if err := decodeBody(r, &b); err != nil {
		badParams(w, "Body is not a JSON visitor.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	v := s.visitor(r.PathValue("id"))
	if v == nil {
		visitorNotFound(w)
		return
	}
	upd := clone(*v)
	if msg := s.applyVisitor(&upd, &b); msg != "" {
		visitorBodyError(w, msg)
		return
	}
	*v = upd
	if b.StartTime != nil || b.EndTime != nil {
		s.planVisit(v)
	}
	s.publish(change{Log: "visitor updated: " + v.ID, LogTopic: access.SystemLogTopicVisitor})
	writeData(w, wireVisitorOf(v))
}

// deleteVisitor cancels a visit, or removes the visitor with is_force:
// its NFC cards and PIN are then free for others.
func (s *Server) deleteVisitor(w http.ResponseWriter, r *http.Request) {
	force := r.URL.Query().Has("is_force") && r.URL.Query().Get("is_force") != "false"
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	v := s.visitor(id)
	if v == nil {
		visitorNotFound(w)
		return
	}
	for _, t := range s.cr().visitTimers[id] {
		t.stop()
	}
	delete(s.cr().visitTimers, id)
	if force {
		s.people.visitors.remove(id)
		delete(s.cr().qr, id)
		s.publish(change{Log: "visitor deleted: " + id, LogTopic: access.SystemLogTopicVisitor})
	} else {
		s.setVisitorStatus(v, access.VisitorStatusCancelled, true)
	}
	writeData(w, nil)
}

// withVisitor runs f on the visitor named by the path, under the lock,
// or answers that it does not exist.
func (s *Server) withVisitor(w http.ResponseWriter, r *http.Request, f func(v *access.Visitor)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.visitor(r.PathValue("id"))
	if v == nil {
		visitorNotFound(w)
		return
	}
	f(v)
}

func (s *Server) assignVisitorQRCode(w http.ResponseWriter, r *http.Request) {
	s.withVisitor(w, r, func(v *access.Visitor) {
		s.mu.touch()
		s.cr().qr[v.ID] = true
		writeData(w, nil)
	})
}

func (s *Server) unassignVisitorQRCode(w http.ResponseWriter, r *http.Request) {
	s.withVisitor(w, r, func(v *access.Visitor) {
		s.mu.touch()
		delete(s.cr().qr, v.ID)
		writeData(w, nil)
	})
}

func (s *Server) assignVisitorPlates(w http.ResponseWriter, r *http.Request) {
	var plates []string
	if err := decodeBody(r, &plates); err != nil || len(plates) == 0 {
		badParams(w, "Body must be a JSON array of plate numbers.")
		return
	}
	s.withVisitor(w, r, func(v *access.Visitor) {
		s.mu.touch()
		for _, p := range plates {
			p = strings.TrimSpace(p)
			if p == "" || slices.ContainsFunc(v.LicensePlates, func(l access.LicensePlate) bool { return l.Credential == p }) {
				continue
			}
			v.LicensePlates = append(v.LicensePlates, access.LicensePlate{ID: s.newID(), Credential: p, CredentialType: "license", CredentialStatus: "active"})
		}
		writeData(w, nil)
	})
}
