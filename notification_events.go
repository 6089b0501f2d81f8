package access

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The notifications themselves: the message every WebSocket frame carries,
// the event names, and the typed views of each event's data.

// NotificationEvent names a notification of the WebSocket. Only the first
// three constants are documented by the vendor; the others are what
// consoles are seen to send and may change without notice between Access
// versions and hubs. Unknown names are passed through.
type NotificationEvent string

// The notifications with a typed accessor on [Notification], and the
// handshake.
const (
	// NotificationRemoteView: a doorbell rings ([Notification.RemoteView]).
	NotificationRemoteView NotificationEvent = "access.remote_view"
	// NotificationRemoteViewChange: a doorbell call ended
	// ([Notification.RemoteViewChange]).
	NotificationRemoteViewChange NotificationEvent = "access.remote_view.change"
	// NotificationRemoteUnlock: an admin unlocked a door remotely
	// ([Notification.RemoteUnlock]).
	NotificationRemoteUnlock NotificationEvent = "access.data.device.remote_unlock"

	// NotificationDeviceUpdate (observed): a device's configuration
	// changed, door-position input included ([Notification.DeviceUpdate]).
	NotificationDeviceUpdate NotificationEvent = "access.data.device.update"
	// NotificationDeviceUpdateV2 (observed): a device's state, with the
	// lock and door position of its doors ([Notification.DeviceUpdateV2]).
	NotificationDeviceUpdateV2 NotificationEvent = "access.data.v2.device.update"
	// NotificationLocationUpdate (observed): a door or place was changed
	// ([Notification.LocationUpdate]).
	NotificationLocationUpdate NotificationEvent = "access.data.location.update"
	// NotificationLocationUpdateV2 (observed): a door's lock, door position,
	// lock rule and emergency state ([Notification.LocationUpdateV2]).
	NotificationLocationUpdateV2 NotificationEvent = "access.data.v2.location.update"
	// NotificationDeviceLocationUpdateV2 (observed on some versions) has
	// the payload of NotificationLocationUpdateV2.
	NotificationDeviceLocationUpdateV2 NotificationEvent = "access.data.device.location_update_v2"
	// NotificationSettingUpdate (observed): the evacuation or lockdown
	// setting changed ([Notification.SettingUpdate]).
	NotificationSettingUpdate NotificationEvent = "access.data.setting.update"
	// NotificationLogsAdd (observed): an access-log entry, e.g. a door
	// unlocked by a card ([Notification.LogsAdd]). Some hubs and versions
	// have stopped sending it.
	NotificationLogsAdd NotificationEvent = "access.logs.add"
	// NotificationDoorBell (observed): a hardware doorbell button was
	// pressed ([Notification.DoorBell]).
	NotificationDoorBell NotificationEvent = "access.hw.door_bell"

	// NotificationBaseInfo is the handshake a console sends first on every
	// connection. [NotificationsService.Subscribe] does not yield it.
	NotificationBaseInfo NotificationEvent = "access.base.info"
)

// Notification is one message of the notifications WebSocket. Data keeps
// the event-specific payload as raw JSON; the typed accessors
// ([Notification.RemoteView] and the others) decode it for the known
// events, and [Notification.DecodeData] for any other. Every member may be
// missing or null: it is then the zero value.
type Notification struct {
	Event NotificationEvent `json:"event"`
	// ReceiverID addresses the notification (often empty).
	ReceiverID string `json:"receiver_id"`
	// EventObjectID is the id of the object concerned (a door, a device).
	EventObjectID string `json:"event_object_id"`
	// SaveToHistory tells whether the console keeps it in its history.
	SaveToHistory bool `json:"save_to_history"`
	// Data is the payload; nil when null or absent.
	Data json.RawMessage `json:"data"`
	// Meta is the member some v2 events carry next to data (object_type,
	// target_field…); nil when absent.
	Meta json.RawMessage `json:"meta,omitempty"`
}

