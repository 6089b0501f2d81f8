package access

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func loadNotification(t *testing.T, name string) *Notification {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "notifications", name))
	require.NoError(t, err)
	n, err := ParseNotification(b)
	require.NoError(t, err, name)
	return n
}

func TestNotificationEnvelope(t *testing.T) {
	t.Parallel()
	n := loadNotification(t, "remote_view.json")
	assert.Equal(t, NotificationRemoteView, n.Event)
	assert.Equal(t, "", n.ReceiverID)
	assert.Equal(t, "535b6125-860c-489e-abf2-e1da1b4df1e7", n.EventObjectID)
	assert.False(t, n.SaveToHistory)
	assert.Nil(t, n.Meta)
	assert.True(t, json.Valid(n.Data))

	// Lenient envelope: numbers as ids, save_to_history as a string.
	n, err := ParseNotification([]byte(`{"event":"x.y","receiver_id":42,"event_object_id":"o","save_to_history":"true","data":null,"meta":null}`))
	require.NoError(t, err)
	assert.Equal(t, NotificationEvent("x.y"), n.Event)
	assert.Equal(t, "42", n.ReceiverID)
	assert.True(t, n.SaveToHistory)
	assert.Nil(t, n.Data, "null data is nil")
	assert.Nil(t, n.Meta)

	// Every member null except the event name.
	n, err = ParseNotification([]byte(`{"event":"access.hw.door_bell","receiver_id":null,"event_object_id":null,"save_to_history":null,"data":null}`))
	require.NoError(t, err)
	assert.Equal(t, "", n.EventObjectID)
	d, err := n.DoorBell()
	require.NoError(t, err)
	assert.Equal(t, DoorBellData{}, *d)

	for _, bad := range []string{``, `Hello`, `"Hello"`, `[]`, `{}`, `{"event":""}`, `{"event":null}`, `{"event":7}`, `{"event":"a"`, `null`} {
		_, err := ParseNotification([]byte(bad))
		assert.ErrorIs(t, err, ErrInvalidNotification, "%q", bad)
	}
}

