package accesstest

import (
	"bytes"
	"cmp"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/access-dev/access"
)

// The fake's state as a file
//
// [Server.WriteState] writes everything the fake keeps about the site as
// one JSON document, {"version":1,...}; [Server.ReadState] replaces the
// whole state with such a document. Requests, injected faults, webhook
// deliveries made, WebSocket connections and the base clock are not state:
// they belong to the running server.

// StateVersion is the version of the format WriteState writes.
const StateVersion = 1

// ErrStateVersion is matched (errors.Is) by a [*StateError] for a state of
// a version newer than [StateVersion].
var ErrStateVersion = errors.New("accesstest: state of a newer version")

// StateError says why a state could not be read.
type StateError struct {
	// Version is the version the input declared, 0 if it declared none.
	Version int
	// Reason says what is wrong, for people.
	Reason string
	// Err is the underlying error, if any (a JSON syntax error, or
	// ErrStateVersion).
	Err error
}

// Error describes the problem.
func (e *StateError) Error() string {
	msg := "accesstest: cannot read state"
	if e.Version != 0 {
		msg += " (version " + strconv.Itoa(e.Version) + ")"
	}
	msg += ": " + e.Reason
	if e.Err != nil && e.Err != ErrStateVersion {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns Err.
func (e *StateError) Unwrap() error { return e.Err }

// Is reports whether target is ErrStateVersion and the state was of a
// newer version.
func (e *StateError) Is(target error) bool {
	return target == ErrStateVersion && e.Version > StateVersion
}

// ---- change notification ----

// stateLock is the server's lock. Whoever changes state while holding it
// calls touch; Unlock then calls the [Server.OnChange] functions, after
// the lock is released. A read that changes nothing may hold it shared
// (RLock, through [Server.readLock]): it must then write nothing, not
// even a cache (hence table.peek); what every request writes, the
// request journal, has its own lock (reqJournal).
type stateLock struct {
	sync.RWMutex
	changed bool
	seq     atomic.Uint64 // changes made so far: a request compares it before and after (WithCommit)

	hooksMu sync.Mutex
	hooks   []*func()

	// check, when set (checkStateCache), runs under the lock at the end
	// of every change but a seeding's (seeded: the next change checks).
	check  func()
	seeded bool
}

// touch marks the state as changed. The caller holds the lock.
func (l *stateLock) touch() { l.changed = true }

// Unlock releases the lock, then calls the change functions if the state
// changed while it was held.
func (l *stateLock) Unlock() {
	changed := l.changed
	l.changed = false
	if changed {
		l.seq.Add(1)
		if l.check != nil && !l.seeded {
			l.check()
		}
	}
	l.seeded = false
	l.RWMutex.Unlock()
	if !changed {
		return
	}
	l.hooksMu.Lock()
	hooks := slices.Clone(l.hooks)
	l.hooksMu.Unlock()
	for _, f := range hooks {
		(*f)()
	}
}

// OnChange registers f to be called after every change of state (from the
// one place every change goes through), never with the server's lock held;
// f must not block. remove unregisters it.
//
// Changes are those made through the API, by the Server's methods
// (seeding, [Server.SetNow], [Server.Advance], [Server.AddToken],
// [Server.ReadState], ...) and by timers that fell due; reads cause
// none. f runs in the goroutine that made the change, before an API call's
// answer is sent, and may call the Server's methods (e.g.
// [Server.WriteState]).
func (s *Server) OnChange(f func()) (remove func()) {
	p := &f
	l := &s.mu
	l.hooksMu.Lock()
	l.hooks = append(l.hooks, p)
	l.hooksMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.hooksMu.Lock()
			defer l.hooksMu.Unlock()
			l.hooks = slices.DeleteFunc(l.hooks, func(x *func()) bool { return x == p })
		})
	}
}

// ---- the file format ----

