package main

import (
	"encoding/json"
	"strings"

	"github.com/access-dev/access"
)

var (
	doorCols      = []string{"id", "name", "full_name", "door_lock_relay_status:LOCK", "door_position_status:POSITION"}
	doorGroupCols = []string{"id", "name", "type", "resources"}
	deviceCols    = []string{"id", "name", "type", "is_online", "location_id"}
)

func doorIDs(x *inv, names []string) ([]string, error) {
	r := &resolver{ctx: x.a.ctx, c: x.c, lists: map[string][]named{}}
	ids := []string{}
	for _, n := range names {
		id, err := r.resolve("door", n)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// spaceOps adds the operations of doors, door groups and devices to the registry.
func spaceOps(r *registry) {
	dArg := []argSpec{{name: "door", kind: "door"}}
	gArg := []argSpec{{name: "group", kind: "door-group"}}
	r.add(
		&opSpec{path: "doors list", sdk: "Doors.List", perm: "view:space", short: "List doors", cols: doorCols,
			ex:  "  access --fake doors list",
			run: func(x *inv) (any, error) { v, _, err := x.c.Doors.List(x.a.ctx); return v, err }},
		&opSpec{path: "doors get", sdk: "Doors.Get", perm: "view:space", short: "Fetch a door", args: dArg,
			ex:  `  access --fake doors get "Main entrance"`,
			run: func(x *inv) (any, error) { v, _, err := x.c.Doors.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "doors unlock", sdk: "Doors.Unlock", perm: "edit:space", short: "Unlock a door remotely", write: true, args: dArg, body: bodyOf[access.UnlockRequest](),
			flags: []flagSpec{{name: "actor-id", usage: "who unlocks (with --actor-name; 3.3.21 or later)"}, {name: "actor-name", usage: "who unlocks (with --actor-id)"},
				{name: "extra", usage: "JSON passed through to the unlock's webhook event"}},
			ex: `  access --fake doors unlock "Main entrance" --actor-id 42 --actor-name "Front desk"`,
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.UnlockRequest, error) {
					req := access.UnlockRequest{ActorID: x.s("actor-id"), ActorName: x.s("actor-name")}
					if e := x.s("extra"); e != "" {
						var v any
						if err := json.Unmarshal([]byte(e), &v); err != nil {
							return req, usageErrorf("--extra: malformed JSON: %v", err)
						}
						req.Extra = v
					}
					return req, nil
				})
				if err != nil {
					return nil, err
				}
				_, err = x.c.Doors.Unlock(x.a.ctx, x.arg(0), &req)
				return done{"unlocked door " + x.arg(0)}, err
			}},
		&opSpec{path: "doors lock-rule set", sdk: "Doors.SetLockRule", perm: "edit:space", short: "Set a temporary locking rule", write: true,
			args: []argSpec{{name: "door", kind: "door"}, {name: "type", body: true, about: "keep_lock, keep_unlock, custom (with --interval), reset, lock_early or lock_now"}}, body: bodyOf[access.LockRuleRequest](),
			flags: []flagSpec{{name: "interval", kind: fInt, usage: "minutes, for custom"}},
			ex:    `  access --fake doors lock-rule set "Main entrance" keep_lock`,
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.LockRuleRequest, error) {
					return access.LockRuleRequest{Type: access.LockRuleType(x.arg(1)), Interval: x.i("interval")}, nil
				})
				_, err := x.c.Doors.SetLockRule(x.a.ctx, x.arg(0), &req)
				return x.then("set lock rule "+string(req.Type)+" on door "+x.arg(0), err, reader(func() (*access.LockRule, *access.Response, error) { return x.c.Doors.GetLockRule(x.a.ctx, x.arg(0)) }))
			}},
		&opSpec{path: "doors lock-rule get", ex: `  access --fake doors lock-rule get "Main entrance"`, sdk: "Doors.GetLockRule", perm: "view:space", short: "Fetch a door's locking rule", args: dArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.Doors.GetLockRule(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "doors emergency set", sdk: "Doors.SetEmergency", perm: "edit:space", short: "Set the site's emergency status (may sound the alarm)", write: true, body: bodyOf[access.EmergencyStatus](),
			long: "Without flags, both modes are released. Every door of the site follows: on a terminal the command asks for confirmation first; " +
				"elsewhere (a script) give --yes.",
			flags: []flagSpec{{name: "lockdown", kind: fBool, usage: "lock every door"}, {name: "evacuation", kind: fBool, usage: "unlock every door"}},
			ex:    "  access --fake doors emergency set --lockdown --yes",
			confirm: func(x *inv) string {
				req, _ := fromData(x, func() (access.EmergencyStatus, error) { return emergencyFlags(x), nil })
				return emergencyQuestion(req)
			},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.EmergencyStatus, error) { return emergencyFlags(x), nil })
				_, err := x.c.Doors.SetEmergency(x.a.ctx, &req)
				return x.then("emergency status set", err, reader(func() (*access.EmergencyStatus, *access.Response, error) { return x.c.Doors.GetEmergency(x.a.ctx) }))
			}},
		&opSpec{path: "doors emergency get", ex: `  access --fake doors emergency get`, sdk: "Doors.GetEmergency", perm: "view:space", short: "Fetch the site's emergency status",
			run: func(x *inv) (any, error) { v, _, err := x.c.Doors.GetEmergency(x.a.ctx); return v, err }},
	)
	r.add(
		&opSpec{path: "door-groups topology", ex: `  access --fake door-groups topology -o yaml`, sdk: "DoorGroups.Topology", perm: "view:space", short: "Show the buildings, floors and doors",
			cols: []string{"id", "name", "type", "resource_topologies"},
			run:  func(x *inv) (any, error) { v, _, err := x.c.DoorGroups.Topology(x.a.ctx); return v, err }},
		&opSpec{path: "door-groups create", ex: `  access --fake door-groups create --name "Ground floor" --door "Main entrance" --door "Visitor lobby"`, sdk: "DoorGroups.Create", perm: "edit:space", short: "Create a door group", write: true, body: bodyOf[access.DoorGroupRequest](), cols: doorGroupCols,
			flags: []flagSpec{{name: "name", usage: "unique name (required)"}, {name: "door", kind: fStrings, usage: "doors (names or ids)"}},
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.DoorGroupRequest, error) {
					ids, err := doorIDs(x, x.ss("door"))
					return access.DoorGroupRequest{GroupName: x.s("name"), Resources: ids}, err
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.DoorGroups.Create(x.a.ctx, &req)
				return v, err
			}},
		&opSpec{path: "door-groups get", ex: `  access --fake door-groups get "Office floors"`, sdk: "DoorGroups.Get", perm: "view:space", short: "Fetch a door group", args: gArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.DoorGroups.Get(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "door-groups update", ex: `  access --fake door-groups update Deliveries --door "Loading dock"`, sdk: "DoorGroups.Update", perm: "edit:space", short: "Rename a door group or replace its doors", write: true, body: bodyOf[access.DoorGroupUpdate](), args: gArg, cols: doorGroupCols,
			long:  "A flag left out keeps the group's value; --door replaces the doors (--door \"\" removes them all).",
			flags: []flagSpec{{name: "name", usage: "new name"}, {name: "door", kind: fStrings, usage: "the doors (replaces them)"}},
			run: func(x *inv) (any, error) {
				req, err := fromData(x, func() (access.DoorGroupUpdate, error) {
					req := access.DoorGroupUpdate{GroupName: x.sp("name")}
					if x.set("door") {
						ids, err := doorIDs(x, x.ss("door"))
						if err != nil {
							return req, err
						}
						req.Resources = ids
					}
					return req, nil
				})
				if err != nil {
					return nil, err
				}
				v, _, err := x.c.DoorGroups.Update(x.a.ctx, x.arg(0), &req)
				return v, err
			}},
		&opSpec{path: "door-groups list", ex: `  access --fake door-groups list`, sdk: "DoorGroups.List", perm: "view:space", short: "List door groups", cols: doorGroupCols,
			run: func(x *inv) (any, error) { v, _, err := x.c.DoorGroups.List(x.a.ctx); return v, err }},
		&opSpec{path: "door-groups delete", ex: `  access --fake door-groups delete Deliveries`, sdk: "DoorGroups.Delete", perm: "edit:space", short: "Delete a door group", write: true, args: gArg,
			run: func(x *inv) (any, error) {
				_, err := x.c.DoorGroups.Delete(x.a.ctx, x.arg(0))
				return done{"deleted door group " + x.arg(0)}, err
			}},
	)
	devArg := []argSpec{{name: "device", kind: "device"}}
	r.add(
		&opSpec{path: "devices list", ex: `  access --fake devices list`, sdk: "Devices.List", perm: "view:device", short: "List devices (flattened; --grouped keeps the per-door groups)", cols: deviceCols,
			flags: []flagSpec{{name: "refresh", kind: fBool, usage: "ask for real-time device info (slower)"}, {name: "grouped", kind: fBool, usage: "one array per door, as the API answers"}},
			run: func(x *inv) (any, error) {
				groups, _, err := x.c.Devices.List(x.a.ctx, &access.DeviceListOptions{Refresh: x.b("refresh")})
				if err != nil || x.b("grouped") {
					return groups, err
				}
				return flatDevices(groups), nil
			}},
		&opSpec{path: "devices settings get", ex: `  access --fake devices settings get "UA Reader Main"`, sdk: "Devices.GetSettings", perm: "view:device", short: "Fetch a device's access-method settings", args: devArg,
			run: func(x *inv) (any, error) { v, _, err := x.c.Devices.GetSettings(x.a.ctx, x.arg(0)); return v, err }},
		&opSpec{path: "devices settings set", ex: `  access --fake devices settings set "UA Reader Main" --enable pin_code --disable face`, sdk: "Devices.UpdateSettings", perm: "edit:device", short: "Change a device's access methods", write: true, body: bodyOf[access.DeviceSettingsUpdate](), args: devArg,
			long:  "Give the access_methods object with --data, or switch methods with --enable/--disable (nfc, bt_tap, bt_button, bt_shake, mobile_wave, pin_code, face, wave, qr_code, touch_pass).",
			flags: []flagSpec{{name: "enable", kind: fStrings, usage: "methods to turn on"}, {name: "disable", kind: fStrings, usage: "methods to turn off"}},
			run: func(x *inv) (any, error) {
				upd, err := fromData(x, func() (access.DeviceSettingsUpdate, error) {
					m, err := methodSwitches(x.ss("enable"), x.ss("disable"))
					if err != nil {
						return access.DeviceSettingsUpdate{}, err
					}
					return access.DeviceSettingsUpdate(*m), nil
				})
				if err != nil {
					return nil, err
				}
				_, err = x.c.Devices.UpdateSettings(x.a.ctx, x.arg(0), &upd)
				return x.then("updated the settings of device "+x.arg(0), err, reader(func() (*access.DeviceSettings, *access.Response, error) {
					return x.c.Devices.GetSettings(x.a.ctx, x.arg(0))
				}))
			}},
		&opSpec{path: "devices trigger-doorbell", ex: `  access --fake devices trigger-doorbell "UA Intercom Main"`, sdk: "Devices.TriggerDoorbell", perm: "edit:device", short: "Ring (or with --cancel stop) a doorbell", write: true, args: devArg, body: bodyOf[access.DoorbellRequest](),
			flags: []flagSpec{{name: "room", usage: "intercom directory name (empty rings the default)"}, {name: "cancel", kind: fBool, usage: "stop the ringing"}},
			run: func(x *inv) (any, error) {
				req, _ := fromData(x, func() (access.DoorbellRequest, error) {
					return access.DoorbellRequest{RoomName: x.s("room"), Cancel: x.b("cancel")}, nil
				})
				_, err := x.c.Devices.TriggerDoorbell(x.a.ctx, x.arg(0), &req)
				return done{"doorbell triggered on " + x.arg(0)}, err
			}},
	)
}

