package access

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// VisitorsService registers, lists, updates and cancels visitors and
// manages their credentials (NFC cards, PIN codes, QR codes, licence
// plates). Get it from [Client.Visitors].
type VisitorsService service

// VisitorStatus is the visitor-list status filter, an integer from 1 to 6.
// In visitor objects the controller reports the status as a string (see
// [Visitor.StatusCode]).
type VisitorStatus int

// Visitor statuses, as numbered by the API.
const (
	VisitorStatusUpcoming  VisitorStatus = 1
	VisitorStatusVisited   VisitorStatus = 2
	VisitorStatusVisiting  VisitorStatus = 3
	VisitorStatusCancelled VisitorStatus = 4
	VisitorStatusNoVisit   VisitorStatus = 5
	VisitorStatusActive    VisitorStatus = 6
)

var visitorStatusNames = [...]string{"", "UPCOMING", "VISITED", "VISITING", "CANCELLED", "NO_VISIT", "ACTIVE"}

// String returns the status's name as the controller spells it in visitor
// objects, e.g. "VISITED".
func (s VisitorStatus) String() string {
	if s.Valid() {
		return visitorStatusNames[s]
	}
	return "VisitorStatus(" + strconv.Itoa(int(s)) + ")"
}

// Valid reports whether s is one of the six statuses.
func (s VisitorStatus) Valid() bool { return s >= VisitorStatusUpcoming && s <= VisitorStatusActive }

// EncodeValues writes the status as its number (query encoding).
func (s VisitorStatus) EncodeValues(key string, v *url.Values) error {
	v.Set(key, strconv.Itoa(int(s)))
	return nil
}

// StatusCode maps the visitor's status string to a [VisitorStatus]; ok is
// false for a value the API does not document. Both spellings CANCELLED and
// CANCELED are recognised.
func (v Visitor) StatusCode() (s VisitorStatus, ok bool) {
	if v.Status == "CANCELED" {
		return VisitorStatusCancelled, true
	}
	for i, name := range visitorStatusNames {
		if i > 0 && name == v.Status {
			return VisitorStatus(i), true
		}
	}
	return 0, false
}