type stateFile struct {
	Version       int                                 `json:"version"`
	Token         string                              `json:"token"`
	Tokens        map[string][]Permission             `json:"tokens"`
	Clock         clockFile                           `json:"clock"`
	Users         []*access.User                      `json:"users"`
	UserGroups    []groupFile                         `json:"user_groups"`
	Policies      []*access.AccessPolicy              `json:"access_policies"`
	Schedules     []*access.Schedule                  `json:"schedules"`
	HolidayGroups []*access.HolidayGroup              `json:"holiday_groups"`
	Visitors      []*access.Visitor                   `json:"visitors"`
	Avatars       map[string]Avatar                   `json:"avatars"`
	Identity      identityFile                        `json:"identity"`
	Space         spaceFile                           `json:"space"`
	Devices       []*access.DeviceSettings            `json:"device_settings"`
	Webhooks      []*access.WebhookEndpoint           `json:"webhooks"`
	TouchPasses   []*access.TouchPass                 `json:"touch_passes"`
	Credentials   credFile                            `json:"credentials"`
	SystemLogs    []logEntryFile                      `json:"system_logs"`
	LogResources  map[string]access.SystemLogResource `json:"system_log_resources"`
	StaticFiles   map[string]staticFileFile           `json:"static_files"`
	Certificate   *certFile                           `json:"certificate"`
}

type clockFile struct {
	// Offset is what [Server.Advance] added to the base clock, in
	// nanoseconds.
	Offset int64       `json:"offset_ns"`
	Seq    uint64      `json:"seq"`
	Timers []timerFile `json:"timers"`
}

type timerFile struct {
	timerKey
	Due time.Time `json:"due"`
	Seq uint64    `json:"seq"`
}

type groupFile struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	UpID      string   `json:"up_id"`
	Members   []string `json:"members"`
	PolicyIDs []string `json:"access_policy_ids"`
}

type identityFile struct {
	Resources map[access.IdentityResourceType][]access.IdentityResource `json:"resources"`
	Users     map[string]map[access.IdentityResourceType][]string       `json:"users"`
	Groups    map[string]map[access.IdentityResourceType][]string       `json:"user_groups"`
	Invited   []string                                                  `json:"invited"`
}

type spaceFile struct {
	BuildingID   string                 `json:"building_id"`
	BuildingName string                 `json:"building_name"`
	Floors       []floorFile            `json:"floors"`
	Doors        []doorFile             `json:"doors"`
	DoorGroups   []*access.DoorGroup    `json:"door_groups"`
	Devices      []deviceFile           `json:"devices"`
	Emergency    access.EmergencyStatus `json:"emergency"`
	// Rings maps a ringing doorbell's device id to the ring's request id.
	Rings map[string]string `json:"rings"`
}

type floorFile struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type doorFile struct {
	Door     access.Door         `json:"door"`
	Unlocked bool                `json:"unlocked"`
	Rule     access.LockRuleType `json:"rule"`
	RuleEnds time.Time           `json:"rule_ends"`
}

type deviceFile struct {
	Device access.Device `json:"device"`
	Doors  []string      `json:"doors"`
}

type credFile struct {
	Cards     []*access.NFCCard `json:"nfc_cards"`
	Sessions  []sessionFile     `json:"enrollment_sessions"`
	Generated []string          `json:"generated_pins"`
	QR        []string          `json:"qr_code_holders"`
}

type sessionFile struct {
	ID       string           `json:"id"`
	DeviceID string           `json:"device_id"`
	Reset    bool             `json:"reset"`
	Token    string           `json:"token"`
	CardID   string           `json:"card_id"`
	Code     access.ErrorCode `json:"code"`
}

type logEntryFile struct {
	Topic access.SystemLogTopic `json:"topic"`
	Entry access.SystemLog      `json:"entry"`
}

type staticFileFile struct {
	ContentType string `json:"content_type"`
	Data        []byte `json:"data"`
}

type certFile struct {
	KeyPEM     []byte    `json:"key_pem"`
	CertPEM    []byte    `json:"cert_pem"`
	UploadedAt time.Time `json:"uploaded_at"`
}

// ---- writing ----

// WriteState writes the whole state (users, groups, policies, schedules,
// holiday groups, doors, floors, devices, visitors, credentials (cards,
// PINs, touch passes, enrollment sessions), webhooks (with secrets),
// system logs, static files, the certificate, the fake's clock offset and
// pending timers, tokens and their permissions) as versioned JSON:
// {"version":1,...}. The file holds every token and secret in clear: keep
// it private.
func (s *Server) WriteState(w io.Writer) error {
	s.mu.Lock()
	f := s.stateFile(true)
	b, err := json.Marshal(f) // under the lock: the records are shared
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("accesstest: WriteState: %w", err)
	}
	// Sized once for the indented form (about 1.5 times the compact one
	// here): growing by doubling left three times the state as garbage
	// at every save.
	buf := bytes.NewBuffer(make([]byte, 0, 2*len(b)+1))
	if err := json.Indent(buf, b, "", "  "); err != nil {
		return fmt.Errorf("accesstest: WriteState: %w", err)
	}
	buf.WriteByte('\n')
	_, err = buf.WriteTo(w)
	return err
}

