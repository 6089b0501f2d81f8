// Package monitor is the incident engine of "access monitor": it keeps a
// mirror of a console's doors, devices, emergency mode and notifications
// stream, and turns what it is told (notifications, poll results, stream
// outages and clock ticks) into incidents: a door held open, a forced
// entry, a device offline, an emergency, a silent or mute stream, a
// credential let in although its user is not active.
//
// The engine is pure: it does no I/O, starts no goroutine and reads no
// clock. Every input carries its time, and [Engine.Tick] advances the
// thresholds, so a test drives it on any clock (accesstest's, for one). It
// is not safe for concurrent use: the command feeds it from one goroutine
// and takes a [Snapshot] under its own lock for the metrics.
//
// An incident is reported twice, as an [Incident] of type
// [TypeOpened] and, once its condition no longer holds, of type
// [TypeResolved], both with the same ID. The ID is derived from the
// console, the kind, the door or device and the start, so that the same
// incident derived again from the same state gets the same ID.
//
// The doors and devices the engine keeps are those the last polls listed
// ([Engine.Doors], [Engine.Devices]). A door or device that only the
// stream names is kept too, so that a door added since the last poll is
// watched at once, but no more than [MaxUnlisted] of each, and only until
// the next poll of its kind, which drops those it does not list: a stream
// naming ever new ids cannot grow the engine. [Frame.Unlisted] tells the
// caller that a notification named one, so that it can poll earlier.
package monitor

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/access-dev/access"
)

// Kind names what an incident is about.
type Kind string

// The kinds of incident.
const (
	// KindHeldOpen: a door's position stayed open longer than
	// [Config.HeldOpen].
	KindHeldOpen Kind = "held_open"
	// KindForcedEntry: a door opened with no unlock (remote, credential,
	// exit button, lock rule, evacuation) within [Config.UnlockGrace]
	// before it. It resolves when the door closes.
	KindForcedEntry Kind = "forced_entry"
	// KindDeviceOffline: a device stayed offline longer than
	// [Config.DeviceOffline].
	KindDeviceOffline Kind = "device_offline"
	// KindEmergency: a lockdown or an evacuation is in force (Mode says
	// which). It resolves when it ends.
	KindEmergency Kind = "emergency"
	// KindStreamSilent: the notifications stream was down, or connected
	// without a single message (keepalives included), for longer than
	// [Config.StreamSilent].
	KindStreamSilent Kind = "stream_silent"
	// KindStreamMute: messages arrive, but none that the monitor
	// recognises, for longer than [Config.StreamMute] (at least three,
	// none further apart than that).
	KindStreamMute Kind = "stream_mute"
	// KindInactiveCredential: a door was opened for a user whose status
	// is not ACTIVE (a reader honouring a revoked card from its offline
	// cache). It resolves when the door closes again, or after
	// [Config.UnlockGrace] when the door is not open then (or has no
	// position sensor).
	KindInactiveCredential Kind = "inactive_credential"
)

// Kinds lists every kind, in the order the documentation gives them.
var Kinds = []Kind{KindHeldOpen, KindForcedEntry, KindDeviceOffline, KindEmergency, KindStreamSilent, KindStreamMute, KindInactiveCredential}

// The types of an incident line.
const (
	TypeOpened   = "incident.opened"
	TypeResolved = "incident.resolved"
)

// Defaults of [Config].
const (
	DefaultHeldOpen      = 60 * time.Second
	DefaultUnlockGrace   = 45 * time.Second
	DefaultDeviceOffline = 5 * time.Minute
	DefaultStreamSilent  = 30 * time.Second
	DefaultStreamMute    = 5 * time.Minute
)

// Config sets the thresholds of the incidents. A zero duration takes its
// default; a negative one is refused by [New].
type Config struct {
	// Console names the console in every incident (the profile's name).
	Console string
	// HeldOpen is how long a door may stay open ([DefaultHeldOpen]).
	HeldOpen time.Duration
	// UnlockGrace is how long before a door opens an unlock must have
	// happened for the opening not to be forced ([DefaultUnlockGrace]).
	UnlockGrace time.Duration
	// DeviceOffline is how long a device may stay offline
	// ([DefaultDeviceOffline]).
	DeviceOffline time.Duration
	// StreamSilent is how long the stream may be down or silent
	// ([DefaultStreamSilent]).
	StreamSilent time.Duration
	// StreamMute is how long only unrecognised messages may arrive
	// ([DefaultStreamMute]).
	StreamMute time.Duration
}