// ParseNotification decodes one message of the WebSocket. It must be a JSON
// object with a non-empty event name; errors match
// [ErrInvalidNotification]. The envelope is decoded leniently: ids given as
// numbers become strings, save_to_history may be a string or a number,
// nulls are zero values. Data and Meta are copies: msg may be reused.
func ParseNotification(msg []byte) (*Notification, error) {
	n := &Notification{}
	if err := n.decode(msg); err != nil {
		return nil, err
	}
	return n, nil
}

// UnmarshalJSON implements the lenient decoding described on
// [ParseNotification].
func (n *Notification) UnmarshalJSON(b []byte) error { return n.decode(b) }

// decode reads b into n. The envelope is split into its members in one
// walk over b that also validates it (splitEnvelope: json.Valid's answer,
// without an allocation or its scanner's function call per byte), and
// each member is then read as described on [ParseNotification]. Only when
// that walk cannot split b (it is not valid JSON, not an object, nested
// deeper than the walk's stack, or a key has escapes or non-ASCII letters,
// which encoding/json decodes and folds) does encoding/json split it
// instead; the members are then read the same way, so both give the same
// result. On error n is left unchanged.
func (n *Notification) decode(b []byte) error {
	m, ok := splitEnvelope(b)
	if !ok {
		var err error
		if m, err = splitEnvelopeJSON(b); err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidNotification, err)
		}
	}
	return m.notification(n)
}

// envelopeMembers holds the raw values of a notification's envelope
// members, nil when absent. When a member appears more than once the last
// one counts, as with encoding/json.
type envelopeMembers struct {
	event, receiverID, eventObjectID, saveToHistory, data, meta []byte
}

// splitEnvelopeJSON splits b with encoding/json: the lenient path, for what
// splitEnvelope does not take.
func splitEnvelopeJSON(b []byte) (envelopeMembers, error) {
	var w struct {
		Event         json.RawMessage `json:"event"`
		ReceiverID    json.RawMessage `json:"receiver_id"`
		EventObjectID json.RawMessage `json:"event_object_id"`
		SaveToHistory json.RawMessage `json:"save_to_history"`
		Data          json.RawMessage `json:"data"`
		Meta          json.RawMessage `json:"meta"`
	}
	err := json.Unmarshal(b, &w)
	return envelopeMembers{w.Event, w.ReceiverID, w.EventObjectID, w.SaveToHistory, w.Data, w.Meta}, err
}

// splitEnvelope checks that b is valid JSON and finds the raw values of
// the envelope's members in it, in one walk. ok is false when b is not
// valid JSON (as json.Valid decides), is not an object, nests deeper than
// scanValue checks, or a key holds an escape or a byte outside ASCII
// (encoding/json would decode and fold it); the caller then uses
// splitEnvelopeJSON. Keys match as encoding/json matches them: exactly or
// ignoring ASCII case.
func splitEnvelope(b []byte) (m envelopeMembers, ok bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return m, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, skipSpace(b, i+1) == len(b)
	}
	for {
		// b[i] opens the key.
		if i >= len(b) || b[i] != '"' {
			return m, false
		}
		end, ok := scanString(b, i)
		if !ok {
			return m, false
		}
		key := b[i+1 : end-1]
		for _, c := range key {
			if c == '\\' || c >= utf8.RuneSelf {
				return m, false
			}
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return m, false
		}
		i = skipSpace(b, i+1)
		vend, r := scanValue(b, i)
		if r != scanOK {
			return m, false
		}
		v := b[i:vend:vend]
		switch {
		case asciiFold(key, "event"):
			m.event = v
		case asciiFold(key, "receiver_id"):
			m.receiverID = v
		case asciiFold(key, "event_object_id"):
			m.eventObjectID = v
		case asciiFold(key, "save_to_history"):
			m.saveToHistory = v
		case asciiFold(key, "data"):
			m.data = v
		case asciiFold(key, "meta"):
			m.meta = v
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return m, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return m, skipSpace(b, i+1) == len(b)
		default:
			return m, false
		}
	}
}