// stateFile collects the state; the system log only with logs (StateParts
// takes the entries' cached encodings instead). The caller holds s.mu.
func (s *Server) stateFile(logs bool) *stateFile {
	sp, p, c := s.sp(), s.ppl(), s.cr()
	p.identity.init()
	f := &stateFile{
		Version:       StateVersion,
		Token:         s.token,
		Tokens:        s.tokens,
		Clock:         clockFile{Offset: int64(s.clock.offset), Seq: s.clock.seq, Timers: []timerFile{}},
		Users:         s.people.users.list,
		UserGroups:    []groupFile{},
		Policies:      []*access.AccessPolicy{},
		Schedules:     []*access.Schedule{},
		HolidayGroups: s.people.holidayGroups.list,
		Visitors:      s.people.visitors.list,
		Avatars:       p.avatars,
		Identity: identityFile{Resources: p.identity.resources, Users: p.identity.users, Groups: p.identity.groups,
			Invited: p.identity.invited},
		Space: spaceFile{BuildingID: sp.buildingID, BuildingName: sp.buildingName, Floors: []floorFile{}, Doors: []doorFile{},
			DoorGroups: sp.groups.list, Devices: []deviceFile{}, Emergency: sp.emergency, Rings: map[string]string{}},
		Devices:      []*access.DeviceSettings{},
		Webhooks:     s.hub.webhooks,
		TouchPasses:  s.creds.touchPasses.list,
		Credentials:  credFile{Cards: c.cards.list, Sessions: []sessionFile{}, Generated: slices.Sorted(maps.Keys(c.generated)), QR: slices.Sorted(maps.Keys(c.qr))},
		SystemLogs:   []logEntryFile{},
		LogResources: s.logs.resources,
		StaticFiles:  map[string]staticFileFile{},
	}
	for _, t := range s.clock.timers {
		if !t.stopped {
			f.Clock.Timers = append(f.Clock.Timers, timerFile{timerKey: t.key, Due: t.due, Seq: t.seq})
		}
	}
	for _, g := range p.groups.list {
		f.UserGroups = append(f.UserGroups, groupFile{ID: g.id, Name: g.name, UpID: g.upID, Members: g.members, PolicyIDs: g.policyIDs})
	}
	for _, id := range p.policyOrder {
		if pol := s.people.policies[id]; pol != nil {
			f.Policies = append(f.Policies, pol)
		}
	}
	for _, id := range p.scheduleOrder {
		if sc := s.people.schedules[id]; sc != nil {
			f.Schedules = append(f.Schedules, sc)
		}
	}
	for _, fl := range sp.floors.list {
		f.Space.Floors = append(f.Space.Floors, floorFile{ID: fl.id, Name: fl.name})
	}
	for _, d := range sp.doors.list {
		f.Space.Doors = append(f.Space.Doors, doorFile{Door: d.door, Unlocked: d.unlocked, Rule: d.rule, RuleEnds: d.ruleEnds})
	}
	for _, h := range sp.hw.list {
		f.Space.Devices = append(f.Space.Devices, deviceFile{Device: h.dev, Doors: h.doors})
	}
	for id, r := range sp.rings {
		f.Space.Rings[id] = r.requestID
	}
	for _, id := range s.space.settingsOrder {
		if d := s.space.settings[id]; d != nil {
			f.Devices = append(f.Devices, d)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.sessions)) {
		ss := c.sessions[id]
		f.Credentials.Sessions = append(f.Credentials.Sessions, sessionFile{ID: ss.id, DeviceID: ss.deviceID, Reset: ss.reset,
			Token: ss.token, CardID: ss.cardID, Code: ss.code})
	}
	if logs {
		f.SystemLogs = make([]logEntryFile, s.logs.log.len())
		for i, e := range s.logs.log.all() {
			f.SystemLogs[i] = logEntryFile{Topic: e.Topic, Entry: e.SystemLog}
		}
	}
	for k, v := range s.logs.static {
		f.StaticFiles[k] = staticFileFile{ContentType: v.contentType, Data: v.data}
	}
	if cert := s.logs.cert; cert != nil {
		f.Certificate = &certFile{KeyPEM: cert.KeyPEM, CertPEM: cert.CertPEM, UploadedAt: cert.UploadedAt}
	}
	return f
}

// ---- reading ----