// ErrInvalidConfig is matched by the errors of [New].
var ErrInvalidConfig = errors.New("monitor: invalid configuration")

func (c Config) withDefaults() (Config, error) {
	for _, f := range []struct {
		name string
		d    *time.Duration
		def  time.Duration
	}{{"HeldOpen", &c.HeldOpen, DefaultHeldOpen}, {"UnlockGrace", &c.UnlockGrace, DefaultUnlockGrace},
		{"DeviceOffline", &c.DeviceOffline, DefaultDeviceOffline}, {"StreamSilent", &c.StreamSilent, DefaultStreamSilent},
		{"StreamMute", &c.StreamMute, DefaultStreamMute}} {
		if *f.d < 0 {
			return c, fmt.Errorf("%w: %s must not be negative", ErrInvalidConfig, f.name)
		}
		if *f.d == 0 {
			*f.d = f.def
		}
	}
	return c, nil
}

// Threshold returns the threshold of an incident kind under c (zero for
// an emergency, which opens at once).
func (c Config) Threshold(k Kind) time.Duration {
	switch k {
	case KindHeldOpen:
		return c.HeldOpen
	case KindForcedEntry, KindInactiveCredential:
		return c.UnlockGrace
	case KindDeviceOffline:
		return c.DeviceOffline
	case KindStreamSilent:
		return c.StreamSilent
	case KindStreamMute:
		return c.StreamMute
	}
	return 0
}

// Duration is a time.Duration that encodes as its text ("1m0s").
type Duration time.Duration

// MarshalJSON encodes d as a string such as "45s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON decodes the text of MarshalJSON.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Incident is one line of the incident log: an incident opened or
// resolved.
type Incident struct {
	// Type is [TypeOpened] or [TypeResolved].
	Type string `json:"type"`
	// ID is shared by the opened and resolved lines of one incident.
	ID      string `json:"id"`
	Kind    Kind   `json:"kind"`
	Console string `json:"console"`
	// Door is the door's id (held open, forced entry, inactive
	// credential); Device the device's id (device offline).
	Door   string `json:"door,omitempty"`
	Device string `json:"device,omitempty"`
	// Mode is "lockdown" or "evacuation" for an emergency.
	Mode string `json:"mode,omitempty"`
	// User is the id of the user whose credential was let in (inactive
	// credential): an id, never a name or the credential.
	User string `json:"user,omitempty"`
	// Start is when the condition began; At is when this line was
	// produced (when the threshold was crossed, or when it resolved).
	Start time.Time `json:"start"`
	At    time.Time `json:"at"`
	// Threshold is the threshold the condition crossed.
	Threshold Duration `json:"threshold"`
	// Detail says what happened, for a person.
	Detail string `json:"detail"`
}

// Resolved returns the resolved line of an open incident.
func (in Incident) resolved(at time.Time, detail string) Incident {
	in.Type, in.At, in.Detail = TypeResolved, at, detail
	return in
}

