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
	"time"

	"github.com/access-dev/access"
)

// Delivery reports one webhook delivery, made by [Server.Emit] or, for a
// state change of the fake, by its event hub (see [Server.Deliveries]).
type Delivery struct {
	// EndpointID and URL identify the registered endpoint.
	EndpointID string
	URL        string
	// Event is the delivered event's name and Payload the signed body.
	Event   access.EventType
	Payload []byte
	// StatusCode is the receiver's answer; 0 when Err is set.
	StatusCode int
	// Latency is how long the receiver took to answer, or to fail.
	Latency time.Duration
	// Err is set when the delivery could not be made (connection refused,
	// the 5-second timeout, a cancelled context, the server closing).
	Err error
}

func deliveryTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	// Receivers in tests use httptest's self-signed certificates.
	t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // test double delivering to loopback receivers
	return t
}

// subscribers returns copies of the endpoints subscribed to event. The
// caller holds s.mu.
func (s *Server) subscribers(event access.EventType) []access.WebhookEndpoint {
	var out []access.WebhookEndpoint
	for _, ep := range s.webhooks {
		if slices.Contains(ep.Events, event) {
			out = append(out, clone(*ep))
		}
	}
	return out
}

// deliver makes one delivery as a controller does: a POST with
// Content-Type application/json, the endpoint's custom headers, and a
// Signature header made with the endpoint's secret at time at. It is
// bounded by 5 seconds and by ctx. The caller must not hold s.mu.
func (s *Server) deliver(ctx context.Context, ep access.WebhookEndpoint, event access.EventType, payload []byte, at time.Time) Delivery {
	d := Delivery{EndpointID: ep.ID, URL: ep.Endpoint, Event: event, Payload: payload}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.Endpoint, bytes.NewReader(payload))
	if err != nil {
		d.Err = err
		return d
	}
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(access.SignatureHeader, access.SignPayload(payload, ep.Secret.Value(), at))
	start := time.Now()
	resp, err := s.delivery.Do(req)
	d.Latency = time.Since(start)
	if err != nil {
		d.Err = err
		return d
	}
	d.StatusCode = resp.StatusCode
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return d
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
	targets := s.subscribers(head.Event)
	now := s.clockNow()
	s.mu.Unlock()

	out := make([]Delivery, 0, len(targets))
	for _, ep := range targets {
		out = append(out, s.deliver(ctx, ep, head.Event, payload, now))
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