// flatDevices flattens the per-door groups of Devices.List; a device
// that serves several doors (a hub) is listed once, where it first
// appears.
func flatDevices(groups [][]access.Device) []access.Device {
	flat := []access.Device{}
	seen := map[string]bool{}
	for _, g := range groups {
		for _, d := range g {
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			flat = append(flat, d)
		}
	}
	return flat
}

// emergencyFlags is the emergency status of the flags of doors emergency
// set.
func emergencyFlags(x *inv) access.EmergencyStatus {
	return access.EmergencyStatus{Lockdown: x.b("lockdown"), Evacuation: x.b("evacuation")}
}

// emergencyQuestion says what setting the emergency status st does to the
// site, for the confirmation.
func emergencyQuestion(st access.EmergencyStatus) string {
	switch {
	case st.Lockdown && st.Evacuation:
		return "this starts a lockdown (every door locks) and an evacuation (every door unlocks)"
	case st.Lockdown:
		return "this starts a lockdown (every door locks) and ends an evacuation if one is on"
	case st.Evacuation:
		return "this starts an evacuation (every door unlocks) and ends a lockdown if one is on"
	}
	return "this ends any lockdown or evacuation (every door goes back to its rules)"
}

// methodSwitches builds an AccessMethods update from method names.
func methodSwitches(enable, disable []string) (*access.AccessMethods, error) {
	m := &access.AccessMethods{}
	set := func(name string, on bool) error {
		v := access.YesNoOf(on)
		am := &access.AccessMethod{Enabled: v}
		switch strings.ToLower(name) {
		case "nfc":
			m.NFC = am
		case "bt_tap":
			m.BTTap = am
		case "bt_button":
			m.BTButton = am
		case "bt_shake":
			m.BTShake = am
		case "mobile_wave":
			m.MobileWave = am
		case "wave":
			m.Wave = am
		case "qr_code":
			m.QRCode = am
		case "touch_pass":
			m.TouchPass = am
		case "pin_code":
			m.PINCode = &access.PINCodeMethod{Enabled: v}
		case "face":
			m.Face = &access.FaceMethod{Enabled: v}
		default:
			return usageErrorf("unknown access method %q", name)
		}
		return nil
	}
	for _, n := range enable {
		if err := set(n, true); err != nil {
			return nil, err
		}
	}
	for _, n := range disable {
		if err := set(n, false); err != nil {
			return nil, err
		}
	}
	if len(enable)+len(disable) == 0 {
		return nil, usageErrorf("devices settings set: give --data, --enable or --disable")
	}
	return m, nil
}
