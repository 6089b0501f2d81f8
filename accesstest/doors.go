package accesstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// The permission keys of the door and door-group operations.
const (
	ViewSpace Permission = "view:space"
	EditSpace Permission = "edit:space"
)

// The door, door-group and device-list operations.
const (
	OpDoorsGet               Op = "Doors.Get"
	OpDoorsList              Op = "Doors.List"
	OpDoorsUnlock            Op = "Doors.Unlock"
	OpDoorsSetLockRule       Op = "Doors.SetLockRule"
	OpDoorsGetLockRule       Op = "Doors.GetLockRule"
	OpDoorsSetEmergency      Op = "Doors.SetEmergency"
	OpDoorsGetEmergency      Op = "Doors.GetEmergency"
	OpDoorGroupsTopology     Op = "DoorGroups.Topology"
	OpDoorGroupsCreate       Op = "DoorGroups.Create"
	OpDoorGroupsGet          Op = "DoorGroups.Get"
	OpDoorGroupsUpdate       Op = "DoorGroups.Update"
	OpDoorGroupsList         Op = "DoorGroups.List"
	OpDoorGroupsDelete       Op = "DoorGroups.Delete"
	OpDevicesList            Op = "Devices.List"
	OpDevicesTriggerDoorbell Op = "Devices.TriggerDoorbell"
)

// Timing of the fake's doors and doorbells, on the fake's time (see
// [Server.Advance]).
const (
	// DoorUnlockDuration is how long a remote unlock keeps a door
	// unlocked before it relocks.
	DoorUnlockDuration = 5 * time.Second
	// DoorbellRingTimeout is how long a doorbell rings unanswered before
	// it ends with reason code 105 (timed out).
	DoorbellRingTimeout = 30 * time.Second
	// keepRuleSpan is how far ahead keep_lock and keep_unlock rules report
	// their end, like the vendor's samples (decades).
	keepRuleSpan = 60 * 365 * 24 * time.Hour
)

// APIActorName is the actor name of an unlock made without actor fields:
// the name of the API token, on a console.
const APIActorName = "accesstest API token"

// The building group's defaults, until [Server.SetBuilding].
const (
	defaultBuildingName = "All Doors"
)

// doorbellTypes are the device types whose doorbell can be triggered
// (intercoms and reader pros).
var doorbellTypes = []string{"UA-Intercom", "UA-G2-PRO", "UA-G3-PRO"}

type floorRec struct{ id, name string }

type doorRec struct {
	door     access.Door // LockRelayStatus is computed, see relay
	unlocked bool        // a remote unlock holds the relay open
	relock   *timer
	rule     access.LockRuleType
	ruleEnds time.Time
	ruleEnd  *timer
}

type hwRec struct {
	dev   access.Device
	doors []string // the doors whose group lists the device
}

type ringRec struct {
	requestID string
	timeout   *timer
}

// spaceState is the site: floors, doors, door groups, the devices list,
// the emergency mode and the ringing doorbells.
type spaceState struct {
	buildingID   string
	buildingName string
	floors       table[floorRec, floorID]
	doors        table[doorRec, doorID]
	groups       table[access.DoorGroup, doorGroupID] // access groups; Resources carry ids and type only
	hw           table[hwRec, deviceID]
	emergency    access.EmergencyStatus
	rings        map[string]*ringRec
	// settings are the devices' access-method settings (handlers.go), in
	// settingsOrder.
	settings      map[string]*access.DeviceSettings
	settingsOrder []string
}

// sp returns the site state, filling its defaults. The caller holds s.mu.
func (s *Server) sp() *spaceState {
	sp := &s.space
	if sp.buildingID == "" {
		sp.buildingID = s.newID()
		sp.buildingName = defaultBuildingName
	}
	if sp.rings == nil {
		sp.rings = map[string]*ringRec{}
	}
	return sp
}

