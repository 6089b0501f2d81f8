package access

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// EventType names a webhook event. Values are case-sensitive and sent
// verbatim (note the capital REN in [EventDoorbellIncomingREN]).
type EventType string

// The subscribable webhook events. Those marked 3.3.10 need that controller
// version or later.
const (
	EventDoorbellIncoming         EventType = "access.doorbell.incoming"
	EventDoorbellCompleted        EventType = "access.doorbell.completed"
	EventDoorbellIncomingREN      EventType = "access.doorbell.incoming.REN"
	EventDeviceDPSStatus          EventType = "access.device.dps_status"
	EventDoorUnlock               EventType = "access.door.unlock"
	EventDeviceEmergencyStatus    EventType = "access.device.emergency_status"
	EventUnlockScheduleActivate   EventType = "access.unlock_schedule.activate"   // 3.3.10
	EventUnlockScheduleDeactivate EventType = "access.unlock_schedule.deactivate" // 3.3.10
	EventTemporaryUnlockStart     EventType = "access.temporary_unlock.start"     // 3.3.10
	EventTemporaryUnlockEnd       EventType = "access.temporary_unlock.end"       // 3.3.10
	EventVisitorStatusChanged     EventType = "access.visitor.status.changed"     // 3.3.10
)

var allEvents = [...]EventType{
	EventDoorbellIncoming, EventDoorbellCompleted, EventDoorbellIncomingREN,
	EventDeviceDPSStatus, EventDoorUnlock, EventDeviceEmergencyStatus,
	EventUnlockScheduleActivate, EventUnlockScheduleDeactivate,
	EventTemporaryUnlockStart, EventTemporaryUnlockEnd, EventVisitorStatusChanged,
}

// AllEvents lists every subscribable event, in the vendor's order. The
// slice is the caller's to modify.
func AllEvents() []EventType { return slices.Clone(allEvents[:]) }

// Known reports whether e is one of the documented events.
func (e EventType) Known() bool { return slices.Contains(allEvents[:], e) }

// WebhookEvent is a webhook delivery. Location, Device and Actor are nil
// when the controller sends null or leaves them out (door-position,
// schedule and temporary-unlock events have no actor, doorbell REN events
// no device, emergency events no location). Object keeps the event-specific
// payload as raw JSON; the typed accessors ([WebhookEvent.DoorUnlock] and
// the others) decode the documented ones. Raw is the whole body as
// received, for events whose payload the vendor has not documented.
type WebhookEvent struct {
	Event         EventType `json:"event"`
	EventObjectID string    `json:"event_object_id"`
	Data          EventData `json:"data"`
	// Raw is the delivery's body, verbatim.
	Raw json.RawMessage `json:"-"`
}

// EventData is the data member of a [WebhookEvent].
type EventData struct {
	Location *EventLocation `json:"location,omitempty"`
	Device   *EventDevice   `json:"device,omitempty"`
	Actor    *EventActor    `json:"actor,omitempty"`
	// Object is the event-specific payload; nil when null or absent.
	Object json.RawMessage `json:"object,omitempty"`
}

// EventLocation is the door or place an event happened at.
type EventLocation struct {
	ID           string `json:"id"`
	LocationType string `json:"location_type"`
	Name         string `json:"name"`
	UpID         string `json:"up_id"`
	// Extras holds door details such as "door_thumbnail" and
	// "uah-input_state_dps"; values are strings and numbers.
	Extras    map[string]any `json:"extras,omitempty"`
	DeviceIDs []string       `json:"device_ids"`
}

// EventDevice is the device that reported an event.
type EventDevice struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Alias          string   `json:"alias"`
	IP             string   `json:"ip"`
	MAC            string   `json:"mac"`
	Online         bool     `json:"online"`
	Adopting       bool     `json:"adopting,omitempty"`
	DeviceType     string   `json:"device_type"`
	ConnectedHubID string   `json:"connected_hub_id"`
	LocationID     string   `json:"location_id"`
	Firmware       string   `json:"firmware"`
	Version        string   `json:"version"`
	GUID           string   `json:"guid"`
	StartTime      UnixTime `json:"start_time"`
	HWType         string   `json:"hw_type"`
	// Revision is a decimal number in a string.
	Revision string `json:"revision"`
	// Cap is the undocumented capability object (usually null).
	Cap      json.RawMessage `json:"cap,omitempty"`
	Category []string        `json:"category,omitempty"`
}

// EventActor is who caused an event.
type EventActor struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is e.g. "user".
	Type string `json:"type"`
}

// GetName returns the actor's name, or "" for a nil actor (events without
// one carry a null actor).
func (a *EventActor) GetName() string {
	if a == nil {
		return ""
	}
	return a.Name
}

// GetName returns the location's name, or "" for a nil location.
func (l *EventLocation) GetName() string {
	if l == nil {
		return ""
	}
	return l.Name
}

