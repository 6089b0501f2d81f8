package access

import (
	"context"
	"errors"
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

// DefaultPageSize is the page size [VisitorsService.All] asks for when the
// options set none.
const DefaultPageSize = 25

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

// ErrPageRepeated is yielded by [VisitorsService.All] when the controller
// returns the same page twice, as a server that ignores page_num would;
// iterating on would never end.
var ErrPageRepeated = errors.New("access: the server returned the same page twice (page_num ignored?)")

// All iterates over every visitor matching opts, fetching pages lazily as
// the loop advances. It starts at opts.PageNum (or 1), asks for
// opts.PageSize visitors a page (or [DefaultPageSize]) and stops after an
// empty or short page, once pagination.total visitors have been seen, when
// the loop body breaks, or after the first error, which it yields with a
// zero Visitor. opts is copied, never modified.
//
//	for v, err := range client.Visitors.All(ctx, nil) {
//		if err != nil { return err }
//		fmt.Println(v.FirstName)
//	}
func (s *VisitorsService) All(ctx context.Context, opts *VisitorListOptions) iter.Seq2[Visitor, error] {
	return func(yield func(Visitor, error) bool) {
		if err := opts.validate("Visitors.All"); err != nil {
			yield(Visitor{}, err)
			return
		}
		var o VisitorListOptions
		if opts != nil {
			o = *opts
			o.Expand = slices.Clone(opts.Expand)
		}
		if o.PageNum < 1 {
			o.PageNum = 1
		}
		if o.PageSize < 1 {
			o.PageSize = DefaultPageSize
		}
		seen := (o.PageNum - 1) * o.PageSize
		var prevFirst string
		for {
			page, resp, err := s.List(ctx, &o)
			if err != nil {
				yield(Visitor{}, err)
				return
			}
			if len(page) == 0 {
				return
			}
			if page[0].ID != "" && page[0].ID == prevFirst {
				yield(Visitor{}, ErrPageRepeated)
				return
			}
			prevFirst = page[0].ID
			for _, v := range page {
				if !yield(v, nil) {
					return
				}
			}
			seen += len(page)
			if len(page) < o.PageSize {
				return
			}
			if p := resp.Pagination; p != nil && p.Total > 0 && seen >= p.Total {
				return
			}
			o.PageNum++
		}
	}
}