// hubDoor runs the timers that fell due and finds the door of the
// request's {id}, which an unlock or a lock rule needs bound to a hub; it
// answers the request and returns a nil door when there is none. The
// caller holds s.mu.
func (s *Server) hubDoor(w http.ResponseWriter, r *http.Request) (*spaceState, *doorRec) {
	s.runDue()
	sp := s.sp()
	d := sp.door(r.PathValue("id"))
	switch {
	case d == nil:
		resourceNotFound(w)
		return sp, nil
	case !d.door.IsBindHub:
		operationForbidden(w, "The door is not bound to a hub.")
		return sp, nil
	}
	return sp, d
}

func (sp *spaceState) door(id string) *doorRec { return sp.doors.get(id) }

func (sp *spaceState) floor(id string) *floorRec { return sp.floors.get(id) }

func (sp *spaceState) group(id string) *access.DoorGroup { return sp.groups.get(id) }

func (sp *spaceState) device(id string) *hwRec { return sp.hw.get(id) }

// relay computes a door's lock relay: an emergency mode first, then a
// remote unlock in progress, then the lock rule.
func (sp *spaceState) relay(d *doorRec) access.DoorLockRelayStatus {
	switch {
	case sp.emergency.Lockdown:
		return access.DoorLocked
	case sp.emergency.Evacuation, d.unlocked:
		return access.DoorUnlocked
	case d.rule == access.LockRuleKeepUnlock || d.rule == access.LockRuleCustom:
		return access.DoorUnlocked
	}
	return access.DoorLocked
}

func (sp *spaceState) wireDoor(d *doorRec) access.Door {
	out := d.door
	out.LockRelayStatus = sp.relay(d)
	return out
}

// ---- seeding and inspection ----

// SetBuilding names the building group, the group of every door that the
// topology and DoorGroups.Get show (by default "All Doors" with a random
// id).
func (s *Server) SetBuilding(id, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	sp := s.sp()
	if id != "" {
		sp.buildingID = id
	}
	if name != "" {
		sp.buildingName = name
	}
}

// AddFloor adds a floor of the building and returns its id (a new UUID
// when id is empty). Floors are listed in the order they were added.
func (s *Server) AddFloor(id, name string) string {
	return seed(s, func() (string, error) {
		sp := s.sp()
		if id == "" {
			id = s.newID()
		}
		if sp.floor(id) != nil {
			return "", fmt.Errorf("accesstest: AddFloor: duplicate floor id %q", id)
		}
		sp.floors.add(&floorRec{id: id, name: name})
		return id, nil
	})
}

// AddDoor adds a door on an existing floor (FloorID) and returns it as
// stored: an empty ID gets a UUID, Type is "door", an empty FullName
// becomes "<building> - <floor> - <name>". LockRelayStatus is ignored: the
// relay follows unlocks, lock rules and the emergency mode. Leave
// PositionStatus empty for a door without a position sensor.
func (s *Server) AddDoor(d access.Door) access.Door {
	return seed(s, func() (access.Door, error) {
		sp := s.sp()
		if d.ID == "" {
			d.ID = s.newID()
		}
		f := sp.floor(d.FloorID)
		switch {
		case sp.door(d.ID) != nil:
			return access.Door{}, fmt.Errorf("accesstest: AddDoor: duplicate door id %q", d.ID)
		case f == nil:
			return access.Door{}, fmt.Errorf("accesstest: AddDoor: door %q is on unknown floor %q", d.ID, d.FloorID)
		}
		d.Type = "door"
		if d.FullName == "" {
			d.FullName = sp.buildingName + " - " + f.name + " - " + d.Name
		}
		d.LockRelayStatus = ""
		rec := &doorRec{door: d}
		sp.doors.add(rec)
		return sp.wireDoor(rec), nil
	})
}

