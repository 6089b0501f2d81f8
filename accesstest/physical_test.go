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

// notificationsOf subscribes to srv's WebSocket with an SDK client and
// returns the notifications other than the handshake and access.logs.add,
// once the subscription is connected.
func notificationsOf(t *testing.T, ctx context.Context, srv *accesstest.Server) <-chan *access.Notification {
	t.Helper()
	ch := make(chan *access.Notification, 64)
	before := srv.NotificationConnections()
	go func() {
		for n, err := range srv.Client().Notifications.Subscribe(ctx, nil) {
			if err != nil {
				continue
			}
			if n.Event == access.NotificationBaseInfo || n.Event == access.NotificationLogsAdd {
				continue
			}
			select {
			case ch <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	require.NoError(t, srv.WaitNotificationConnections(ctx, before+1))
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	return ch
}

func nextPhysical(t *testing.T, ctx context.Context, ch <-chan *access.Notification) *access.Notification {
	t.Helper()
	select {
	case n := <-ch:
		return n
	case <-ctx.Done():
		t.Fatal("no notification")
		return nil
	}
}

func lastLog(t *testing.T, srv *accesstest.Server) accesstest.SystemLogEntry {
	t.Helper()
	logs := srv.SystemLogs()
	require.NotEmpty(t, logs)
	return logs[len(logs)-1]
}

func TestRingDoorbellAtADevice(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	feed := notificationsOf(t, ctx, srv)

	id, err := srv.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	n := nextPhysical(t, ctx, feed)
	require.Equal(t, access.NotificationRemoteView, n.Event)
	var rv access.RemoteViewData
	require.NoError(t, json.Unmarshal(n.Data, &rv))
	assert.Equal(t, id, rv.RequestID)
	assert.Equal(t, accesstest.DemoIntercomID, rv.DeviceID)
	assert.Equal(t, "Main entrance", rv.DoorName)
	got, ringing := srv.Ringing(accesstest.DemoIntercomID)
	assert.True(t, ringing)
	assert.Equal(t, id, got)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDoorbellIncoming), e.Source.Event.Type)
	assert.Equal(t, "system", e.Source.Actor.Type, "a visitor rang, not the API token")

	_, err = srv.RingDoorbell(accesstest.DemoIntercomID)
	assert.ErrorIs(t, err, accesstest.ErrBusy)
	_, err = srv.RingDoorbell(accesstest.DemoDeviceID) // a reader lite: no doorbell
	assert.ErrorIs(t, err, accesstest.ErrNotSupported)
	_, err = srv.RingDoorbell("nope")
	assert.ErrorIs(t, err, accesstest.ErrNoDevice)

	require.NoError(t, srv.CancelDoorbell(accesstest.DemoIntercomID))
	n = nextPhysical(t, ctx, feed)
	require.Equal(t, access.NotificationRemoteViewChange, n.Event)
	var ch access.RemoteViewChangeData
	require.NoError(t, json.Unmarshal(n.Data, &ch))
	assert.Equal(t, access.RemoteViewReason(108), ch.ReasonCode)
	assert.Equal(t, id, ch.RemoteCallRequestID)
	_, ringing = srv.Ringing(accesstest.DemoIntercomID)
	assert.False(t, ringing)

	// An unanswered ring times out with 105.
	_, err = srv.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	nextPhysical(t, ctx, feed)
	srv.Advance(accesstest.DoorbellRingTimeout)
	n = nextPhysical(t, ctx, feed)
	require.NoError(t, json.Unmarshal(n.Data, &ch))
	assert.Equal(t, access.RemoteViewReason(105), ch.ReasonCode)
}

func TestSetDoorPosition(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	feed := notificationsOf(t, ctx, srv)

	require.NoError(t, srv.SetDoorPosition(accesstest.DemoDoorID, true))
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorOpen, d.PositionStatus)
	n := nextPhysical(t, ctx, feed)
	require.Equal(t, access.NotificationLocationUpdateV2, n.Event)
	var loc access.LocationUpdateV2Data
	require.NoError(t, json.Unmarshal(n.Data, &loc))
	assert.Equal(t, "open", loc.State.DPS)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDeviceDPSStatus), e.Source.Event.Type)
	assert.Equal(t, "Door opened", e.Source.Event.DisplayMessage)

	before := len(srv.SystemLogs())
	require.NoError(t, srv.SetDoorPosition(accesstest.DemoDoorID, true), "already open: nothing to do")
	assert.Len(t, srv.SystemLogs(), before)
	require.NoError(t, srv.SetDoorPosition(accesstest.DemoDoorID, false))
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorClosed, d.PositionStatus)

	var noSensor string
	for _, d := range srv.Doors() {
		if d.PositionStatus == "" {
			noSensor = d.ID
		}
	}
	assert.ErrorIs(t, srv.SetDoorPosition(noSensor, true), accesstest.ErrNotSupported)
	assert.ErrorIs(t, srv.SetDoorPosition("nope", true), accesstest.ErrNoDoor)
}

