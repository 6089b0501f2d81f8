package access

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTypedViewsRealConsoleFields decodes the fields that real consoles
// send and the typed views used to drop (frames users published, see
// testdata/notifications/README.md).
func TestTypedViewsRealConsoleFields(t *testing.T) {
	t.Parallel()

	t.Run("device.update, full record", func(t *testing.T) {
		v, err := loadNotification(t, "device_update_hub_mini.json").DeviceUpdate()
		require.NoError(t, err)
		assert.True(t, v.Online, "is_online")
		require.NotNil(t, v.Door, "location")
		assert.Equal(t, "Vaskerom", v.Door.Name)
		assert.Equal(t, "door", v.Door.LocationType)
		assert.Equal(t, "Kanalvegen - 1F - Vaskerom", v.Door.FullName)
		assert.True(t, v.IsAdopted)
		assert.True(t, v.IsConnected)
		assert.True(t, v.IsManaged)
		assert.False(t, v.IsRebooting)
		assert.Equal(t, "v1.0.6.0", v.Firmware)
		assert.Equal(t, "", v.Version, "null")
		assert.Equal(t, "10.0.10.128", v.IP)
		assert.Equal(t, "94:2a:6f:5e:be:5b", v.MAC)
		assert.Equal(t, "GA", v.HWType)
		assert.Equal(t, "942a6f5ebe5b", v.ConnectedUAHID)
		assert.Equal(t, "e7b86183-7004-4caf-9808-4112185f45ae", v.LocationID)
		assert.Equal(t, UnixTime(1737045294), v.StartTime)
		assert.Equal(t, UnixTime(1738013909), v.LastSeen)
		assert.True(t, v.SecurityCheck)
	})
	t.Run("device.update, configs, model and capabilities", func(t *testing.T) {
		n := &Notification{Event: NotificationDeviceUpdate, Data: json.RawMessage(`{
			"unique_id":"942a6f5ebe5b","is_online":false,"online":true,"model":"UA-Hub-Door-Mini",
			"capabilities":["is_hub","pin_code"],
			"configs":[{"device_id":"942a6f5ebe5b","key":"input_state_dps","value":"off","tag":"open_door_dps",
				"create_time":"2025-01-16T16:34:54Z","update_time":"2025-01-27T21:38:29Z"}],
			"door":{"name":"Short"},"location":{"name":"Full"}}`)}
		v, err := n.DeviceUpdate()
		require.NoError(t, err)
		assert.True(t, v.Online, "online wins when both are present")
		assert.Equal(t, "Short", v.Door.Name, "door wins when both are present")
		assert.Equal(t, "UA-Hub-Door-Mini", v.Model)
		assert.Equal(t, []string{"is_hub", "pin_code"}, v.Capabilities)
		assert.Equal(t, []DeviceConfig{{Key: "input_state_dps", Value: "off", Tag: "open_door_dps", DeviceID: "942a6f5ebe5b",
			CreateTime: "2025-01-16T16:34:54Z", UpdateTime: "2025-01-27T21:38:29Z"}}, v.Configs)
		dps, ok := v.Config("input_state_dps")
		assert.True(t, ok)
		assert.Equal(t, "off", dps)
	})
	t.Run("device.update, wrong member types stay lenient", func(t *testing.T) {
		n := &Notification{Event: NotificationDeviceUpdate, Data: json.RawMessage(`{"unique_id":"d1","is_online":"yes","location":{"name":"L"},"ip":7}`)}
		v, err := n.DeviceUpdate()
		require.NoError(t, err)
		assert.Equal(t, "d1", v.UniqueID)
		assert.Equal(t, "L", v.Door.Name)
		assert.False(t, v.Online)
		assert.Empty(t, v.IP)
		_, err = (&Notification{Event: NotificationDeviceUpdate, Data: json.RawMessage(`[1]`)}).DeviceUpdate()
		assert.ErrorIs(t, err, ErrInvalidNotification)
	})
	t.Run("v2.location.update, guards", func(t *testing.T) {
		v, err := loadNotification(t, "location_update_v2_guard.json").LocationUpdateV2()
		require.NoError(t, err)
		assert.Equal(t, []LocationGuard{
			{ID: "c084202e-8db9-410c-a399-dfacb5057c49", Name: "Pyroman LastName", FirstName: "Pyroman", LastName: "LastName"},
			{ID: "ced3659a-6d52-4038-b9a2-90ea52900a5f", Name: "Michel LastName", FirstName: "Michel", LastName: "LastName"},
		}, v.Guard)
		assert.Equal(t, UnixTime(1737819594), v.LastActivity)
		require.NotNil(t, v.Thumbnail)
		assert.Equal(t, "thumbnail", v.Thumbnail.Type)
		assert.Equal(t, UnixTime(1737844108), v.Thumbnail.LastUpdate)
		require.NotNil(t, v.State)
		assert.True(t, v.State.Locked())
		assert.Equal(t, "none", v.State.DPS)
	})
	t.Run("v2.location.update, a guard's avatar", func(t *testing.T) {
		v, err := loadNotification(t, "location_update_v2_intercom.json").LocationUpdateV2()
		require.NoError(t, err)
		require.Len(t, v.Guard, 1)
		assert.Equal(t, "https://192.168.6.176/proxy/users/public/avatar/201216e3-2efd-406d-8f27-a82eb05ba3e9", v.Guard[0].Avatar)
		assert.Equal(t, "Anis", v.Guard[0].FirstName)
		assert.Len(t, v.DeviceIDs, 5)
		assert.Nil(t, v.Extras, "null extras")
	})
	t.Run("logs.add, camera event target", func(t *testing.T) {
		v, err := loadNotification(t, "logs_add_hub_mini.json").LogsAdd()
		require.NoError(t, err)
		cam, ok := v.Target("camera event")
		require.True(t, ok)
		assert.Equal(t, "63f0b32900db0d03e4000480", cam.AlternateID)
		assert.Equal(t, "access", v.Tag)
		assert.Equal(t, UnixMilli(1738013909000), v.Source.Event.Published)
	})
	t.Run("logs.add, log_category", func(t *testing.T) {
		v, err := loadNotification(t, "logs_add_log_category.json").LogsAdd()
		require.NoError(t, err)
		assert.Equal(t, "Unlocks", v.Source.Event.LogCategory)
		assert.Equal(t, "open_api", v.Source.Actor.Type)
		src, ok := v.UnlockSource()
		require.True(t, ok)
		assert.Equal(t, "homeassistant-full", src.ActorName)
		d, ok := v.Door()
		require.True(t, ok)
		assert.Equal(t, "Front door", d.DisplayName)
	})
	t.Run("system log, actor pictures and event tag", func(t *testing.T) {
		var l SystemLog
		require.NoError(t, json.Unmarshal([]byte(`{"_id":"x","_source":{
			"actor":{"id":"u1","type":"user","display_name":"Ada","avatar":"/avatar/u1.png","sso_picture":"https://idp.example/u1.jpg"},
			"event":{"type":"access.door.unlock","published":1,"tag":"access","log_category":"Unlocks"}},"tag":"access"}`), &l))
		assert.Equal(t, "/avatar/u1.png", l.Source.Actor.Avatar)
		assert.Equal(t, "https://idp.example/u1.jpg", l.Source.Actor.SSOPicture)
		assert.Equal(t, "access", l.Source.Event.Tag)
		assert.Equal(t, "Unlocks", l.Source.Event.LogCategory)
		b, err := json.Marshal(l)
		require.NoError(t, err)
		for _, want := range []string{`"avatar":"/avatar/u1.png"`, `"sso_picture":"https://idp.example/u1.jpg"`, `"log_category":"Unlocks"`} {
			assert.Contains(t, string(b), want)
		}
	})
}