// AddDoorGroup adds a door group (type access) of existing doors: set
// ID (empty: a UUID), Name, and Resources with the doors' ids.
func (s *Server) AddDoorGroup(g access.DoorGroup) access.DoorGroup {
	return seed(s, func() (access.DoorGroup, error) {
		sp := s.sp()
		if g.ID == "" {
			g.ID = s.newID()
		}
		if sp.group(g.ID) != nil || g.ID == sp.buildingID {
			return access.DoorGroup{}, fmt.Errorf("accesstest: AddDoorGroup: duplicate id %q", g.ID)
		}
		ids := make([]string, len(g.Resources))
		for i, r := range g.Resources {
			ids[i] = r.ID
		}
		if code, msg := sp.checkGroup("", g.Name, ids); code != "" {
			return access.DoorGroup{}, fmt.Errorf("accesstest: AddDoorGroup %q: %s", g.Name, msg)
		}
		rec := &access.DoorGroup{ID: g.ID, Name: g.Name, Type: access.DoorGroupAccess, Resources: doorResources(ids)}
		sp.groups.add(rec)
		return clone(*rec), nil
	})
}

// AddDeviceInfo adds a device to the devices list, in the group of the
// door named by its LocationID and in those of alsoAt (a hub driving
// several doors is listed once per door, as on real sites). An empty ID
// gets a random 12-hex-digit id. Its access-method settings are separate
// (see [Server.AddDevice]).
func (s *Server) AddDeviceInfo(d access.Device, alsoAt ...string) access.Device {
	return seed(s, func() (access.Device, error) {
		sp := s.sp()
		if d.ID == "" {
			d.ID = s.randomHex(6)
		}
		if sp.device(d.ID) != nil {
			return access.Device{}, fmt.Errorf("accesstest: AddDeviceInfo: duplicate device id %q", d.ID)
		}
		var doors []string
		if d.LocationID != "" {
			doors = append(doors, d.LocationID)
		}
		doors = append(doors, alsoAt...)
		for _, id := range doors {
			if sp.door(id) == nil {
				return access.Device{}, fmt.Errorf("accesstest: AddDeviceInfo: device %q at unknown door %q", d.ID, id)
			}
		}
		if d.Capabilities == nil {
			d.Capabilities = []string{}
		}
		c := clone(d)
		sp.hw.add(&hwRec{dev: c, doors: doors})
		return clone(c), nil
	})
}

// Door returns a door's current state; its LockRelayStatus reflects
// unlocks, lock rules and the emergency mode at the fake's time.
func (s *Server) Door(id string) (access.Door, bool) {
	defer s.readUnlock(s.readLock(true)) // the timers due run first
	sp := &s.space
	if d := sp.doors.peek(id); d != nil {
		return sp.wireDoor(d), true
	}
	return access.Door{}, false
}

// Doors returns every door's current state, in the order they were added.
func (s *Server) Doors() []access.Door {
	defer s.readUnlock(s.readLock(true)) // the timers due run first
	return s.doorList()
}

// doorList is every door. The caller holds s.mu (shared: readLock).
func (s *Server) doorList() []access.Door {
	sp := &s.space
	out := make([]access.Door, sp.doors.len())
	for i, d := range sp.doors.list {
		out[i] = sp.wireDoor(d)
	}
	return out
}

// LockRule returns the lock rule in force on a door.
func (s *Server) LockRule(doorID string) (access.LockRule, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	d := s.sp().door(doorID)
	if d == nil {
		return access.LockRule{}, false
	}
	return lockRuleOf(d), true
}

func lockRuleOf(d *doorRec) access.LockRule {
	r := access.LockRule{Type: d.rule}
	if d.rule != access.LockRuleNone {
		r.EndedTime = access.UnixTimeOf(d.ruleEnds)
	}
	return r
}

// Emergency returns the site's emergency mode.
func (s *Server) Emergency() access.EmergencyStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sp().emergency
}

// DoorGroup returns a door group (the building group too), with its
// doors' names.
func (s *Server) DoorGroup(id string) (access.DoorGroup, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.namedGroup(id)
}

