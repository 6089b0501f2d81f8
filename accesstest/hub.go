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
//   - WebSocket notifications ([Server.wsNotification]), fanned out at
//     once to every subscriber's own queue ([Server.fanOut]): nothing
//     there waits, neither on a webhook endpoint nor on a subscriber that
//     does not read (one whose queue grows past its bound is dropped);
//   - signed webhook deliveries to every registered endpoint subscribed to
//     the event, queued per endpoint and made in order by one goroutine
//     per endpoint, outside s.mu, so that an endpoint that hangs holds up
//     only its own deliveries (see [Server.WaitDeliveries] and
//     [Server.Deliveries]);
//   - a system-log entry and its access.logs.add notification
//     ([Server.appendSystemLog]).

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
	// a policy deleted, ...). Such a change (Event empty) is neither
	// delivered nor notified as an event of its own: it becomes a
	// system-log entry, which subscribers see as access.logs.add.
	Log string
	// LogTopic is the topic of that entry; empty means admin_activity.
	LogTopic access.SystemLogTopic
	// ByAPI marks a change an API call made when Actor is nil: its log
	// entry's actor is the API token rather than the system (timers).
	ByAPI bool
	// AtSite marks a change a person made at the site (physical.go): its
	// log entry's actor is the system, never the API token.
	AtSite bool
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

// hubState holds the webhook endpoints and the deliveries caused by
// state changes: one queue per endpoint.
type hubState struct {
	webhooks []*access.WebhookEndpoint // registered endpoints (webhooks.go, handlers.go)
	queues   map[string]*endpointQueue // by endpoint id: the endpoints with deliveries queued or in flight
	pending  int                       // deliveries queued or in flight, retries included
	unmade   int                       // deliveries whose first attempt is not yet in done: done.total+unmade is the cursor done will have once they are (control.go)
	idle     chan struct{}             // closed when pending drops to 0

	done ring[Delivery] // retention.go: bounded by Retention.Deliveries
}

// endpointQueue is the queued deliveries of one endpoint, made in order
// by one goroutine while running.
type endpointQueue struct {
	jobs    []hubJob
	running bool
}

// hubJob is one queued webhook delivery.
type hubJob struct {
	ep      access.WebhookEndpoint
	event   access.EventType
	payload []byte
	at      time.Time
}

// errServerClosed is the Err of deliveries dropped because the server
// closed.
var errServerClosed = errors.New("accesstest: server closed before the delivery")

// publish turns a state change into the console's outputs and marks the
// state changed for [Server.OnChange]. The caller holds s.mu; nothing here
// blocks or does I/O.
func (s *Server) publish(c change) {
	s.mu.touch()
	at := s.clockNow()
	if c.Event == "" {
		s.appendSystemLog(c, at)
		return
	}
	ev := wireEvent{Event: c.Event, EventObjectID: s.newID(), Data: wireEventData{
		Location: c.Location, Device: c.Device, Actor: c.Actor, Object: c.Object}}
	payload, err := json.Marshal(ev)
	if err != nil {
		s.fail("accesstest: publish %s: %v", c.Event, err)
		return
	}
	s.acts.event(c.Event, ev.EventObjectID)
	if n := s.wsNotification(c, at); n != nil {
		s.queueNotification(n)
	}
	s.appendSystemLog(c, at)
	for _, ep := range s.subscribers(c.Event) {
		s.queueDelivery(hubJob{ep: ep, event: c.Event, payload: payload, at: at})
	}
}

