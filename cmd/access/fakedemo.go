package main

import (
	"context"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The embedded demo console of --fake is accesstest's demo site, with
// what the help's examples need on top: some history (system-log entries
// of the last days and two user groups), a card held to a reader that
// waits for one, and site activity while something listens to the
// notifications. None of it is in accesstest's defaults: Go tests of the
// fake see only what they do themselves.

// Ids of the user groups --fake adds.
const (
	fakeFacilitiesID = "2f6c1a8e-93b4-4d7e-a1c5-6b0e9d4f7a21"
	fakeNightShiftID = "7d3e5b1c-0a2f-4c8d-9e6b-5f1a2c3d4e5f"
)

// The records --fake adds for the help's examples of commands that take
// an id of a kind accesstest's demo has none of: a webhook endpoint, an
// Identity resource of each type, a log entry's video clip and its
// thumbnail. The endpoint is on a loopback port where nothing listens,
// for an event the examples do not cause.
const (
	fakeWebhookID     = "0e5a7f3c-5b2d-4c1e-9f8a-2d6b4c8e1a37"
	fakeWebhookURL    = "https://127.0.0.1:9443/access/schedules"
	fakeEVStationID   = "5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	fakeWiFiID        = "6b2f3c4d-5e6f-4a71-9b8c-0d1e2f3a4b5c"
	fakeVPNID         = "7c3a4d5e-6f7a-4b82-8c9d-1e2f3a4b5c6d"
	fakeResourceID    = "demo-clip-7"
	fakeThumbnailPath = "/activities_resource/thumbnail/demo-clip-7.jpg"
	fakeVisitorID     = accesstest.DemoVisitorID // upcoming
)

// fakeDemoCard is the card the demo holds to a reader that waits for one
// (nfc-cards enroll).
const fakeDemoCard = "04A3F2C1"

// fakeActivityEvery is the pace of the demo's site activity.
const fakeActivityEvery = 500 * time.Millisecond

// seedFakeDemo adds the demo's history: two user groups ("Facilities"
// and, inside it, "Night shift") and system-log entries of the last
// three days, door openings among them.
func seedFakeDemo(srv *accesstest.Server) {
	users := srv.Users()
	ada, _ := srv.User(accesstest.DemoUserID)
	srv.AddUserGroup(fakeFacilitiesID, "Facilities", "", users[3].ID, users[4].ID)
	srv.AddUserGroup(fakeNightShiftID, "Night shift", fakeFacilitiesID, users[28].ID, users[53].ID)

	now := srv.Now()
	user := func(u access.User) access.SystemLogActor {
		return access.SystemLogActor{ID: u.ID, Type: "user", DisplayName: u.FullName}
	}
	system := access.SystemLogActor{Type: "system", DisplayName: "System"}
	door := func(id, name string) access.SystemLogTarget {
		return access.SystemLogTarget{Type: "door", ID: id, DisplayName: name}
	}
	device := func(id, name string) access.SystemLogTarget {
		return access.SystemLogTarget{Type: "UA-Reader-Lite", ID: id, DisplayName: name}
	}
	mainDoor := door(accesstest.DemoDoorID, "Main entrance")
	mainReader := device(accesstest.DemoDeviceID, "UA Reader Main")
	entry := func(id string, ago time.Duration, topic access.SystemLogTopic, actor access.SystemLogActor, typ, msg, result, cred string, targets ...access.SystemLogTarget) accesstest.SystemLogEntry {
		var e accesstest.SystemLogEntry
		e.ID, e.Topic, e.Tag = id, topic, "access"
		e.Source = access.SystemLogSource{Actor: actor, Target: targets,
			Event:          access.SystemLogEvent{Type: typ, DisplayMessage: msg, Result: result, Published: access.UnixMilliOf(now.Add(-ago))},
			Authentication: access.SystemLogAuthentication{CredentialProvider: cred}}
		return e
	}
	srv.AddSystemLog(
		entry("demo-log-1", 74*time.Hour, access.SystemLogTopicCritical, system, "access.device.emergency_status", "Lockdown started", "", ""),
		entry("demo-log-2", 73*time.Hour, access.SystemLogTopicCritical, system, "access.device.emergency_status", "Lockdown ended", "", ""),
		entry("demo-log-3", 30*time.Hour, access.SystemLogTopicDoorOpenings, user(users[3]), "access.door.unlock", "Access Granted (PIN)", "ACCESS", "PIN",
			door("5c496423-6d25-4e4f-8cdf-95ad5135188a", "Server room")),
		entry("demo-log-4", 9*time.Hour, access.SystemLogTopicAdminActivity, access.SystemLogActor{Type: "open_api", DisplayName: accesstest.APIActorName},
			"access.admin.activity", "User group Night shift created", "", ""),
		entry("demo-log-5", 5*time.Hour, access.SystemLogTopicDoorOpenings, system, "access.door.unlock", "Access Denied (NFC 04C0FFEE at Main entrance): unknown card", "BLOCKED", "NFC",
			mainDoor, mainReader),
		entry("demo-log-6", 2*time.Hour, access.SystemLogTopicDeviceEvents, system, "access.doorbell.incoming", "Doorbell rang", "", "",
			access.SystemLogTarget{Type: "UA-Intercom", ID: accesstest.DemoIntercomID, DisplayName: "UA Intercom Main"}, mainDoor),
		entry("demo-log-7", 40*time.Minute, access.SystemLogTopicDoorOpenings, user(ada), "access.door.unlock", "Access Granted (NFC)", "ACCESS", "NFC",
			mainDoor, mainReader, access.SystemLogTarget{Type: "activities_resource", ID: fakeResourceID, DisplayName: "Main entrance clip"}),
	)
	srv.AddSystemLogResource(fakeResourceID, access.SystemLogResource{VideoRecord: "/activities_resource/video/demo-clip-7.mp4", VideoRecordThumbnail: fakeThumbnailPath})
	srv.AddStaticFile(strings.TrimPrefix(fakeThumbnailPath, "/"), "image/jpeg", []byte("\xff\xd8\xff\xe0 the demo's thumbnail\n(not a real picture)\n"))
	srv.AddWebhook(access.WebhookEndpoint{ID: fakeWebhookID, Name: "Schedule log", Endpoint: fakeWebhookURL,
		Events: []access.EventType{access.EventUnlockScheduleActivate, access.EventUnlockScheduleDeactivate}})
	srv.AddIdentityResource(access.IdentityEVStation, access.IdentityResource{ID: fakeEVStationID, Name: "Garage charger 1", ShortName: "EV1"})
	srv.AddIdentityResource(access.IdentityWiFi, access.IdentityResource{ID: fakeWiFiID, Name: "HQ staff Wi-Fi", ShortName: "HQ"})
	srv.AddIdentityResource(access.IdentityVPN, access.IdentityResource{ID: fakeVPNID, Name: "HQ VPN", ShortName: "VPN"})

	// Records nothing uses, for the examples of the deletes, which the
	// console refuses for a record in use.
	srv.AddHolidayGroup(access.HolidayGroup{ID: "3b8f2d6e-1c4a-4e9b-8f7d-2a6c5e1b9d04", Name: "Holidays 2025", Description: "Last year's"})
	srv.AddSchedule(access.Schedule{ID: "4c9a3e7f-2d5b-4fa0-9a8e-3b7d6f2c0e15", Name: "Summer hours", Type: "access"})
	srv.AddAccessPolicy(access.AccessPolicy{ID: "5dab4f80-3e6c-4b01-8b9f-4c8e7a3d1f26", Name: "Former contractors", ScheduleID: "b71a840a-9dda-4d08-a06f-a558405d81b0"})
	srv.AddUserGroup("6ebc5091-4f7d-4c12-9cae-5d9f8b4e2a37", "Temporary staff", fakeFacilitiesID)

	// Credentials the examples take away: a QR code, an NFC card held by
	// a visitor and one held by nobody, through the API as a console's
	// administrator would have.
	ctx := context.Background()
	cl := srv.Client()
	_, _ = cl.Visitors.AssignQRCode(ctx, fakeVisitorID)
	_, _, _ = cl.NFCCards.Import(ctx, []access.NFCImportRow{{NFCID: "0A1B2C3D", Alias: "Visitor card 1"}, {NFCID: "0A1B2C3E", Alias: "Spare card"}})
	for _, c := range srv.NFCCards() {
		if c.Alias == "Visitor card 1" {
			_, _ = cl.Visitors.AssignNFCCard(ctx, fakeVisitorID, &access.NFCCardAssignment{Token: c.Token})
		}
	}
}

// fakeSiteSteps are what happens at the demo site, in turn: someone
// leaves through the main entrance (access.door.unlock), a visitor rings
// the intercom and gives up (access.doorbell.incoming, .completed), and an
// unknown card is held to the main reader (a denied entry, logged).
var fakeSiteSteps = []func(srv *accesstest.Server) error{
	func(srv *accesstest.Server) error { return srv.PressExitButton(accesstest.DemoDoorID) },
	func(srv *accesstest.Server) error { _, err := srv.RingDoorbell(accesstest.DemoIntercomID); return err },
	func(srv *accesstest.Server) error { return srv.CancelDoorbell(accesstest.DemoIntercomID) },
	func(srv *accesstest.Server) error {
		_, err := srv.PresentCard(accesstest.DemoDeviceID, "04C0FFEE")
		return err
	},
}

// playFakeSite acts out the demo site's activity, a step every interval,
// while a client holds the notifications WebSocket, until ctx ends. Each
// step goes through the fake's physical-site methods, so subscribers get
// what a console sends them.
func playFakeSite(ctx context.Context, srv *accesstest.Server, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; ; i++ {
		if srv.NotificationClients() == 0 {
			if srv.WaitNotificationClients(ctx, 1) != nil {
				return
			}
		}
		// A step the site refuses (a lockdown keeps the doors shut) is
		// part of the demo, not an error.
		_ = fakeSiteSteps[i%len(fakeSiteSteps)](srv)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
