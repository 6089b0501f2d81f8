package access

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"net/url"
	"strconv"
	"strings"
)

// TouchPassesService purchases, lists, searches and updates touch passes
// (controller version 3.2.20 or later). Hand one to a user with
// [UsersService.AssignTouchPass]. Get it from [Client.TouchPasses].
type TouchPassesService service

// Purchase buys count touch passes, which the controller creates in status
// INACTIVE. It spends money: a payment method must be configured on the
// controller.
//
// The request is sent once and never retried, not even with
// RetryPolicy.RetryWrites: a purchase that failed in transit may still have
// been made, so check with Search before buying again. Controllers answer with an array or, for a single pass, an object;
// both decode to a slice.
//
// API: POST /api/v1/developer/credentials/touch_passes (permission edit:credential)
func (s *TouchPassesService) Purchase(ctx context.Context, count int) ([]TouchPass, *Response, error) {
	if count < 1 {
		return nil, nil, invalidArg("TouchPasses.Purchase", "count", "must be at least 1")
	}
	body := struct {
		Count int `json:"count"`
	}{count}
	v, resp, err := call[TouchPasses](sendOnce(ctx), s.client, "POST", "/credentials/touch_passes", nil, body, true)
	if err != nil {
		return nil, resp, err
	}
	return *v, resp, nil
}

// Search finds touch passes matching condition, such as a card-id fragment
// ("057B") or a user name. The condition is sent URL-encoded.
//
// API: GET /api/v1/developer/credentials/touch_passes/search (permission view:credential)
func (s *TouchPassesService) Search(ctx context.Context, condition string) ([]TouchPass, *Response, error) {
	if strings.TrimSpace(condition) == "" {
		return nil, nil, invalidArg("TouchPasses.Search", "condition", "must not be empty")
	}
	return list[TouchPass](ctx, s.client, "/credentials/touch_passes/search", url.Values{"condition": {condition}})
}

// TouchPassStatus is a touch pass's status.
type TouchPassStatus string

// Touch-pass statuses documented by the vendor; others are kept as sent.
const (
	TouchPassActive    TouchPassStatus = "ACTIVE"
	TouchPassPending   TouchPassStatus = "PENDING"
	TouchPassSuspended TouchPassStatus = "SUSPENDED"
	TouchPassInactive  TouchPassStatus = "INACTIVE"
	TouchPassExpired   TouchPassStatus = "EXPIRED"
)

// TouchPass is a touch-pass credential (spec §2.8). A freshly purchased
// pass is INACTIVE with empty user fields.
type TouchPass struct {
	ID       string          `json:"id"`
	CardID   string          `json:"card_id"`
	CardName string          `json:"card_name"`
	Status   TouchPassStatus `json:"status"`
	// LastActivity is RFC 3339 with an offset.
	LastActivity DateTime `json:"last_activity,omitempty"`
	UserID       string   `json:"user_id"`
	UserName     string   `json:"user_name"`
	UserEmail    string   `json:"user_email"`
	UserAvatar   string   `json:"user_avatar"`
	// UserStatus is ACTIVE, PENDING or UNLINK (no longer linked to a user).
	UserStatus string `json:"user_status"`
	// ActivatedAt and ExpiredAt are objects the vendor does not describe
	// (consoles send them empty in the detail form and leave them out of
	// lists); they are kept as raw JSON. See [TouchPass.Activated].
	ActivatedAt json.RawMessage `json:"activated_at,omitempty"`
	ExpiredAt   json.RawMessage `json:"expired_at,omitempty"`
	// Bundles are the phone wallets holding the pass (detail form).
	Bundles []TouchPassBundle `json:"bundles"`
}

