// Command doors walks through door control on the embedded fake controller
// (package accesstest) with its demo site:
//
//   - it registers a webhook receiver on a loopback port;
//
//   - unlocks the main entrance on behalf of a named actor, with extra data
//     that comes back in the access.door.unlock webhook, and shows the door
//     relock on the fake's clock;
//
//   - keeps the door unlocked for 15 minutes with a custom lock rule and
//     watches the rule end (access.temporary_unlock.start and .end);
//
//   - locks the whole site down and releases it
//     (access.device.emergency_status).
//
//     go run ./examples/doors
//
// The fake's time is moved with Server.Advance, so the program does not
// wait for the 15 minutes. Against a console the same calls act on real
// doors, and SetEmergency sounds the site's alarm: this program only runs
// on the fake.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	srv := newSite()
	defer srv.Close()
	if err := run(context.Background(), srv, srv.Client(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// newSite is the fake's demo site, its clock at 09:00 when the
// walk-through begins.
func newSite() *accesstest.Server {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	return accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return start }))
}

// run performs the walk-through on the site of srv through client (either
// of the ways in: the API port or a UniFi OS console's proxy) and writes
// what happens to out.
func run(ctx context.Context, srv *accesstest.Server, client *access.Client, out io.Writer) error {

	// A webhook receiver, registered through the API like a real one.
	events := make(chan *access.WebhookEvent, 16)
	var secret string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The fake signs with its own clock: no tolerance check here.
		h, err := access.WebhookHandler(secret, func(_ context.Context, ev *access.WebhookEvent) error {
			events <- ev
			return nil
		}, access.WithTolerance(0))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer recv.Close()
	ep, _, err := client.Webhooks.Create(ctx, &access.WebhookEndpointRequest{
		Endpoint: recv.URL, Name: "doors example",
		Events: []access.EventType{access.EventDoorUnlock, access.EventTemporaryUnlockStart,
			access.EventTemporaryUnlockEnd, access.EventDeviceEmergencyStatus},
	})
	if err != nil {
		return err
	}
	secret = ep.Secret.Value()
	// received prints the events delivered so far.
	received := func() error {
		if err := srv.WaitDeliveries(ctx); err != nil {
			return err
		}
		for {
			select {
			case ev := <-events:
				fmt.Fprintf(out, "  webhook %s%s\n", ev.Event, detail(ev))
			default:
				return nil
			}
		}
	}
	state := func(when string) error {
		d, _, err := client.Doors.Get(ctx, accesstest.DemoDoorID)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s %s: %s is %s\n", srv.Now().Format("15:04:05"), when, d.Name, d.LockRelayStatus)
		return nil
	}

	// 1. Unlock with an actor and extra data.
	_, err = client.Doors.Unlock(ctx, accesstest.DemoDoorID, &access.UnlockRequest{
		ActorID: "desk-1", ActorName: "Visitor desk", Extra: map[string]any{"ticket": "T-1042"},
	})
	if err != nil {
		return err
	}
	if err := state("after the unlock"); err != nil {
		return err
	}
	if err := received(); err != nil {
		return err
	}
	srv.Advance(accesstest.DoorUnlockDuration)
	if err := state("a few seconds later"); err != nil {
		return err
	}

	// 2. Keep it unlocked for 15 minutes and watch the rule end.
	_, err = client.Doors.SetLockRule(ctx, accesstest.DemoDoorID, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 15})
	if err != nil {
		return err
	}
	rule, _, err := client.Doors.GetLockRule(ctx, accesstest.DemoDoorID)
	if err != nil {
		return err
	}
	if err := state(fmt.Sprintf("rule %s until %s", rule.Type, rule.EndedTime.Time().Format("15:04"))); err != nil {
		return err
	}
	if err := received(); err != nil {
		return err
	}
	srv.Advance(15 * time.Minute)
	if err := state("the rule ended"); err != nil {
		return err
	}
	if err := received(); err != nil {
		return err
	}

	// 3. Lockdown and release: every door follows, unlocks are refused.
	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true}); err != nil {
		return err
	}
	if _, err := client.Doors.Unlock(ctx, accesstest.DemoDoorID, nil); err != nil {
		fmt.Fprintf(out, "unlock during the lockdown: %v\n", errCode(err))
	}
	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{}); err != nil {
		return err
	}
	em, _, err := client.Doors.GetEmergency(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "emergency now: lockdown %v, evacuation %v\n", em.Lockdown, em.Evacuation)
	if err := received(); err != nil {
		return err
	}
	_, err = client.Webhooks.Delete(ctx, ep.ID)
	return err
}

func errCode(err error) any {
	var e *access.APIError
	if errors.As(err, &e) {
		return e.Code
	}
	return err
}

func detail(ev *access.WebhookEvent) string {
	switch ev.Event {
	case access.EventDoorUnlock:
		o, err := ev.DoorUnlock()
		if err != nil {
			return ""
		}
		return fmt.Sprintf(" by %s, extra %s", ev.Data.Actor.Name, o.Extra)
	case access.EventDeviceEmergencyStatus:
		o, err := ev.EmergencyStatus()
		if err != nil {
			return ""
		}
		return fmt.Sprintf(": %s %v", o.Mode, o.Value)
	}
	if ev.Data.Location != nil {
		return " at " + ev.Data.Location.Name
	}
	return ""
}