// wsNotification is the WebSocket form of c for the subscribers of the
// notifications WebSocket, as a console sends it (full-api.md §2.4), or
// nil when a console sends none:
//
//   - access.door.unlock: access.data.device.remote_unlock, data the door
//     (a [access.NotificationLocation]);
//   - access.doorbell.incoming: access.remote_view (request_id, device,
//     door and floor names);
//   - access.doorbell.completed: access.remote_view.change (reason_code,
//     remote_call_request_id = the ring's request_id);
//   - access.device.emergency_status: access.data.setting.update, the
//     site's evacuation and lockdown settings after the call;
//   - access.temporary_unlock.start/.end: access.data.v2.location.update
//     with the door's state (lock, remain_unlock).
//
// publish hands it to the subscribers, and appendSystemLog then the
// access.logs.add of the entry; each subscriber's socket sends them in
// order, outside the lock.
// The caller holds s.mu.
func (s *Server) wsNotification(c change, at time.Time) *access.Notification {
	sp := s.sp()
	var d *doorRec
	if c.Location != nil {
		d = sp.door(c.Location.ID)
	}
	switch o := c.Object.(type) {
	case access.DoorUnlockObject:
		if d == nil {
			return nil
		}
		return wsMessage(access.NotificationRemoteUnlock, d.door.ID, s.notificationLocation(d))
	case access.DoorbellObject:
		if c.Event == access.EventDoorbellCompleted {
			return wsMessage(access.NotificationRemoteViewChange, o.RequestID,
				access.RemoteViewChangeData{ReasonCode: access.RemoteViewReason(o.ReasonCode), RemoteCallRequestID: o.RequestID})
		}
		v := access.RemoteViewData{RequestID: o.RequestID, ClearRequestID: o.RequestID, Channel: "ch-" + o.RequestID,
			InOrOut: "in", CreateTime: access.UnixTimeOf(at), DoorGuardIDs: []string{}}
		if c.Device != nil {
			v.DeviceID, v.DeviceType, v.DeviceName = c.Device.ID, c.Device.DeviceType, c.Device.Name
			v.ConnectedUAHID, v.HostDeviceMAC = c.Device.ConnectedHubID, c.Device.MAC
		}
		if d != nil {
			v.DoorName, v.RoomID = d.door.Name, d.door.ID
			if f := sp.floor(d.door.FloorID); f != nil {
				v.FloorName = f.name
			}
		}
		return wsMessage(access.NotificationRemoteView, o.RequestID, v)
	case access.EmergencyStatusObject:
		return wsMessage(access.NotificationSettingUpdate, "", access.SettingUpdateData{
			Evacuation: sp.emergency.Evacuation, Lockdown: sp.emergency.Lockdown})
	case temporaryObject:
		if d == nil {
			return nil
		}
		return wsMessage(access.NotificationLocationUpdateV2, d.door.ID, s.locationV2(d))
	}
	return nil
}

func wsMessage(event access.NotificationEvent, objectID string, data any) *access.Notification {
	b, err := json.Marshal(data)
	if err != nil {
		panic("accesstest: notification data: " + err.Error())
	}
	return &access.Notification{Event: event, EventObjectID: objectID, Data: b}
}

// notificationLocation is a door as the v1 notifications carry it. The
// caller holds s.mu.
func (s *Server) notificationLocation(d *doorRec) access.NotificationLocation {
	dps := "off"
	if d.door.PositionStatus == access.DoorOpen {
		dps = "on"
	}
	return access.NotificationLocation{UniqueID: d.door.ID, Name: d.door.Name, FullName: d.door.FullName, UpID: d.door.FloorID,
		LocationType: "door", Level: 0, WorkTime: "[]", Timezone: s.clockNow().Location().String(),
		Extras: map[string]any{"uah-input_state_dps": dps, "uah-wiring_state_dps-neg": "off", "uah-wiring_state_dps-pos": "off"}}
}

// locationV2 is a door with its live state, as access.data.v2.location.update
// carries it. The caller holds s.mu.
func (s *Server) locationV2(d *doorRec) access.LocationUpdateV2Data {
	sp := s.sp()
	st := &access.LocationState{Lock: "locked", DPS: string(d.door.PositionStatus), DPSConnected: d.door.PositionStatus != "", Enable: true,
		Emergency: &access.LocationEmergency{Software: "none", Hardware: "none"}}
	if st.DPS == "" {
		st.DPS = "none"
	}
	if sp.relay(d) == access.DoorUnlocked {
		st.Lock = "unlocked"
	}
	switch {
	case sp.emergency.Lockdown:
		st.Emergency.Software = "lockdown"
	case sp.emergency.Evacuation:
		st.Emergency.Software = "evacuation"
	}
	switch d.rule {
	case access.LockRuleKeepUnlock, access.LockRuleCustom:
		st.RemainUnlock = &access.LocationLockRule{Type: string(d.rule), Until: access.UnixTimeOf(d.ruleEnds), State: "unlocked"}
	case access.LockRuleKeepLock:
		st.RemainLock = &access.LocationLockRule{Type: string(d.rule), Until: access.UnixTimeOf(d.ruleEnds), State: "locked"}
	}
	var devs []string
	for _, h := range sp.hw.list {
		if slices.Contains(h.doors, d.door.ID) {
			devs = append(devs, h.dev.ID)
		}
	}
	return access.LocationUpdateV2Data{ID: d.door.ID, LocationType: "door", Name: d.door.Name, UpID: d.door.FloorID,
		Extras: map[string]any{}, DeviceIDs: devs, State: st}
}

// queueNotification hands n to the WebSocket subscribers' queues, after
// what was handed before. The caller holds s.mu.
func (s *Server) queueNotification(n *access.Notification) {
	b, err := json.Marshal(n)
	if err != nil {
		s.fail("accesstest: notification %s: %v", n.Event, err)
		return
	}
	s.fanOut(b)
}