// UnmarshalJSON decodes a visitor, accepting its status as a name or as
// the number some consoles send.
func (v *Visitor) UnmarshalJSON(b []byte) error {
	type plain Visitor
	aux := struct {
		*plain
		Status json.RawMessage `json:"status"`
	}{plain: (*plain)(v)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	v.Status = ""
	switch st := bytes.TrimSpace(aux.Status); {
	case len(st) == 0 || string(st) == "null":
	case st[0] == '"':
		return json.Unmarshal(st, &v.Status)
	default:
		n, err := strconv.Atoi(string(st))
		if err != nil {
			return fmt.Errorf("access: visitor status %s is neither a name nor a number", st)
		}
		if s := VisitorStatus(n); s.Valid() {
			v.Status = s.String()
		} else {
			v.Status = string(st) // kept, like an unknown name
		}
	}
	return nil
}

// VisitorExpand names an object the visitor list may embed (expand[]).
// Requires controller version 1.22.16 or later.
type VisitorExpand string

// Values of expand[] for visitors.
const (
	VisitorExpandNone         VisitorExpand = "none"
	VisitorExpandAccessPolicy VisitorExpand = "access_policy"
	VisitorExpandResource     VisitorExpand = "resource"
	VisitorExpandSchedule     VisitorExpand = "schedule"
	VisitorExpandNFCCard      VisitorExpand = "nfc_card"
	VisitorExpandPINCode      VisitorExpand = "pin_code"
)

// VisitorListOptions filters and pages the visitor list. The zero value
// lists everything with the controller's default paging.
type VisitorListOptions struct {
	// Status filters by status (query "status"); zero means any. The
	// controller ignores it when Keyword is set.
	Status VisitorStatus `url:"status,omitempty"`
	// Keyword matches a prefix of the first or last name (query "keyword").
	Keyword string `url:"keyword,omitempty"`
	// PageNum is the 1-based page number (query "page_num").
	PageNum int `url:"page_num,omitempty"`
	// PageSize is the number of visitors per page (query "page_size").
	PageSize int `url:"page_size,omitempty"`
	// Expand embeds related objects (query "expand[]", repeated).
	Expand []VisitorExpand `url:"expand,brackets,omitempty"`
}

func (o *VisitorListOptions) validate(op string) error {
	if o == nil {
		return nil
	}
	switch {
	case o.Status != 0 && !o.Status.Valid():
		return invalidArg(op, "Status", "must be between 1 and 6")
	case o.PageNum < 0:
		return invalidArg(op, "PageNum", "must not be negative")
	case o.PageSize < 0:
		return invalidArg(op, "PageSize", "must not be negative")
	}
	for _, e := range o.Expand {
		if e == "" {
			return invalidArg(op, "Expand", "must not contain an empty value")
		}
	}
	return nil
}

// List fetches one page of visitors. resp.Pagination holds the paging
// information when the controller sends it.
//
// API: GET /api/v1/developer/visitors (permission view:visitor)
func (s *VisitorsService) List(ctx context.Context, opts *VisitorListOptions) ([]Visitor, *Response, error) {
	if err := opts.validate("Visitors.List"); err != nil {
		return nil, nil, err
	}
	return list[Visitor](ctx, s.client, "/visitors", opts)
}

// All iterates over every visitor matching opts, fetching pages lazily as
// the loop advances. It yields the visitors from page opts.PageNum (or 1)
// of opts.PageSize visitors (or [DefaultPageSize]) on, and stops after an
// empty page, once pagination.total visitors have been seen, after a
// short page at a size the console is known to serve whole, when the loop
// body breaks, or after the first error, which it yields with a zero
// Visitor. A console that caps page_size below what was asked for is
// followed at its own size, so no visitor is lost or yielded out of turn,
// also when the iteration starts at a later page (the capped first page is
// then fetched again at the served size); one that ignores page_num ends
// the loop with [ErrPageRepeated]. opts is copied, never modified.
// Permission view:visitor; any controller version (expand[] needs 1.22.16).
//
//	for v, err := range client.Visitors.All(ctx, nil) {
//		if err != nil { return err }
//		fmt.Println(v.FirstName)
//	}
func (s *VisitorsService) All(ctx context.Context, opts *VisitorListOptions) iter.Seq2[Visitor, error] {
	if err := opts.validate("Visitors.All"); err != nil {
		return func(yield func(Visitor, error) bool) { yield(Visitor{}, err) }
	}
	var o VisitorListOptions
	if opts != nil {
		o = *opts
		o.Expand = slices.Clone(opts.Expand)
	}
	return paginate(ctx, o.PageNum, o.PageSize, func(v *Visitor) string { return v.ID },
		func(ctx context.Context, num, size int) (page[Visitor], error) {
			o.PageNum, o.PageSize = num, size
			items, resp, err := s.List(ctx, &o)
			return page[Visitor]{items: items, total: resp.total()}, err
		})
}

// Visitor is a visitor record (spec §2.3). Which nested objects are filled
// depends on the expand[] values of the list call.
type Visitor struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// Status is the status name, e.g. "ACTIVE" or "VISITED"; see
	// [Visitor.StatusCode]. Unknown values are kept. Consoles that send
	// the status as its number (6) are decoded to the name ("ACTIVE").
	Status         string      `json:"status"`
	InviterID      string      `json:"inviter_id,omitempty"`
	InviterName    string      `json:"inviter_name,omitempty"`
	MobilePhone    string      `json:"mobile_phone,omitempty"`
	Remarks        string      `json:"remarks,omitempty"`
	Email          string      `json:"email,omitempty"`
	VisitorCompany string      `json:"visitor_company,omitempty"`
	VisitReason    VisitReason `json:"visit_reason,omitempty"`
	StartTime      UnixTime    `json:"start_time"`
	EndTime        UnixTime    `json:"end_time"`
	// CreateTime is sent by some controllers, not by the spec.
	CreateTime    UnixTime       `json:"create_time,omitempty"`
	NFCCards      []NFCCard      `json:"nfc_cards,omitempty"`
	PINCode       *PINCode       `json:"pin_code,omitempty"`
	ScheduleID    string         `json:"schedule_id,omitempty"`
	Schedule      *Schedule      `json:"schedule,omitempty"`
	Resources     []Resource     `json:"resources,omitempty"`
	LicensePlates []LicensePlate `json:"license_plates,omitempty"`
}

// VisitReason is why a visitor comes.
type VisitReason string

// The visit reasons the vendor accepts.
const (
	VisitReasonInterview   VisitReason = "Interview"
	VisitReasonBusiness    VisitReason = "Business"
	VisitReasonCooperation VisitReason = "Cooperation"
	VisitReasonOthers      VisitReason = "Others"
)

// Valid reports whether r is one of the four documented reasons.
func (r VisitReason) Valid() bool {
	switch r {
	case VisitReasonInterview, VisitReasonBusiness, VisitReasonCooperation, VisitReasonOthers:
		return true
	}
	return false
}

// VisitDoor names a door for a visitor's resources.
func VisitDoor(id string) Resource { return Resource{ID: id, Type: ResourceDoor} }