// DoorGroups returns the access door groups, in the order they were made.
func (s *Server) DoorGroups() []access.DoorGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	out := make([]access.DoorGroup, sp.groups.len())
	for i, g := range sp.groups.list {
		out[i] = clone(*g)
	}
	return out
}

// Ringing reports whether a device's doorbell rings, with the ring's
// request id.
func (s *Server) Ringing(deviceID string) (requestID string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	if r := s.sp().rings[deviceID]; r != nil {
		return r.requestID, true
	}
	return "", false
}

// DeviceList returns the devices list as the controller sends it: one
// group per door, in door order, then a group per device bound to no door.
func (s *Server) DeviceList() access.DeviceGroups {
	s.mu.Lock()
	defer s.mu.Unlock()
	return clone(s.deviceGroups())
}

func (s *Server) deviceGroups() access.DeviceGroups {
	sp := s.sp()
	out := access.DeviceGroups{}
	for _, d := range sp.doors.list {
		var grp []access.Device
		for _, h := range sp.hw.list {
			if slices.Contains(h.doors, d.door.ID) {
				grp = append(grp, h.dev)
			}
		}
		if grp != nil {
			out = append(out, grp)
		}
	}
	for _, h := range sp.hw.list {
		if len(h.doors) == 0 {
			out = append(out, []access.Device{h.dev})
		}
	}
	return out
}

// ---- events ----

func (sp *spaceState) location(d *doorRec) *access.EventLocation {
	return &access.EventLocation{ID: d.door.ID, LocationType: "door", Name: d.door.Name, UpID: d.door.FloorID}
}

func eventDevice(h *hwRec) *access.EventDevice {
	if h == nil {
		return nil
	}
	mac := h.dev.ID
	if len(mac) == 12 {
		mac = mac[0:2] + ":" + mac[2:4] + ":" + mac[4:6] + ":" + mac[6:8] + ":" + mac[8:10] + ":" + mac[10:12]
	}
	return &access.EventDevice{ID: h.dev.ID, Name: h.dev.Name, Alias: h.dev.Alias, MAC: mac, Online: h.dev.IsOnline,
		DeviceType: h.dev.Type, ConnectedHubID: h.dev.ConnectedUAHID, LocationID: h.dev.LocationID}
}

// hubOf returns the hub driving a door: the first device listed at the
// door with the is_hub capability, else its first device.
func (sp *spaceState) hubOf(doorID string) *hwRec {
	var first *hwRec
	for _, h := range sp.hw.list {
		if !slices.Contains(h.doors, doorID) {
			continue
		}
		if slices.Contains(h.dev.Capabilities, "is_hub") {
			return h
		}
		if first == nil {
			first = h
		}
	}
	return first
}

// temporaryObject is the object of the access.temporary_unlock events,
// which the vendor does not document.
type temporaryObject struct {
	LockRule  access.LockRuleType `json:"lock_rule"`
	EndedTime access.UnixTime     `json:"ended_time"`
}

// endTemporaryUnlock ends a keep_unlock or custom rule, publishing
// access.temporary_unlock.end. The caller holds s.mu.
func (s *Server) endTemporaryUnlock(d *doorRec) {
	if d.rule != access.LockRuleKeepUnlock && d.rule != access.LockRuleCustom {
		return
	}
	sp := s.sp()
	obj := temporaryObject{LockRule: d.rule, EndedTime: access.UnixTimeOf(s.clockNow())}
	d.ruleEnd.stop()
	d.rule, d.ruleEnds, d.ruleEnd = access.LockRuleNone, time.Time{}, nil
	s.publish(change{Event: access.EventTemporaryUnlockEnd, Location: sp.location(d), Device: eventDevice(sp.hubOf(d.door.ID)), Object: obj})
}

// ---- handlers ----

func resourceNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found.")
}

func operationForbidden(w http.ResponseWriter, detail string) {
	writeError(w, http.StatusBadRequest, access.CodeOperationForbidden, "The requested operation is not allowed. "+detail)
}