// skipSpace returns the index of the first byte from i on that is not JSON
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// asciiFold reports whether key equals name, an ASCII lower-case name,
// ignoring ASCII case.
func asciiFold(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range key {
		c := key[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// notification reads the members into n as described on
// [ParseNotification]. Data and Meta are copied (into one allocation):
// the members may point into a buffer that is reused.
func (m *envelopeMembers) notification(n *Notification) error {
	event, ok := jsonString(m.event)
	if !ok || len(bytes.TrimSpace(event)) == 0 {
		return fmt.Errorf("%w: no event name", ErrInvalidNotification)
	}
	v := Notification{
		Event:         knownEvent(event),
		ReceiverID:    looseString(m.receiverID),
		EventObjectID: looseString(m.eventObjectID),
		SaveToHistory: looseBool(m.saveToHistory),
	}
	data, meta := nonNull(m.data), nonNull(m.meta)
	if len(data)+len(meta) > 0 {
		buf := make([]byte, len(data)+len(meta))
		copy(buf, data)
		copy(buf[len(data):], meta)
		if data != nil {
			v.Data = buf[:len(data):len(data)]
		}
		if meta != nil {
			v.Meta = buf[len(data):]
		}
	}
	*n = v
	return nil
}

// knownEvents are the event names that decode without an allocation.
var knownEvents = [...]NotificationEvent{
	NotificationRemoteView, NotificationRemoteViewChange, NotificationRemoteUnlock,
	NotificationDeviceUpdate, NotificationDeviceUpdateV2, NotificationLocationUpdate,
	NotificationLocationUpdateV2, NotificationDeviceLocationUpdateV2, NotificationSettingUpdate,
	NotificationLogsAdd, NotificationDoorBell, NotificationBaseInfo,
}

// knownEvent returns the event's constant when it is a known name (no
// allocation for the name), else a string of its own.
func knownEvent(b []byte) NotificationEvent {
	for _, e := range knownEvents {
		if string(e) == string(b) {
			return e
		}
	}
	return NotificationEvent(b)
}

// jsonString decodes b when it is a JSON string. Without escapes and in
// valid UTF-8 (the usual case) its bytes are the string; otherwise
// encoding/json decodes it.
func jsonString(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '"' {
		return nil, false
	}
	s := b[1 : len(b)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s, true
	}
	var v string
	if json.Unmarshal(b, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}

// looseString reads a string, number or boolean as text; anything else
// (null, an object, an array) is "".
func looseString(b []byte) string {
	if s, ok := jsonString(b); ok {
		return string(s)
	}
	if len(b) > 0 && (b[0] == '-' || (b[0] >= '0' && b[0] <= '9') || string(b) == "true" || string(b) == "false") {
		return string(b)
	}
	return ""
}

// looseBool reads true, "true", 1 and "1" (and "yes"), in any case, as
// true; anything else is false.
func looseBool(b []byte) bool {
	b = bytes.Trim(b, `"`)
	return asciiFold(b, "true") || asciiFold(b, "1") || asciiFold(b, "yes")
}

func nonNull(b []byte) []byte {
	if len(b) == 0 || isNull(b) {
		return nil
	}
	return b
}

// DecodeData decodes Data into v, for notifications without a typed
// accessor. Null or absent data leaves v unchanged. Members whose JSON type
// does not match v's field are skipped (left as they were), as the typed
// accessors do; data that is not an object, or not JSON, is an error
// matching [ErrInvalidNotification].
func (n *Notification) DecodeData(v any) error {
	if len(n.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(n.Data, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil
		}
		return fmt.Errorf("%w: %s data: %v", ErrInvalidNotification, n.Event, err)
	}
	return nil
}

func notificationData[T any](n *Notification, events ...NotificationEvent) (*T, error) {
	for _, e := range events {
		if n.Event == e {
			v := new(T)
			if err := n.DecodeData(v); err != nil {
				return nil, err
			}
			return v, nil
		}
	}
	return nil, fmt.Errorf("%w: notification is %s", ErrEventMismatch, n.Event)
}

// RemoteViewData is the data of [NotificationRemoteView]: a doorbell rings.
type RemoteViewData struct {
	// RequestID identifies the call; the [NotificationRemoteViewChange]
	// that ends it carries it as RemoteCallRequestID.
	RequestID      string `json:"request_id"`
	ClearRequestID string `json:"clear_request_id"`
	// Channel and Token identify the call's media stream (not the API
	// token).
	Channel      string `json:"channel"`
	Token        string `json:"token"`
	DeviceID     string `json:"device_id"`
	DeviceType   string `json:"device_type"`
	DeviceName   string `json:"device_name"`
	DoorName     string `json:"door_name"`
	ControllerID string `json:"controller_id"`
	FloorName    string `json:"floor_name"`
	// InOrOut is "in" or "out".
	InOrOut    string   `json:"in_or_out"`
	CreateTime UnixTime `json:"create_time"`
	ReasonCode int      `json:"reason_code"`
	// DoorGuardIDs are the admins the call rings.
	DoorGuardIDs   []string `json:"door_guard_ids"`
	ConnectedUAHID string   `json:"connected_uah_id"`
	RoomID         string   `json:"room_id"`
	HostDeviceMAC  string   `json:"host_device_mac"`
}

// RemoteView decodes the data of a [NotificationRemoteView] (documented).
func (n *Notification) RemoteView() (*RemoteViewData, error) {
	return notificationData[RemoteViewData](n, NotificationRemoteView)
}

// RemoteViewReason says how a doorbell call ended. It decodes a JSON number
// or a numeric string.
type RemoteViewReason int

// The documented reason codes of [NotificationRemoteViewChange] (and of the
// access.doorbell.completed webhook).
const (
	RemoteViewTimedOut          RemoteViewReason = 105 // nobody answered
	RemoteViewRejected          RemoteViewReason = 106 // an admin rejected the call
	RemoteViewUnlocked          RemoteViewReason = 107 // an admin unlocked the door
	RemoteViewCancelled         RemoteViewReason = 108 // the visitor cancelled
	RemoteViewAnsweredElsewhere RemoteViewReason = 400 // another admin answered
)

// String names the reason, e.g. "timed out"; unknown codes print as a
// number.
func (r RemoteViewReason) String() string {
	switch r {
	case RemoteViewTimedOut:
		return "timed out"
	case RemoteViewRejected:
		return "rejected by an admin"
	case RemoteViewUnlocked:
		return "unlocked by an admin"
	case RemoteViewCancelled:
		return "cancelled by the visitor"
	case RemoteViewAnsweredElsewhere:
		return "answered by another admin"
	}
	return fmt.Sprintf("reason %d", int(r))
}

// UnmarshalJSON accepts a number and a numeric string; null and anything
// else leave the reason unchanged (0 when decoded into a new value).
func (r *RemoteViewReason) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(strings.Trim(string(b), `"`))
	if v, err := strconv.Atoi(s); err == nil {
		*r = RemoteViewReason(v)
	}
	return nil
}

// RemoteViewChangeData is the data of [NotificationRemoteViewChange]: a
// doorbell call ended.
type RemoteViewChangeData struct {
	ReasonCode RemoteViewReason `json:"reason_code"`
	// RemoteCallRequestID is the RequestID of the ring.
	RemoteCallRequestID string `json:"remote_call_request_id"`
}

// RemoteViewChange decodes the data of a [NotificationRemoteViewChange]
// (documented).
func (n *Notification) RemoteViewChange() (*RemoteViewChangeData, error) {
	return notificationData[RemoteViewChangeData](n, NotificationRemoteViewChange)
}

// NotificationLocation is a door or another place, as the v1 notifications
// carry it.
type NotificationLocation struct {
	UniqueID string `json:"unique_id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	// UpID is the parent place (the floor of a door).
	UpID     string `json:"up_id"`
	Timezone string `json:"timezone"`
	// LocationType is e.g. "door", "floor", "building".
	LocationType string `json:"location_type"`
	ExtraType    string `json:"extra_type"`
	Level        int    `json:"level"`
	// WorkTime is a JSON document in a string, e.g. "[]".
	WorkTime   string `json:"work_time"`
	WorkTimeID string `json:"work_time_id"`
	// Extras holds door details such as "uah-input_state_dps" ("on"/"off")
	// and "door_thumbnail"; values are strings and numbers.
	Extras map[string]any `json:"extras"`
	// PreviousName lists former names (location updates).
	PreviousName []string `json:"previous_name"`
}

// RemoteUnlock decodes the data of a [NotificationRemoteUnlock]
// (documented): the door that was unlocked remotely. The event does not
// say who unlocked it: that is in the [NotificationLogsAdd] that follows
// (see [Notification.LogsAdd]), an observed event that consoles send
// depending on their version and hub (accesstest always sends it).
func (n *Notification) RemoteUnlock() (*NotificationLocation, error) {
	return notificationData[NotificationLocation](n, NotificationRemoteUnlock)
}

// LocationUpdate decodes the data of a [NotificationLocationUpdate]
// (observed).
func (n *Notification) LocationUpdate() (*NotificationLocation, error) {
	return notificationData[NotificationLocation](n, NotificationLocationUpdate)
}

// DeviceConfig is one configuration entry of a device, e.g. key
// "input_state_dps" with value "on" (door open) or "off". Real hubs add
// the device's id and the entry's creation and update times.
type DeviceConfig struct {
	Key        string   `json:"key"`
	Value      string   `json:"value"`
	Tag        string   `json:"tag"`
	DeviceID   string   `json:"device_id,omitempty"`
	CreateTime DateTime `json:"create_time,omitempty"`
	UpdateTime DateTime `json:"update_time,omitempty"`
}

// DeviceUpdateData is the data of [NotificationDeviceUpdate] (observed).
//
// It comes in two shapes, and both decode. Older frames carry a short
// record with "online" and the device's door under "door". Real hubs send
// the full device record: "is_online", "is_adopted", "is_connected",
// "is_managed", firmware, version, addresses, model, capabilities, configs
// and the door under "location". The real-console spellings "is_online"
// and "location" are read into Online and Door (encoding writes "online"
// and "door"); everything else keeps its own field.
type DeviceUpdateData struct {
	UniqueID   string `json:"unique_id"`
	Name       string `json:"name"`
	Alias      string `json:"alias"`
	DeviceType string `json:"device_type"`
	// Online is "online", or "is_online" in the full record.
	Online bool `json:"online"`
	// Door is the door the device serves ("door", or "location" in the
	// full record), nil when none.
	Door *NotificationLocation `json:"door"`
	// Configs are the device's settings and input states.
	Configs []DeviceConfig `json:"configs"`

	// The full record's other members; zero in the short shape.
	IsAdopted      bool     `json:"is_adopted,omitempty"`
	IsConnected    bool     `json:"is_connected,omitempty"`
	IsManaged      bool     `json:"is_managed,omitempty"`
	IsRebooting    bool     `json:"is_rebooting,omitempty"`
	Adopting       bool     `json:"adopting,omitempty"`
	Firmware       string   `json:"firmware,omitempty"`
	Version        string   `json:"version,omitempty"`
	IP             string   `json:"ip,omitempty"`
	MAC            string   `json:"mac,omitempty"`
	Model          string   `json:"model,omitempty"`
	HWType         string   `json:"hw_type,omitempty"`
	GUID           string   `json:"guid,omitempty"`
	BOMRev         string   `json:"bom_rev,omitempty"`
	ConnectedUAHID string   `json:"connected_uah_id,omitempty"`
	LocationID     string   `json:"location_id,omitempty"`
	Capabilities   []string `json:"capabilities,omitempty"`
	StartTime      UnixTime `json:"start_time,omitempty"`
	LastSeen       UnixTime `json:"last_seen,omitempty"`
	SecurityCheck  bool     `json:"security_check,omitempty"`
	NeedAdvisory   bool     `json:"need_advisory,omitempty"`
}

// UnmarshalJSON decodes both shapes described on [DeviceUpdateData].
// Members of an unexpected JSON type are left zero and reported as
// *json.UnmarshalTypeError after the others are decoded, as
// [Notification.DecodeData] expects.
func (d *DeviceUpdateData) UnmarshalJSON(b []byte) error {
	type plain DeviceUpdateData
	var w struct {
		plain
		IsOnline *bool                 `json:"is_online"`
		Location *NotificationLocation `json:"location"`
	}
	err := json.Unmarshal(b, &w)
	var te *json.UnmarshalTypeError
	if err != nil && !(errors.As(err, &te) && te.Field != "") {
		return err
	}
	*d = DeviceUpdateData(w.plain)
	if w.IsOnline != nil && *w.IsOnline {
		d.Online = true
	}
	if d.Door == nil {
		d.Door = w.Location
	}
	return err
}

// Config returns the value of the config entry with the given key.
func (d *DeviceUpdateData) Config(key string) (string, bool) {
	for _, c := range d.Configs {
		if c.Key == key {
			return c.Value, true
		}
	}
	return "", false
}

// DeviceUpdate decodes the data of a [NotificationDeviceUpdate] (observed).
func (n *Notification) DeviceUpdate() (*DeviceUpdateData, error) {
	return notificationData[DeviceUpdateData](n, NotificationDeviceUpdate)
}

// LocationLockRule is a temporary lock rule in force on a door (the state's
// remain_lock or remain_unlock).
type LocationLockRule struct {
	// Type is e.g. "keep_lock", "keep_unlock", "custom", "reset".
	Type string `json:"type"`
	// Until is when the rule ends.
	Until UnixTime `json:"until"`
	State string   `json:"state"`
}

// LocationEmergency is the emergency state of a door: "none", "lockdown" or
// "evacuation", set in software or by a hardware input.
type LocationEmergency struct {
	Software string `json:"software"`
	Hardware string `json:"hardware"`
}

// LocationState is the live state of a door in the v2 notifications.
type LocationState struct {
	// LocationID is the door (inside a device update; empty in a location
	// update, whose ID names the door).
	LocationID string `json:"location_id"`
	// Lock is "locked" or "unlocked".
	Lock string `json:"lock"`
	// DPS is the door position: "open", "close" or "none" (no sensor).
	DPS          string `json:"dps"`
	DPSConnected bool   `json:"dps_connected"`
	Enable       bool   `json:"enable"`
	// IsUnavailable tells that the door's hub is offline.
	IsUnavailable bool               `json:"is_unavailable"`
	Emergency     *LocationEmergency `json:"emergency"`
	RemainLock    *LocationLockRule  `json:"remain_lock"`
	RemainUnlock  *LocationLockRule  `json:"remain_unlock"`
}

// Locked reports whether the door is locked.
func (s *LocationState) Locked() bool { return s.Lock == "locked" }

// DeviceUpdateV2Data is the data of [NotificationDeviceUpdateV2]
// (observed): the device, in the form webhook events carry it, and the
// states of the doors it serves.
type DeviceUpdateV2Data struct {
	EventDevice
	// LocationStates are the states of the doors the device serves.
	LocationStates []LocationState `json:"location_states"`
}

// DeviceUpdateV2 decodes the data of a [NotificationDeviceUpdateV2]
// (observed).
func (n *Notification) DeviceUpdateV2() (*DeviceUpdateV2Data, error) {
	v, err := notificationData[DeviceUpdateV2Data](n, NotificationDeviceUpdateV2)
	if v != nil && string(v.Cap) == "null" {
		v.Cap = nil
	}
	return v, err
}

// LocationThumbnail is a door's latest camera picture.
type LocationThumbnail struct {
	// Type is e.g. "thumbnail".
	Type string `json:"type,omitempty"`
	// URL is a path on the console, e.g. "/preview/....jpg".
	URL        string   `json:"url"`
	LastUpdate UnixTime `json:"door_thumbnail_last_update"`
}

// LocationUpdateV2Data is the data of [NotificationLocationUpdateV2] and
// [NotificationDeviceLocationUpdateV2] (observed).
type LocationUpdateV2Data struct {
	ID string `json:"id"`
	// LocationType is "door" (some versions write "DOOR"), "floor"…
	LocationType string         `json:"location_type"`
	Name         string         `json:"name"`
	UpID         string         `json:"up_id"`
	Extras       map[string]any `json:"extras"`
	DeviceIDs    []string       `json:"device_ids"`
	// State is nil when the notification carries none.
	State     *LocationState     `json:"state"`
	Thumbnail *LocationThumbnail `json:"thumbnail"`
	// Guard lists an intercom door's guards: the people its calls ring.
	Guard []LocationGuard `json:"guard,omitempty"`
	// LastActivity is when the door was last used.
	LastActivity UnixTime `json:"last_activity,omitempty"`
}

// LocationGuard is one guard of an intercom door (see
// [LocationUpdateV2Data.Guard]).
type LocationGuard struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Alias     string `json:"alias,omitempty"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	// Avatar is the guard's picture; empty when none.
	Avatar string `json:"avatar,omitempty"`
}

// LocationUpdateV2 decodes the data of a [NotificationLocationUpdateV2] or
// [NotificationDeviceLocationUpdateV2] (observed).
func (n *Notification) LocationUpdateV2() (*LocationUpdateV2Data, error) {
	v, err := notificationData[LocationUpdateV2Data](n, NotificationLocationUpdateV2, NotificationDeviceLocationUpdateV2)
	if v != nil && v.ID == "" {
		v.ID = n.EventObjectID
	}
	return v, err
}

// SettingUpdateData is the data of [NotificationSettingUpdate] (observed):
// the site-wide emergency settings.
type SettingUpdateData struct {
	Evacuation bool `json:"evacuation"`
	Lockdown   bool `json:"lockdown"`
}

// SettingUpdate decodes the data of a [NotificationSettingUpdate]
// (observed).
func (n *Notification) SettingUpdate() (*SettingUpdateData, error) {
	return notificationData[SettingUpdateData](n, NotificationSettingUpdate)
}

// LogsAddData is the data of [NotificationLogsAdd] (observed): one entry
// of the system log, the type [SystemLogsService.List] returns.
type LogsAddData = SystemLog

// LogsAddSource is the content of a log entry ([SystemLogSource]).
type LogsAddSource = SystemLogSource

// LogsAddActor is who caused a log entry ([SystemLogActor]).
type LogsAddActor = SystemLogActor

// LogsAddEvent says what happened ([SystemLogEvent]).
type LogsAddEvent = SystemLogEvent

// LogsAddAuthentication is how the actor authenticated
// ([SystemLogAuthentication]).
type LogsAddAuthentication = SystemLogAuthentication

// LogsAddTarget is one thing a log entry concerns ([SystemLogTarget]).
type LogsAddTarget = SystemLogTarget

// LogsAdd decodes the data of a [NotificationLogsAdd] (observed).
func (n *Notification) LogsAdd() (*LogsAddData, error) {
	return notificationData[LogsAddData](n, NotificationLogsAdd)
}

// DoorBellData is the data of [NotificationDoorBell] (observed).
type DoorBellData struct {
	DoorID    string `json:"door_id"`
	DoorName  string `json:"door_name"`
	RequestID string `json:"request_id"`
	DeviceID  string `json:"device_id"`
}

// DoorBell decodes the data of a [NotificationDoorBell] (observed).
func (n *Notification) DoorBell() (*DoorBellData, error) {
	return notificationData[DoorBellData](n, NotificationDoorBell)
}