func TestPressExitButton(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	require.NoError(t, srv.PressExitButton(accesstest.DemoDoorID))
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDoorUnlock), e.Source.Event.Type)
	assert.Equal(t, "REX", e.Source.Authentication.CredentialProvider)
	assert.Equal(t, "Access Granted (REX)", e.Source.Event.DisplayMessage)
	srv.Advance(accesstest.DoorUnlockDuration)
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus, "relocks like a remote unlock")

	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	assert.ErrorIs(t, srv.PressExitButton(accesstest.DemoDoorID), accesstest.ErrNotSupported)
}

func TestPresentCard(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	client := srv.Client()

	// With an enrollment session open, the tap enrolls the card.
	sess, _, err := client.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	require.NoError(t, err)
	res, err := srv.PresentCard(accesstest.DemoDeviceID, "CARD-1")
	require.NoError(t, err)
	assert.True(t, res.Enrolled)
	card, _, err := client.NFCCards.EnrollmentStatus(ctx, sess.SessionID)
	require.NoError(t, err)
	assert.Equal(t, res.Token, card.Token)
	_, err = client.NFCCards.EndEnrollment(ctx, sess.SessionID)
	require.NoError(t, err)

	// Unknown to anyone: denied and only logged.
	res, err = srv.PresentCard(accesstest.DemoDeviceID, "CARD-1")
	require.NoError(t, err)
	assert.False(t, res.Granted)
	assert.Equal(t, "unknown card", res.Reason)
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus)

	// A user holding it with a policy for the building, on a schedule in
	// force at any hour: granted.
	var always string
	for _, sc := range srv.Schedules() {
		if sc.Name == "Always" {
			always = sc.ID
		}
	}
	pol := srv.AddAccessPolicy(access.AccessPolicy{Name: "Everywhere", ScheduleID: always, Resources: []access.Resource{{ID: accesstest.DemoBuildingID, Type: "door_group"}}})
	u := srv.AddUser(access.User{FirstName: "Ada", LastName: "Tap", Status: access.UserStatusActive, AccessPolicyIDs: []string{pol.ID}})
	_, err = client.Users.AssignNFCCard(ctx, u.ID, &access.NFCCardAssignment{Token: res.Token})
	require.NoError(t, err)
	res, err = srv.PresentCard(accesstest.DemoDeviceID, "CARD-1")
	require.NoError(t, err)
	assert.True(t, res.Granted, res.Reason)
	assert.Equal(t, u.ID, res.HolderID)
	d, _ = srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDoorUnlock), e.Source.Event.Type)
	assert.Equal(t, "NFC", e.Source.Authentication.CredentialProvider)
	assert.Equal(t, u.ID, e.Source.Actor.ID)

	_, err = srv.PresentCard("nope", "CARD-1")
	assert.ErrorIs(t, err, accesstest.ErrNoDevice)
}

func TestSetEmergencyFromTheSite(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	feed := notificationsOf(t, ctx, srv)
	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{Evacuation: true}))
	assert.Equal(t, access.EmergencyStatus{Evacuation: true}, srv.Emergency())
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorUnlocked, d.LockRelayStatus)
	n := nextPhysical(t, ctx, feed)
	require.Equal(t, access.NotificationSettingUpdate, n.Event)
	var st access.SettingUpdateData
	require.NoError(t, json.Unmarshal(n.Data, &st))
	assert.True(t, st.Evacuation)
	assert.ErrorIs(t, srv.SetEmergency(access.EmergencyStatus{Evacuation: true, Lockdown: true}), accesstest.ErrNotSupported)
	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{}))
	assert.Equal(t, access.EmergencyStatus{}, srv.Emergency())
}
