package accesstest_test

import (
	"fmt"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// A test plays the physical site: someone inside presses the exit
// button, the door unlocks, and relocks once the fake's clock moves on.
func ExampleServer_PressExitButton() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()

	if err := srv.PressExitButton(accesstest.DemoDoorID); err != nil {
		panic(err)
	}
	d, _ := srv.Door(accesstest.DemoDoorID)
	fmt.Println(d.Name, d.LockRelayStatus)
	srv.Advance(accesstest.DoorUnlockDuration)
	d, _ = srv.Door(accesstest.DemoDoorID)
	fmt.Println(d.Name, d.LockRelayStatus)
	// Output:
	// Main entrance unlock
	// Main entrance lock
}

// A card held to a reader that is not enrolling is checked against the
// holder's access policies.
func ExampleServer_PresentCard() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()

	res, err := srv.PresentCard(accesstest.DemoDeviceID, "UNKNOWN-CARD")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Granted, res.Reason)
	_ = srv.SetEmergency(access.EmergencyStatus{Evacuation: true})
	d, _ := srv.Door(accesstest.DemoDoorID)
	fmt.Println(d.LockRelayStatus)
	// Output:
	// false unknown card
	// unlock
}