// GetName returns the device's name, or "" for a nil device.
func (d *EventDevice) GetName() string {
	if d == nil {
		return ""
	}
	return d.Name
}

// DoorUnlockObject is the object of [EventDoorUnlock].
type DoorUnlockObject struct {
	// AuthenticationType is how the door was opened: NFC, PIN_CODE, CALL…
	AuthenticationType  string `json:"authentication_type"`
	AuthenticationValue string `json:"authentication_value"`
	PolicyID            string `json:"policy_id"`
	PolicyName          string `json:"policy_name"`
	ReaderID            string `json:"reader_id"`
	// Result is e.g. "Access Granted".
	Result string `json:"result"`
	// Extra is the extra value given to [DoorsService.Unlock], echoed by
	// the controller (3.3.21 or later). The vendor does not show where in
	// the payload it lands; this field reads object.extra, where accesstest
	// puts it. Nil when absent.
	Extra json.RawMessage `json:"extra,omitempty"`
}

// DoorbellObject is the object of the doorbell events
// ([EventDoorbellIncoming], [EventDoorbellIncomingREN],
// [EventDoorbellCompleted]).
type DoorbellObject struct {
	RequestID     string `json:"request_id"`
	HostDeviceMAC string `json:"host_device_mac,omitempty"`
	// ReasonCode (completed events) is 105 timed out, 106 declined by an
	// admin, 107 unlocked by an admin, 108 cancelled by the visitor, 400
	// answered by another admin.
	ReasonCode int `json:"reason_code,omitempty"`
}

// DPSStatusObject is the object of [EventDeviceDPSStatus] (door position
// sensor).
type DPSStatusObject struct {
	// EventType is "dps_change".
	EventType string `json:"event_type"`
	// Status is "open" or "close".
	Status string `json:"status"`
}

// EmergencyStatusObject is the object of [EventDeviceEmergencyStatus].
type EmergencyStatusObject struct {
	// Global (the controller spells it "glocal") means every location is
	// affected.
	Global bool `json:"glocal"`
	// Mode is "lockdown" or "evacuation".
	Mode string `json:"mode"`
	// Value is true when the mode turned on, false when it ended.
	Value bool `json:"value"`
}

// ErrEventMismatch is returned by a typed accessor of [WebhookEvent] called
// for an event of another type.
var ErrEventMismatch = errors.New("access: accessor does not match the event type")

// ParseEvent decodes a delivery body without verifying it; use
// [ConstructEvent] for deliveries from the network. The body must be a
// JSON object with a non-empty event name; errors match [ErrInvalidPayload].
func ParseEvent(payload []byte) (*WebhookEvent, error) {
	ev := &WebhookEvent{}
	if err := json.Unmarshal(payload, ev); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if ev.Event == "" {
		return nil, fmt.Errorf("%w: no event name", ErrInvalidPayload)
	}
	if string(ev.Data.Object) == "null" {
		ev.Data.Object = nil
	}
	if d := ev.Data.Device; d != nil && string(d.Cap) == "null" {
		d.Cap = nil
	}
	ev.Raw = append(json.RawMessage(nil), payload...)
	return ev, nil
}

// DecodeObject decodes the event's object into v, for events without a
// typed accessor. A null or absent object leaves v unchanged.
func (e *WebhookEvent) DecodeObject(v any) error {
	if len(e.Data.Object) == 0 {
		return nil
	}
	if err := json.Unmarshal(e.Data.Object, v); err != nil {
		return fmt.Errorf("access: decode %s object: %w", e.Event, err)
	}
	return nil
}

func objectOf[T any](e *WebhookEvent, types ...EventType) (*T, error) {
	if !slices.Contains(types, e.Event) {
		return nil, fmt.Errorf("%w: event is %s", ErrEventMismatch, e.Event)
	}
	v := new(T)
	if err := e.DecodeObject(v); err != nil {
		return nil, err
	}
	return v, nil
}

// DoorUnlock decodes the object of an [EventDoorUnlock] event.
func (e *WebhookEvent) DoorUnlock() (*DoorUnlockObject, error) {
	return objectOf[DoorUnlockObject](e, EventDoorUnlock)
}

// Doorbell decodes the object of a doorbell event (incoming, incoming REN
// or completed).
func (e *WebhookEvent) Doorbell() (*DoorbellObject, error) {
	return objectOf[DoorbellObject](e, EventDoorbellIncoming, EventDoorbellIncomingREN, EventDoorbellCompleted)
}

// DPSStatus decodes the object of an [EventDeviceDPSStatus] event.
func (e *WebhookEvent) DPSStatus() (*DPSStatusObject, error) {
	return objectOf[DPSStatusObject](e, EventDeviceDPSStatus)
}

// EmergencyStatus decodes the object of an [EventDeviceEmergencyStatus]
// event.
func (e *WebhookEvent) EmergencyStatus() (*EmergencyStatusObject, error) {
	return objectOf[EmergencyStatusObject](e, EventDeviceEmergencyStatus)
}