func writeSuccess(w http.ResponseWriter) {
	writeData(w, "success")
}

func (s *Server) getDoor(w http.ResponseWriter, r *http.Request) {
	d, ok := s.Door(r.PathValue("id"))
	if !ok {
		resourceNotFound(w)
		return
	}
	writeData(w, d)
}

func (s *Server) listDoors(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.Doors())
}

func (s *Server) unlockDoor(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ActorID   *string         `json:"actor_id"`
		ActorName *string         `json:"actor_name"`
		Extra     json.RawMessage `json:"extra"`
	}
	if r.ContentLength != 0 {
		if err := decodeBody(r, &req); err != nil {
			badParams(w, "Body must be an object with actor_id, actor_name and extra.")
			return
		}
	}
	if (req.ActorID == nil) != (req.ActorName == nil) {
		badParams(w, "actor_id and actor_name go together.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, d := s.hubDoor(w, r)
	switch {
	case d == nil:
		return
	case sp.emergency.Lockdown:
		operationForbidden(w, "The site is in lockdown.")
		return
	}
	actor := &access.EventActor{Name: APIActorName, Type: "open_api"}
	if req.ActorID != nil {
		actor.ID, actor.Name = *req.ActorID, *req.ActorName
	}
	d.relock.stop()
	d.unlocked = true
	d.relock = s.after(DoorUnlockDuration, timerKey{Kind: timerRelock, ID: d.door.ID})
	obj := access.DoorUnlockObject{AuthenticationType: "API", Result: "Access Granted"}
	if len(req.Extra) > 0 && string(req.Extra) != "null" {
		obj.Extra = req.Extra
	}
	s.publish(change{Event: access.EventDoorUnlock, Location: sp.location(d), Device: eventDevice(sp.hubOf(d.door.ID)), Actor: actor, Object: obj})
	writeSuccess(w)
}

func (s *Server) setLockRule(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Type     access.LockRuleType `json:"type"`
		Interval json.Number         `json:"interval"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be an object with type and interval.")
		return
	}
	var minutes int64
	switch req.Type {
	case access.LockRuleKeepLock, access.LockRuleKeepUnlock, access.LockRuleReset, access.LockRuleLockEarly, access.LockRuleLockNow:
	case access.LockRuleCustom:
		n, err := req.Interval.Int64()
		if err != nil || n < 1 {
			badParams(w, "interval must be a whole number of minutes, at least 1, for a custom rule.")
			return
		}
		minutes = n
	default:
		badParams(w, "type must be keep_lock, keep_unlock, custom, reset, lock_early or lock_now.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, d := s.hubDoor(w, r)
	if d == nil {
		return
	}
	now := s.clockNow()
	switch req.Type {
	case access.LockRuleKeepLock:
		s.endTemporaryUnlock(d)
		d.rule, d.ruleEnds = access.LockRuleKeepLock, now.Add(keepRuleSpan)
	case access.LockRuleKeepUnlock, access.LockRuleCustom:
		s.endTemporaryUnlock(d)
		d.ruleEnd.stop()
		d.rule = req.Type
		if req.Type == access.LockRuleCustom {
			d.ruleEnds = now.Add(time.Duration(minutes) * time.Minute)
			d.ruleEnd = s.after(time.Duration(minutes)*time.Minute, timerKey{Kind: timerRuleEnd, ID: d.door.ID})
		} else {
			d.ruleEnds = now.Add(keepRuleSpan)
		}
		s.publish(change{Event: access.EventTemporaryUnlockStart, Location: sp.location(d), Device: eventDevice(sp.hubOf(d.door.ID)),
			Object: temporaryObject{LockRule: d.rule, EndedTime: access.UnixTimeOf(d.ruleEnds)}})
	case access.LockRuleReset:
		s.endTemporaryUnlock(d)
		if d.rule == access.LockRuleKeepLock {
			d.rule, d.ruleEnds = access.LockRuleNone, time.Time{}
		}
	case access.LockRuleLockEarly:
		s.endTemporaryUnlock(d)
		d.rule, d.ruleEnds = access.LockRuleLockEarly, now
	case access.LockRuleLockNow:
		s.endTemporaryUnlock(d)
		d.relock.stop()
		d.unlocked, d.relock = false, nil
		d.rule, d.ruleEnds = access.LockRuleNone, time.Time{}
	}
	if req.Type != access.LockRuleKeepUnlock && req.Type != access.LockRuleCustom {
		// No webhook event for these rules: the change is still logged.
		s.publish(change{Log: "lock rule " + string(req.Type) + " set on " + d.door.Name, Location: sp.location(d)})
	}
	writeSuccess(w)
}

func (s *Server) getLockRule(w http.ResponseWriter, r *http.Request) {
	rule, ok := s.LockRule(r.PathValue("id"))
	if !ok {
		resourceNotFound(w)
		return
	}
	writeData(w, rule)
}

func (s *Server) setEmergency(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Lockdown   *bool `json:"lockdown"`
		Evacuation *bool `json:"evacuation"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be an object with the booleans lockdown and evacuation.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	next := sp.emergency
	if req.Lockdown != nil {
		next.Lockdown = *req.Lockdown
	}
	if req.Evacuation != nil {
		next.Evacuation = *req.Evacuation
	}
	if next.Lockdown && next.Evacuation {
		badParams(w, "lockdown and evacuation cannot both be on.")
		return
	}
	s.switchEmergency(next, false)
	writeSuccess(w)
}

func (s *Server) getEmergency(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.Emergency())
}

