package accesstest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func TestSetDeviceOnline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	feed := notificationsOf(t, ctx, srv)

	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoDeviceID, false))
	n := nextPhysical(t, ctx, feed)
	require.Equal(t, access.NotificationDeviceUpdate, n.Event)
	assert.JSONEq(t, "false", string(rawMember(t, n.Data, "online")))
	d, err := n.DeviceUpdate()
	require.NoError(t, err)
	assert.Equal(t, accesstest.DemoDeviceID, d.UniqueID)
	assert.False(t, d.Online)
	require.NotNil(t, d.Door)
	assert.Equal(t, accesstest.DemoDoorID, d.Door.UniqueID)
	for _, dev := range srv.DeviceList().Devices() {
		if dev.ID == accesstest.DemoDeviceID {
			assert.False(t, dev.IsOnline)
		}
	}
	e := lastLog(t, srv)
	assert.Equal(t, access.SystemLogTopicDeviceEvents, e.Topic)
	assert.Contains(t, e.Source.Event.DisplayMessage, "is offline")

	// Already offline: nothing more is published.
	logs := len(srv.SystemLogs())
	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoDeviceID, false))
	assert.Len(t, srv.SystemLogs(), logs)

	require.NoError(t, srv.SetDeviceOnline(accesstest.DemoDeviceID, true))
	n = nextPhysical(t, ctx, feed)
	d, err = n.DeviceUpdate()
	require.NoError(t, err)
	assert.True(t, d.Online)

	assert.ErrorIs(t, srv.SetDeviceOnline("nope", false), accesstest.ErrNoDevice)
}

func TestPresentCardFromCache(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	// An unknown card is refused from the cache too.
	res, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-7")
	require.NoError(t, err)
	assert.False(t, res.Granted)
	assert.Equal(t, "unknown card", res.Reason)

	// A deactivated user still holding the card: PresentCard refuses it,
	// the reader's cache lets it in, and the grant is logged.
	u := srv.AddUser(access.User{FirstName: "Rev", LastName: "Oked", Status: access.UserStatusDeactivated,
		NFCCards: []access.NFCCard{{Token: res.Token}}})
	res, err = srv.PresentCard(accesstest.DemoDeviceID, "CARD-7")
	require.NoError(t, err)
	assert.False(t, res.Granted)
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus)

	res, err = srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-7")
	require.NoError(t, err)
	assert.True(t, res.Granted)
	assert.Equal(t, u.ID, res.HolderID)
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDoorUnlock), e.Source.Event.Type)
	assert.Equal(t, "NFC", e.Source.Authentication.CredentialProvider)
	assert.Equal(t, u.ID, e.Source.Actor.ID)
	assert.Equal(t, "user", e.Source.Actor.Type)
	door, ok := e.Target("door")
	require.True(t, ok)
	assert.Equal(t, accesstest.DemoDoorID, door.ID)

	_, err = srv.PresentCardFromCache("nope", "CARD-7")
	assert.ErrorIs(t, err, accesstest.ErrNoDevice)
}

// rawMember returns one member of a JSON object as it was sent.
func rawMember(t *testing.T, obj []byte, name string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &m))
	v, ok := m[name]
	require.True(t, ok, "no member %q in %s", name, obj)
	return v
}
