package accesstest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"

	"github.com/access-dev/access"
)

// Delivery reports one webhook delivery made by [Server.Emit].
type Delivery struct {
	// EndpointID and URL identify the registered endpoint.
	EndpointID string
	URL        string
	// StatusCode is the receiver's answer; 0 when Err is set.
	StatusCode int
	// Err is set when the delivery could not be made (connection refused,
	// the 5-second timeout, a cancelled context).
	Err error
}

func deliveryTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Receivers in tests use httptest's self-signed certificates.
	t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test double delivering to loopback receivers
	return t
}

// Emit delivers payload, a webhook event body, to every registered endpoint
// subscribed to its event, as a controller does: a POST with
// Content-Type application/json, the endpoint's custom headers, and a
// Signature header made with the endpoint's secret at the server's time.
// Deliveries are made one after another, each bounded by 5 seconds and by
// ctx. An error is returned only for a payload without an event name.
func (s *Server) Emit(ctx context.Context, payload []byte) ([]Delivery, error) {
	var head struct {
		Event access.EventType `json:"event"`
	}
	if err := json.Unmarshal(payload, &head); err != nil || head.Event == "" {
		return nil, errors.New("accesstest: Emit: payload is not an event with a name")
	}
	s.mu.Lock()
	var targets []access.WebhookEndpoint
	for _, ep := range s.webhooks {
		if slices.Contains(ep.Events, head.Event) {
			targets = append(targets, clone(*ep))
		}
	}
	now := s.now()
	s.mu.Unlock()

	out := make([]Delivery, 0, len(targets))
	for _, ep := range targets {
		d := Delivery{EndpointID: ep.ID, URL: ep.Endpoint}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.Endpoint, bytes.NewReader(payload))
		if err != nil {
			d.Err = err
			out = append(out, d)
			continue
		}
		for k, v := range ep.Headers {
			req.Header.Set(k, v)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(access.SignatureHeader, access.SignPayload(payload, ep.Secret.Value(), now))
		resp, err := s.delivery.Do(req)
		if err != nil {
			d.Err = err
		} else {
			d.StatusCode = resp.StatusCode
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		out = append(out, d)
	}
	return out, nil
}

// EmitEvent encodes ev and delivers it with [Server.Emit].
func (s *Server) EmitEvent(ctx context.Context, ev *access.WebhookEvent) ([]Delivery, error) {
	if ev == nil {
		return nil, errors.New("accesstest: EmitEvent: nil event")
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	return s.Emit(ctx, b)
}
