package accesstest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
	// Attempt is the attempt's number: 1 for the first, 2 for the first
	// retry, and so on ([WithWebhookRetries]; without it always 1).
	Attempt int
	// Signature is the Signature header the attempt was sent with ("" if
	// it was never sent).
	Signature string
}

// DefaultWebhookRetryBackoff is the wait before the first retry of a
// failed webhook delivery when [WithWebhookRetries] is given no backoff.
const DefaultWebhookRetryBackoff = 500 * time.Millisecond

// maxWebhookRetryBackoff caps the doubling waits between retries.
const maxWebhookRetryBackoff = 30 * time.Second

// retryPolicy is the webhook deliveries' retry policy; the zero value
// makes one attempt.
type retryPolicy struct {
	retries int
	backoff time.Duration
}

// WithWebhookRetries retries a failed webhook delivery (an error, such as
// a refused connection or the 5-second timeout, or an answer other than
// 2xx) up to retries times, waiting backoff before the first retry and
// twice as long before each next one (at most 30 s); a backoff of zero or
// less means [DefaultWebhookRetryBackoff]. The vendor documents no retry
// policy, so by default the fake makes one attempt, as before.
//
// Every attempt is a [Delivery] of its own in [Server.Deliveries] (and in
// what [Server.Emit] returns), numbered by its Attempt, with the same body
// and a Signature header made at the fake's time of that attempt.
// Retries of the deliveries of state changes wait on a goroutine of their
// own, so that later deliveries and WebSocket notifications are not held
// up; [Server.WaitDeliveries] waits for them too, and [Server.Close] ends
// the waits (the next attempt is dropped with an error).
func WithWebhookRetries(retries int, backoff time.Duration) Option {
	return func(s *Server) {
		if backoff <= 0 {
			backoff = DefaultWebhookRetryBackoff
		}
		s.retry = retryPolicy{retries: max(retries, 0), backoff: backoff}
	}
}

// wait is the wait before attempt (2 or more).
func (p retryPolicy) wait(attempt int) time.Duration {
	w := p.backoff
	for i := 2; i < attempt && w < maxWebhookRetryBackoff; i++ {
		w *= 2
	}
	return min(w, maxWebhookRetryBackoff)
}

// retryWait waits before attempt; it reports false when ctx ended or the
// server closed first.
func (s *Server) retryWait(ctx context.Context, attempt int) bool {
	t := time.NewTimer(s.retry.wait(attempt))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-s.closing:
	}
	return false
}

// retry reports whether d, a failed or successful attempt, is to be
// followed by another.
func (p retryPolicy) retry(d Delivery) bool {
	if errors.Is(d.Err, errServerClosed) {
		return false
	}
	failed := d.Err != nil || d.StatusCode < 200 || d.StatusCode > 299
	return failed && d.Attempt <= p.retries
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
	for _, ep := range s.hub.webhooks {
		if slices.Contains(ep.Events, event) {
			out = append(out, clone(*ep))
		}
	}
	return out
}

// deliver makes one attempt at a delivery as a controller does: a POST
// with Content-Type application/json, the endpoint's custom headers, and
// a Signature header made with the endpoint's secret at time at. It is
// bounded by 5 seconds and by ctx. The caller must not hold s.mu.
func (s *Server) deliver(ctx context.Context, ep access.WebhookEndpoint, event access.EventType, payload []byte, at time.Time, attempt int) Delivery {
	d := Delivery{EndpointID: ep.ID, URL: ep.Endpoint, Event: event, Payload: payload, Attempt: attempt}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.Endpoint, bytes.NewReader(payload))
	if err != nil {
		d.Err = err
		return d
	}
	for k, v := range ep.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	d.Signature = access.SignPayload(payload, ep.Secret.Value(), at)
	req.Header.Set(access.SignatureHeader, d.Signature)
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
// ctx; with [WithWebhookRetries] a failed one is retried before the next
// endpoint's, and every attempt is in the result. An error is returned
// only for a payload without an event name.
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
		d := s.deliver(ctx, ep, head.Event, payload, now, 1)
		out = append(out, d)
		for s.retry.retry(d) && s.retryWait(ctx, d.Attempt+1) {
			d = s.deliver(ctx, ep, head.Event, payload, s.Now(), d.Attempt+1)
			out = append(out, d)
		}
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