// ReadState replaces the whole state with one WriteState wrote. It
// changes nothing and returns a *StateError when the input is corrupt or
// of a newer version. Pending timers keep their due times on the fake's
// clock; webhook deliveries already queued are still made.
func (s *Server) ReadState(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return &StateError{Reason: "reading failed", Err: err}
	}
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return &StateError{Reason: "not a JSON object", Err: err}
	}
	switch {
	case head.Version == nil:
		return &StateError{Reason: "no version"}
	case *head.Version > StateVersion:
		return &StateError{Version: *head.Version, Reason: "written by a newer accesstest (this one reads version " +
			strconv.Itoa(StateVersion) + ")", Err: ErrStateVersion}
	case *head.Version < 1:
		return &StateError{Version: *head.Version, Reason: "unknown version"}
	}
	var f stateFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return &StateError{Version: f.Version, Reason: "malformed", Err: err}
	}
	if dec.More() {
		return &StateError{Version: f.Version, Reason: "trailing data after the state"}
	}
	st, err := f.build()
	if err != nil {
		return &StateError{Version: f.Version, Reason: err.Error()}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.install(st)
	s.mu.touch()
	s.wakeTimers()
	return nil
}

// loadedState is a state read from a file, checked and ready to install.
type loadedState struct {
	f        *stateFile
	policies map[string]*access.AccessPolicy
	polOrder []string
	scheds   map[string]*access.Schedule
	schOrder []string
	devices  map[string]*access.DeviceSettings
	devOrder []string
	space    spaceState
	people   peopleState
	creds    credState
	logs     logState
}

// noNil reports the index of the first nil record, or -1.
func noNil[T any](list []*T) int {
	return slices.IndexFunc(list, func(x *T) bool { return x == nil })
}

