package access

import (
	"context"
	"encoding/json"
)

// DoorsService reads doors, unlocks them, sets temporary lock rules and
// puts the whole site into an emergency mode. Get it from [Client.Doors].
// Door groups are in [DoorGroupsService].
type DoorsService service

// DoorLockRelayStatus is the state of a door's lock relay.
type DoorLockRelayStatus string

// The lock relay states.
const (
	DoorLocked   DoorLockRelayStatus = "lock"
	DoorUnlocked DoorLockRelayStatus = "unlock"
)

// DoorPositionStatus is what a door position sensor (DPS) reports.
type DoorPositionStatus string

// The door positions. [DoorPositionUnknown] stands for a door without a
// wired sensor, which controllers report as null (or, in one vendor
// sample, "").
const (
	DoorOpen            DoorPositionStatus = "open"
	DoorClosed          DoorPositionStatus = "close"
	DoorPositionUnknown DoorPositionStatus = ""
)

// MarshalJSON encodes [DoorPositionUnknown] as null, as controllers do.
func (p DoorPositionStatus) MarshalJSON() ([]byte, error) {
	if p == DoorPositionUnknown {
		return []byte("null"), nil
	}
	return json.Marshal(string(p))
}

// Door is a door as the doors operations return it.
type Door struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	FullName string `json:"full_name"`
	FloorID  string `json:"floor_id"`
	// Type is "door".
	Type string `json:"type"`
	// IsBindHub reports whether a hub drives the door's lock; only such
	// doors can be unlocked remotely.
	IsBindHub bool `json:"is_bind_hub"`
	// LockRelayStatus is DoorLocked or DoorUnlocked.
	LockRelayStatus DoorLockRelayStatus `json:"door_lock_relay_status"`
	// PositionStatus is DoorOpen, DoorClosed, or DoorPositionUnknown when
	// no sensor is wired (null on the wire).
	PositionStatus DoorPositionStatus `json:"door_position_status"`
}

// UnlockRequest names who unlocks a door, for the system log and the
// access.door.unlock webhook. Give both ActorID and ActorName or neither;
// without them the controller names the API token as the actor.
type UnlockRequest struct {
	ActorID   string `json:"actor_id,omitempty"`
	ActorName string `json:"actor_name,omitempty"`
	// Extra is any JSON value, passed through untouched: the controller
	// echoes it in the webhook payload. A json.RawMessage is sent
	// verbatim; other values are encoded with encoding/json.
	Extra any `json:"extra,omitempty"`
}

// LockRuleType is the type of a temporary lock rule.
type LockRuleType string

// The rule types [DoorsService.SetLockRule] accepts, and the ones
// [DoorsService.GetLockRule] may also report.
const (
	// LockRuleKeepLock keeps the door locked until the rule is reset.
	LockRuleKeepLock LockRuleType = "keep_lock"
	// LockRuleKeepUnlock keeps the door unlocked until the rule is reset.
	LockRuleKeepUnlock LockRuleType = "keep_unlock"
	// LockRuleCustom unlocks the door for LockRuleRequest.Interval minutes.
	LockRuleCustom LockRuleType = "custom"
	// LockRuleReset ends a temporary unlock (keep_unlock or custom).
	LockRuleReset LockRuleType = "reset"
	// LockRuleLockEarly locks a door that an unlock schedule holds open
	// before the schedule's range ends.
	LockRuleLockEarly LockRuleType = "lock_early"
	// LockRuleLockNow ends both the unlock schedule and any temporary
	// unlock at once.
	LockRuleLockNow LockRuleType = "lock_now"

	// LockRuleSchedule is reported (never set) while an unlock schedule
	// holds the door open.
	LockRuleSchedule LockRuleType = "schedule"
	// LockRuleNone is reported when no rule is in force.
	LockRuleNone LockRuleType = ""
)

// settable reports whether t may be sent with SetLockRule.
func (t LockRuleType) settable() bool {
	switch t {
	case LockRuleKeepLock, LockRuleKeepUnlock, LockRuleCustom, LockRuleReset, LockRuleLockEarly, LockRuleLockNow:
		return true
	}
	return false
}

// LockRuleRequest is a temporary lock rule to set on a door.
type LockRuleRequest struct {
	Type LockRuleType `json:"type"`
	// Interval is the unlock duration in minutes, for LockRuleCustom only
	// (at least 1).
	Interval int `json:"interval,omitempty"`
}

// LockRule is the lock rule in force on a door.
type LockRule struct {
	// Type is one of the LockRule constants, LockRuleSchedule or
	// LockRuleNone.
	Type LockRuleType `json:"type"`
	// EndedTime is when the rule ends; EndedTime.Time() converts it. Keep
	// rules report a time decades ahead.
	EndedTime UnixTime `json:"ended_time"`
}

// EmergencyStatus is the site-wide emergency mode. Both false is the
// normal state.
type EmergencyStatus struct {
	// Lockdown keeps every door locked.
	Lockdown bool `json:"lockdown"`
	// Evacuation keeps every door unlocked.
	Evacuation bool `json:"evacuation"`
}

func doorPath(id string) string { return "/doors/" + pathSeg(id) }

const emergencyPath = "/doors/settings/emergency"

