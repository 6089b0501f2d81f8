package access_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Unlock the demo site's main entrance on behalf of a named actor, with
// extra data the controller echoes in the access.door.unlock webhook. The
// fake relocks the door after accesstest.DoorUnlockDuration of its time.
func ExampleDoorsService_Unlock() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	// A webhook receiver for the unlock events.
	events := make(chan *access.WebhookEvent, 1)
	handler, err := access.WebhookHandler("0123456789abcdef", func(_ context.Context, ev *access.WebhookEvent) error {
		events <- ev
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	recv := httptest.NewServer(handler)
	defer recv.Close()
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Secret: "0123456789abcdef",
		Events: []access.EventType{access.EventDoorUnlock}})

	_, err = client.Doors.Unlock(ctx, accesstest.DemoDoorID, &access.UnlockRequest{
		ActorID:   "visitor-desk-1",
		ActorName: "Visitor desk",
		Extra:     map[string]string{"ticket": "T-1042"},
	})
	if err != nil {
		log.Fatal(err)
	}
	door, _, err := client.Doors.Get(ctx, accesstest.DemoDoorID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(door.Name, door.LockRelayStatus)

	ev := <-events
	unlock, err := ev.DoorUnlock()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ev.Event, "by", ev.Data.Actor.Name, string(unlock.Extra))

	srv.Advance(accesstest.DoorUnlockDuration)
	door, _, err = client.Doors.Get(ctx, accesstest.DemoDoorID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(door.Name, door.LockRelayStatus)

	// Only one of the actor fields is refused before anything is sent.
	_, err = client.Doors.Unlock(ctx, accesstest.DemoDoorID, &access.UnlockRequest{ActorName: "Visitor desk"})
	fmt.Println(errors.Is(err, access.ErrValidation))
	// Output:
	// Main entrance unlock
	// access.door.unlock by Visitor desk {"ticket":"T-1042"}
	// Main entrance lock
	// true
}

// Keep a door unlocked for 30 minutes and see the rule end on the fake's
// clock.
func ExampleDoorsService_SetLockRule() {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return start }))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	_, err := client.Doors.SetLockRule(ctx, accesstest.DemoDoorID, &access.LockRuleRequest{
		Type:     access.LockRuleCustom,
		Interval: 30, // minutes
	})
	if err != nil {
		log.Fatal(err)
	}
	rule, _, err := client.Doors.GetLockRule(ctx, accesstest.DemoDoorID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rule.Type, "until", rule.EndedTime.Time().Format(time.Kitchen))

	srv.Advance(30 * time.Minute)
	rule, _, err = client.Doors.GetLockRule(ctx, accesstest.DemoDoorID)
	if err != nil {
		log.Fatal(err)
	}
	door, _, err := client.Doors.Get(ctx, accesstest.DemoDoorID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("rule %q, door %s\n", rule.Type, door.LockRelayStatus)

	// A custom rule needs a positive interval; refused before sending.
	_, err = client.Doors.SetLockRule(ctx, accesstest.DemoDoorID, &access.LockRuleRequest{Type: access.LockRuleCustom})
	fmt.Println(errors.Is(err, access.ErrValidation))
	// Output:
	// custom until 9:30AM
	// rule "", door lock
	// true
}

// Lock the whole site down, then release it. On a real console this
// sounds the alarm.
func ExampleDoorsService_SetEmergency() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true}); err != nil {
		log.Fatal(err)
	}
	status, _, err := client.Doors.GetEmergency(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("lockdown %v, evacuation %v\n", status.Lockdown, status.Evacuation)

	_, err = client.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("unlock refused:", apiErr.Code)
	}

	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{}); err != nil {
		log.Fatal(err)
	}
	status, _, err = client.Doors.GetEmergency(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("lockdown %v, evacuation %v\n", status.Lockdown, status.Evacuation)
	// Output:
	// lockdown true, evacuation false
	// unlock refused: CODE_OPERATION_FORBIDDEN
	// lockdown false, evacuation false
}