func TestNotificationAccessors(t *testing.T) {
	t.Parallel()

	t.Run("remote_view", func(t *testing.T) {
		v, err := loadNotification(t, "remote_view.json").RemoteView()
		require.NoError(t, err)
		assert.Equal(t, RemoteViewData{
			Channel: "4513899f-0370-4116-9731-63a6b0feea23", Token: "6dff120f-7ab8-4e8b-8f0a-4b4b5e1ea5a4",
			DeviceID: "0418d6a2bb7a", DeviceType: "UA-G2-PRO", DeviceName: "Front Reader", DoorName: "Front Door",
			ControllerID: "68d79a1f0011f303e4000440", FloorName: "1F", RequestID: "PT9W6IAa0XRnzZ8SsFRYzxm7JRAbBYL9",
			InOrOut: "in", CreateTime: 1706940900,
			DoorGuardIDs:   []string{"3242d7e8-c5b3-4b84-8aa3-5c3e3eb4e3a2", "a8a6c4fa-5b02-4d9d-b0c5-c3d0d0d0e5e1"},
			ConnectedUAHID: "e4388386be1d", RoomID: "WR-e4388386be1d-5d4af3c0-87b2-4d9f-b3a3-8c7fde4b8a5d", HostDeviceMAC: "E4388386BE1D",
		}, *v)
	})
	t.Run("remote_view.change", func(t *testing.T) {
		v, err := loadNotification(t, "remote_view_change.json").RemoteViewChange()
		require.NoError(t, err)
		assert.Equal(t, RemoteViewCancelled, v.ReasonCode)
		assert.Equal(t, "cancelled by the visitor", v.ReasonCode.String())
		assert.Equal(t, "PT9W6IAa0XRnzZ8SsFRYzxm7JRAbBYL9", v.RemoteCallRequestID)
		for code, want := range map[string]RemoteViewReason{`105`: RemoteViewTimedOut, `"106"`: RemoteViewRejected, `107`: RemoteViewUnlocked,
			`108`: RemoteViewCancelled, `400`: RemoteViewAnsweredElsewhere, `null`: 0, `"x"`: 0, `{}`: 0} {
			n := &Notification{Event: NotificationRemoteViewChange, Data: json.RawMessage(`{"reason_code":` + code + `}`)}
			v, err := n.RemoteViewChange()
			require.NoError(t, err, code)
			assert.Equal(t, want, v.ReasonCode, code)
		}
		assert.Equal(t, "reason 7", RemoteViewReason(7).String())
	})
	t.Run("remote_unlock", func(t *testing.T) {
		v, err := loadNotification(t, "remote_unlock.json").RemoteUnlock()
		require.NoError(t, err)
		assert.Equal(t, NotificationLocation{
			UniqueID: "e8ba94d9-3ba8-4c2d-a2a7-4bcc5a0b0a0d", Name: "Door 3855", UpID: "4ff3c23b-f4a6-4cbb-9d0c-8fcb4f7d5a3d",
			LocationType: "door", FullName: "UDM Pro - 1F - Door 3855", WorkTime: "[]",
			Extras: map[string]any{"uah-input_state_dps": "off", "uah-wiring_state_dps-neg": "off", "uah-wiring_state_dps-pos": "off"},
		}, *v)
	})
	t.Run("device.update", func(t *testing.T) {
		v, err := loadNotification(t, "device_update.json").DeviceUpdate()
		require.NoError(t, err)
		assert.Equal(t, "e4388386be1d", v.UniqueID)
		assert.Equal(t, "UAH", v.DeviceType)
		assert.True(t, v.Online)
		require.NotNil(t, v.Door)
		assert.Equal(t, "Front Door", v.Door.Name)
		dps, ok := v.Config("input_state_dps")
		assert.True(t, ok)
		assert.Equal(t, "on", dps)
		_, ok = v.Config("nope")
		assert.False(t, ok)
		assert.Len(t, v.Configs, 2)
	})
	t.Run("v2.device.update", func(t *testing.T) {
		n := loadNotification(t, "device_update_v2.json")
		assert.JSONEq(t, `{"object_type":"device","target_field":null,"all_field":true,"id":"f4e2c61fd2cf","source":"ulp-go"}`, string(n.Meta))
		v, err := n.DeviceUpdateV2()
		require.NoError(t, err)
		assert.Equal(t, "f4e2c61fd2cf", v.ID)
		assert.Equal(t, "UGT", v.DeviceType)
		assert.Equal(t, UnixTime(1737690291), v.StartTime)
		assert.Equal(t, "1737692257198917966", v.Revision)
		assert.Nil(t, v.Cap, "null cap")
		assert.Nil(t, v.Category, "null category")
		require.Len(t, v.LocationStates, 1)
		st := v.LocationStates[0]
		assert.Equal(t, "05b37c0f-f917-4cbb-b63c-3b4d8e5e35f7", st.LocationID)
		assert.False(t, st.Locked())
		assert.Equal(t, "open", st.DPS)
		assert.True(t, st.DPSConnected)
		assert.True(t, st.Enable)
		assert.Equal(t, &LocationEmergency{Software: "none", Hardware: "none"}, st.Emergency)
		assert.Equal(t, &LocationLockRule{Type: "keep_unlock", Until: 1737700000, State: "active"}, st.RemainUnlock)
		assert.Nil(t, st.RemainLock)
	})
	t.Run("location.update", func(t *testing.T) {
		v, err := loadNotification(t, "location_update.json").LocationUpdate()
		require.NoError(t, err)
		assert.Equal(t, "Front Door", v.Name)
		assert.Equal(t, 2, v.Level)
		assert.Equal(t, "Europe/Berlin", v.Timezone)
		assert.Equal(t, []string{"Door 3855"}, v.PreviousName)
		assert.Equal(t, float64(1722912625), v.Extras["door_thumbnail_last_update"])
	})
	t.Run("v2.location.update", func(t *testing.T) {
		n := loadNotification(t, "location_update_v2.json")
		v, err := n.LocationUpdateV2()
		require.NoError(t, err)
		assert.Equal(t, "e8ba94d9-3ba8-4c2d-a2a7-4bcc5a0b0a0d", v.ID)
		assert.Equal(t, []string{"0418d6a2bb7a", "e4388386be1d"}, v.DeviceIDs)
		require.NotNil(t, v.State)
		assert.True(t, v.State.Locked())
		assert.Equal(t, "close", v.State.DPS)
		assert.Equal(t, "lockdown", v.State.Emergency.Software)
		assert.Equal(t, &LocationLockRule{Type: "keep_lock", Until: 3600000000, State: "active"}, v.State.RemainLock)
		assert.Nil(t, v.State.RemainUnlock)
		assert.Equal(t, &LocationThumbnail{URL: "/preview/reader_0418d6a2bb7a_1722912625.jpg", LastUpdate: 1722912625}, v.Thumbnail)

		// The older event name has the same payload; a missing id falls
		// back to event_object_id.
		old := &Notification{Event: NotificationDeviceLocationUpdateV2, EventObjectID: "door-1",
			Data: json.RawMessage(`{"location_type":"door","state":{"lock":"unlocked","dps":"open"},"thumbnail":null}`)}
		v, err = old.LocationUpdateV2()
		require.NoError(t, err)
		assert.Equal(t, "door-1", v.ID)
		assert.Equal(t, "open", v.State.DPS)
		assert.Nil(t, v.Thumbnail)
	})
	t.Run("setting.update", func(t *testing.T) {
		v, err := loadNotification(t, "setting_update.json").SettingUpdate()
		require.NoError(t, err)
		assert.Equal(t, SettingUpdateData{Lockdown: true}, *v)
	})
	t.Run("logs.add", func(t *testing.T) {
		v, err := loadNotification(t, "logs_add.json").LogsAdd()
		require.NoError(t, err)
		assert.Equal(t, "2fb4a0b6-2c0e-4d4f-9f3a-0d9e9e2b8c1a", v.ID)
		assert.Equal(t, LogsAddActor{ID: "3242d7e8-c5b3-4b84-8aa3-5c3e3eb4e3a2", Type: "user", DisplayName: "Ada Lovelace"}, v.Source.Actor)
		assert.Equal(t, LogsAddEvent{Type: "access.door.unlock", DisplayMessage: "Access Granted (NFC)", Result: "ACCESS",
			Published: 1706940912345, LogKey: "dashboard.access.door.unlock.success"}, v.Source.Event)
		assert.Equal(t, "NFC", v.Source.Authentication.CredentialProvider)
		door, ok := v.Door()
		assert.True(t, ok)
		assert.Equal(t, LogsAddTarget{Type: "door", ID: "e8ba94d9-3ba8-4c2d-a2a7-4bcc5a0b0a0d", DisplayName: "Front Door"}, door)
		_, ok = (&LogsAddData{}).Door()
		assert.False(t, ok)
	})
	t.Run("hw.door_bell", func(t *testing.T) {
		v, err := loadNotification(t, "door_bell.json").DoorBell()
		require.NoError(t, err)
		assert.Equal(t, DoorBellData{DoorID: "e8ba94d9-3ba8-4c2d-a2a7-4bcc5a0b0a0d", DoorName: "Front Door",
			RequestID: "b0ZrgTjzQ9vC3ftOPp2Xl3yTOJ8xcNPq", DeviceID: "0418d6a2bb7a"}, *v)
	})
}