// Get fetches a door with its lock relay and position status. Available
// on every controller version with the developer API.
//
// API: GET /api/v1/developer/doors/{id} (permission view:space)
func (s *DoorsService) Get(ctx context.Context, id string) (*Door, *Response, error) {
	if err := checkID("Doors.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[Door](ctx, s.client, "GET", doorPath(id), nil, nil, true)
}

// List fetches every door. Available on every controller version with the
// developer API.
//
// API: GET /api/v1/developer/doors (permission view:space)
func (s *DoorsService) List(ctx context.Context) ([]Door, *Response, error) {
	return list[Door](ctx, s.client, "/doors", nil)
}

// Unlock unlocks a door remotely; the controller locks it again after the
// door's unlock duration. The door must be bound to a hub
// ([Door.IsBindHub]). With a nil req the API token is the actor. Giving
// only one of ActorID and ActorName is a [*ValidationError]. The actor
// fields and Extra need controller version 3.3.21 or later (UA-Ultra:
// 2.2.6 or later for the unlock itself).
//
// Unlock acts on the physical site, so it is retried only after a failure
// that proves the console did not act (no connection, 429, 503, a busy or
// offline device); after a dropped connection, a timeout or a 500, 502 or
// 504 the relay may already have opened, and the error is returned for
// the caller to decide (see [RetryPolicy]).
//
// API: PUT /api/v1/developer/doors/{id}/unlock (permission edit:space)
func (s *DoorsService) Unlock(ctx context.Context, id string, req *UnlockRequest) (*Response, error) {
	const op = "Doors.Unlock"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	var body any
	if req != nil {
		switch {
		case req.ActorID != "" && req.ActorName == "":
			return nil, invalidArg(op, "ActorName", "must be set with ActorID")
		case req.ActorID == "" && req.ActorName != "":
			return nil, invalidArg(op, "ActorID", "must be set with ActorName")
		}
		body = req
	}
	_, resp, err := call[ignored](physicalAct(ctx), s.client, "PUT", doorPath(id)+"/unlock", nil, body, false)
	return resp, err
}

// SetLockRule sets a temporary lock rule on a door: keep it locked or
// unlocked, unlock it for Interval minutes (LockRuleCustom, Interval at
// least 1), reset a temporary unlock, or lock early or now. Needs
// controller version 1.24.6 or later (EAH8, UA-Hub-Door-Mini and UA-Ultra:
// 3.1.30 or later). A temporary unlock produces the
// access.temporary_unlock.start and .end webhook events (3.3.10 or later).
// Like [DoorsService.Unlock] it is retried only after a failure that
// proves the console did not act: sent twice, a custom rule would restart
// its interval.
//
// API: PUT /api/v1/developer/doors/{id}/lock_rule (permission edit:space)
func (s *DoorsService) SetLockRule(ctx context.Context, id string, req *LockRuleRequest) (*Response, error) {
	const op = "Doors.SetLockRule"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	switch {
	case req == nil:
		return nil, invalidArg(op, "req", "must not be nil")
	case !req.Type.settable():
		return nil, invalidArg(op, "Type", "must be keep_lock, keep_unlock, custom, reset, lock_early or lock_now")
	case req.Type == LockRuleCustom && req.Interval < 1:
		return nil, invalidArg(op, "Interval", "must be at least 1 minute for a custom rule")
	case req.Type != LockRuleCustom && req.Interval != 0:
		return nil, invalidArg(op, "Interval", "is only for a custom rule")
	}
	_, resp, err := call[ignored](physicalAct(ctx), s.client, "PUT", doorPath(id)+"/lock_rule", nil, req, false)
	return resp, err
}

// GetLockRule fetches the lock rule in force on a door. Needs controller
// version 1.24.6 or later.
//
// API: GET /api/v1/developer/doors/{id}/lock_rule (permission view:space)
func (s *DoorsService) GetLockRule(ctx context.Context, id string) (*LockRule, *Response, error) {
	if err := checkID("Doors.GetLockRule", "id", id); err != nil {
		return nil, nil, err
	}
	return call[LockRule](ctx, s.client, "GET", doorPath(id)+"/lock_rule", nil, nil, true)
}

// SetEmergency sets the emergency mode of every door of the site at once:
// Lockdown keeps them locked, Evacuation keeps them unlocked, both false
// restores the normal state. Both true is a [*ValidationError].
//
// Beware: this acts on the physical site. A real console sounds its alarm
// and every door follows the mode until it is released. Needs controller
// version 1.24.6 or later; the access.device.emergency_status webhook event
// needs 3.1.30 or later. Like [DoorsService.Unlock] it is retried only
// after a failure that proves the console did not act.
//
// API: PUT /api/v1/developer/doors/settings/emergency (permission edit:space)
func (s *DoorsService) SetEmergency(ctx context.Context, status *EmergencyStatus) (*Response, error) {
	const op = "Doors.SetEmergency"
	switch {
	case status == nil:
		return nil, invalidArg(op, "status", "must not be nil")
	case status.Lockdown && status.Evacuation:
		return nil, invalidArg(op, "status", "lockdown and evacuation exclude each other")
	}
	_, resp, err := call[ignored](physicalAct(ctx), s.client, "PUT", emergencyPath, nil, status, false)
	return resp, err
}

// GetEmergency fetches the site's emergency mode. Needs controller version
// 1.24.6 or later.
//
// API: GET /api/v1/developer/doors/settings/emergency (permission view:space)
func (s *DoorsService) GetEmergency(ctx context.Context) (*EmergencyStatus, *Response, error) {
	return call[EmergencyStatus](ctx, s.client, "GET", emergencyPath, nil, nil, true)
}