// ---- door groups ----

func doorResources(ids []string) []access.Resource {
	out := make([]access.Resource, len(ids))
	for i, id := range ids {
		out[i] = access.Resource{ID: id, Type: "door"}
	}
	return out
}

// checkGroup validates a door group's name (unique; self is the group's
// own id on update) and doors (they must exist). It returns the error
// code and message to answer, or "".
func (sp *spaceState) checkGroup(self, name string, doors []string) (access.ErrorCode, string) {
	if strings.TrimSpace(name) == "" {
		return access.CodeParamsInvalid, paramsInvalidMessage + " group_name is required."
	}
	if name == sp.buildingName {
		return access.CodeParamsInvalid, "The provided name already exists."
	}
	for _, g := range sp.groups.list {
		if g.ID != self && g.Name == name {
			return access.CodeParamsInvalid, "The provided name already exists."
		}
	}
	for _, id := range doors {
		if sp.door(id) == nil {
			return access.CodeResourceNotFound, "The requested resource was not found: door " + id + "."
		}
	}
	return "", ""
}

// namedGroup returns a group with its doors' names. The caller holds s.mu.
func (s *Server) namedGroup(id string) (access.DoorGroup, bool) {
	sp := s.sp()
	if id == sp.buildingID {
		g := access.DoorGroup{ID: sp.buildingID, Name: sp.buildingName, Type: access.DoorGroupBuilding, Resources: []access.Resource{}}
		for _, d := range sp.doors.list {
			g.Resources = append(g.Resources, access.Resource{ID: d.door.ID, Name: d.door.Name, Type: "door"})
		}
		return g, true
	}
	g := sp.group(id)
	if g == nil {
		return access.DoorGroup{}, false
	}
	out := clone(*g)
	for i := range out.Resources {
		if d := sp.door(out.Resources[i].ID); d != nil {
			out.Resources[i].Name = d.door.Name
		}
	}
	return out, true
}

