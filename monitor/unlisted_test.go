package monitor_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/monitor"
)

// note is a notification of event with data encoded as JSON.
func note(t testing.TB, event access.NotificationEvent, objectID string, data any) *access.Notification {
	t.Helper()
	b, err := json.Marshal(data)
	require.NoError(t, err)
	return &access.Notification{Event: event, EventObjectID: objectID, Data: b}
}

// unknownIDs returns the notifications of the stream that name door and
// device ids the polls never listed (the i-th set of them): a remote
// unlock, a door's state (v1 and v2), a granted card at that door, a
// doorbell, a device going offline (v1 and v2).
func unknownIDs(t testing.TB, i int) []*access.Notification {
	door, dev := fmt.Sprintf("ghost-door-%d", i), fmt.Sprintf("ghost-device-%d", i)
	grant := access.SystemLog{Source: access.SystemLogSource{
		Actor:          access.SystemLogActor{ID: "user-1", Type: "user"},
		Event:          access.SystemLogEvent{Type: "access.door.unlock", Result: "ACCESS"},
		Authentication: access.SystemLogAuthentication{CredentialProvider: "NFC"},
		Target:         []access.SystemLogTarget{{Type: "door", ID: door}}}}
	return []*access.Notification{
		note(t, access.NotificationRemoteUnlock, door, map[string]any{"unique_id": door, "location_type": "door"}),
		note(t, access.NotificationLocationUpdateV2, door, map[string]any{"id": door, "location_type": "door",
			"state": map[string]any{"lock": "locked", "dps": "close", "dps_connected": true}}),
		note(t, access.NotificationLocationUpdate, door, map[string]any{"unique_id": door + "-v1", "location_type": "door",
			"extras": map[string]any{"uah-input_state_dps": "off"}}),
		note(t, access.NotificationLogsAdd, "", map[string]any{"_source": grant.Source}),
		note(t, access.NotificationDoorBell, "", map[string]any{"door_id": door, "device_id": dev}),
		note(t, access.NotificationDeviceUpdate, dev, map[string]any{"unique_id": dev, "online": false}),
		note(t, access.NotificationDeviceUpdateV2, dev, map[string]any{"id": dev + "-v2", "online": false,
			"location_states": []map[string]any{{"location_id": door + "-v2", "lock": "unlocked", "dps": "open"}}}),
	}
}

// ghostSite is the doors and devices the polls list in the tests of
// unlisted ids.
func ghostSite() ([]access.Door, []access.Device) {
	doors := []access.Door{
		{ID: "door-1", Name: "Main entrance", LockRelayStatus: access.DoorLocked, PositionStatus: access.DoorClosed},
		{ID: "door-2", Name: "Garage", LockRelayStatus: access.DoorLocked},
	}
	devs := []access.Device{{ID: "reader-1", Name: "Reader", Type: "UA-Reader-Lite", LocationID: "door-1", IsOnline: true}}
	return doors, devs
}

// entries is the number of doors and devices the engine holds.
func entries(e *monitor.Engine) int {
	s := e.Snapshot()
	return len(s.Doors) + len(s.Devices)
}

// TestUnlistedIDsKeepMemoryFlat: a flood of notifications naming doors
// and devices that no poll listed does not grow the engine: it holds a
// bounded number of them until the next poll, which drops them (issue 33).
func TestUnlistedIDsKeepMemoryFlat(t *testing.T) {
	t.Parallel()
	e := newEngine(t, monitor.Config{Console: "site-a"}, base)
	doors, devs := ghostSite()
	e.Doors(doors, base)
	e.Devices(devs, base)
	e.StreamUp(base)
	listed := entries(e)
	require.Equal(t, 3, listed)

	flood := func(from, to int) {
		for i := from; i < to; i++ {
			for _, n := range unknownIDs(t, i) {
				f, _ := e.Notification(n, base.Add(time.Second))
				assert.True(t, f.Unlisted, "%s names an unlisted id", n.Event)
			}
		}
	}
	flood(0, 500)
	after500 := entries(e)
	flood(500, 5000)
	assert.Equal(t, after500, entries(e), "the engine grew with the ids of the stream")

	// Listed doors and devices are not unlisted.
	f, _ := e.Notification(note(t, access.NotificationRemoteUnlock, "door-1", map[string]any{"unique_id": "door-1"}), base.Add(2*time.Second))
	assert.False(t, f.Unlisted)
	assert.Equal(t, "door-1", f.RemoteUnlock)

	// A poll drops what only the stream named.
	e.Doors(doors, base.Add(time.Minute))
	e.Devices(devs, base.Add(time.Minute))
	assert.Equal(t, listed, entries(e))
	for _, d := range e.Snapshot().Doors {
		assert.True(t, d.Listed, d.ID)
	}
	c := e.Coverage()
	assert.Equal(t, 2, c.Doors)
	assert.Equal(t, []string{"door-2"}, c.WithoutSensor)
}

// TestStreamOnlyDoorListedByPoll: a door the stream names before the
// doors poll lists it keeps its state once listed; one no poll lists is
// dropped, and its open incident resolves.
func TestStreamOnlyDoorListedByPoll(t *testing.T) {
	t.Parallel()
	e := newEngine(t, monitor.Config{Console: "site-a", UnlockGrace: 10 * time.Second}, base)
	e.StreamUp(base)
	state := func(id, dps string) *access.Notification {
		return note(t, access.NotificationLocationUpdateV2, id, map[string]any{"id": id, "location_type": "door",
			"state": map[string]any{"lock": "locked", "dps": dps, "dps_connected": true}})
	}
	for _, id := range []string{"door-1", "door-new"} {
		e.Notification(state(id, "close"), base)
	}
	var opened []monitor.Incident
	for _, id := range []string{"door-1", "door-new"} {
		_, in := e.Notification(state(id, "open"), base.Add(time.Minute))
		opened = append(opened, in...)
	}
	require.Len(t, opened, 2, "forced entries")
	out := e.Doors([]access.Door{{ID: "door-1", Name: "Main entrance", LockRelayStatus: access.DoorLocked,
		PositionStatus: access.DoorOpen}}, base.Add(2*time.Minute))
	require.Len(t, out, 1, "the incident of the door no poll lists resolves")
	assert.Equal(t, "door-new", out[0].Door)
	assert.Equal(t, monitor.TypeResolved, out[0].Type)
	s := e.Snapshot()
	require.Len(t, s.Doors, 1)
	assert.True(t, s.Doors[0].Listed)
	assert.Equal(t, "Main entrance", s.Doors[0].Name)
	require.Len(t, e.Open(), 1)
	assert.Equal(t, "door-1", e.Open()[0].Door)
}
