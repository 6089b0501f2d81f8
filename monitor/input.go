package monitor

import (
	"sort"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// Method is how a person was let in or refused, as the metrics label it.
type Method string

// The methods. Authentication types a console adds later are [MethodOther].
const (
	MethodNFC        Method = "nfc"
	MethodPIN        Method = "pin"
	MethodFace       Method = "face"
	MethodMobile     Method = "mobile"
	MethodRemote     Method = "remote"
	MethodExitButton Method = "exit_button"
	MethodOther      Method = "other"
)

// Methods lists every method.
var Methods = []Method{MethodNFC, MethodPIN, MethodFace, MethodMobile, MethodRemote, MethodExitButton, MethodOther}

// methodOf maps a log entry's credential provider (or a webhook's
// authentication type) to a [Method].
func methodOf(provider string) Method {
	switch strings.ToUpper(provider) {
	case "NFC", "NFC_CARD", "CARD":
		return MethodNFC
	case "PIN_CODE", "PIN":
		return MethodPIN
	case "FACE", "FACE_ID":
		return MethodFace
	case "MOBILE_TAP", "MOBILE", "BLUETOOTH", "MOBILE_BUTTON", "TOUCH_PASS", "WAVE", "QR_CODE":
		return MethodMobile
	case "REMOTE", "REMOTE_THROUGH_UAH", "API", "CALL", "APP":
		return MethodRemote
	case "REX", "EXIT_BUTTON":
		return MethodExitButton
	}
	return MethodOther
}

// The results of an access decision.
const (
	ResultGranted = "granted"
	ResultDenied  = "denied"
)

// Decision is an access decision a log entry reported.
type Decision struct {
	// Result is [ResultGranted] or [ResultDenied].
	Result string
	Method Method
	// Door is the door's id ("" when the entry names none).
	Door string
}

// Frame is what the engine made of one notification, for the metrics.
type Frame struct {
	Event access.NotificationEvent
	// Recognised is false for a notification whose name the monitor does
	// not know, or whose data it could not decode.
	Recognised bool
	// Decision is set for an access-log entry that grants or refuses.
	Decision *Decision
	// RemoteUnlock is the door of a remote unlock; Doorbell the door (or
	// device) of a doorbell ring.
	RemoteUnlock string
	Doorbell     string
	IsDoorbell   bool
	// Unlisted is true when the notification names a door or a device
	// that the last poll of its kind did not list (one added since, or
	// an id the console does not have): polling again lists it or drops
	// it.
	Unlisted bool
}

// known are the notification names the engine understands.
var known = map[access.NotificationEvent]bool{
	access.NotificationRemoteView: true, access.NotificationRemoteViewChange: true, access.NotificationRemoteUnlock: true,
	access.NotificationDeviceUpdate: true, access.NotificationDeviceUpdateV2: true, access.NotificationLocationUpdate: true,
	access.NotificationLocationUpdateV2: true, access.NotificationDeviceLocationUpdateV2: true, access.NotificationSettingUpdate: true,
	access.NotificationLogsAdd: true, access.NotificationDoorBell: true, access.NotificationBaseInfo: true,
}

// Known reports whether the engine understands notifications of that
// name.
func Known(ev access.NotificationEvent) bool { return known[ev] }

// Notification feeds one notification of the stream, received at at. A
// notification counts as a sign of life: the stream is connected.
func (e *Engine) Notification(n *access.Notification, at time.Time) (Frame, []Incident) {
	var out []Incident
	if !e.connected {
		out = e.StreamUp(at)
	}
	e.lastFrame = at
	e.frames++
	f := Frame{Event: n.Event, Recognised: known[n.Event]}
	// Each frame's data is read once, and only the members the engine
	// uses (see decode.go).
	var err error
	switch n.Event {
	case access.NotificationRemoteUnlock:
		var loc locationV1
		if loc, err = readLocationV1(n.Data); err == nil {
			id := firstOf(loc.uniqueID, n.EventObjectID)
			f.RemoteUnlock = id
			e.unlocked(e.streamDoor(&f, id), at)
		}
	case access.NotificationRemoteView:
		var room string
		if room, err = readString(n.Data, "room_id"); err == nil {
			f.IsDoorbell, f.Doorbell = true, room
			e.doorbell(&f)
		}
	case access.NotificationDoorBell:
		var id string
		if id, err = readString(n.Data, "door_id"); err == nil {
			f.IsDoorbell, f.Doorbell = true, id
			e.doorbell(&f)
		}
	case access.NotificationLocationUpdateV2, access.NotificationDeviceLocationUpdateV2:
		var v locationV2
		if v, err = readLocationV2(n.Data); err == nil && v.hasState {
			if d := e.streamDoor(&f, firstOf(v.id, n.EventObjectID)); d != nil {
				if v.name != "" {
					d.name = v.name
				}
				out = e.doorState(out, d, &v.state, at)
			}
		}
	case access.NotificationLocationUpdate:
		var v locationV1
		if v, err = readLocationV1(n.Data); err == nil && v.uniqueID != "" && strings.EqualFold(firstOf(v.locationType, "door"), "door") {
			if d := e.streamDoor(&f, v.uniqueID); d != nil {
				if v.name != "" {
					d.name = v.name
				}
				switch v.dps {
				case "on":
					out = e.setPosition(out, d, PositionOpen, at, true)
				case "off":
					out = e.setPosition(out, d, PositionClosed, at, true)
				}
			}
		}
	case access.NotificationDeviceUpdate:
		var v deviceUpdate
		if v, err = readDeviceUpdate(n.Data, "unique_id"); err == nil && v.id != "" {
			if dv := e.streamDevice(&f, v.id); dv != nil {
				if v.name != "" {
					dv.name = v.name
				}
				if v.hasOnline {
					out = e.setOnline(out, dv, v.online, at)
				}
			}
		}
	case access.NotificationDeviceUpdateV2:
		var v deviceUpdate
		if v, err = readDeviceUpdate(n.Data, "id"); err == nil {
			if dv := e.streamDevice(&f, v.id); dv != nil && v.hasOnline {
				out = e.setOnline(out, dv, v.online, at)
			}
			for i := range v.states {
				if s := &v.states[i]; s.locationID != "" {
					if d := e.streamDoor(&f, s.locationID); d != nil {
						out = e.doorState(out, d, s, at)
					}
				}
			}
		}
	case access.NotificationSettingUpdate:
		var lockdown, evacuation bool
		if lockdown, evacuation, err = readSetting(n.Data); err == nil {
			out = append(out, e.setEmergency(nil, lockdown, evacuation, at)...)
		}
	case access.NotificationLogsAdd:
		var l logEntry
		if l, err = readLogEntry(n.Data); err == nil {
			f.Decision = decisionOf(&l)
			out = e.logEntry(out, &f, &l, at)
		}
	}
	if err != nil {
		f.Recognised = false
	}
	if f.Recognised {
		e.muteSince = time.Time{}
		out = e.resolve(out, KindStreamMute, "", at, "a recognised notification arrived")
	} else {
		e.unrecognisedIn++
		// A run of unrecognised notifications, each within the threshold
		// of the one before: an odd unknown event on a quiet site is not
		// a mute stream.
		if e.muteSince.IsZero() || at.Sub(e.lastUnrecognised) >= e.cfg.StreamMute {
			e.muteSince, e.muteRun = at, 0
		}
		e.lastUnrecognised = at
		e.muteRun++
		if e.muteRun >= 3 && at.Sub(e.muteSince) >= e.cfg.StreamMute {
			out = e.openIncident(out, Incident{Kind: KindStreamMute, Start: e.muteSince, At: at,
				Detail: "only notifications the monitor does not recognise arrive (last: " + string(n.Event) + ")"}, "")
		}
	}
	return f, out
}

// Unrecognised feeds a message of the stream that is not a notification
// at all (the SDK's [access.NotificationError]).
func (e *Engine) Unrecognised(at time.Time) []Incident {
	_, out := e.Notification(&access.Notification{Event: "(not a notification)"}, at)
	return out
}

func (e *Engine) doorState(out []Incident, d *door, s *doorState, at time.Time) []Incident {
	// The lock first: a door unlocked and opened in one update is not
	// forced.
	d.keptUnlocked = s.remainUnlock
	switch {
	case s.lock == "unlocked" || s.remainUnlock:
		e.setLock(d, LockUnlocked, at)
	case s.lock == "locked":
		e.setLock(d, LockLocked, at)
	}
	if s.emergencySoftware == "evacuation" || s.emergencyHardware == "evacuation" {
		e.unlocked(d, at)
	}
	switch s.dps {
	case "open":
		out = e.setPosition(out, d, PositionOpen, at, true)
	case "close", "closed":
		out = e.setPosition(out, d, PositionClosed, at, true)
	case "none":
		if !d.sensorKnown || !s.dpsConnected {
			d.sensor, d.sensorKnown = false, true
		}
	}
	return out
}

// decisionOf reads an access decision from a log entry, nil when the
// entry is not one.
func decisionOf(l *logEntry) *Decision {
	var d Decision
	switch {
	case strings.HasPrefix(l.displayMessage, "Access Denied"), strings.EqualFold(l.result, "BLOCKED"), strings.EqualFold(l.result, "DENIED"):
		d.Result = ResultDenied
	case l.eventType == string(access.EventDoorUnlock), strings.EqualFold(l.result, "ACCESS"), strings.HasPrefix(l.displayMessage, "Access Granted"):
		d.Result = ResultGranted
	default:
		return nil
	}
	provider := l.provider
	if provider == "" {
		// A refusal the fake logs: "Access Denied (NFC 1234 at Door): …".
		if i := strings.IndexByte(l.displayMessage, '('); i >= 0 {
			provider = strings.Fields(l.displayMessage[i+1:] + " ")[0]
			provider = strings.TrimRight(provider, ")")
		}
	}
	d.Method = methodOf(provider)
	if l.hasDoor {
		d.Door = l.door
	}
	return &d
}

// logEntry handles an access-log entry: a grant is an unlock, and a grant
// to a user who is not active an incident.
func (e *Engine) logEntry(out []Incident, f *Frame, l *logEntry, at time.Time) []Incident {
	dec := f.Decision
	if dec == nil || dec.Door == "" {
		return out
	}
	if dec.Result != ResultGranted {
		if !e.DoorListed(dec.Door) {
			f.Unlisted = true
		}
		return out
	}
	d := e.streamDoor(f, dec.Door)
	e.unlocked(d, at)
	if l.actorType != "user" || l.actorID == "" {
		return out
	}
	st, ok := e.users[l.actorID]
	if !ok || st == string(access.UserStatusActive) || d == nil {
		// d is nil for a door that is not kept (MaxUnlisted others are).
		return out
	}
	return e.openIncident(out, Incident{Kind: KindInactiveCredential, Door: d.id, User: l.actorID, Start: at, At: at,
		Detail: "door " + d.label() + " opened (" + string(dec.Method) + ") for user " + l.actorID + ", whose status is " + st}, d.id)
}

// doorbell marks f unlisted when the door (or device) of its ring is
// neither a listed door nor a listed device.
func (e *Engine) doorbell(f *Frame) {
	if f.Doorbell != "" && !e.DoorListed(f.Doorbell) && !e.DeviceListed(f.Doorbell) {
		f.Unlisted = true
	}
}

// Users tells the engine the users' statuses (id -> ACTIVE, DEACTIVATED,
// PENDING…), from a poll; it replaces what it knew.
func (e *Engine) Users(status map[string]string) {
	e.users = make(map[string]string, len(status))
	for k, v := range status {
		e.users[k] = v
	}
}

// UserStatus tells the engine one user's status.
func (e *Engine) UserStatus(id, status string) { e.users[id] = status }

// Doors feeds a poll of the doors (at start, and after a gap in the
// stream): names, floors, lock and position. A door open at a poll counts
// as open from then (it cannot be a forced entry: the opening was not
// seen); a door without a position sensor is recorded as such.
func (e *Engine) Doors(doors []access.Door, at time.Time) []Incident {
	var out []Incident
	seen := make(map[string]bool, len(doors))
	for _, w := range doors {
		d := e.listDoor(w.ID)
		seen[w.ID] = true
		d.name, d.floor = w.Name, w.FloorID
		switch w.LockRelayStatus {
		case access.DoorUnlocked:
			e.setLock(d, LockUnlocked, at)
		case access.DoorLocked:
			e.setLock(d, LockLocked, at)
		}
		switch w.PositionStatus {
		case access.DoorOpen:
			out = e.setPosition(out, d, PositionOpen, at, false)
		case access.DoorClosed:
			out = e.setPosition(out, d, PositionClosed, at, false)
		default:
			d.sensor, d.sensorKnown, d.position = false, true, PositionUnknown
		}
	}
	// Drop the doors the poll does not list: removed ones, and those only
	// the stream named.
	for id, d := range e.doors {
		if !seen[id] {
			delete(e.doors, id)
			why := "door " + d.label() + " was removed"
			if !d.listed {
				why = "door " + d.label() + " is not listed by the console"
			}
			for _, k := range []Kind{KindHeldOpen, KindForcedEntry, KindInactiveCredential} {
				out = e.resolve(out, k, id, at, why)
			}
		}
	}
	e.unlistedDoors = 0
	return out
}

// Devices feeds a poll of the devices list.
func (e *Engine) Devices(devs []access.Device, at time.Time) []Incident {
	var out []Incident
	seen := make(map[string]bool, len(devs))
	for _, w := range devs {
		dv := e.listDevice(w.ID)
		seen[w.ID] = true
		dv.name, dv.typ, dv.door = firstOf(w.Alias, w.Name), w.Type, w.LocationID
		out = e.setOnline(out, dv, w.IsOnline, at)
	}
	for id, dv := range e.devices {
		if !seen[id] {
			delete(e.devices, id)
			why := "device " + dv.label() + " was removed"
			if !dv.listed {
				why = "device " + dv.label() + " is not listed by the console"
			}
			out = e.resolve(out, KindDeviceOffline, id, at, why)
		}
	}
	e.unlistedDevices = 0
	return out
}

// Emergency feeds a poll of the site's emergency status.
func (e *Engine) Emergency(st access.EmergencyStatus, at time.Time) []Incident {
	return e.setEmergency(nil, st.Lockdown, st.Evacuation, at)
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// DoorView is a door as a [Snapshot] shows it.
type DoorView struct {
	ID, Name, Floor string
	// Listed tells the last doors poll listed it (else only the stream
	// named it).
	Listed bool
	// Sensor tells the door has a position sensor (held open and forced
	// entry can be seen only then).
	Sensor   bool
	Position Position
	Lock     Lock
}

// DeviceView is a device as a [Snapshot] shows it.
type DeviceView struct {
	ID, Name, Type, Door string
	// Listed tells the last devices poll listed it.
	Listed bool
	// Known tells that its online state is known.
	Known, Online bool
}

// Snapshot is the engine's mirrored state, for the metrics' collector.
type Snapshot struct {
	Doors   []DoorView
	Devices []DeviceView
	// EmergencyKnown tells that the emergency status is known.
	EmergencyKnown, Lockdown, Evacuation bool
	Connected                            bool
	// LastFrame is when the last notification arrived (zero: none yet).
	LastFrame time.Time
	// Open lists the open incidents, oldest first.
	Open []Incident
}

// Snapshot copies the mirrored state, doors and devices sorted by id.
func (e *Engine) Snapshot() Snapshot {
	s := Snapshot{Doors: make([]DoorView, 0, len(e.doors)), Devices: make([]DeviceView, 0, len(e.devices)),
		EmergencyKnown: e.emergencyKnown, Lockdown: e.lockdown, Evacuation: e.evacuation,
		Connected: e.connected, LastFrame: e.lastFrame, Open: e.Open()}
	for _, d := range e.doors {
		s.Doors = append(s.Doors, DoorView{ID: d.id, Listed: d.listed, Name: d.name, Floor: d.floor, Sensor: d.sensor, Position: d.position, Lock: d.lock})
	}
	for _, d := range e.devices {
		s.Devices = append(s.Devices, DeviceView{ID: d.id, Listed: d.listed, Name: d.name, Type: d.typ, Door: d.door, Known: d.known, Online: d.online})
	}
	sort.Slice(s.Doors, func(i, j int) bool { return s.Doors[i].ID < s.Doors[j].ID })
	sort.Slice(s.Devices, func(i, j int) bool { return s.Devices[i].ID < s.Devices[j].ID })
	return s
}

// Coverage says which doors the door incidents can see.
type Coverage struct {
	// Doors is the number of doors the last poll listed; WithSensor of
	// those with a position sensor.
	Doors      int `json:"doors"`
	WithSensor int `json:"with_sensor"`
	// WithoutSensor lists the ids of the doors without one, sorted: held
	// open and forced entry are off for them, and an inactive credential
	// resolves after the grace rather than when the door closes.
	WithoutSensor []string `json:"without_sensor"`
}

// Off lists the incident kinds that cannot be seen on a door without a
// position sensor.
var Off = []Kind{KindHeldOpen, KindForcedEntry}

// Coverage reports the listed doors with and without a position sensor.
func (e *Engine) Coverage() Coverage {
	c := Coverage{WithoutSensor: []string{}}
	for _, d := range e.doors {
		if !d.listed {
			continue
		}
		c.Doors++
		if d.sensor {
			c.WithSensor++
		} else {
			c.WithoutSensor = append(c.WithoutSensor, d.id)
		}
	}
	sort.Strings(c.WithoutSensor)
	return c
}
