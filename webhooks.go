package access

import (
	"context"
	"errors"
	"net/url"
)

// WebhooksService registers and removes webhook endpoints (controller
// version 2.2.10 or later). Get it from [Client.Webhooks]. To receive
// deliveries see [WebhookHandler] and [ConstructEvent].
type WebhooksService service

const webhooksPath = "/webhooks/endpoints"

func (r *WebhookEndpointRequest) validate(op string) error {
	if r == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	u, err := url.Parse(r.Endpoint)
	switch {
	case r.Endpoint == "":
		return invalidArg(op, "Endpoint", "must not be empty")
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return invalidArg(op, "Endpoint", "must be an absolute http or https URL")
	case r.Name == "":
		return invalidArg(op, "Name", "must not be empty")
	case len(r.Events) == 0:
		return invalidArg(op, "Events", "must name at least one event")
	}
	for _, e := range r.Events {
		if e == "" {
			return invalidArg(op, "Events", "must not contain an empty event name")
		}
	}
	return nil
}

// Create registers a webhook endpoint. The returned endpoint carries the
// Secret that signs deliveries. Registering a URL that is already registered
// fails with CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED ([ErrConflict]); use
// [WebhooksService.Ensure] to reuse the existing one instead. Custom Headers
// need controller version 3.1.30 or later.
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is set.
//
// API: POST /api/v1/developer/webhooks/endpoints (permission edit:webhook)
func (s *WebhooksService) Create(ctx context.Context, req *WebhookEndpointRequest) (*WebhookEndpoint, *Response, error) {
	if err := req.validate("Webhooks.Create"); err != nil {
		return nil, nil, err
	}
	return call[WebhookEndpoint](ctx, s.client, "POST", webhooksPath, nil, req, true)
}

// Delete removes the webhook endpoint with the given id.
//
// API: DELETE /api/v1/developer/webhooks/endpoints/{id} (permission edit:webhook)
func (s *WebhooksService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Webhooks.Delete", "id", id); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "DELETE", webhooksPath+"/"+pathSeg(id), nil, nil, false)
	return resp, err
}

// List fetches every registered webhook endpoint, secrets included. The
// operation is in the vendor reference since 2.2.10, beyond the SDK's spec.
//
// API: GET /api/v1/developer/webhooks/endpoints (permission view:webhook)
func (s *WebhooksService) List(ctx context.Context) ([]WebhookEndpoint, *Response, error) {
	return list[WebhookEndpoint](ctx, s.client, webhooksPath, nil)
}

// Ensure registers req like Create, but when its URL is already registered
// it returns the existing endpoint (found with List) instead of failing, so
// that a program can register itself on every start. The existing
// endpoint's name, events and headers are returned as they are, even if
// they differ from req.
func (s *WebhooksService) Ensure(ctx context.Context, req *WebhookEndpointRequest) (*WebhookEndpoint, *Response, error) {
	ep, resp, err := s.Create(ctx, req)
	var apiErr *APIError
	if err == nil || !errors.As(err, &apiErr) || apiErr.Code != CodeDeviceWebhookEndpointDuplicated {
		return ep, resp, err
	}
	all, lresp, lerr := s.List(ctx)
	if lerr != nil {
		return nil, lresp, lerr
	}
	for i := range all {
		if all[i].Endpoint == req.Endpoint {
			return &all[i], lresp, nil
		}
	}
	return nil, resp, err
}
