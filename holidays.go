package access

import (
	"context"
	"strings"
	"time"
)

// HolidayGroupsService creates, reads, updates, lists and deletes holiday
// groups, the holidays a schedule follows its holiday ranges on. Get it
// from [Client.HolidayGroups]. Any controller version.
type HolidayGroupsService service

// HolidayGroupSummary is an entry of the holiday-group list (spec §2.7).
type HolidayGroupSummary struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Count is the number of holidays in the group.
	Count     int  `json:"count"`
	IsDefault bool `json:"is_default"`
}

// HolidayGroup is the detailed form of a holiday group, embedded in a
// [Schedule] and returned by the holiday-group operations.
type HolidayGroup struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	TemplateName string    `json:"template_name"`
	IsDefault    bool      `json:"is_default"`
	Holidays     []Holiday `json:"holidays"`
}

// Holiday is one holiday of a [HolidayGroup]. Its times are read back in
// the controller's own format ("2023-08-26 00:00:00Z"); parse them with
// [DateTime.Time].
type Holiday struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Repeat      bool     `json:"repeat"`
	StartTime   DateTime `json:"start_time"`
	EndTime     DateTime `json:"end_time"`
	IsTemplate  bool     `json:"is_template"`
}

// HolidayGroupRequest creates a holiday group with
// [HolidayGroupsService.Create]. Name is required; an empty Description
// and a nil Holidays are not sent.
type HolidayGroupRequest struct {
	Name        string
	Description string
	Holidays    []HolidayRequest
}

// MarshalJSON writes holidays as [] when Holidays is empty but not nil.
func (r HolidayGroupRequest) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		Name        string            `json:"name"`
		Description string            `json:"description,omitempty"`
		Holidays    *[]HolidayRequest `json:"holidays,omitempty"`
	}{r.Name, r.Description, nilIfNil(r.Holidays)})
}

// HolidayGroupUpdate changes a holiday group with
// [HolidayGroupsService.Update]. Name is required by the vendor on every
// update (pass the current name to keep it). A nil member keeps the
// group's value; a non-nil one sets it (see [Ptr]): Description is
// cleared with Ptr(""), and Holidays replaces the holidays, an empty,
// non-nil slice removing them all.
type HolidayGroupUpdate struct {
	Name        string
	Description *string
	// Holidays with an ID are kept and changed, those without are added,
	// and the group's holidays left out are removed.
	Holidays []HolidayRequest
}

// MarshalJSON writes name and the members that are set, holidays as []
// when Holidays is empty but not nil.
func (u HolidayGroupUpdate) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		Name        string            `json:"name"`
		Description *string           `json:"description,omitempty"`
		Holidays    *[]HolidayRequest `json:"holidays,omitempty"`
	}{u.Name, u.Description, nilIfNil(u.Holidays)})
}

// nilIfNil returns a pointer to s, or nil for a nil s, so that
// "omitempty" leaves out a nil slice but writes an empty one as [].
func nilIfNil[T any](s []T) *[]T {
	if s == nil {
		return nil
	}
	return &s
}

// HolidayRequest is a holiday to create or, with ID set (on Update), to
// keep and change. Times are sent in RFC 3339, in UTC ("2023-08-25T00:00:00Z"),
// as the vendor requires; they come back in the console's own format (see
// [Holiday]).
type HolidayRequest struct {
	// ID names an existing holiday on Update; empty adds a holiday.
	ID          string
	Name        string
	Description string
	// Repeat repeats the holiday every year.
	Repeat     bool
	IsTemplate bool
	StartTime  time.Time
	EndTime    time.Time
}

