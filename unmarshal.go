package access

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// This file gives the request and update types that write their own wire
// form an UnmarshalJSON reading that same form back, so that a document
// written by MarshalJSON (or by hand, as the vendor documents it) decodes
// into the SDK's types: Unmarshal(Marshal(x)) == x for every value whose
// members MarshalJSON keeps (times in whole seconds, in UTC).
//
// Each UnmarshalJSON refuses a member its wire form does not have (an
// unknown field would otherwise be dropped without a word when the value
// is sent), and leaves the value as it is for a JSON null.

// decodeWire decodes b, the wire form of the type named typ, into w,
// refusing unknown members.
func decodeWire(typ string, b []byte, w any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(w); err != nil {
		return fmt.Errorf("access: decoding %s: %w", typ, err)
	}
	return nil
}

func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// fromUnix reads Unix seconds as MarshalJSON writes them: nil stays nil, 0
// is the zero time, any other value a time in UTC.
func fromUnix(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	if *n == 0 {
		return Ptr(time.Time{})
	}
	return Ptr(time.Unix(*n, 0).UTC())
}

func timeOf(n *int64) time.Time {
	if t := fromUnix(n); t != nil {
		return *t
	}
	return time.Time{}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// weekOf undoes fullWeek: MarshalJSON writes a nil day as [], so an empty
// day decodes as nil.
func weekOf(w *WeekSchedule) *WeekSchedule {
	if w == nil {
		return nil
	}
	for _, d := range []*[]TimeRange{&w.Sunday, &w.Monday, &w.Tuesday, &w.Wednesday, &w.Thursday, &w.Friday, &w.Saturday} {
		if len(*d) == 0 {
			*d = nil
		}
	}
	return w
}

func derefSlice[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	if *p == nil {
		return []T{}
	}
	return *p
}

func resourcesOf(rs *[]wireResource) []Resource {
	if rs == nil {
		return nil
	}
	out := make([]Resource, len(*rs))
	for i, r := range *rs {
		out[i] = Resource{ID: r.ID, Type: r.Type}
	}
	return out
}

// UnmarshalJSON reads the form MarshalJSON writes: onboard_time in Unix
// seconds (0 or absent is the zero time).
func (r *UserRequest) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		FirstName      string `json:"first_name"`
		LastName       string `json:"last_name"`
		UserEmail      string `json:"user_email"`
		EmployeeNumber string `json:"employee_number"`
		OnboardTime    *int64 `json:"onboard_time"`
	}
	if err := decodeWire("UserRequest", b, &w); err != nil {
		return err
	}
	*r = UserRequest{FirstName: w.FirstName, LastName: w.LastName, UserEmail: w.UserEmail,
		EmployeeNumber: w.EmployeeNumber, OnboardTime: timeOf(w.OnboardTime)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent member is
// nil (kept), onboard_time 0 is Ptr(time.Time{}).
func (u *UserUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		FirstName      *string     `json:"first_name"`
		LastName       *string     `json:"last_name"`
		UserEmail      *string     `json:"user_email"`
		EmployeeNumber *string     `json:"employee_number"`
		OnboardTime    *int64      `json:"onboard_time"`
		Status         *UserStatus `json:"status"`
	}
	if err := decodeWire("UserUpdate", b, &w); err != nil {
		return err
	}
	*u = UserUpdate{FirstName: w.FirstName, LastName: w.LastName, UserEmail: w.UserEmail,
		EmployeeNumber: w.EmployeeNumber, OnboardTime: fromUnix(w.OnboardTime), Status: w.Status}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: times in Unix
// seconds, the weekly ranges under week_schedule.
func (r *VisitorRequest) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w visitorWire
	if err := decodeWire("VisitorRequest", b, &w); err != nil {
		return err
	}
	*r = VisitorRequest{FirstName: deref(w.FirstName), LastName: deref(w.LastName), Remarks: deref(w.Remarks),
		MobilePhone: deref(w.MobilePhone), Email: deref(w.Email), VisitorCompany: deref(w.VisitorCompany),
		StartTime: timeOf(w.StartTime), EndTime: timeOf(w.EndTime), VisitReason: w.VisitReason,
		Resources: derefSlice(w.Resources), WeekSchedule: weekOf(w.WeekSchedule)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent member is
// nil (kept); resources: [] is an empty, non-nil Resources.
func (u *VisitorUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w visitorWire
	if err := decodeWire("VisitorUpdate", b, &w); err != nil {
		return err
	}
	*u = VisitorUpdate{FirstName: w.FirstName, LastName: w.LastName, Remarks: w.Remarks,
		MobilePhone: w.MobilePhone, Email: w.Email, VisitorCompany: w.VisitorCompany,
		StartTime: fromUnix(w.StartTime), EndTime: fromUnix(w.EndTime),
		Resources: derefSlice(w.Resources), WeekSchedule: weekOf(w.WeekSchedule)}
	if w.VisitReason != "" {
		u.VisitReason = Ptr(w.VisitReason)
	}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent member is
// nil (kept); resources carry their id and type only.
func (u *AccessPolicyUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		Name       *string         `json:"name"`
		Resources  *[]wireResource `json:"resources"`
		ScheduleID *string         `json:"schedule_id"`
	}
	if err := decodeWire("AccessPolicyUpdate", b, &w); err != nil {
		return err
	}
	*u = AccessPolicyUpdate{Name: w.Name, Resources: resourcesOf(w.Resources), ScheduleID: w.ScheduleID}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent member is
// nil (kept); resources: [] is an empty, non-nil Resources.
func (u *DoorGroupUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		GroupName *string   `json:"group_name"`
		Resources *[]string `json:"resources"`
	}
	if err := decodeWire("DoorGroupUpdate", b, &w); err != nil {
		return err
	}
	*u = DoorGroupUpdate{GroupName: w.GroupName, Resources: derefSlice(w.Resources)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes; holidays: [] is an
// empty, non-nil Holidays.
func (r *HolidayGroupRequest) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Holidays    *[]HolidayRequest `json:"holidays"`
	}
	if err := decodeWire("HolidayGroupRequest", b, &w); err != nil {
		return err
	}
	*r = HolidayGroupRequest{Name: w.Name, Description: w.Description, Holidays: derefSlice(w.Holidays)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent description
// or holidays is nil (kept).
func (u *HolidayGroupUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		Name        string            `json:"name"`
		Description *string           `json:"description"`
		Holidays    *[]HolidayRequest `json:"holidays"`
	}
	if err := decodeWire("HolidayGroupUpdate", b, &w); err != nil {
		return err
	}
	*u = HolidayGroupUpdate{Name: w.Name, Description: w.Description, Holidays: derefSlice(w.Holidays)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: the times in RFC 3339
// (read back in UTC).
func (h *HolidayRequest) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Repeat      bool   `json:"repeat"`
		IsTemplate  bool   `json:"is_template"`
		StartTime   string `json:"start_time"`
		EndTime     string `json:"end_time"`
	}
	if err := decodeWire("HolidayRequest", b, &w); err != nil {
		return err
	}
	v := HolidayRequest{ID: w.ID, Name: w.Name, Description: w.Description, Repeat: w.Repeat, IsTemplate: w.IsTemplate}
	for _, f := range []struct {
		s    string
		t    *time.Time
		name string
	}{{w.StartTime, &v.StartTime, "start_time"}, {w.EndTime, &v.EndTime, "end_time"}} {
		if f.s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, f.s)
		if err != nil {
			return fmt.Errorf("access: decoding HolidayRequest: %s: %w", f.name, err)
		}
		*f.t = t.UTC()
	}
	*h = v
	return nil
}

type scheduleWire struct {
	Name            *string       `json:"name"`
	WeekSchedule    *WeekSchedule `json:"week_schedule"`
	HolidayGroupID  *string       `json:"holiday_group_id"`
	HolidaySchedule *[]TimeRange  `json:"holiday_schedule"`
}

// UnmarshalJSON reads the form MarshalJSON writes: the weekly ranges
// under week_schedule.
func (r *ScheduleRequest) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w scheduleWire
	if err := decodeWire("ScheduleRequest", b, &w); err != nil {
		return err
	}
	*r = ScheduleRequest{Name: deref(w.Name), WeekSchedule: weekOf(w.WeekSchedule),
		HolidayGroupID: deref(w.HolidayGroupID), HolidaySchedule: derefSlice(w.HolidaySchedule)}
	return nil
}

// UnmarshalJSON reads the form MarshalJSON writes: an absent member is
// nil (kept), the weekly ranges under week_schedule.
func (u *ScheduleUpdate) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var w scheduleWire
	if err := decodeWire("ScheduleUpdate", b, &w); err != nil {
		return err
	}
	*u = ScheduleUpdate{Name: w.Name, WeekSchedule: weekOf(w.WeekSchedule),
		HolidayGroupID: w.HolidayGroupID, HolidaySchedule: derefSlice(w.HolidaySchedule)}
	return nil
}