// TouchPassBundle is a phone wallet holding a touch pass.
type TouchPassBundle struct {
	BundleID string `json:"bundle_id"`
	// BundleStatus is ACTIVE or SUSPENDED (DISABLED after an update).
	BundleStatus BundleStatus `json:"bundle_status"`
	DeviceID     string       `json:"device_id"`
	DeviceName   string       `json:"device_name"`
	// DeviceType is the vendor's device type number (10 and 20 in samples).
	DeviceType int `json:"device_type"`
	// Source is the wallet: [SourceApple] or [SourceGoogle].
	Source TouchPassSource `json:"source"`
}

// TouchPassSource is the wallet a bundle lives in.
type TouchPassSource string

// Wallets.
const (
	SourceApple  TouchPassSource = "apple"
	SourceGoogle TouchPassSource = "google"
)

// BundleStatus is a bundle's status.
type BundleStatus string

// Bundle statuses; an update can only disable a bundle.
const (
	BundleActive    BundleStatus = "ACTIVE"
	BundleSuspended BundleStatus = "SUSPENDED"
	BundleDisabled  BundleStatus = "DISABLED"
)

// hasObject reports whether an activated_at or expired_at object carries
// anything (controllers send {} when not set).
func hasObject(raw json.RawMessage) bool {
	b := bytes.TrimSpace(raw)
	return len(b) > 0 && !bytes.Equal(b, []byte("{}")) && !bytes.Equal(b, []byte("null"))
}

// Activated reports whether the pass is active in a phone wallet, that
// is whether its status is [TouchPassActive]. Consoles send activated_at
// as an empty object whatever the pass's state (the vendor's samples show
// no member in it), so it is not what this reads; ActivatedAt keeps it as
// sent.
func (t TouchPass) Activated() bool { return t.Status == TouchPassActive }

// Expires reports whether the pass's expired_at object carries data.
func (t TouchPass) Expires() bool { return hasObject(t.ExpiredAt) }

// TouchPasses is a list of touch passes that decodes from a JSON array, a
// single object (how controllers answer a purchase and embed a user's pass)
// or null.
type TouchPasses []TouchPass

// UnmarshalJSON implements the decoding described on [TouchPasses].
func (t *TouchPasses) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '{':
		var one TouchPass
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*t = TouchPasses{one}
		return nil
	case string(b) == "null":
		*t = nil
		return nil
	}
	var many []TouchPass
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

// TouchPassListOptions filters and pages the touch-pass list.
type TouchPassListOptions struct {
	// Status filters by status: ACTIVE, PENDING, SUSPENDED or INACTIVE;
	// empty means any.
	Status TouchPassStatus `url:"status,omitempty"`
	// PageNum is the 1-based page number (query "page_num").
	PageNum int `url:"page_num,omitempty"`
	// PageSize is the number of passes per page (query "page_size").
	PageSize int `url:"page_size,omitempty"`
}

// query encodes the options by hand, as their url tags describe (the
// list is called once a page: no reflection).
func (o *TouchPassListOptions) query() url.Values {
	if o == nil {
		return nil
	}
	q := pagingQuery(o.PageNum, o.PageSize)
	if o.Status != "" {
		q.Set("status", string(o.Status))
	}
	return q
}

func (o *TouchPassListOptions) validate(op string) error {
	if o == nil {
		return nil
	}
	switch o.Status {
	case "", TouchPassActive, TouchPassPending, TouchPassSuspended, TouchPassInactive:
	default:
		return invalidArg(op, "Status", "must be ACTIVE, PENDING, SUSPENDED or INACTIVE")
	}
	return checkPaging(op, o.PageNum, o.PageSize)
}

// List fetches one page of touch passes; resp.Pagination holds the paging
// information.
//
// API: GET /api/v1/developer/credentials/touch_passes (permission view:credential)
func (s *TouchPassesService) List(ctx context.Context, opts *TouchPassListOptions) ([]TouchPass, *Response, error) {
	if err := opts.validate("TouchPasses.List"); err != nil {
		return nil, nil, err
	}
	return list[TouchPass](ctx, s.client, "/credentials/touch_passes", opts.query())
}