// appendSystemLog records c in the system log (see [Server.SystemLogs];
// topics in topicOf, actors and targets in logEntryOf) and queues its
// access.logs.add notification. The caller holds s.mu.
func (s *Server) appendSystemLog(c change, at time.Time) {
	e := s.logEntryOf(c, at)
	s.logs.log.add(at, e)
	s.acts.systemLog(e.ID)
	s.queueNotification(wsMessage(access.NotificationLogsAdd, "", e.SystemLog))
}

// queueDelivery adds a delivery to its endpoint's queue and starts that
// endpoint's delivery goroutine if it is not running. Once the server is
// closed, the job is dropped at once. The caller holds s.mu.
func (s *Server) queueDelivery(j hubJob) {
	h := &s.hub
	if h.pending == 0 {
		h.idle = make(chan struct{})
	}
	h.pending++
	h.unmade++
	if h.queues == nil {
		h.queues = map[string]*endpointQueue{}
	}
	q := h.queues[j.ep.ID]
	if q == nil {
		q = &endpointQueue{}
		h.queues[j.ep.ID] = q
	}
	q.jobs = append(q.jobs, j)
	if q.running {
		return
	}
	q.running = true
	if !s.life.spawn(func() { s.runDeliveries(j.ep.ID, q) }) {
		for _, j := range q.jobs {
			h.unmade--
			s.finish(s.dropped(j, 1))
		}
		delete(h.queues, j.ep.ID)
	}
}

// dropped is the outcome of a job's attempt the server closed before
// making.
func (s *Server) dropped(j hubJob, attempt int) *Delivery {
	return &Delivery{EndpointID: j.ep.ID, URL: j.ep.Endpoint, Event: j.event, Payload: j.payload, Err: errServerClosed, Attempt: attempt}
}

// finish records a job's outcome and that it is no longer pending. The
// caller holds s.mu.
func (s *Server) finish(d *Delivery) {
	h := &s.hub
	h.done.add(*d)
	h.pending--
	if h.pending == 0 {
		close(h.idle)
	}
}

// runDeliveries makes the queued deliveries of one endpoint one after
// another, in the order the changes happened, without holding s.mu while
// delivering. Other endpoints have goroutines of their own: one that
// hangs holds up only its own deliveries.
func (s *Server) runDeliveries(id string, q *endpointQueue) {
	for {
		s.mu.Lock()
		h := &s.hub
		if len(q.jobs) == 0 {
			q.running = false
			delete(h.queues, id)
			s.mu.Unlock()
			return
		}
		j := q.jobs[0]
		q.jobs[0] = hubJob{}
		q.jobs = q.jobs[1:]
		s.mu.Unlock()

		var d *Delivery
		select {
		case <-s.closing:
			d = s.dropped(j, 1)
		default:
			made := s.deliver(s.life.ctx, j.ep, j.event, j.payload, j.at, 1)
			d = &made
		}
		s.mu.Lock()
		h.unmade--
		if s.retry.retry(*d) && s.life.spawn(func() { s.retryDelivery(j, *d) }) {
			// The job stays pending until its retries end. Recorded
			// under the lock, before the retry can record its own.
			h.done.add(*d)
		} else {
			s.finish(d)
		}
		s.mu.Unlock()
	}
}

// retryDelivery makes the retries of the webhook delivery j after the
// failed attempt last ([WithWebhookRetries]), on a goroutine of its own,
// and then finishes the job. The caller must not hold s.mu.
func (s *Server) retryDelivery(j hubJob, last Delivery) {
	for {
		attempt := last.Attempt + 1
		if !s.retryWait(s.life.ctx, attempt) {
			s.mu.Lock()
			s.finish(s.dropped(j, attempt))
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		at := s.clockNow()
		s.mu.Unlock()
		last = s.deliver(s.life.ctx, j.ep, j.event, j.payload, at, attempt)
		s.mu.Lock()
		if !s.retry.retry(last) {
			s.finish(&last)
			s.mu.Unlock()
			return
		}
		s.hub.done.add(last)
		s.mu.Unlock()
	}
}

// WaitDeliveries waits until every webhook delivery caused so far by the
// fake's state changes (unlocks, lock rules, emergency modes, doorbells,
// and the timers [Server.Advance] ran) has been made, with its retries
// ([WithWebhookRetries]), or ctx ends. The WebSocket notifications of
// those changes are already in each connected subscriber's queue when
// the change returns.
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
// state changes, in the order they were made (not those of
// [Server.Emit]), one per attempt ([Delivery.Attempt]): a retry comes
// after the deliveries made while it waited. Call [Server.WaitDeliveries]
// first to include the queued ones. With [Retention.Deliveries] set, only
// the newest deliveries are kept.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hub.done.items()
}