// build checks f and makes the server's records from it.
func (f *stateFile) build() (*loadedState, error) {
	for name, i := range map[string]int{
		"users": noNil(f.Users), "access_policies": noNil(f.Policies), "schedules": noNil(f.Schedules),
		"holiday_groups": noNil(f.HolidayGroups), "visitors": noNil(f.Visitors), "space.door_groups": noNil(f.Space.DoorGroups),
		"device_settings": noNil(f.Devices), "webhooks": noNil(f.Webhooks), "touch_passes": noNil(f.TouchPasses),
		"credentials.nfc_cards": noNil(f.Credentials.Cards),
	} {
		if i >= 0 {
			return nil, fmt.Errorf("%s[%d] is null", name, i)
		}
	}
	st := &loadedState{f: f, policies: map[string]*access.AccessPolicy{}, scheds: map[string]*access.Schedule{},
		devices: map[string]*access.DeviceSettings{}}
	for _, p := range f.Policies {
		if st.policies[p.ID] != nil {
			return nil, fmt.Errorf("duplicate access policy %q", p.ID)
		}
		st.policies[p.ID] = p
		st.polOrder = append(st.polOrder, p.ID)
	}
	for _, sc := range f.Schedules {
		if st.scheds[sc.ID] != nil {
			return nil, fmt.Errorf("duplicate schedule %q", sc.ID)
		}
		st.scheds[sc.ID] = sc
		st.schOrder = append(st.schOrder, sc.ID)
	}
	for _, d := range f.Devices {
		if st.devices[d.DeviceID] != nil {
			return nil, fmt.Errorf("duplicate device settings %q", d.DeviceID)
		}
		st.devices[d.DeviceID] = d
		st.devOrder = append(st.devOrder, d.DeviceID)
	}

	sp := &st.space
	sp.buildingID, sp.buildingName, sp.emergency = f.Space.BuildingID, f.Space.BuildingName, f.Space.Emergency
	sp.rings = map[string]*ringRec{}
	if err := sp.groups.set("door group", f.Space.DoorGroups); err != nil {
		return nil, err
	}
	for _, fl := range f.Space.Floors {
		if sp.floor(fl.ID) != nil {
			return nil, fmt.Errorf("duplicate floor %q", fl.ID)
		}
		sp.floors.add(&floorRec{id: fl.ID, name: fl.Name})
	}
	for _, d := range f.Space.Doors {
		if sp.door(d.Door.ID) != nil {
			return nil, fmt.Errorf("duplicate door %q", d.Door.ID)
		}
		sp.doors.add(&doorRec{door: d.Door, unlocked: d.Unlocked, rule: d.Rule, ruleEnds: d.RuleEnds})
	}
	for _, h := range f.Space.Devices {
		if sp.device(h.Device.ID) != nil {
			return nil, fmt.Errorf("duplicate device %q", h.Device.ID)
		}
		sp.hw.add(&hwRec{dev: h.Device, doors: h.Doors})
	}
	for id, req := range f.Space.Rings {
		if sp.device(id) == nil {
			return nil, fmt.Errorf("a doorbell rings at device %q, which does not exist", id)
		}
		sp.rings[id] = &ringRec{requestID: req}
	}

	sp.settings, sp.settingsOrder = st.devices, st.devOrder
	p := &st.people
	for _, err := range []error{p.users.set("user", f.Users), p.visitors.set("visitor", f.Visitors),
		p.holidayGroups.set("holiday group", f.HolidayGroups)} {
		if err != nil {
			return nil, err
		}
	}
	p.policies, p.schedules = st.policies, st.scheds
	p.avatars = f.Avatars
	if p.avatars == nil {
		p.avatars = map[string]Avatar{}
	}
	for _, g := range f.UserGroups {
		if p.group(g.ID) != nil {
			return nil, fmt.Errorf("duplicate user group %q", g.ID)
		}
		p.groups.add(newGroupRec(g.ID, g.Name, g.UpID, g.Members, nonNil(g.PolicyIDs)))
	}
	p.policyOrder, p.scheduleOrder = st.polOrder, st.schOrder
	p.identity = identityState{resources: f.Identity.Resources, users: f.Identity.Users, groups: f.Identity.Groups, invited: f.Identity.Invited}
	p.identity.init()
	if p.identity.users == nil {
		p.identity.users = map[string]map[access.IdentityResourceType][]string{}
	}
	if p.identity.groups == nil {
		p.identity.groups = map[string]map[access.IdentityResourceType][]string{}
	}

	c := &st.creds
	if err := c.cards.set("NFC card", f.Credentials.Cards); err != nil {
		return nil, err
	}
	if err := c.touchPasses.set("touch pass", f.TouchPasses); err != nil {
		return nil, err
	}
	c.sessions, c.generated, c.visitTimers, c.qr = map[string]*sessionRec{}, map[string]bool{}, map[string][]*timer{}, map[string]bool{}
	for _, ss := range f.Credentials.Sessions {
		if c.sessions[ss.ID] != nil {
			return nil, fmt.Errorf("duplicate enrollment session %q", ss.ID)
		}
		c.sessions[ss.ID] = &sessionRec{id: ss.ID, deviceID: ss.DeviceID, reset: ss.Reset, token: ss.Token, cardID: ss.CardID, code: ss.Code}
	}
	for _, pin := range f.Credentials.Generated {
		c.generated[pin] = true
	}
	for _, id := range f.Credentials.QR {
		c.qr[id] = true
	}

	l := &st.logs
	entries := make([]SystemLogEntry, len(f.SystemLogs))
	for i, e := range f.SystemLogs {
		entries[i] = SystemLogEntry{Topic: e.Topic, SystemLog: e.Entry}
	}
	l.log.load(time.Time{}, entries) // no bounds yet: install applies the server's
	l.resources = f.LogResources
	l.static = map[string]staticFile{}
	for k, v := range f.StaticFiles {
		l.static[k] = staticFile{contentType: v.ContentType, data: v.Data}
	}
	if cf := f.Certificate; cf != nil {
		block, _ := pem.Decode(cf.CertPEM)
		if block == nil {
			return nil, errors.New("the certificate is not PEM")
		}
		leaf, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("the certificate does not parse: %v", err)
		}
		l.cert = &APICertificate{KeyPEM: cf.KeyPEM, CertPEM: cf.CertPEM, Leaf: leaf, UploadedAt: cf.UploadedAt}
	}

	for _, t := range f.Clock.Timers {
		if err := st.checkTimer(t.timerKey); err != nil {
			return nil, err
		}
	}
	return st, nil
}

func nonNil(ids []string) []string {
	if ids == nil {
		return []string{}
	}
	return ids
}

// checkTimer reports a timer whose record does not exist.
func (st *loadedState) checkTimer(k timerKey) error {
	ok := false
	switch k.Kind {
	case timerRelock, timerRuleEnd, timerDoorClose:
		ok = st.space.door(k.ID) != nil
	case timerRingTimeout:
		ok = st.space.rings[k.ID] != nil
	case timerSessionExpiry:
		ok = st.creds.sessions[k.ID] != nil
	case timerVisit:
		n, err := strconv.Atoi(k.Arg)
		ok = err == nil && access.VisitorStatus(n).Valid() && st.people.visitors.has(k.ID)
	default:
		return fmt.Errorf("unknown timer kind %q", k.Kind)
	}
	if !ok {
		return fmt.Errorf("a %s timer for %q, which does not exist", k.Kind, k.ID)
	}
	return nil
}