// MarshalJSON writes the times in RFC 3339, in UTC, whole seconds.
func (h HolidayRequest) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		ID          string `json:"id,omitempty"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Repeat      bool   `json:"repeat"`
		IsTemplate  bool   `json:"is_template"`
		StartTime   string `json:"start_time"`
		EndTime     string `json:"end_time"`
	}{h.ID, h.Name, h.Description, h.Repeat, h.IsTemplate,
		h.StartTime.UTC().Format(time.RFC3339), h.EndTime.UTC().Format(time.RFC3339)})
}

func (r *HolidayGroupRequest) validate(op string) error {
	if r == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	return checkHolidayGroup(op, r.Name, r.Holidays)
}

func (u *HolidayGroupUpdate) validate(op string) error {
	if u == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	return checkHolidayGroup(op, u.Name, u.Holidays)
}

func checkHolidayGroup(op, name string, holidays []HolidayRequest) error {
	if strings.TrimSpace(name) == "" {
		return invalidArg(op, "Name", "must not be empty")
	}
	for _, h := range holidays {
		switch {
		case strings.TrimSpace(h.Name) == "":
			return invalidArg(op, "Holidays", "every holiday needs a name")
		case h.StartTime.IsZero() || h.EndTime.IsZero():
			return invalidArg(op, "Holidays", "every holiday needs a start and an end time")
		case !h.EndTime.After(h.StartTime):
			return invalidArg(op, "Holidays", "a holiday must end after it starts")
		}
	}
	return nil
}

func holidayGroupPath(id string) string { return "/access_policies/holiday_groups/" + pathSeg(id) }

// Create makes a holiday group with its holidays and returns it as stored.
// The name must be unique.
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is
// set. Any controller version.
//
// API: POST /api/v1/developer/access_policies/holiday_groups (permission edit:policy)
func (s *HolidayGroupsService) Create(ctx context.Context, req *HolidayGroupRequest) (*HolidayGroup, *Response, error) {
	if err := req.validate("HolidayGroups.Create"); err != nil {
		return nil, nil, err
	}
	return call[HolidayGroup](ctx, s.client, "POST", "/access_policies/holiday_groups", nil, req, true)
}

// Update changes a holiday group's name and the members of req that are
// set (see [HolidayGroupUpdate]): given Holidays, holidays with an ID are
// kept and changed, those without are added, and holidays the request
// leaves out are removed. Name is required. The default group cannot be
// edited (CODE_HOLIDAY_GROUP_CAN_NOT_EDIT).
// Any controller version.
//
// API: PUT /api/v1/developer/access_policies/holiday_groups/{id} (permission edit:policy)
func (s *HolidayGroupsService) Update(ctx context.Context, id string, req *HolidayGroupUpdate) (*HolidayGroup, *Response, error) {
	const op = "HolidayGroups.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if err := req.validate(op); err != nil {
		return nil, nil, err
	}
	return call[HolidayGroup](ctx, s.client, "PUT", holidayGroupPath(id), nil, req, true)
}

// Delete removes a holiday group. The default group, and groups that
// schedules still use, cannot be deleted
// (CODE_HOLIDAY_GROUP_CAN_NOT_DELETE,
// CODE_ACCESS_POLICY_HOLIDAY_GROUP_CAN_NOT_DELETE; both match
// [ErrConflict]). Any controller version.
//
// API: DELETE /api/v1/developer/access_policies/holiday_groups/{id} (permission edit:policy)
func (s *HolidayGroupsService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("HolidayGroups.Delete", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, holidayGroupPath(id), nil)
}

// Get fetches a holiday group with its holidays. Any controller version.
//
// API: GET /api/v1/developer/access_policies/holiday_groups/{id} (permission view:policy)
func (s *HolidayGroupsService) Get(ctx context.Context, id string) (*HolidayGroup, *Response, error) {
	if err := checkID("HolidayGroups.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[HolidayGroup](ctx, s.client, "GET", holidayGroupPath(id), nil, nil, true)
}

// List fetches all holiday groups (the list is not paged), without their
// holidays: fetch a group with Get for those. Any controller version.
//
// API: GET /api/v1/developer/access_policies/holiday_groups (permission view:policy)
func (s *HolidayGroupsService) List(ctx context.Context) ([]HolidayGroupSummary, *Response, error) {
	return list[HolidayGroupSummary](ctx, s.client, "/access_policies/holiday_groups", nil)
}