// TestNotificationAccessorsNulls feeds every accessor data whose members
// are all null, absent, or of an unexpected type: no error, zero values.
func TestNotificationAccessorsNulls(t *testing.T) {
	t.Parallel()
	type accessor struct {
		event NotificationEvent
		call  func(*Notification) (any, error)
		nulls string
	}
	accessors := []accessor{
		{NotificationRemoteView, func(n *Notification) (any, error) { return n.RemoteView() },
			`{"channel":null,"token":null,"device_id":null,"create_time":null,"reason_code":null,"door_guard_ids":null,"request_id":null}`},
		{NotificationRemoteViewChange, func(n *Notification) (any, error) { return n.RemoteViewChange() },
			`{"reason_code":null,"remote_call_request_id":null}`},
		{NotificationRemoteUnlock, func(n *Notification) (any, error) { return n.RemoteUnlock() },
			`{"unique_id":null,"level":null,"extras":null,"work_time":null}`},
		{NotificationDeviceUpdate, func(n *Notification) (any, error) { return n.DeviceUpdate() },
			`{"unique_id":null,"door":null,"configs":null,"online":null}`},
		{NotificationDeviceUpdateV2, func(n *Notification) (any, error) { return n.DeviceUpdateV2() },
			`{"id":null,"category":null,"cap":null,"location_states":null,"start_time":null}`},
		{NotificationLocationUpdate, func(n *Notification) (any, error) { return n.LocationUpdate() },
			`{"unique_id":null,"previous_name":null,"extras":null}`},
		{NotificationLocationUpdateV2, func(n *Notification) (any, error) { return n.LocationUpdateV2() },
			`{"id":null,"state":null,"thumbnail":null,"device_ids":null,"extras":null}`},
		{NotificationSettingUpdate, func(n *Notification) (any, error) { return n.SettingUpdate() },
			`{"evacuation":null,"lockdown":null}`},
		{NotificationLogsAdd, func(n *Notification) (any, error) { return n.LogsAdd() },
			`{"_id":null,"_source":{"actor":null,"event":null,"authentication":null,"target":null}}`},
		{NotificationDoorBell, func(n *Notification) (any, error) { return n.DoorBell() },
			`{"door_id":null,"door_name":null,"request_id":null}`},
	}
	for _, a := range accessors {
		for _, data := range []string{"", "null", "{}", a.nulls,
			// Unexpected types are skipped member by member.
			`{"category":"hub","level":"3","state":[],"configs":{},"online":"yes","door_guard_ids":"x","_source":7,"extras":[]}`} {
			n := &Notification{Event: a.event, Data: nonNull(json.RawMessage(data))}
			v, err := a.call(n)
			require.NoError(t, err, "%s %s", a.event, data)
			require.NotNil(t, v, "%s %s", a.event, data)
		}
		// Data that is not an object at all is an error, not a panic.
		n := &Notification{Event: a.event, Data: json.RawMessage(`"success"`)}
		_, err := a.call(n)
		assert.ErrorIs(t, err, ErrInvalidNotification, a.event)
		// An accessor for another event refuses.
		n = &Notification{Event: "access.other", Data: json.RawMessage(`{}`)}
		_, err = a.call(n)
		assert.ErrorIs(t, err, ErrEventMismatch, a.event)
	}

	// A null category, the member that crashed other clients, inside the
	// full sample.
	b, err := os.ReadFile(filepath.Join("testdata", "notifications", "device_update_v2.json"))
	require.NoError(t, err)
	n, err := ParseNotification(b)
	require.NoError(t, err)
	v, err := n.DeviceUpdateV2()
	require.NoError(t, err)
	assert.Nil(t, v.Category)
	n.Data = json.RawMessage(`{"category":["hub","reader"],"location_states":[null,{"lock":null,"emergency":null}]}`)
	v, err = n.DeviceUpdateV2()
	require.NoError(t, err)
	assert.Equal(t, []string{"hub", "reader"}, v.Category)
	require.Len(t, v.LocationStates, 2)
	assert.Nil(t, v.LocationStates[1].Emergency)
}

