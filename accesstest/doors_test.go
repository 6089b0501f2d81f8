package accesstest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

var t0 = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// site is a small site on a fake with a fixed clock and a webhook
// receiver subscribed to every event.
type site struct {
	srv    *accesstest.Server
	c      *access.Client
	secret string
	mu     sync.Mutex
	got    []*access.WebhookEvent // verified deliveries, in arrival order
}

const (
	floorGF = "floor-gf"
	doorA   = "door-a" // hub, sensor
	doorB   = "door-b" // shares doorA's hub
	doorC   = "door-c" // no hub
	hubID   = "7483c2773855"
	readID  = "942a6f4247b2"
	icomID  = "788a20c002c7"
)

func newSite(t *testing.T) *site {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	st := &site{srv: srv, c: srv.Client(noRetry())}
	srv.SetBuilding("bldg", "HQ")
	srv.AddFloor(floorGF, "Ground floor")
	srv.AddDoor(access.Door{ID: doorA, Name: "Main entrance", FloorID: floorGF, IsBindHub: true, PositionStatus: access.DoorClosed})
	srv.AddDoor(access.Door{ID: doorB, Name: "Lobby", FloorID: floorGF, IsBindHub: true})
	srv.AddDoor(access.Door{ID: doorC, Name: "Broom closet", FloorID: floorGF})
	srv.AddDeviceInfo(access.Device{ID: hubID, Name: "UA-HUB-3855", Type: "UAH-Ent", Capabilities: []string{"is_hub", "emergency_settings"},
		IsOnline: true, LocationID: doorA}, doorB)
	srv.AddDeviceInfo(access.Device{ID: readID, Name: "Reader", Type: "UA-Reader-Lite", ConnectedUAHID: hubID, IsOnline: true, LocationID: doorA})
	srv.AddDeviceInfo(access.Device{ID: icomID, Name: "Intercom", Type: "UA-Intercom", ConnectedUAHID: hubID, IsOnline: true, LocationID: doorB})
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := access.ConstructEvent(readAll(t, r), r.Header.Get(access.SignatureHeader), st.secret, access.WithTolerance(0))
		if !assert.NoError(t, err) {
			w.WriteHeader(400)
			return
		}
		st.mu.Lock()
		st.got = append(st.got, ev)
		st.mu.Unlock()
	}))
	t.Cleanup(recv.Close)
	ep := srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "all", Events: access.AllEvents()})
	st.secret = ep.Secret.Value()
	return st
}

func readAll(t *testing.T, r *http.Request) []byte {
	b, err := io.ReadAll(r.Body)
	assert.NoError(t, err)
	return b
}

// events waits for the queued deliveries and returns the events received
// since the last call.
func (st *site) events(t *testing.T) []*access.WebhookEvent {
	t.Helper()
	require.NoError(t, st.srv.WaitDeliveries(ctx))
	st.mu.Lock()
	defer st.mu.Unlock()
	out := st.got
	st.got = nil
	return out
}

