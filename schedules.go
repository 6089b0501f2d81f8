package access

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// SchedulesService creates, reads, updates and deletes access schedules,
// the weekly time ranges access policies open doors in. Get it from
// [Client.Schedules]. Any controller version.
type SchedulesService service

// Schedule is an access schedule (spec §2.6). Visitors embed a summary of
// theirs with only ID, Name, Type, IsDefault and WeekSchedule set, and
// [SchedulesService.List] fills ID, Name, Type, IsDefault, HolidayGroupID
// and Status.
//
// Requests name the weekly ranges week_schedule; controllers answer with
// weekly. Both decode into WeekSchedule, which is nil when the controller
// sends null (a one-time visit) or nothing. Encoding writes week_schedule.
type Schedule struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	IsDefault       bool          `json:"is_default"`
	Type            string        `json:"type"`
	WeekSchedule    *WeekSchedule `json:"week_schedule"`
	HolidaySchedule []TimeRange   `json:"holiday_schedule,omitempty"`
	HolidayGroupID  string        `json:"holiday_group_id,omitempty"`
	HolidayGroup    *HolidayGroup `json:"holiday_group,omitempty"`
	// Status is reported by the schedule list only (1 in the vendor's
	// sample, meaning undocumented).
	Status int `json:"status,omitempty"`
}