func TestNotificationDecodeData(t *testing.T) {
	t.Parallel()
	n := &Notification{Event: "access.base.info", Data: json.RawMessage(`{"top_log_count":12}`)}
	var v struct {
		TopLogCount int `json:"top_log_count"`
	}
	require.NoError(t, n.DecodeData(&v))
	assert.Equal(t, 12, v.TopLogCount)
	require.NoError(t, (&Notification{}).DecodeData(&v), "no data leaves v unchanged")
	assert.Equal(t, 12, v.TopLogCount)
	err := (&Notification{Event: "e", Data: json.RawMessage(`[1]`)}).DecodeData(&v)
	assert.ErrorIs(t, err, ErrInvalidNotification)
}

func TestIsKeepalive(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"Hello", `"Hello"`, " Hello\n", `" hello "`, "HELLO"} {
		assert.True(t, isKeepalive([]byte(m)), "%q", m)
	}
	for _, m := range []string{"", `""`, "Hello world", `{"event":"Hello"}`, `"Hi"`, `"`} {
		assert.False(t, isKeepalive([]byte(m)), "%q", m)
	}
}

func TestSubscribeBackoff(t *testing.T) {
	t.Parallel()
	st := &stream{o: SubscribeOptions{MinBackoff: 100, MaxBackoff: 1000}}
	for n, hi := range []int64{100, 200, 400, 800, 1000, 1000, 1000} {
		for range 50 {
			d := int64(st.backoff(n))
			if d < hi/2 || d > hi {
				t.Fatalf("backoff(%d) = %d, want within [%d, %d]", n, d, hi/2, hi)
			}
		}
	}
	if d := st.backoff(1 << 30); d < 500 || d > 1000 {
		t.Fatalf("backoff(1<<30) = %d: overflow", d)
	}
	if d := (&stream{o: SubscribeOptions{MinBackoff: 1, MaxBackoff: 1}}).backoff(0); d != 1 {
		t.Fatalf("backoff = %d", d)
	}
}

func TestSubscribeOptionsValidation(t *testing.T) {
	t.Parallel()
	o, err := (*SubscribeOptions)(nil).withDefaults("op")
	require.NoError(t, err)
	assert.Equal(t, SubscribeOptions{MinBackoff: DefaultSubscribeMinBackoff, MaxBackoff: DefaultSubscribeMaxBackoff, IdleTimeout: DefaultSubscribeIdleTimeout, RestartGrace: DefaultSubscribeRestartGrace}, o)
	o, err = (&SubscribeOptions{MinBackoff: 2 * DefaultSubscribeMaxBackoff}).withDefaults("op")
	require.NoError(t, err)
	assert.Equal(t, o.MinBackoff, o.MaxBackoff, "a default max below the given min follows it")
	for _, bad := range []SubscribeOptions{{MinBackoff: -1}, {MaxBackoff: -1}, {IdleTimeout: -1}, {RestartGrace: -1}, {MinBackoff: 10, MaxBackoff: 5}} {
		_, err := bad.withDefaults("op")
		var ve *ValidationError
		assert.True(t, errors.As(err, &ve), "%+v", bad)
	}
}