// incidentID derives an incident's id from what identifies it.
func incidentID(console string, k Kind, subject string, start time.Time) string {
	h := sha256.New()
	h.Write([]byte(console + "\x00" + string(k) + "\x00" + subject + "\x00" + strconv.FormatInt(start.UnixNano(), 10)))
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// Position is a door's position as the engine knows it.
type Position string

// The door positions.
const (
	PositionUnknown Position = ""
	PositionOpen    Position = "open"
	PositionClosed  Position = "closed"
)

// Lock is a door's lock as the engine knows it.
type Lock string

// The lock states.
const (
	LockUnknown  Lock = ""
	LockLocked   Lock = "locked"
	LockUnlocked Lock = "unlocked"
)

// MaxUnlisted is how many doors, and how many devices, that the last
// poll did not list the engine keeps between two polls. The stream's
// news of others is not kept (the notification still counts in its
// [Frame]).
const MaxUnlisted = 64

type door struct {
	id, name, floor string
	listed          bool // listed by the last doors poll
	// sensor is true once the door is known to have a position sensor;
	// sensorKnown tells that it is known either way.
	sensor, sensorKnown bool
	position            Position
	openedAt            time.Time
	lock                Lock
	lastUnlock          time.Time
	// keptUnlocked: a lock rule keeps the door unlocked.
	keptUnlocked bool
}

type device struct {
	id, name, typ, door string
	listed              bool
	online, known       bool
	offlineSince        time.Time
}

// Engine is the incident engine of one console. Create it with [New].
type Engine struct {
	cfg     Config
	doors   map[string]*door
	devices map[string]*device
	// unlistedDoors and unlistedDevices count the entries only the
	// stream named (at most MaxUnlisted each).
	unlistedDoors, unlistedDevices int
	users                          map[string]string // user id -> status
	open                           map[string]*Incident
	// emergency
	lockdown, evacuation, emergencyKnown bool
	// stream
	connected bool
	downSince time.Time
	lastFrame time.Time
	muteSince time.Time
	// lastUnrecognised and muteRun: the last unrecognised notification
	// and how many came in a row.
	lastUnrecognised time.Time
	muteRun          int
	frames           uint64
	unrecognisedIn   uint64
}

// New returns an engine with cfg's thresholds (defaults filled in). The
// stream counts as down from start until [Engine.StreamUp] or a frame.
func New(cfg Config, start time.Time) (*Engine, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Engine{cfg: c, doors: map[string]*door{}, devices: map[string]*device{}, users: map[string]string{},
		open: map[string]*Incident{}, downSince: start}, nil
}

// Config returns the engine's configuration, defaults filled in.
func (e *Engine) Config() Config { return e.cfg }

func key(k Kind, subject string) string { return string(k) + "\x00" + subject }

// openIncident opens an incident unless one of that kind is open for the
// subject; it appends the opened line to out.
func (e *Engine) openIncident(out []Incident, in Incident, subject string) []Incident {
	k := key(in.Kind, subject)
	if e.open[k] != nil {
		return out
	}
	in.Type = TypeOpened
	in.Console = e.cfg.Console
	in.Threshold = Duration(e.cfg.Threshold(in.Kind))
	in.ID = incidentID(e.cfg.Console, in.Kind, subject, in.Start)
	e.open[k] = &in
	return append(out, in)
}

// resolve closes the open incident of that kind for the subject, if any.
func (e *Engine) resolve(out []Incident, k Kind, subject string, at time.Time, detail string) []Incident {
	in := e.open[key(k, subject)]
	if in == nil {
		return out
	}
	delete(e.open, key(k, subject))
	return append(out, in.resolved(at, detail))
}

// Open returns the incidents open now, oldest first.
func (e *Engine) Open() []Incident {
	out := make([]Incident, 0, len(e.open))
	for _, in := range e.open {
		out = append(out, *in)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Start.Equal(out[j].Start) {
			return out[i].Start.Before(out[j].Start)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// listDoor returns the door of a poll's id, listed.
func (e *Engine) listDoor(id string) *door {
	d := e.doors[id]
	switch {
	case d == nil:
		d = &door{id: id}
		e.doors[id] = d
	case !d.listed:
		e.unlistedDoors--
	}
	d.listed = true
	return d
}

// streamDoor returns the door of an id the stream named: nil for an
// empty id, or one the last poll did not list when MaxUnlisted such are
// kept already. It marks f unlisted when the poll did not list it.
func (e *Engine) streamDoor(f *Frame, id string) *door {
	if id == "" {
		return nil
	}
	d := e.doors[id]
	if d == nil || !d.listed {
		f.Unlisted = true
	}
	if d == nil && e.unlistedDoors < MaxUnlisted {
		d = &door{id: id}
		e.doors[id] = d
		e.unlistedDoors++
	}
	return d
}

// listDevice returns the device of a poll's id, listed.
func (e *Engine) listDevice(id string) *device {
	d := e.devices[id]
	switch {
	case d == nil:
		d = &device{id: id}
		e.devices[id] = d
	case !d.listed:
		e.unlistedDevices--
	}
	d.listed = true
	return d
}

// streamDevice is streamDoor for a device.
func (e *Engine) streamDevice(f *Frame, id string) *device {
	if id == "" {
		return nil
	}
	d := e.devices[id]
	if d == nil || !d.listed {
		f.Unlisted = true
	}
	if d == nil && e.unlistedDevices < MaxUnlisted {
		d = &device{id: id}
		e.devices[id] = d
		e.unlistedDevices++
	}
	return d
}

// DoorListed reports whether the last doors poll listed a door of that
// id.
func (e *Engine) DoorListed(id string) bool {
	d := e.doors[id]
	return d != nil && d.listed
}

// DeviceListed reports whether the last devices poll listed a device of
// that id.
func (e *Engine) DeviceListed(id string) bool {
	d := e.devices[id]
	return d != nil && d.listed
}

// setPosition records a door's position. fromStream tells a change seen
// as it happened (a notification), which alone can be a forced entry; a
// change found by a poll after a gap cannot.
func (e *Engine) setPosition(out []Incident, d *door, p Position, at time.Time, fromStream bool) []Incident {
	if p == PositionUnknown {
		return out
	}
	d.sensor, d.sensorKnown = true, true
	prev := d.position
	d.position = p
	switch {
	case p == PositionOpen && prev != PositionOpen:
		d.openedAt = at
		if fromStream && prev == PositionClosed && !e.unlockedFor(d, at) {
			out = e.openIncident(out, Incident{Kind: KindForcedEntry, Door: d.id, Start: at, At: at,
				Detail: fmt.Sprintf("door %s opened without an unlock in the %s before", d.label(), e.cfg.UnlockGrace)}, d.id)
		}
	case p == PositionClosed && prev != PositionClosed:
		d.openedAt = time.Time{}
		out = e.resolve(out, KindHeldOpen, d.id, at, "door "+d.label()+" closed")
		out = e.resolve(out, KindForcedEntry, d.id, at, "door "+d.label()+" closed")
		out = e.resolve(out, KindInactiveCredential, d.id, at, "door "+d.label()+" closed")
	}
	return out
}

// unlockedFor reports whether a door opening at may have been let open:
// an unlock within the grace, the lock unlocked, or an evacuation.
func (e *Engine) unlockedFor(d *door, at time.Time) bool {
	if d.keptUnlocked || e.evacuation {
		return true
	}
	return !d.lastUnlock.IsZero() && at.Sub(d.lastUnlock) <= e.cfg.UnlockGrace
}

func (d *door) label() string {
	if d.name != "" {
		return strconv.Quote(d.name)
	}
	return d.id
}

func (d *device) label() string {
	if d.name != "" {
		return strconv.Quote(d.name)
	}
	return d.id
}

// unlocked records an unlock of a door (nil: one not kept) at a time.
func (e *Engine) unlocked(d *door, at time.Time) {
	if d == nil {
		return
	}
	if at.After(d.lastUnlock) {
		d.lastUnlock = at
	}
}

func (e *Engine) setLock(d *door, l Lock, at time.Time) {
	if l == LockUnknown {
		return
	}
	if l == LockUnlocked {
		e.unlocked(d, at)
	}
	d.lock = l
}

func (e *Engine) setOnline(out []Incident, dv *device, online bool, at time.Time) []Incident {
	was, known := dv.online, dv.known
	dv.online, dv.known = online, true
	switch {
	case !online && (was || !known):
		dv.offlineSince = at
	case online && !was:
		dv.offlineSince = time.Time{}
		out = e.resolve(out, KindDeviceOffline, dv.id, at, "device "+dv.label()+" is online")
	}
	return out
}

func (e *Engine) setEmergency(out []Incident, lockdown, evacuation bool, at time.Time) []Incident {
	e.emergencyKnown = true
	for _, m := range []struct {
		mode   string
		on     bool
		before bool
	}{{"lockdown", lockdown, e.lockdown}, {"evacuation", evacuation, e.evacuation}} {
		switch {
		case m.on && !m.before:
			out = e.openIncident(out, Incident{Kind: KindEmergency, Mode: m.mode, Start: at, At: at, Detail: m.mode + " started"}, m.mode)
		case !m.on && m.before:
			out = e.resolve(out, KindEmergency, m.mode, at, m.mode+" ended")
		}
	}
	e.lockdown, e.evacuation = lockdown, evacuation
	return out
}

// Tick advances the engine's time to now: the thresholds crossed by then
// open their incidents. Call it regularly (every second); incidents then
// open within a tick of their threshold.
func (e *Engine) Tick(now time.Time) []Incident {
	var out []Incident
	for _, d := range e.doors {
		if d.position == PositionOpen && !d.openedAt.IsZero() && now.Sub(d.openedAt) >= e.cfg.HeldOpen {
			out = e.openIncident(out, Incident{Kind: KindHeldOpen, Door: d.id, Start: d.openedAt, At: now,
				Detail: fmt.Sprintf("door %s open for longer than %s", d.label(), e.cfg.HeldOpen)}, d.id)
		}
	}
	for _, dv := range e.devices {
		if dv.known && !dv.online && !dv.offlineSince.IsZero() && now.Sub(dv.offlineSince) >= e.cfg.DeviceOffline {
			out = e.openIncident(out, Incident{Kind: KindDeviceOffline, Device: dv.id, Door: dv.door, Start: dv.offlineSince, At: now,
				Detail: fmt.Sprintf("device %s offline for longer than %s", dv.label(), e.cfg.DeviceOffline)}, dv.id)
		}
	}
	for k, in := range e.open {
		if in.Kind == KindInactiveCredential && now.Sub(in.Start) >= e.cfg.UnlockGrace {
			if d := e.doors[in.Door]; d == nil || !d.sensor || d.position != PositionOpen {
				delete(e.open, k)
				out = append(out, in.resolved(now, "the unlock is over"))
			}
		}
	}
	if !e.connected && !e.downSince.IsZero() && now.Sub(e.downSince) >= e.cfg.StreamSilent {
		out = e.openIncident(out, Incident{Kind: KindStreamSilent, Start: e.downSince, At: now,
			Detail: fmt.Sprintf("no notification reached the monitor for longer than %s", e.cfg.StreamSilent)}, "")
	}
	return out
}

// StreamDown tells that the notifications stream is down, or went silent,
// since a time (the last message; at when unknown). The stream-silent
// incident opens once it has lasted [Config.StreamSilent] (at the next
// [Engine.Tick]).
func (e *Engine) StreamDown(since, at time.Time) []Incident {
	if since.IsZero() || since.After(at) {
		since = at
	}
	if e.connected || e.downSince.IsZero() || since.Before(e.downSince) {
		e.downSince = since
	}
	e.connected = false
	return e.Tick(at)
}

// StreamUp tells that the stream is connected (an upgrade was accepted).
// A stream-silent incident resolves.
func (e *Engine) StreamUp(at time.Time) []Incident {
	e.connected = true
	e.downSince = time.Time{}
	return e.resolve(nil, KindStreamSilent, "", at, "the stream is back")
}

// Connected reports whether the stream is connected as far as the engine
// knows.
func (e *Engine) Connected() bool { return e.connected }

// StreamError feeds an error that [access.NotificationsService.Subscribe]
// yielded without ending: a [*access.DisconnectedError] (the stream is
// down; since the last message when the connection went silent), a
// [*access.ReconnectedError] (it is back; a connection replaced because it
// went silent opens and resolves a stream-silent incident), or a
// [*access.NotificationError] (a message that is not a notification counts
// as unrecognised). Other errors are ignored.
func (e *Engine) StreamError(err error, at time.Time) []Incident {
	var ne *access.NotificationError
	switch {
	case errors.As(err, &ne):
		return e.Unrecognised(at)
	case errors.Is(err, access.ErrReconnected):
		var out []Incident
		if e.connected && errors.Is(err, access.ErrStreamIdle) {
			out = e.StreamDown(at.Add(-e.cfg.StreamSilent), at)
		}
		return append(out, e.StreamUp(at)...)
	case errors.Is(err, access.ErrDisconnected):
		since := at
		if errors.Is(err, access.ErrStreamIdle) {
			since = at.Add(-e.cfg.StreamSilent)
		}
		return e.StreamDown(since, at)
	}
	return nil
}
