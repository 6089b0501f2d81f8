package access

import (
	"context"
	"net/url"
	"strings"
)

// TouchPassesService purchases and searches touch passes (controller
// version 3.2.20 or later). Get it from [Client.TouchPasses].
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
