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
)

// VisitorsService lists visitors. Get it from [Client.Visitors].
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
// the loop advances. It starts at opts.PageNum (or 1), asks for
// opts.PageSize visitors a page (or [DefaultPageSize]) and stops after an
// empty page, once pagination.total visitors have been seen, after a
// short page when the total says nothing is left, when the loop body
// breaks, or after the first error, which it yields with a zero Visitor.
// A console that caps page_size below what was asked for is followed at
// its own size, so no visitor is lost; one that ignores page_num ends the
// loop with [ErrPageRepeated]. opts is copied, never modified.
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