// All iterates over every touch pass matching opts, fetching pages lazily
// as the loop advances; it pages like [VisitorsService.All]. opts is
// copied, never modified. Permission view:credential; controller 3.2.20 or
// later.
func (s *TouchPassesService) All(ctx context.Context, opts *TouchPassListOptions) iter.Seq2[TouchPass, error] {
	if err := opts.validate("TouchPasses.All"); err != nil {
		return func(yield func(TouchPass, error) bool) { yield(TouchPass{}, err) }
	}
	var o TouchPassListOptions
	if opts != nil {
		o = *opts
	}
	return paginate(ctx, o.PageNum, o.PageSize, func(t *TouchPass) string { return t.ID },
		func(ctx context.Context, num, size int) (page[TouchPass], error) {
			o.PageNum, o.PageSize = num, size
			items, resp, err := s.List(ctx, &o)
			return page[TouchPass]{items: items, total: resp.total()}, err
		})
}

// ListAssignable lists the passes that can be handed to a user: the
// SUSPENDED and INACTIVE ones.
//
// API: GET /api/v1/developer/credentials/touch_passes/assignable (permission view:credential)
func (s *TouchPassesService) ListAssignable(ctx context.Context) ([]TouchPass, *Response, error) {
	return list[TouchPass](ctx, s.client, "/credentials/touch_passes/assignable", nil)
}

// Get fetches a touch pass with its bundles and its activation and expiry
// objects.
//
// API: GET /api/v1/developer/credentials/touch_passes/:id (permission view:credential)
func (s *TouchPassesService) Get(ctx context.Context, id string) (*TouchPass, *Response, error) {
	if err := checkID("TouchPasses.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[TouchPass](ctx, s.client, "GET", "/credentials/touch_passes/"+pathSeg(id), nil, nil, true)
}

// TouchPassUpdate is the body of [TouchPassesService.Update]. A nil
// member keeps the pass's value; a non-nil one sets it (see [Ptr]).
type TouchPassUpdate struct {
	// CardName renames the pass; Ptr("") clears the name.
	CardName *string `json:"card_name,omitempty"`
	// Status suspends ([TouchPassSuspended]) or reactivates
	// ([TouchPassActive]) the pass; no other value is accepted.
	Status *TouchPassStatus `json:"status,omitempty"`
	// Bundles disables bundles (phones) of the pass; nil or empty sends
	// none (a disabled bundle cannot be enabled through the API).
	Bundles []BundleUpdate `json:"bundles,omitempty"`
}

// BundleUpdate disables one bundle of a pass.
type BundleUpdate struct {
	BundleID string `json:"bundle_id"`
	// BundleStatus must be [BundleDisabled].
	BundleStatus BundleStatus `json:"bundle_status"`
}

// Update renames a pass, suspends or reactivates it, or disables some of
// its bundles, and returns the pass.
//
// API: PUT /api/v1/developer/credentials/touch_passes/:id (permission edit:credential)
func (s *TouchPassesService) Update(ctx context.Context, id string, req *TouchPassUpdate) (*TouchPass, *Response, error) {
	const op = "TouchPasses.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if req == nil {
		return nil, nil, invalidArg(op, "req", "must not be nil")
	}
	if req.Status != nil && *req.Status != TouchPassActive && *req.Status != TouchPassSuspended {
		return nil, nil, invalidArg(op, "Status", "must be ACTIVE or SUSPENDED")
	}
	for i, b := range req.Bundles {
		if strings.TrimSpace(b.BundleID) == "" {
			return nil, nil, invalidArg(op, "Bundles["+strconv.Itoa(i)+"].BundleID", "must not be empty")
		}
		if b.BundleStatus != BundleDisabled {
			return nil, nil, invalidArg(op, "Bundles["+strconv.Itoa(i)+"].BundleStatus", "must be DISABLED")
		}
	}
	return call[TouchPass](ctx, s.client, "PUT", "/credentials/touch_passes/"+pathSeg(id), nil, req, true)
}