// VisitDoorGroup names a door group for a visitor's resources.
func VisitDoorGroup(id string) Resource { return Resource{ID: id, Type: ResourceDoorGroup} }

// VisitorRequest is the body of [VisitorsService.Create].
type VisitorRequest struct {
	FirstName string // required
	LastName  string // required
	Remarks   string
	// MobilePhone should be E.164 ("+41791234567"): consoles silently
	// drop other forms.
	MobilePhone    string
	Email          string
	VisitorCompany string
	// StartTime and EndTime bound the visit (required; sent as Unix
	// seconds, so sub-second precision is dropped). EndTime must be after
	// StartTime.
	StartTime, EndTime time.Time
	// VisitReason is required.
	VisitReason VisitReason
	// Resources are the doors and door groups the visitor may open; see
	// [VisitDoor] and [VisitDoorGroup].
	Resources []Resource
	// WeekSchedule limits access to ranges per weekday (a recurring
	// visit); nil is a one-time visit within StartTime..EndTime.
	WeekSchedule *WeekSchedule
}

// visitorWire is the wire form of a visitor create or update.
type visitorWire struct {
	FirstName      *string       `json:"first_name,omitempty"`
	LastName       *string       `json:"last_name,omitempty"`
	Remarks        *string       `json:"remarks,omitempty"`
	MobilePhone    *string       `json:"mobile_phone,omitempty"`
	Email          *string       `json:"email,omitempty"`
	VisitorCompany *string       `json:"visitor_company,omitempty"`
	StartTime      *int64        `json:"start_time,omitempty"`
	EndTime        *int64        `json:"end_time,omitempty"`
	VisitReason    VisitReason   `json:"visit_reason,omitempty"`
	Resources      *[]Resource   `json:"resources,omitempty"`
	WeekSchedule   *WeekSchedule `json:"week_schedule,omitempty"`
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func unixPtr(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	u := t.Unix()
	return &u
}

// MarshalJSON writes the request as the API wants it: times as Unix
// seconds, the weekly ranges as week_schedule.
func (r VisitorRequest) MarshalJSON() ([]byte, error) {
	var resources *[]Resource
	if len(r.Resources) > 0 {
		resources = &r.Resources
	}
	return json.Marshal(visitorWire{FirstName: &r.FirstName, LastName: &r.LastName, Remarks: nonEmpty(r.Remarks),
		MobilePhone: nonEmpty(r.MobilePhone), Email: nonEmpty(r.Email), VisitorCompany: nonEmpty(r.VisitorCompany),
		StartTime: unixPtr(r.StartTime), EndTime: unixPtr(r.EndTime), VisitReason: r.VisitReason,
		Resources: resources, WeekSchedule: fullWeek(r.WeekSchedule)})
}

func checkSpan(op string, start, end time.Time) error {
	if !start.IsZero() && !end.IsZero() && end.Unix() <= start.Unix() {
		return invalidArg(op, "EndTime", "must be after StartTime")
	}
	return nil
}

func (r *VisitorRequest) validate(op string) error {
	switch {
	case r == nil:
		return invalidArg(op, "req", "must not be nil")
	case strings.TrimSpace(r.FirstName) == "":
		return invalidArg(op, "FirstName", "must not be empty")
	case strings.TrimSpace(r.LastName) == "":
		return invalidArg(op, "LastName", "must not be empty")
	case r.StartTime.IsZero():
		return invalidArg(op, "StartTime", "must be set")
	case r.EndTime.IsZero():
		return invalidArg(op, "EndTime", "must be set")
	case beforeEpoch(r.StartTime):
		return invalidArg(op, "StartTime", "must not be before 1970")
	case !r.VisitReason.Valid():
		return invalidArg(op, "VisitReason", "must be Interview, Business, Cooperation or Others")
	}
	if err := checkSpan(op, r.StartTime, r.EndTime); err != nil {
		return err
	}
	return checkResources(op, r.Resources)
}

// VisitorUpdate is the body of [VisitorsService.Update]. A nil member
// keeps the visitor's value; a non-nil one sets it (see [Ptr]). It has no
// status: the vendor does not let an update change it (cancel with
// [VisitorsService.Delete]).
type VisitorUpdate struct {
	// FirstName and LastName must not be empty when set.
	FirstName, LastName *string
	// Remarks, MobilePhone, Email and VisitorCompany are cleared with
	// Ptr("").
	Remarks, MobilePhone, Email, VisitorCompany *string
	// StartTime and EndTime move the visit (sent as Unix seconds); a visit
	// always has both, so the zero time is refused.
	StartTime, EndTime *time.Time
	// VisitReason must be one of the four documented reasons when set.
	VisitReason *VisitReason
	// Resources replaces the doors and door groups when not nil; an empty,
	// non-nil slice removes them all.
	Resources []Resource
	// WeekSchedule replaces the weekly ranges when not nil (days left nil
	// are sent as []); &access.WeekSchedule{} leaves no range on any day.
	WeekSchedule *WeekSchedule
}

func unixOf(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	return Ptr(unixOrZero(*t))
}

// MarshalJSON writes the members that are set.
func (u VisitorUpdate) MarshalJSON() ([]byte, error) {
	var reason VisitReason
	if u.VisitReason != nil {
		reason = *u.VisitReason
	}
	return json.Marshal(visitorWire{FirstName: u.FirstName, LastName: u.LastName, Remarks: u.Remarks,
		MobilePhone: u.MobilePhone, Email: u.Email, VisitorCompany: u.VisitorCompany,
		StartTime: unixOf(u.StartTime), EndTime: unixOf(u.EndTime), VisitReason: reason,
		Resources: nilIfNil(u.Resources), WeekSchedule: fullWeek(u.WeekSchedule)})
}

func (u *VisitorUpdate) validate(op string) error {
	switch {
	case u == nil:
		return invalidArg(op, "req", "must not be nil")
	case u.FirstName != nil && strings.TrimSpace(*u.FirstName) == "":
		return invalidArg(op, "FirstName", "must not be empty when set")
	case u.LastName != nil && strings.TrimSpace(*u.LastName) == "":
		return invalidArg(op, "LastName", "must not be empty when set")
	case u.VisitReason != nil && !u.VisitReason.Valid():
		return invalidArg(op, "VisitReason", "must be Interview, Business, Cooperation or Others")
	case u.StartTime != nil && u.StartTime.IsZero():
		return invalidArg(op, "StartTime", "must not be the zero time when set")
	case u.EndTime != nil && u.EndTime.IsZero():
		return invalidArg(op, "EndTime", "must not be the zero time when set")
	case u.StartTime != nil && beforeEpoch(*u.StartTime):
		return invalidArg(op, "StartTime", "must not be before 1970")
	case u.EndTime != nil && beforeEpoch(*u.EndTime):
		return invalidArg(op, "EndTime", "must not be before 1970")
	}
	if u.StartTime != nil && u.EndTime != nil {
		if err := checkSpan(op, *u.StartTime, *u.EndTime); err != nil {
			return err
		}
	}
	return checkResources(op, u.Resources)
}

// Create registers a visitor and returns the record the controller made.
//
// API: POST /api/v1/developer/visitors (permission edit:visitor)
func (s *VisitorsService) Create(ctx context.Context, req *VisitorRequest) (*Visitor, *Response, error) {
	if err := req.validate("Visitors.Create"); err != nil {
		return nil, nil, err
	}
	return call[Visitor](ctx, s.client, "POST", "/visitors", nil, req, true)
}

// Get fetches a visitor.
//
// API: GET /api/v1/developer/visitors/:id (permission view:visitor)
func (s *VisitorsService) Get(ctx context.Context, id string) (*Visitor, *Response, error) {
	if err := checkID("Visitors.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[Visitor](ctx, s.client, "GET", "/visitors/"+pathSeg(id), nil, nil, true)
}

// Update changes the fields of req that are set and returns the visitor.
//
// API: PUT /api/v1/developer/visitors/:id (permission edit:visitor)
func (s *VisitorsService) Update(ctx context.Context, id string, req *VisitorUpdate) (*Visitor, *Response, error) {
	const op = "Visitors.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if err := req.validate(op); err != nil {
		return nil, nil, err
	}
	return call[Visitor](ctx, s.client, "PUT", "/visitors/"+pathSeg(id), nil, req, true)
}

// VisitorDeleteOptions chooses what [VisitorsService.Delete] does.
type VisitorDeleteOptions struct {
	// Force removes the record (query is_force=true). Without it the
	// visit is only cancelled: the visitor stays, in status CANCELLED.
	Force bool `url:"is_force,omitempty"`
}

// Delete cancels a visit (nil opts or Force false: the record stays with
// status CANCELLED) or, with Force, removes the visitor and frees their
// credentials.
//
// API: DELETE /api/v1/developer/visitors/:id (permission edit:visitor)
func (s *VisitorsService) Delete(ctx context.Context, id string, opts *VisitorDeleteOptions) (*Response, error) {
	if err := checkID("Visitors.Delete", "id", id); err != nil {
		return nil, err
	}
	var q any
	if opts != nil && opts.Force {
		q = url.Values{"is_force": {"true"}}
	}
	return del(ctx, s.client, "/visitors/"+pathSeg(id), q)
}