func names(evs []*access.WebhookEvent) []access.EventType {
	out := []access.EventType{}
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

func (st *site) relay(t *testing.T, id string) access.DoorLockRelayStatus {
	t.Helper()
	d, _, err := st.c.Doors.Get(ctx, id)
	require.NoError(t, err)
	return d.LockRelayStatus
}

func TestDoorsGetListAndPosition(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	d, _, err := st.c.Doors.Get(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.Door{ID: doorA, Name: "Main entrance", FullName: "HQ - Ground floor - Main entrance", FloorID: floorGF, Type: "door",
		IsBindHub: true, LockRelayStatus: access.DoorLocked, PositionStatus: access.DoorClosed}, *d)
	status, body := raw(t, st.srv, "GET", "/api/v1/developer/doors/"+doorB, st.srv.Token(), "")
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"door_position_status":null`, "no sensor: null, as consoles send")
	ds, _, err := st.c.Doors.List(ctx)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	assert.Equal(t, []string{doorA, doorB, doorC}, []string{ds[0].ID, ds[1].ID, ds[2].ID})
	_, _, err = st.c.Doors.Get(ctx, "nope")
	assert.Equal(t, access.CodeResourceNotFound, apiErr(t, err).Code)
	assert.ErrorIs(t, err, access.ErrNotFound)
}

func TestUnlockRelocksOnTheFakesClock(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	_, err := st.c.Doors.Unlock(ctx, doorA, &access.UnlockRequest{ActorID: "u-7", ActorName: "Front desk",
		Extra: map[string]any{"ticket": 42, "note": "courier"}})
	require.NoError(t, err)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))

	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventDoorUnlock}, names(evs))
	ev := evs[0]
	require.NotNil(t, ev.Data.Actor)
	assert.Equal(t, access.EventActor{ID: "u-7", Name: "Front desk", Type: "open_api"}, *ev.Data.Actor)
	require.NotNil(t, ev.Data.Location)
	assert.Equal(t, doorA, ev.Data.Location.ID)
	assert.Equal(t, floorGF, ev.Data.Location.UpID)
	require.NotNil(t, ev.Data.Device)
	assert.Equal(t, hubID, ev.Data.Device.ID, "the door's hub reports the unlock")
	o, err := ev.DoorUnlock()
	require.NoError(t, err)
	assert.Equal(t, "API", o.AuthenticationType)
	assert.JSONEq(t, `{"ticket":42,"note":"courier"}`, string(o.Extra), "extra passed through")

	st.srv.Advance(accesstest.DoorUnlockDuration - time.Second)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	st.srv.Advance(time.Second)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA), "relocked after DoorUnlockDuration")
	assert.Equal(t, t0.Add(accesstest.DoorUnlockDuration), st.srv.Now())

	// Without a request the token is the actor; a second unlock restarts
	// the relock timer.
	_, err = st.c.Doors.Unlock(ctx, doorA, nil)
	require.NoError(t, err)
	st.srv.Advance(3 * time.Second)
	_, err = st.c.Doors.Unlock(ctx, doorA, nil)
	require.NoError(t, err)
	st.srv.Advance(3 * time.Second)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	st.srv.Advance(2 * time.Second)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA))
	evs = st.events(t)
	require.Len(t, evs, 2)
	assert.Equal(t, accesstest.APIActorName, evs[0].Data.Actor.Name)
	o, err = evs[0].DoorUnlock()
	require.NoError(t, err)
	assert.Nil(t, o.Extra)

	// A door without a hub cannot be unlocked remotely; only both actor
	// fields or none.
	_, err = st.c.Doors.Unlock(ctx, doorC, nil)
	assert.Equal(t, access.CodeOperationForbidden, apiErr(t, err).Code)
	_, err = st.c.Doors.Unlock(ctx, "nope", nil)
	assert.Equal(t, access.CodeResourceNotFound, apiErr(t, err).Code)
	status, body := raw(t, st.srv, "PUT", "/api/v1/developer/doors/"+doorA+"/unlock", st.srv.Token(), `{"actor_id":"x"}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "CODE_PARAMS_INVALID")
	assert.Empty(t, st.events(t))
}