// topologyOf lays doors out by floor, in floor order.
func (sp *spaceState) topologyOf(doorIDs []string) []access.FloorTopology {
	out := []access.FloorTopology{}
	for _, f := range sp.floors.list {
		ft := access.FloorTopology{ID: f.id, Name: f.name, Type: "floor", Doors: []access.TopologyDoor{}}
		for _, d := range sp.doors.list {
			if d.door.FloorID == f.id && slices.Contains(doorIDs, d.door.ID) {
				ft.Doors = append(ft.Doors, access.TopologyDoor{ID: d.door.ID, Name: d.door.Name, Type: "door", IsBindHub: d.door.IsBindHub})
			}
		}
		if len(ft.Doors) > 0 {
			out = append(out, ft)
		}
	}
	return out
}

func (s *Server) doorGroupTopology(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	sp := s.sp()
	all := make([]string, sp.doors.len())
	for i, d := range sp.doors.list {
		all[i] = d.door.ID
	}
	out := []access.DoorGroupTopology{{ID: sp.buildingID, Name: sp.buildingName, Type: access.DoorGroupBuilding, Floors: sp.topologyOf(all)}}
	for _, g := range sp.groups.list {
		ids := make([]string, len(g.Resources))
		for i, r := range g.Resources {
			ids[i] = r.ID
		}
		out = append(out, access.DoorGroupTopology{ID: g.ID, Name: g.Name, Type: access.DoorGroupAccess, Floors: sp.topologyOf(ids)})
	}
	s.mu.Unlock()
	writeData(w, out)
}