// UnmarshalJSON accepts the weekly ranges under week_schedule or weekly.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	type plain Schedule
	var w struct {
		plain
		Weekly *WeekSchedule `json:"weekly"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Schedule(w.plain)
	if s.WeekSchedule == nil {
		s.WeekSchedule = w.Weekly
	}
	return nil
}

// ScheduleRequest creates a schedule with [SchedulesService.Create].
//
// It is sent with the weekly ranges under week_schedule, as the vendor
// requires; the controller reads them back under weekly (both decode into
// [Schedule.WeekSchedule]). Days without ranges are sent as [].
type ScheduleRequest struct {
	// Name is required and must be unique on the controller.
	Name string
	// WeekSchedule is required.
	WeekSchedule *WeekSchedule
	// HolidayGroupID names the holiday group whose holidays follow
	// HolidaySchedule instead of the weekly ranges; empty is not sent.
	HolidayGroupID string
	// HolidaySchedule are the ranges in force on holidays (controller
	// 1.20.11 or later); nil is not sent.
	HolidaySchedule []TimeRange
}

// MarshalJSON writes the vendor's request form (week_schedule).
func (r ScheduleRequest) MarshalJSON() ([]byte, error) {
	return ScheduleUpdate{Name: nonEmpty(r.Name), WeekSchedule: r.WeekSchedule,
		HolidayGroupID: nonEmpty(r.HolidayGroupID), HolidaySchedule: r.HolidaySchedule}.MarshalJSON()
}

// ScheduleUpdate changes a schedule with [SchedulesService.Update]. A nil
// member keeps the schedule's value; a non-nil one sets it (see [Ptr]).
// It is sent like [ScheduleRequest].
type ScheduleUpdate struct {
	// Name must not be empty when set.
	Name *string
	// WeekSchedule replaces the weekly ranges when not nil (days left nil
	// are sent as []).
	WeekSchedule *WeekSchedule
	// HolidayGroupID names another holiday group; Ptr("") detaches the
	// schedule from its holiday group.
	HolidayGroupID *string
	// HolidaySchedule replaces the holiday ranges when not nil; an empty,
	// non-nil slice removes them all.
	HolidaySchedule []TimeRange
}

// MarshalJSON writes the members that are set, the weekly ranges as
// week_schedule.
func (u ScheduleUpdate) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		Name            *string       `json:"name,omitempty"`
		WeekSchedule    *WeekSchedule `json:"week_schedule,omitempty"`
		HolidayGroupID  *string       `json:"holiday_group_id,omitempty"`
		HolidaySchedule *[]TimeRange  `json:"holiday_schedule,omitempty"`
	}{u.Name, fullWeek(u.WeekSchedule), u.HolidayGroupID, nilIfNil(u.HolidaySchedule)})
}

// validRange reports whether r is "HH:MM:SS" to a later "HH:MM:SS".
func validRange(r TimeRange) bool {
	a, err1 := time.Parse(time.TimeOnly, r.StartTime)
	b, err2 := time.Parse(time.TimeOnly, r.EndTime)
	return err1 == nil && err2 == nil && len(r.StartTime) == 8 && len(r.EndTime) == 8 && a.Before(b)
}

func (r *ScheduleRequest) validate(op string) error {
	switch {
	case r == nil:
		return invalidArg(op, "req", "must not be nil")
	case strings.TrimSpace(r.Name) == "":
		return invalidArg(op, "Name", "must not be empty")
	case r.WeekSchedule == nil:
		return invalidArg(op, "WeekSchedule", "must not be nil")
	}
	return checkRanges(op, r.WeekSchedule, r.HolidaySchedule)
}

func (u *ScheduleUpdate) validate(op string) error {
	switch {
	case u == nil:
		return invalidArg(op, "req", "must not be nil")
	case u.Name == nil && u.WeekSchedule == nil && u.HolidayGroupID == nil && u.HolidaySchedule == nil:
		return invalidArg(op, "req", "changes nothing")
	case u.Name != nil && strings.TrimSpace(*u.Name) == "":
		return invalidArg(op, "Name", "must not be empty when set")
	}
	return checkRanges(op, u.WeekSchedule, u.HolidaySchedule)
}

func checkRanges(op string, week *WeekSchedule, holiday []TimeRange) error {
	for d := time.Sunday; d <= time.Saturday; d++ {
		for _, tr := range week.Day(d) {
			if !validRange(tr) {
				return invalidArg(op, "WeekSchedule", d.String()+" has a range that is not HH:MM:SS to a later HH:MM:SS")
			}
		}
	}
	for _, tr := range holiday {
		if !validRange(tr) {
			return invalidArg(op, "HolidaySchedule", "has a range that is not HH:MM:SS to a later HH:MM:SS")
		}
	}
	return nil
}

func schedulePath(id string) string { return "/access_policies/schedules/" + pathSeg(id) }

// Create makes a schedule and returns it as the controller stored it,
// holiday group included. Times are "HH:MM:SS"; an end second is
// inclusive ("17:00:59").
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is
// set. Any controller version.
//
// API: POST /api/v1/developer/access_policies/schedules (permission edit:policy)
func (s *SchedulesService) Create(ctx context.Context, req *ScheduleRequest) (*Schedule, *Response, error) {
	if err := req.validate("Schedules.Create"); err != nil {
		return nil, nil, err
	}
	return call[Schedule](ctx, s.client, "POST", "/access_policies/schedules", nil, req, true)
}

// Update changes the members of req that are set (see
// [ScheduleUpdate]); an update that changes nothing is a
// [*ValidationError]. Controllers answer with an empty object; fetch the
// schedule with Get. Any controller version.
//
// API: PUT /api/v1/developer/access_policies/schedules/{id} (permission edit:policy)
func (s *SchedulesService) Update(ctx context.Context, id string, req *ScheduleUpdate) (*Response, error) {
	const op = "Schedules.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := req.validate(op); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", schedulePath(id), nil, req, false)
	return resp, err
}

// Get fetches the schedule with the given id, with its week, holiday
// schedule and holiday group. Any controller version.
//
// API: GET /api/v1/developer/access_policies/schedules/{id} (permission view:policy)
func (s *SchedulesService) Get(ctx context.Context, id string) (*Schedule, *Response, error) {
	if err := checkID("Schedules.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[Schedule](ctx, s.client, "GET", schedulePath(id), nil, nil, true)
}

// List fetches every schedule (not paged), without their ranges: fetch one
// with Get for those. Any controller version.
//
// API: GET /api/v1/developer/access_policies/schedules (permission view:policy)
func (s *SchedulesService) List(ctx context.Context) ([]Schedule, *Response, error) {
	return list[Schedule](ctx, s.client, "/access_policies/schedules", nil)
}

// Delete removes a schedule. A schedule that access policies still use
// cannot be deleted (CODE_ACCESS_POLICY_SCHEDULE_CAN_NOT_DELETE, matching
// [ErrConflict]). Any controller version.
//
// API: DELETE /api/v1/developer/access_policies/schedules/{id} (permission edit:policy)
func (s *SchedulesService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Schedules.Delete", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, schedulePath(id), nil)
}
