package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// frameCases are the frames of testdata/notifications (real console frames
// and fixtures) and variants of the shapes the typed accessors are lenient
// about: keys in another case, repeated members, members of an unexpected
// type, null and absent members, escapes.
func frameCases(t *testing.T) map[string]*access.Notification {
	t.Helper()
	out := map[string]*access.Notification{}
	files, err := filepath.Glob(filepath.Join("..", "testdata", "notifications", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		n, err := access.ParseNotification(b)
		require.NoError(t, err, f)
		out[filepath.Base(f)] = n
	}
	for name, s := range map[string]string{
		"v2 upper-case keys": `{"event":"access.data.v2.location.update","event_object_id":"obj","data":{"ID":"d1","Name":"Door","STATE":{"Lock":"unlocked","DPS":"open","Dps_Connected":true,"Remain_Unlock":{"type":"keep_unlock"},"Emergency":{"Software":"evacuation"}}}}`,
		"v2 no id":           `{"event":"access.data.v2.location.update","event_object_id":"obj","data":{"state":{"lock":"locked","dps":"close"}}}`,
		"v2 state null":      `{"event":"access.data.v2.location.update","data":{"id":"d1","state":null}}`,
		"v2 state string":    `{"event":"access.data.v2.location.update","data":{"id":"d1","state":"open"}}`,
		"v2 remain string":   `{"event":"access.data.v2.location.update","data":{"id":"d1","state":{"remain_unlock":"x","dps":1,"lock":true}}}`,
		"v2 repeated":        `{"event":"access.data.v2.location.update","data":{"id":"d1","id":"d2","name":"A","name":null,"state":{"lock":"locked"},"state":{"dps":"open"}}}`,
		"v2 escapes":         `{"event":"access.data.v2.location.update","data":{"i\u0064":"d\u00e9","name":"caf\u00e9 \"x\"","state":{"dps":"op\u0065n"}}}`,
		"v2 backslashes":     `{"event":"access.data.v2.location.update","data":{"id":"d\\\\","name":"a\\\\\\\"b\\\\","state":{"dps":"open"}}}`,
		"v2 not object":      `{"event":"access.data.v2.location.update","data":[1,2]}`,
		"v2 data string":     `{"event":"access.data.v2.location.update","data":"x"}`,
		"v1 extras":          `{"event":"access.data.location.update","data":{"unique_id":"d1","location_type":"DOOR","extras":{"UAH-input_state_dps":"off","uah-input_state_dps":"on"}}}`,
		"v1 extras number":   `{"event":"access.data.location.update","data":{"unique_id":"d1","extras":{"uah-input_state_dps":1}}}`,
		"v1 floor":           `{"event":"access.data.location.update","data":{"unique_id":"f1","location_type":"floor","extras":{"uah-input_state_dps":"on"}}}`,
		"remote unlock":      `{"event":"access.data.device.remote_unlock","event_object_id":"d9","data":{"name":"x"}}`,
		"device short":       `{"event":"access.data.device.update","data":{"unique_id":"dv1","name":"R","online":false}}`,
		"device is_online":   `{"event":"access.data.device.update","data":{"unique_id":"dv1","is_online":true,"online":false}}`,
		"device odd online":  `{"event":"access.data.device.update","data":{"unique_id":"dv1","online":"yes"}}`,
		"device no online":   `{"event":"access.data.device.update","data":{"unique_id":"dv1","name":"R"}}`,
		"device v2":          `{"event":"access.data.v2.device.update","data":{"id":"dv2","online":true,"location_states":[{"location_id":"d1","lock":"unlocked","dps":"open"},7,{"location_id":"d2","dps":"none","dps_connected":true}]}}`,
		"device v2 states":   `{"event":"access.data.v2.device.update","data":{"id":"dv2","is_online":true,"location_states":"x"}}`,
		"logs denied":        `{"event":"access.logs.add","data":{"_source":{"actor":{"id":"u1","type":"user"},"event":{"type":"access.door.unlock","display_message":"Access Denied (NFC 12 at Door)","result":"BLOCKED"},"target":[{"type":"UAH","id":"h"},{"type":"door","id":"d1"},{"type":"door","id":"d2"}]}}}`,
		"logs odd target":    `{"event":"access.logs.add","data":{"_source":{"event":{"result":"ACCESS"},"authentication":{"credential_provider":"PIN_CODE"},"target":[1,{"type":"do\u006fr","id":"d3"}]}}}`,
		"logs no source":     `{"event":"access.logs.add","data":{"_id":"x"}}`,
		"setting":            `{"event":"access.data.setting.update","data":{"lockdown":true,"evacuation":"yes"}}`,
		"doorbell":           `{"event":"access.hw.door_bell","data":{"door_id":"d1"}}`,
		"remote view":        `{"event":"access.remote_view","data":{"room_id":"r1","create_time":"not a time"}}`,
		"no data":            `{"event":"access.data.setting.update"}`,
	} {
		n, err := access.ParseNotification([]byte(s))
		require.NoError(t, err, name)
		out[name] = n
	}
	return out
}

// TestReadsAsTheAccessors: what the engine reads of each frame is what
// the SDK's typed accessors give for the same members.
func TestReadsAsTheAccessors(t *testing.T) {
	state := func(s *access.LocationState) doorState {
		d := doorState{locationID: s.LocationID, lock: s.Lock, dps: s.DPS, dpsConnected: s.DPSConnected, remainUnlock: s.RemainUnlock != nil}
		if s.Emergency != nil {
			d.emergencySoftware, d.emergencyHardware = s.Emergency.Software, s.Emergency.Hardware
		}
		return d
	}
	for name, n := range frameCases(t) {
		t.Run(name, func(t *testing.T) {
			switch n.Event {
			case access.NotificationLocationUpdateV2, access.NotificationDeviceLocationUpdateV2:
				want, werr := n.LocationUpdateV2()
				got, err := readLocationV2(n.Data)
				require.Equal(t, werr != nil, err != nil, "%v / %v", werr, err)
				if werr != nil {
					return
				}
				assert.Equal(t, want.ID, firstOf(got.id, n.EventObjectID))
				assert.Equal(t, want.Name, got.name)
				require.Equal(t, want.State != nil, got.hasState)
				if want.State != nil {
					assert.Equal(t, state(want.State), got.state)
				}
			case access.NotificationLocationUpdate, access.NotificationRemoteUnlock:
				var want *access.NotificationLocation
				var werr error
				if n.Event == access.NotificationRemoteUnlock {
					want, werr = n.RemoteUnlock()
				} else {
					want, werr = n.LocationUpdate()
				}
				got, err := readLocationV1(n.Data)
				require.Equal(t, werr != nil, err != nil, "%v / %v", werr, err)
				if werr != nil {
					return
				}
				assert.Equal(t, want.UniqueID, got.uniqueID)
				assert.Equal(t, want.Name, got.name)
				assert.Equal(t, want.LocationType, got.locationType)
				wdps, _ := want.Extras["uah-input_state_dps"].(string)
				assert.Equal(t, wdps, got.dps)
			case access.NotificationDeviceUpdate:
				want, werr := n.DeviceUpdate()
				got, err := readDeviceUpdate(n.Data, "unique_id")
				require.Equal(t, werr != nil, err != nil, "%v / %v", werr, err)
				if werr != nil {
					return
				}
				assert.Equal(t, want.UniqueID, got.id)
				assert.Equal(t, want.Name, got.name)
				assert.Equal(t, want.Online, got.online)
				assert.Equal(t, hasOnlineJSON(t, n), got.hasOnline)
			case access.NotificationDeviceUpdateV2:
				want, werr := n.DeviceUpdateV2()
				got, err := readDeviceUpdate(n.Data, "id")
				require.Equal(t, werr != nil, err != nil, "%v / %v", werr, err)
				if werr != nil {
					return
				}
				assert.Equal(t, want.ID, got.id)
				assert.Equal(t, want.Online, got.online)
				assert.Equal(t, hasOnlineJSON(t, n), got.hasOnline)
				require.Len(t, got.states, len(want.LocationStates))
				for i := range want.LocationStates {
					assert.Equal(t, state(&want.LocationStates[i]), got.states[i])
				}
			case access.NotificationLogsAdd:
				want, werr := n.LogsAdd()
				got, err := readLogEntry(n.Data)
				require.Equal(t, werr != nil, err != nil, "%v / %v", werr, err)
				if werr != nil {
					return
				}
				src := want.Source
				assert.Equal(t, src.Actor.ID, got.actorID)
				assert.Equal(t, src.Actor.Type, got.actorType)
				assert.Equal(t, src.Event.Type, got.eventType)
				assert.Equal(t, src.Event.DisplayMessage, got.displayMessage)
				assert.Equal(t, src.Event.Result, got.result)
				assert.Equal(t, src.Authentication.CredentialProvider, got.provider)
				door, ok := want.Target("door")
				assert.Equal(t, ok, got.hasDoor)
				assert.Equal(t, door.ID, got.door)
			case access.NotificationSettingUpdate:
				want, werr := n.SettingUpdate()
				lockdown, evacuation, err := readSetting(n.Data)
				require.Equal(t, werr != nil, err != nil)
				if werr == nil {
					assert.Equal(t, want.Lockdown, lockdown)
					assert.Equal(t, want.Evacuation, evacuation)
				}
			case access.NotificationDoorBell:
				want, werr := n.DoorBell()
				got, err := readString(n.Data, "door_id")
				require.Equal(t, werr != nil, err != nil)
				if werr == nil {
					assert.Equal(t, want.DoorID, got)
				}
			case access.NotificationRemoteView:
				want, werr := n.RemoteView()
				got, err := readString(n.Data, "room_id")
				if werr == nil {
					require.NoError(t, err)
					assert.Equal(t, want.RoomID, got)
				} else {
					// The accessor fails on a member the engine does not
					// read (create_time, not a time); the engine still
					// reads the room.
					require.NoError(t, err)
					assert.Equal(t, "r1", got)
				}
			}
		})
	}
}

// hasOnlineJSON is the former test of a device update's online state: a
// non-null "online" or "is_online" member, as encoding/json decodes it.
func hasOnlineJSON(t *testing.T, n *access.Notification) bool {
	var w struct {
		Online   *bool `json:"online"`
		IsOnline *bool `json:"is_online"`
	}
	_ = n.DecodeData(&w)
	return w.Online != nil || w.IsOnline != nil
}

// TestNotificationDecodesOnce: the engine reads a real console frame in
// one walk, without encoding/json: a handful of allocations (the ids and
// names it keeps), where decoding the typed structs took some 45.
func TestNotificationDecodesOnce(t *testing.T) {
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	e, err := New(Config{Console: "c"}, at)
	require.NoError(t, err)
	for name, n := range frameCases(t) {
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		e.Notification(n, at) // the doors and devices it names, once
		allocs := testing.AllocsPerRun(50, func() { e.Notification(n, at) })
		assert.LessOrEqual(t, allocs, 8.0, name)
	}
}