func (s *Server) createDoorGroup(w http.ResponseWriter, r *http.Request) {
	var req struct {
		GroupName string    `json:"group_name"`
		Resources *[]string `json:"resources"`
	}
	if err := decodeBody(r, &req); err != nil || req.Resources == nil {
		badParams(w, "Body must be an object with group_name and resources (door ids).")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	if code, msg := sp.checkGroup("", req.GroupName, *req.Resources); code != "" {
		writeError(w, http.StatusBadRequest, code, msg)
		return
	}
	g := &access.DoorGroup{ID: s.newID(), Name: req.GroupName, Type: access.DoorGroupAccess, Resources: doorResources(*req.Resources)}
	sp.groups.add(g)
	s.publish(change{Log: "door group created: " + g.ID})
	writeData(w, g)
}

func (s *Server) getDoorGroup(w http.ResponseWriter, r *http.Request) {
	g, ok := s.DoorGroup(r.PathValue("id"))
	if !ok {
		resourceNotFound(w)
		return
	}
	writeData(w, g)
}

func (s *Server) updateDoorGroup(w http.ResponseWriter, r *http.Request) {
	var req struct {
		GroupName *string   `json:"group_name"`
		Resources *[]string `json:"resources"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be an object with group_name and/or resources (door ids).")
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	if id == sp.buildingID {
		operationForbidden(w, "The building group cannot be changed.")
		return
	}
	g := sp.group(id)
	if g == nil {
		resourceNotFound(w)
		return
	}
	name := g.Name
	if req.GroupName != nil {
		name = *req.GroupName
	}
	var doors []string
	if req.Resources != nil {
		doors = *req.Resources
	}
	if code, msg := sp.checkGroup(g.ID, name, doors); code != "" {
		writeError(w, http.StatusBadRequest, code, msg)
		return
	}
	g.Name = name
	if req.Resources != nil {
		g.Resources = doorResources(doors)
	}
	s.publish(change{Log: "door group updated: " + g.ID})
	writeData(w, g)
}

func (s *Server) listDoorGroups(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.DoorGroups())
}

// deleteDoorGroup removes a group and the references access policies and
// visitors hold to it.
func (s *Server) deleteDoorGroup(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	if id == sp.buildingID {
		operationForbidden(w, "The building group cannot be deleted.")
		return
	}
	if sp.groups.remove(id) == nil {
		resourceNotFound(w)
		return
	}
	isGroup := func(r access.Resource) bool { return r.ID == id && r.Type == "door_group" }
	for _, p := range s.people.policies {
		p.Resources = slices.DeleteFunc(p.Resources, isGroup)
	}
	for _, v := range s.people.visitors.list {
		n := len(v.Resources)
		if v.Resources = slices.DeleteFunc(v.Resources, isGroup); len(v.Resources) != n {
			s.people.visitors.mark(v)
		}
	}
	s.publish(change{Log: "door group deleted: " + id})
	writeSuccess(w)
}

// ---- devices ----

func (s *Server) listDevices(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("refresh"); v != "" && v != "true" && v != "false" {
		badParams(w, "refresh must be true or false.")
		return
	}
	s.mu.Lock()
	out := s.deviceGroups()
	b, err := json.Marshal(envelope{Code: access.CodeSuccess, Msg: "success", Data: out})
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, access.CodeSystemError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// readerDoor is a reader and the door it taps open: the first door of
// its device's group. A device not found answers [ErrNoDevice], one at
// no door [ErrNotSupported]. The caller holds s.mu.
func (sp *spaceState) readerDoor(deviceID string) (*hwRec, *doorRec, error) {
	h := sp.device(deviceID)
	if h == nil {
		return nil, nil, fmt.Errorf("%w %q", ErrNoDevice, deviceID)
	}
	if len(h.doors) == 0 || sp.door(h.doors[0]) == nil {
		return nil, nil, fmt.Errorf("%w: device %q is at no door", ErrNotSupported, deviceID)
	}
	return h, sp.door(h.doors[0]), nil
}

// ringLocation is the door a doorbell rings at: the first door of its
// group, or none.
func (sp *spaceState) ringLocation(h *hwRec) *access.EventLocation {
	if len(h.doors) == 0 {
		return nil
	}
	return sp.location(sp.door(h.doors[0]))
}

// ringTimedOut ends the device's unanswered ring with reason code 105.
// The caller holds s.mu.
func (s *Server) ringTimedOut(deviceID string) {
	sp := s.sp()
	ring, h := sp.rings[deviceID], sp.device(deviceID)
	if ring == nil || h == nil {
		return
	}
	delete(sp.rings, deviceID)
	s.publish(change{Event: access.EventDoorbellCompleted, Location: sp.ringLocation(h), Device: eventDevice(h),
		Object: access.DoorbellObject{RequestID: ring.requestID, ReasonCode: 105}})
}

func (s *Server) triggerDoorbell(w http.ResponseWriter, r *http.Request) {
	var req struct {
		RoomName *string `json:"room_name"`
		Cancel   bool    `json:"cancel"`
	}
	if err := decodeBody(r, &req); err != nil || req.RoomName == nil {
		badParams(w, "Body must be an object with room_name.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	id := r.PathValue("id")
	h := sp.device(id)
	switch {
	case h == nil:
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceNotFound, "The device was not found.")
		return
	case !slices.Contains(doorbellTypes, h.dev.Type):
		writeError(w, http.StatusBadRequest, access.CodeDeviceAPINotSupported, "The API is currently not available for this device.")
		return
	case !h.dev.IsOnline:
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceOffline, "The device is currently offline.")
		return
	}
	loc := sp.ringLocation(h)
	ring := sp.rings[id]
	if req.Cancel {
		if ring != nil {
			ring.timeout.stop()
			delete(sp.rings, id)
			s.publish(change{Event: access.EventDoorbellCompleted, Location: loc, Device: eventDevice(h),
				Object: access.DoorbellObject{RequestID: ring.requestID, ReasonCode: 108}, ByAPI: true})
		}
		writeSuccess(w)
		return
	}
	if ring != nil {
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceBusy, "The doorbell is already ringing.")
		return
	}
	ring = &ringRec{requestID: s.randomHex(16)}
	sp.rings[id] = ring
	ring.timeout = s.after(DoorbellRingTimeout, timerKey{Kind: timerRingTimeout, ID: id})
	s.publish(change{Event: access.EventDoorbellIncoming, Location: loc, Device: eventDevice(h),
		Object: access.DoorbellObject{RequestID: ring.requestID}})
	writeSuccess(w)
}
