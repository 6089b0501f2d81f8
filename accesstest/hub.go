package accesstest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/access-dev/access"
)

// The event hub: the ONE place where a state change of the fake becomes
// what a real console produces. Every handler or timer that changes state
// calls [Server.publish] with a [change]; publish builds the webhook
// payload and hands it to the three outputs:
//
//   - signed webhook deliveries to every registered endpoint subscribed to
//     the event (queued here, made in order by one goroutine, outside
//     s.mu; see [Server.WaitDeliveries] and [Server.Deliveries]);
//   - a WebSocket notification: hook point [Server.notifyWebSocket];
//   - a system-log entry: hook point [Server.appendSystemLog].

// change is one state change, described as the webhook event it causes.
type change struct {
	Event access.EventType
	// Location, Device and Actor become data.location, data.device and
	// data.actor; nil ones are left out (emergency events have no
	// location) or sent as null (actor, device).
	Location *access.EventLocation
	Device   *access.EventDevice
	Actor    *access.EventActor
	// Object is the event-specific data.object, encoded with
	// encoding/json.
	Object any
	// Log describes a change that has no webhook event (a user created,
	// a policy deleted, ...). Such a change (Event empty) goes only to the
	// system log: it is neither delivered nor notified. The system-log
	// hook turns the description into an entry.
	Log string
}

// wireEvent is the webhook payload: like access.WebhookEvent, but with
// actor, device and object sent as null when absent, as consoles do.
type wireEvent struct {
	Event         access.EventType `json:"event"`
	EventObjectID string           `json:"event_object_id"`
	Data          wireEventData    `json:"data"`
}

type wireEventData struct {
	Location *access.EventLocation `json:"location,omitempty"`
	Device   *access.EventDevice   `json:"device"`
	Actor    *access.EventActor    `json:"actor"`
	Object   any                   `json:"object"`
}

// hubState is the queue of deliveries caused by state changes.
type hubState struct {
	queue   []hubJob
	pending int           // queued or in flight
	running bool          // the delivery goroutine runs
	idle    chan struct{} // closed when pending drops to 0
	done    []Delivery
}

type hubJob struct {
	ep      access.WebhookEndpoint
	event   access.EventType
	payload []byte
	at      time.Time
}

// errServerClosed is the Err of deliveries dropped because the server
// closed.
var errServerClosed = errors.New("accesstest: server closed before the delivery")

// publish turns a state change into the console's outputs. The caller
// holds s.mu; nothing here blocks or does I/O.
func (s *Server) publish(c change) {
	at := s.clockNow()
	if c.Event == "" {
		s.appendSystemLog(c, at)
		return
	}
	ev := wireEvent{Event: c.Event, EventObjectID: newID(), Data: wireEventData{
		Location: c.Location, Device: c.Device, Actor: c.Actor, Object: c.Object}}
	payload, err := json.Marshal(ev)
	if err != nil {
		s.fail("accesstest: publish %s: %v", c.Event, err)
		return
	}
	s.notifyWebSocket(c, payload, at)
	s.appendSystemLog(c, at)
	for _, ep := range s.subscribers(c.Event) {
		s.queueDelivery(hubJob{ep: ep, event: c.Event, payload: payload, at: at})
	}
}

// notifyWebSocket is the hook point for the notifications WebSocket
// (Notifications.Subscribe): it will send the WebSocket form of c (its
// access.data.* message, with receiver_id and save_to_history) to the
// connected subscribers. payload is the webhook body and at the event's
// time. The caller holds s.mu; it must not block. For now it does nothing.
func (s *Server) notifyWebSocket(c change, payload []byte, at time.Time) {
	_, _, _ = c, payload, at
}

// appendSystemLog is the hook point for the system log (§9): it will
// record c as a log entry (an API unlock with actor type "open_api" and
// its unlock_source). The caller holds s.mu. For now it does nothing.
func (s *Server) appendSystemLog(c change, at time.Time) {
	_, _ = c, at
}

// queueDelivery adds a delivery to the queue and starts the delivery
// goroutine if it is not running. The caller holds s.mu.
func (s *Server) queueDelivery(j hubJob) {
	h := &s.hub
	if h.pending == 0 {
		h.idle = make(chan struct{})
	}
	h.pending++
	h.queue = append(h.queue, j)
	if !h.running {
		h.running = true
		go s.runDeliveries()
	}
}

// runDeliveries makes the queued deliveries one after another, in the
// order the changes happened, without holding s.mu while delivering.
func (s *Server) runDeliveries() {
	for {
		s.mu.Lock()
		h := &s.hub
		if len(h.queue) == 0 {
			h.running = false
			s.mu.Unlock()
			return
		}
		j := h.queue[0]
		h.queue = h.queue[1:]
		s.mu.Unlock()

		var d Delivery
		select {
		case <-s.closing:
			d = Delivery{EndpointID: j.ep.ID, URL: j.ep.Endpoint, Event: j.event, Payload: j.payload, Err: errServerClosed}
		default:
			ctx, cancel := context.WithCancel(context.Background())
			stop := make(chan struct{})
			go func() {
				select {
				case <-s.closing:
					cancel()
				case <-stop:
				}
			}()
			d = s.deliver(ctx, j.ep, j.event, j.payload, j.at)
			close(stop)
			cancel()
		}

		s.mu.Lock()
		h.done = append(h.done, d)
		h.pending--
		if h.pending == 0 {
			close(h.idle)
		}
		s.mu.Unlock()
	}
}

// WaitDeliveries waits until every webhook delivery caused so far by the
// fake's state changes (unlocks, lock rules, emergency modes, doorbells,
// and the timers [Server.Advance] ran) has been made, or ctx ends.
func (s *Server) WaitDeliveries(ctx context.Context) error {
	s.mu.Lock()
	if s.hub.pending == 0 {
		s.mu.Unlock()
		return nil
	}
	idle := s.hub.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Deliveries returns the webhook deliveries made so far for the fake's
// state changes, in order (not those of [Server.Emit]). Call
// [Server.WaitDeliveries] first to include the queued ones.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hub.done)
}
