package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/monitor"
)

// IncidentEventPrefix is put before an incident line's type to make the
// event name of its webhook delivery ("access.monitor.incident.opened").
const IncidentEventPrefix = "access.monitor."

// WebhookIDHeader carries a delivery's event id, the same for every
// attempt, so that a receiver can drop a duplicate.
const WebhookIDHeader = "Webhook-Id"

// Forwarder posts incident lines to a URL as webhook deliveries signed as
// a console signs them (the Signature header of [access.SignPayload],
// which [access.ConstructEvent] verifies): {"event":
// "access.monitor.incident.opened", "event_object_id": <incident id>,
// "data": {"object": <the incident>}}. Deliveries wait in a bounded queue
// that [Forwarder.Enqueue] never blocks on: when it is full the incident is
// dropped and counted. Each delivery is tried up to Attempts times, with a
// doubling wait from Backoff, until the receiver answers 2xx.
type Forwarder struct {
	url    string
	secret func() string
	hc     *http.Client
	// Attempts (default 4) and Backoff (default 1 s) shape the retries.
	Attempts int
	Backoff  time.Duration
	// Now is the clock of the signatures (default time.Now).
	Now func() time.Time

	q       chan delivery
	metrics *Metrics
	mu      sync.Mutex
	busy    int // deliveries queued or in flight
	idle    chan struct{}
}

type delivery struct {
	id      string
	payload []byte
}

// NewForwarder returns a forwarder to url signing with the secret that
// secret returns (a function, so the secret is never a printable field),
// queueing at most size deliveries (default 1000). m, when not nil, counts
// the deliveries.
func NewForwarder(url string, secret func() string, size int, hc *http.Client, m *Metrics) *Forwarder {
	if size <= 0 {
		size = 1000
	}
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	return &Forwarder{url: url, secret: secret, hc: hc, Attempts: 4, Backoff: time.Second, Now: time.Now,
		q: make(chan delivery, size), metrics: m}
}

// webhookEvent is the delivery's body.
type webhookEvent struct {
	Event         string `json:"event"`
	EventObjectID string `json:"event_object_id"`
	Data          struct {
		Object monitor.Incident `json:"object"`
	} `json:"data"`
}

// Enqueue queues an incident line; it reports false when the queue was
// full and the line was dropped. It never blocks.
func (f *Forwarder) Enqueue(in monitor.Incident) bool {
	ev := webhookEvent{Event: IncidentEventPrefix + in.Type, EventObjectID: in.ID}
	ev.Data.Object = in
	b, err := json.Marshal(ev)
	if err != nil {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case f.q <- delivery{id: in.ID + "." + in.Type, payload: b}:
		f.busy++
		return true
	default:
		f.count("dropped")
		return false
	}
}

// Len returns the number of deliveries waiting.
func (f *Forwarder) Len() int { return len(f.q) }

func (f *Forwarder) count(result string) {
	if f.metrics != nil {
		f.metrics.deliveries.WithLabelValues(result).Inc()
	}
}

// Run delivers the queue until ctx ends; then it keeps delivering what
// is queued or in flight for at most drain (a clean shutdown loses
// nothing it can deliver in that time).
func (f *Forwarder) Run(ctx context.Context, drain time.Duration) {
	// dctx outlives ctx by drain: deliveries (and their retries) use it.
	dctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(drain, cancel)
		context.AfterFunc(dctx, func() { t.Stop() })
	})
	defer stop()
	for {
		select {
		case d := <-f.q:
			f.deliver(dctx, d)
		case <-ctx.Done():
			for {
				select {
				case d := <-f.q:
					f.deliver(dctx, d)
				default:
					return
				}
			}
		}
	}
}

func (f *Forwarder) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.busy--
	if f.busy == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// Wait returns once nothing is queued or in flight, or ctx ends.
func (f *Forwarder) Wait(ctx context.Context) error {
	f.mu.Lock()
	if f.busy == 0 {
		f.mu.Unlock()
		return nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *Forwarder) deliver(ctx context.Context, d delivery) {
	defer f.done()
	wait := f.Backoff
	for attempt := 1; ; attempt++ {
		if f.post(ctx, d) {
			f.count("ok")
			return
		}
		if attempt >= f.Attempts || ctx.Err() != nil {
			f.count("failed")
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			f.count("failed")
			return
		case <-t.C:
		}
		wait *= 2
	}
}

func (f *Forwarder) post(ctx context.Context, d delivery) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url, bytes.NewReader(d.payload))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(WebhookIDHeader, d.id)
	req.Header.Set(access.SignatureHeader, access.SignPayload(d.payload, f.secret(), f.Now()))
	resp, err := f.hc.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}