// List the doors with their lock and position state; a door without a
// position sensor reports an unknown position.
func ExampleDoorsService_List() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()

	doors, _, err := srv.Client().Doors.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range doors[:4] {
		pos := string(d.PositionStatus)
		if d.PositionStatus == access.DoorPositionUnknown {
			pos = "no sensor"
		}
		fmt.Printf("%-14s %s, %s\n", d.Name, d.LockRelayStatus, pos)
	}
	// Output:
	// Main entrance  lock, close
	// Visitor lobby  lock, close
	// Loading dock   lock, no sensor
	// Server room    lock, close
}

// Make a door group from two doors, rename it, and see a duplicate name
// refused.
func ExampleDoorGroupsService_Create() {
	srv := accesstest.NewServer()
	defer srv.Close()
	floor := srv.AddFloor("", "Ground floor")
	front := srv.AddDoor(access.Door{Name: "Front door", FloorID: floor, IsBindHub: true})
	back := srv.AddDoor(access.Door{Name: "Back door", FloorID: floor, IsBindHub: true})
	client := srv.Client()
	ctx := context.Background()

	group, _, err := client.DoorGroups.Create(ctx, &access.DoorGroupRequest{
		GroupName: "Entrances",
		Resources: []string{front.ID, back.ID},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(group.Name, group.Type, len(group.Resources), "doors")

	group, _, err = client.DoorGroups.Update(ctx, group.ID, &access.DoorGroupUpdate{GroupName: access.Ptr("All entrances")})
	if err != nil {
		log.Fatal(err)
	}
	group, _, err = client.DoorGroups.Get(ctx, group.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(group.Name+":", group.Resources[0].Name, "and", group.Resources[1].Name)

	_, _, err = client.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: "All entrances", Resources: []string{front.ID}})
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Code, apiErr.Message)
	}
	// Output:
	// Entrances access 2 doors
	// All entrances: Front door and Back door
	// CODE_PARAMS_INVALID The provided name already exists.
}

// Walk the site's floors and doors through the building group.
func ExampleDoorGroupsService_Topology() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()

	groups, _, err := srv.Client().DoorGroups.Topology(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range groups {
		if g.Type != access.DoorGroupBuilding {
			continue
		}
		fmt.Println(g.Name)
		for _, f := range g.Floors {
			fmt.Printf("  %s: %d doors\n", f.Name, len(f.Doors))
		}
	}
	// Output:
	// HQ
	//   Basement: 2 doors
	//   Ground floor: 3 doors
	//   1st floor: 1 doors
	//   2nd floor: 2 doors
}

// List the devices grouped by door, and once each: a hub driving several
// doors is in each of their groups.
func ExampleDevicesService_List() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()

	groups, _, err := srv.Client().Devices.List(context.Background(), &access.DeviceListOptions{Refresh: true})
	if err != nil {
		log.Fatal(err)
	}
	listed := 0
	for _, g := range groups {
		listed += len(g)
	}
	fmt.Println(len(groups), "doors,", listed, "entries,", len(groups.Devices()), "devices")
	for _, d := range groups[0] {
		fmt.Println(d.Type, d.Name)
	}
	// Output:
	// 7 doors, 15 entries, 12 devices
	// UAH UA-HUB-3855
	// UA-Reader-Lite UA Reader Main
	// UA-Intercom UA Intercom Main
}

// Ring an intercom, then cancel the ring.
func ExampleDevicesService_TriggerDoorbell() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	if _, err := client.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{RoomName: "Reception"}); err != nil {
		log.Fatal(err)
	}
	_, ringing := srv.Ringing(accesstest.DemoIntercomID)
	fmt.Println("ringing:", ringing)
	if _, err := client.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{Cancel: true}); err != nil {
		log.Fatal(err)
	}
	_, ringing = srv.Ringing(accesstest.DemoIntercomID)
	fmt.Println("ringing:", ringing)
	// Output:
	// ringing: true
	// ringing: false
}