// install replaces the server's state with st and links the timers to
// their records. The caller holds s.mu.
func (s *Server) install(st *loadedState) {
	f := st.f
	switch {
	case f.Token == "" && f.Tokens == nil: // a seed ([SiteRecord]): the server keeps its tokens
	default:
		if f.Token != "" {
			s.token = f.Token
		}
		s.tokens = f.Tokens
	}
	if s.tokens == nil {
		s.tokens = map[string][]Permission{}
	}
	s.space, s.people, s.creds, s.logs = st.space, st.people, st.creds, st.logs
	s.logs.log.setBounds(s.retention, s.clockNow())
	s.indexCards()              // and the cards seeded on people join the card list
	s.hub.webhooks = f.Webhooks // the hub's queue stays

	s.clock.offset, s.clock.seq, s.clock.timers = time.Duration(f.Clock.Offset), f.Clock.Seq, nil
	timers := slices.Clone(f.Clock.Timers)
	slices.SortStableFunc(timers, func(a, b timerFile) int { return cmp.Compare(a.Seq, b.Seq) })
	for _, tf := range timers {
		t := &timer{due: tf.Due, seq: tf.Seq, key: tf.timerKey}
		s.clock.timers = append(s.clock.timers, t)
		s.clock.seq = max(s.clock.seq, tf.Seq)
		switch tf.Kind {
		case timerRelock:
			s.space.door(tf.ID).relock = t
		case timerRuleEnd:
			s.space.door(tf.ID).ruleEnd = t
		case timerRingTimeout:
			s.space.rings[tf.ID].timeout = t
		case timerSessionExpiry:
			s.creds.sessions[tf.ID].expiry = t
		case timerVisit:
			s.creds.visitTimers[tf.ID] = append(s.creds.visitTimers[tf.ID], t)
		}
	}
}

// StatePart is one member of the document [Server.WriteState] writes,
// encoded compactly: a list member element by element (Elems), any
// other member whole (Value).
type StatePart struct {
	Key   string
	List  bool
	Elems [][]byte
	Value []byte
}

// StateParts returns the state WriteState writes, member by member, in
// the document's order, each list element encoded on its own: the form
// a journal of changes compares with the previous one to write only what
// changed (access fake's state journal). An object whose members are
// these parts, lists as arrays of their elements, is a document
// [Server.ReadState] reads. System-log entries, users and visitors are
// encoded once and kept: a call encodes again only the users and
// visitors that may have changed since the last one, so its cost follows
// the changes, not the site's size. The returned slices are shared: do
// not change them.
func (s *Server) StateParts() ([]StatePart, error) {
	s.mu.Lock()
	defer s.mu.Unlock() // the records are shared: encoded under the lock
	v := reflect.ValueOf(s.stateFile(false)).Elem()
	t := v.Type()
	parts := make([]StatePart, 0, t.NumField())
	for i := range t.NumField() {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		fv := v.Field(i)
		p := StatePart{Key: key}
		var cached func() ([][]byte, error)
		switch key {
		case "system_logs":
			cached = s.logs.log.encoded // entries never change once added: each is encoded once
		case "users":
			cached = s.people.users.encoded // a record is encoded again once it may have changed
		case "visitors":
			cached = s.people.visitors.encoded
		}
		if cached != nil {
			elems, err := cached()
			if err != nil {
				return nil, fmt.Errorf("accesstest: StateParts: %s: %w", key, err)
			}
			p.List, p.Elems = true, elems
			parts = append(parts, p)
			continue
		}
		if fv.Kind() == reflect.Slice && !fv.IsNil() {
			p.List = true
			p.Elems = make([][]byte, fv.Len())
			for j := range fv.Len() {
				b, err := json.Marshal(fv.Index(j).Interface())
				if err != nil {
					return nil, fmt.Errorf("accesstest: StateParts: %s: %w", key, err)
				}
				p.Elems[j] = b
			}
		} else {
			b, err := json.Marshal(fv.Interface())
			if err != nil {
				return nil, fmt.Errorf("accesstest: StateParts: %s: %w", key, err)
			}
			p.Value = b
		}
		parts = append(parts, p)
	}
	return parts, nil
}