// ---- webhook endpoints: the hub store's registered endpoints ----

// AddWebhook registers an endpoint directly; an empty ID or Secret is
// generated. Registering a URL twice fails the test.
func (s *Server) AddWebhook(ep access.WebhookEndpoint) access.WebhookEndpoint {
	return addRecord(s, "AddWebhook", "endpoint or id", ep,
		func(ep *access.WebhookEndpoint) string {
			if ep.ID == "" {
				ep.ID = s.newID()
			}
			if ep.Secret == "" {
				ep.Secret = access.Secret(s.randomHex(8))
			}
			return ep.Endpoint + " " + ep.ID
		},
		func(ep *access.WebhookEndpoint) bool {
			return slices.ContainsFunc(s.hub.webhooks, func(x *access.WebhookEndpoint) bool { return x.Endpoint == ep.Endpoint || x.ID == ep.ID })
		},
		appendTo(&s.hub.webhooks))
}

// Webhooks returns the registered webhook endpoints, secrets included.
func (s *Server) Webhooks() []access.WebhookEndpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]access.WebhookEndpoint, len(s.hub.webhooks))
	for i, ep := range s.hub.webhooks {
		out[i] = clone(*ep)
	}
	return out
}

// webhookRequest decodes and checks the body of a create or an update (the
// vendor requires the same fields for both); it answers the request and
// returns false when the body is bad.
func webhookRequest(w http.ResponseWriter, r *http.Request) (access.WebhookEndpointRequest, bool) {
	var req access.WebhookEndpointRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body is not a JSON endpoint.")
		return req, false
	}
	u, err := url.Parse(req.Endpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		badParams(w, "endpoint must be an http or https URL.")
		return req, false
	case strings.TrimSpace(req.Name) == "":
		badParams(w, "name is required.")
		return req, false
	case len(req.Events) == 0:
		badParams(w, "events is required.")
		return req, false
	}
	for _, e := range req.Events {
		if !e.Known() {
			badParams(w, "unknown event "+strconv.Quote(string(e))+".")
			return req, false
		}
	}
	return req, true
}

// webhookURLTaken reports whether another endpoint than id has the URL.
// Controllers report a duplicate on HTTP 200. s.mu is held.
func (s *Server) webhookURLTaken(w http.ResponseWriter, url, id string) bool {
	for _, x := range s.hub.webhooks {
		if x.Endpoint == url && x.ID != id {
			writeError(w, http.StatusOK, access.CodeDeviceWebhookEndpointDuplicated, "The provided endpoint already exists.")
			return true
		}
	}
	return false
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	req, ok := webhookRequest(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.webhookURLTaken(w, req.Endpoint, "") {
		return
	}
	ep := &access.WebhookEndpoint{ID: s.newID(), Endpoint: req.Endpoint, Name: req.Name, Secret: access.Secret(s.randomHex(8)),
		Events: slices.Clone(req.Events), Headers: req.Headers}
	s.hub.webhooks = append(s.hub.webhooks, ep)
	s.publish(change{Log: "webhook endpoint created: " + ep.ID})
	writeData(w, clone(*ep))
}

// updateWebhook replaces an endpoint's URL, name, events and headers; the
// id and the secret stay.
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	req, ok := webhookRequest(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.hub.webhooks, func(ep *access.WebhookEndpoint) bool { return ep.ID == id })
	if i < 0 {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found.")
		return
	}
	if s.webhookURLTaken(w, req.Endpoint, id) {
		return
	}
	ep := s.hub.webhooks[i]
	ep.Endpoint, ep.Name, ep.Events, ep.Headers = req.Endpoint, req.Name, slices.Clone(req.Events), req.Headers
	s.publish(change{Log: "webhook endpoint updated: " + ep.ID})
	writeData(w, clone(*ep))
}

func (s *Server) listWebhooks(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.Webhooks())
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	i := slices.IndexFunc(s.hub.webhooks, func(ep *access.WebhookEndpoint) bool { return ep.ID == id })
	if i >= 0 {
		s.hub.webhooks = slices.Delete(s.hub.webhooks, i, i+1)
		s.publish(change{Log: "webhook endpoint deleted: " + id})
	}
	s.mu.Unlock()
	if i < 0 {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found.")
		return
	}
	writeData(w, nil)
}