func TestLockRules(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	rule, _, err := st.c.Doors.GetLockRule(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.LockRule{}, *rule, "no rule")

	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 10})
	require.NoError(t, err)
	rule, _, err = st.c.Doors.GetLockRule(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.LockRuleCustom, rule.Type)
	assert.Equal(t, t0.Add(10*time.Minute), rule.EndedTime.Time())
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventTemporaryUnlockStart}, names(evs))
	assert.Nil(t, evs[0].Data.Actor)
	assert.JSONEq(t, `{"lock_rule":"custom","ended_time":`+jsonInt(t0.Add(10*time.Minute).Unix())+`}`, string(evs[0].Data.Object))

	st.srv.Advance(9 * time.Minute)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	assert.Empty(t, st.events(t))
	st.srv.Advance(time.Minute)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA), "the rule expired")
	rule, _, err = st.c.Doors.GetLockRule(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.LockRuleNone, rule.Type)
	evs = st.events(t)
	require.Equal(t, []access.EventType{access.EventTemporaryUnlockEnd}, names(evs))
	d := st.srv.Deliveries()
	require.Len(t, d, 2)
	assert.Equal(t, access.EventTemporaryUnlockEnd, d[1].Event)
	assert.Equal(t, 200, d[1].StatusCode)

	// keep_unlock until reset; keep_lock; lock_now ends an unlock at once.
	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleKeepUnlock})
	require.NoError(t, err)
	st.srv.Advance(24 * time.Hour)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleReset})
	require.NoError(t, err)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA))
	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleKeepLock})
	require.NoError(t, err)
	rule, _, err = st.c.Doors.GetLockRule(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.LockRuleKeepLock, rule.Type)
	assert.Greater(t, rule.EndedTime.Time().Year(), 2080, "keep rules end decades ahead")
	_, err = st.c.Doors.Unlock(ctx, doorA, nil)
	require.NoError(t, err)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA), "a remote unlock opens a kept-locked door for its duration")
	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleLockNow})
	require.NoError(t, err)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA))
	rule, _, err = st.c.Doors.GetLockRule(ctx, doorA)
	require.NoError(t, err)
	assert.Equal(t, access.LockRuleNone, rule.Type)
	assert.Equal(t, []access.EventType{access.EventTemporaryUnlockStart, access.EventTemporaryUnlockEnd, access.EventDoorUnlock}, names(st.events(t)))

	// A custom rule replaced by keep_unlock ends, then the new one starts.
	_, err = st.c.Doors.SetLockRule(ctx, doorB, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 1})
	require.NoError(t, err)
	_, err = st.c.Doors.SetLockRule(ctx, doorB, &access.LockRuleRequest{Type: access.LockRuleKeepUnlock})
	require.NoError(t, err)
	st.srv.Advance(time.Hour)
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorB), "the replaced custom rule's timer no longer fires")
	assert.Equal(t, []access.EventType{access.EventTemporaryUnlockStart, access.EventTemporaryUnlockEnd, access.EventTemporaryUnlockStart}, names(st.events(t)))

	_, err = st.c.Doors.SetLockRule(ctx, doorC, &access.LockRuleRequest{Type: access.LockRuleKeepLock})
	assert.Equal(t, access.CodeOperationForbidden, apiErr(t, err).Code)
	for _, body := range []string{`{"type":"custom"}`, `{"type":"custom","interval":0}`, `{"type":"schedule"}`, `{}`, `[]`} {
		status, resp := raw(t, st.srv, "PUT", "/api/v1/developer/doors/"+doorA+"/lock_rule", st.srv.Token(), body)
		assert.Equal(t, 400, status, body)
		assert.Contains(t, resp, "CODE_PARAMS_INVALID", body)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestEmergencyOverridesEverything(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	_, err := st.c.Doors.SetLockRule(ctx, doorB, &access.LockRuleRequest{Type: access.LockRuleKeepUnlock})
	require.NoError(t, err)
	st.events(t)

	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true})
	require.NoError(t, err)
	em, _, err := st.c.Doors.GetEmergency(ctx)
	require.NoError(t, err)
	assert.Equal(t, access.EmergencyStatus{Lockdown: true}, *em)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorB), "lockdown beats keep_unlock")
	_, err = st.c.Doors.Unlock(ctx, doorA, nil)
	assert.Equal(t, access.CodeOperationForbidden, apiErr(t, err).Code, "no remote unlock in lockdown")

	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Evacuation: true})
	require.NoError(t, err)
	for _, d := range st.srv.Doors() {
		assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus, d.ID)
	}
	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
	require.NoError(t, err)
	assert.Equal(t, access.DoorLocked, st.relay(t, doorA))
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorB), "back to its own rule")
	assert.Equal(t, access.EmergencyStatus{}, st.srv.Emergency())

	evs := st.events(t)
	var got []access.EmergencyStatusObject
	for _, e := range evs {
		require.Equal(t, access.EventDeviceEmergencyStatus, e.Event)
		assert.Nil(t, e.Data.Location, "emergency events have no location")
		require.NotNil(t, e.Data.Device)
		assert.Equal(t, hubID, e.Data.Device.ID)
		o, err := e.EmergencyStatus()
		require.NoError(t, err)
		got = append(got, *o)
	}
	assert.Equal(t, []access.EmergencyStatusObject{
		{Global: true, Mode: "lockdown", Value: true},
		{Global: true, Mode: "lockdown", Value: false},
		{Global: true, Mode: "evacuation", Value: true},
		{Global: true, Mode: "evacuation", Value: false},
	}, got)

	status, body := raw(t, st.srv, "PUT", "/api/v1/developer/doors/settings/emergency", st.srv.Token(), `{"lockdown":true,"evacuation":true}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "CODE_PARAMS_INVALID")
	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
	require.NoError(t, err)
	assert.Empty(t, st.events(t), "no change, no event")
}

func TestDoorbell(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	_, err := st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{RoomName: "Reception"})
	require.NoError(t, err)
	reqID, ringing := st.srv.Ringing(icomID)
	require.True(t, ringing)
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{})
	assert.Equal(t, access.CodeDeviceDeviceBusy, apiErr(t, err).Code, "already ringing")
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{Cancel: true})
	require.NoError(t, err)
	_, ringing = st.srv.Ringing(icomID)
	assert.False(t, ringing)

	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventDoorbellIncoming, access.EventDoorbellCompleted}, names(evs))
	in, err := evs[0].Doorbell()
	require.NoError(t, err)
	assert.Equal(t, reqID, in.RequestID)
	assert.Equal(t, icomID, evs[0].Data.Device.ID)
	assert.Equal(t, doorB, evs[0].Data.Location.ID)
	assert.Nil(t, evs[0].Data.Actor)
	done, err := evs[1].Doorbell()
	require.NoError(t, err)
	assert.Equal(t, access.DoorbellObject{RequestID: reqID, ReasonCode: 108}, *done)

	// Unanswered, a ring times out on the fake's clock.
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{})
	require.NoError(t, err)
	st.srv.Advance(accesstest.DoorbellRingTimeout - time.Second)
	_, ringing = st.srv.Ringing(icomID)
	assert.True(t, ringing)
	st.srv.Advance(time.Second)
	_, ringing = st.srv.Ringing(icomID)
	assert.False(t, ringing)
	evs = st.events(t)
	require.Len(t, evs, 2)
	done, err = evs[1].Doorbell()
	require.NoError(t, err)
	assert.Equal(t, 105, done.ReasonCode)

	_, err = st.c.Devices.TriggerDoorbell(ctx, hubID, &access.DoorbellRequest{})
	assert.Equal(t, access.CodeDeviceAPINotSupported, apiErr(t, err).Code)
	_, err = st.c.Devices.TriggerDoorbell(ctx, "000000000000", &access.DoorbellRequest{})
	assert.Equal(t, access.CodeDeviceDeviceNotFound, apiErr(t, err).Code)
	assert.ErrorIs(t, err, access.ErrNotFound)
	status, body := raw(t, st.srv, "POST", "/api/v1/developer/devices/"+icomID+"/doorbell", st.srv.Token(), `{}`)
	assert.Equal(t, 400, status, "room_name is required")
	assert.Contains(t, body, "CODE_PARAMS_INVALID")
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{Cancel: true})
	require.NoError(t, err, "cancelling a silent doorbell is fine")
	assert.Empty(t, st.events(t))
}

func TestDoorGroups(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	c := st.c
	g, _, err := c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "Front", Resources: []string{doorA, doorB}})
	require.NoError(t, err)
	assert.Equal(t, access.DoorGroupAccess, g.Type)
	assert.Equal(t, []access.Resource{{ID: doorA, Type: "door"}, {ID: doorB, Type: "door"}}, g.Resources)

	_, _, err = c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "Front", Resources: []string{doorC}})
	e := apiErr(t, err)
	assert.Equal(t, access.CodeParamsInvalid, e.Code)
	assert.Equal(t, "The provided name already exists.", e.Message)
	_, _, err = c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "HQ"})
	assert.Equal(t, access.CodeParamsInvalid, apiErr(t, err).Code, "the building's name is taken too")
	_, _, err = c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "Ghosts", Resources: []string{doorA, "no-such-door"}})
	assert.Equal(t, access.CodeResourceNotFound, apiErr(t, err).Code)
	assert.Len(t, st.srv.DoorGroups(), 1, "failed creates change nothing")

	got, _, err := c.DoorGroups.Get(ctx, g.ID)
	require.NoError(t, err)
	assert.Equal(t, []access.Resource{{ID: doorA, Name: "Main entrance", Type: "door"}, {ID: doorB, Name: "Lobby", Type: "door"}}, got.Resources)
	b, _, err := c.DoorGroups.Get(ctx, "bldg")
	require.NoError(t, err)
	assert.Equal(t, access.DoorGroupBuilding, b.Type)
	assert.Len(t, b.Resources, 3)

	other, _, err := c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "Back", Resources: []string{doorC}})
	require.NoError(t, err)
	_, _, err = c.DoorGroups.Update(ctx, other.ID, &access.DoorGroupUpdate{GroupName: access.Ptr("Front")})
	assert.Equal(t, access.CodeParamsInvalid, apiErr(t, err).Code)
	_, _, err = c.DoorGroups.Update(ctx, other.ID, &access.DoorGroupUpdate{Resources: []string{"no-such-door"}})
	assert.Equal(t, access.CodeResourceNotFound, apiErr(t, err).Code)
	up, _, err := c.DoorGroups.Update(ctx, other.ID, &access.DoorGroupUpdate{GroupName: access.Ptr("Back office")})
	require.NoError(t, err)
	assert.Equal(t, "Back office", up.Name)
	assert.Equal(t, []access.Resource{{ID: doorC, Type: "door"}}, up.Resources, "resources kept")
	up, _, err = c.DoorGroups.Update(ctx, other.ID, &access.DoorGroupUpdate{Resources: []string{}})
	require.NoError(t, err)
	assert.Equal(t, "Back office", up.Name)
	assert.Empty(t, up.Resources)
	_, _, err = c.DoorGroups.Update(ctx, g.ID, &access.DoorGroupUpdate{GroupName: access.Ptr("Front")})
	require.NoError(t, err, "keeping its own name is fine")
	_, _, err = c.DoorGroups.Update(ctx, "bldg", &access.DoorGroupUpdate{GroupName: access.Ptr("x")})
	assert.Equal(t, access.CodeOperationForbidden, apiErr(t, err).Code)

	list, _, err := c.DoorGroups.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2, "no building group in the list")
	assert.Equal(t, []string{"Front", "Back office"}, []string{list[0].Name, list[1].Name})

	top, _, err := c.DoorGroups.Topology(ctx)
	require.NoError(t, err)
	require.Len(t, top, 3)
	assert.Equal(t, access.DoorGroupTopology{ID: "bldg", Name: "HQ", Type: access.DoorGroupBuilding, Floors: []access.FloorTopology{{
		ID: floorGF, Name: "Ground floor", Type: "floor", Doors: []access.TopologyDoor{
			{ID: doorA, Name: "Main entrance", Type: "door", IsBindHub: true},
			{ID: doorB, Name: "Lobby", Type: "door", IsBindHub: true},
			{ID: doorC, Name: "Broom closet", Type: "door"}}}}}, top[0])
	require.Len(t, top[1].Floors, 1)
	assert.Len(t, top[1].Floors[0].Doors, 2)
	assert.Empty(t, top[2].Floors, "an empty group has no floors")

	// Deleting a group drops the references access policies hold.
	st.srv.AddAccessPolicy(access.AccessPolicy{ID: "p1", Name: "Staff", Resources: []access.Resource{{ID: g.ID, Type: "door_group"}, {ID: doorC, Type: "door"}}})
	st.srv.AddUser(access.User{ID: "u1", AccessPolicyIDs: []string{"p1"}})
	_, err = c.DoorGroups.Delete(ctx, g.ID)
	require.NoError(t, err)
	u, _, err := c.Users.Get(ctx, "u1", &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	require.NoError(t, err)
	require.Len(t, u.AccessPolicies, 1)
	assert.Equal(t, []access.Resource{{ID: doorC, Type: "door"}}, u.AccessPolicies[0].Resources)
	_, err = c.DoorGroups.Delete(ctx, g.ID)
	assert.Equal(t, access.CodeResourceNotFound, apiErr(t, err).Code)
	_, _, err = c.DoorGroups.Get(ctx, g.ID)
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, err = c.DoorGroups.Delete(ctx, "bldg")
	assert.Equal(t, access.CodeOperationForbidden, apiErr(t, err).Code)
}

func TestDevicesListGroupsByDoor(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	st.srv.AddDeviceInfo(access.Device{ID: "aaaaaaaaaaaa", Name: "Spare reader", Type: "UA-Reader-Lite"})
	groups, _, err := st.c.Devices.List(ctx, &access.DeviceListOptions{Refresh: true})
	require.NoError(t, err)
	assert.Equal(t, "true", st.srv.RequestsFor(accesstest.OpDevicesList)[0].Query.Get("refresh"))
	var ids [][]string
	for _, g := range groups {
		var row []string
		for _, d := range g {
			row = append(row, d.ID)
		}
		ids = append(ids, row)
	}
	assert.Equal(t, [][]string{{hubID, readID}, {hubID, icomID}, {"aaaaaaaaaaaa"}}, ids, "the hub is listed at both its doors")
	assert.Len(t, groups.Devices(), 4)
	assert.Equal(t, st.srv.DeviceList(), groups)
	status, _ := raw(t, st.srv, "GET", "/api/v1/developer/devices?refresh=maybe", st.srv.Token(), "")
	assert.Equal(t, 400, status)
}

func TestAdvanceRunsTimersInTimeOrder(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	_, err := st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 2})
	require.NoError(t, err)
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{})
	require.NoError(t, err)
	_, err = st.c.Doors.SetLockRule(ctx, doorB, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 1})
	require.NoError(t, err)
	st.events(t)
	st.srv.Advance(time.Hour) // all three timers, in one call
	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventDoorbellCompleted, access.EventTemporaryUnlockEnd, access.EventTemporaryUnlockEnd}, names(evs))
	assert.Equal(t, doorB, evs[1].Data.Location.ID, "1 minute before 2")
	assert.Equal(t, doorA, evs[2].Data.Location.ID)
	// Each timer ran with the clock at its due time: the signature times.
	d := st.srv.Deliveries()
	require.Len(t, d, 6)
	wantTimes := []time.Time{t0.Add(accesstest.DoorbellRingTimeout), t0.Add(time.Minute), t0.Add(2 * time.Minute)}
	for i, del := range d[3:] {
		ev, err := access.ConstructEvent(del.Payload, access.SignPayload(del.Payload, st.secret, wantTimes[i]), st.secret, access.WithTolerance(0))
		require.NoError(t, err)
		assert.Equal(t, evs[i].EventObjectID, ev.EventObjectID)
		var obj struct {
			EndedTime int64 `json:"ended_time"`
		}
		if ev.Event == access.EventTemporaryUnlockEnd {
			require.NoError(t, json.Unmarshal(ev.Data.Object, &obj))
			assert.Equal(t, wantTimes[i].Unix(), obj.EndedTime)
		}
	}
	assert.Equal(t, t0.Add(time.Hour), st.srv.Now())
	st.srv.Advance(-time.Hour)
	assert.Equal(t, t0.Add(time.Hour), st.srv.Now(), "time does not go back")
	st.srv.SetNow(func() time.Time { return t0 })
	assert.Equal(t, t0, st.srv.Now(), "SetNow resets Advance's offset")
}

func TestDeliveriesDoNotBlockHandlers(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	srv.AddFloor("f", "F")
	srv.AddDoor(access.Door{ID: "d", FloorID: "f", IsBindHub: true})
	release := make(chan struct{})
	var n sync.WaitGroup
	n.Add(3)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Done()
		<-release
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: slow.URL, Events: []access.EventType{access.EventDoorUnlock}})
	c := srv.Client(noRetry())
	for range 3 {
		_, err := c.Doors.Unlock(ctx, "d", nil) // answered while the receiver hangs
		require.NoError(t, err)
	}
	short, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, srv.WaitDeliveries(short), context.Canceled, "still pending")
	release <- struct{}{}
	release <- struct{}{}
	release <- struct{}{}
	n.Wait()
	require.NoError(t, srv.WaitDeliveries(ctx))
	d := srv.Deliveries()
	require.Len(t, d, 3)
	for _, x := range d {
		assert.Equal(t, 200, x.StatusCode)
		assert.Equal(t, access.EventDoorUnlock, x.Event)
	}
}

func TestDemoBuilding(t *testing.T) {
	t.Parallel()
	a := accesstest.New(t, accesstest.WithDemoData())
	b := accesstest.New(t, accesstest.WithDemoData())
	assert.Equal(t, a.Doors(), b.Doors(), "deterministic")
	assert.Equal(t, a.DeviceList(), b.DeviceList())
	assert.Equal(t, a.DoorGroups(), b.DoorGroups())
	c := a.Client(noRetry())

	top, _, err := c.DoorGroups.Topology(ctx)
	require.NoError(t, err)
	require.Len(t, top, 4, "the building and 3 groups")
	assert.Equal(t, accesstest.DemoBuildingID, top[0].ID)
	assert.Len(t, top[0].Floors, 4)
	doors, _, err := c.Doors.List(ctx)
	require.NoError(t, err)
	assert.Len(t, doors, 8)
	unknown, noHub := 0, 0
	for _, d := range doors {
		assert.Equal(t, access.DoorLocked, d.LockRelayStatus)
		if d.PositionStatus == access.DoorPositionUnknown {
			unknown++
		}
		if !d.IsBindHub {
			noHub++
		}
	}
	assert.Positive(t, unknown, "some doors have no sensor")
	assert.Equal(t, 1, noHub)

	// The demo access policies' doors and door groups exist.
	_, ok := a.Door(accesstest.DemoDoorID)
	assert.True(t, ok)
	_, ok = a.Door("5c496423-6d25-4e4f-8cdf-95ad5135188a")
	assert.True(t, ok)
	for _, id := range []string{accesstest.DemoDoorGroupID, "fd293ecb-98d2-425b-a020-cb9365ea48b3"} {
		_, ok := a.DoorGroup(id)
		assert.True(t, ok, id)
	}

	groups, _, err := c.Devices.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, groups, 7, "one group per door with devices")
	total := 0
	for _, g := range groups {
		total += len(g)
	}
	flat := groups.Devices()
	assert.Less(t, len(flat), total, "the 8-door hub is listed at each door")
	assert.Len(t, flat, 12)
	for _, d := range flat {
		if d.ConnectedUAHID != "" {
			assert.True(t, slicesContainsID(flat, d.ConnectedUAHID), "%s's hub is listed", d.ID)
		}
	}
	_, err = c.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{})
	require.NoError(t, err)
	_, ringing := a.Ringing(accesstest.DemoIntercomID)
	assert.True(t, ringing)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
}

func slicesContainsID(ds []access.Device, id string) bool {
	for _, d := range ds {
		if d.ID == id {
			return true
		}
	}
	return false
}
