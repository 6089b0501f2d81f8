// Command events subscribes to the console's notifications WebSocket and
// prints what happens on the site: doorbells and how their calls end,
// remote unlocks with who unlocked and how, and emergency changes. It
// reports gaps (reconnections after which events may have been missed).
//
//	go run ./examples/events
//
// With no environment it runs against the embedded fake controller
// (package accesstest), rings its intercom, unlocks a door on behalf of a
// named actor and starts and releases a lockdown itself, then exits. To
// watch a console until Ctrl-C, set
//
//	ACCESS_URL=https://192.168.1.1:12445   the console
//	ACCESS_TOKEN=...                       an API token with view:device (and view:system_log for the logs)
//	ACCESS_FINGERPRINT=<sha256 hex>        pin the console's self-signed certificate, or
//	ACCESS_INSECURE=1                      skip certificate verification (not for production)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	base, token := os.Getenv("ACCESS_URL"), os.Getenv("ACCESS_TOKEN")
	if base == "" || token == "" {
		return onTheFake(ctx, out)
	}
	var opts []access.Option
	switch {
	case os.Getenv("ACCESS_FINGERPRINT") != "":
		opts = append(opts, access.WithPinnedCertificate(os.Getenv("ACCESS_FINGERPRINT")))
	case os.Getenv("ACCESS_INSECURE") == "1":
		opts = append(opts, access.WithInsecureSkipVerify())
	}
	client, err := access.NewClient(base, token, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Watching %s; Ctrl-C to stop.\n", client.BaseURL())
	return watch(ctx, client, out, func(*access.Notification) bool { return false })
}

// onTheFake watches the fake while another goroutine acts on it, and
// stops once the lockdown has been released.
func onTheFake(ctx context.Context, out io.Writer) error {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	fmt.Fprintln(out, "Watching the embedded fake controller (set ACCESS_URL and ACCESS_TOKEN for a console).")

	acted := make(chan error, 1)
	go func() { acted <- act(ctx, srv, client) }()
	lockdownSeen := false
	err := watch(ctx, client, out, func(n *access.Notification) bool {
		s, err := n.SettingUpdate()
		if err != nil {
			return false
		}
		if s.Lockdown {
			lockdownSeen = true
		}
		return lockdownSeen && !s.Lockdown && !s.Evacuation
	})
	if actErr := <-acted; actErr != nil {
		return actErr
	}
	return err
}

// act waits for the subscription, then makes the fake produce events.
func act(ctx context.Context, srv *accesstest.Server, client *access.Client) error {
	if err := srv.WaitNotificationClients(ctx, 1); err != nil {
		return err
	}
	if _, err := client.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{}); err != nil {
		return err
	}
	if _, err := client.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{Cancel: true}); err != nil {
		return err
	}
	if _, err := client.Doors.Unlock(ctx, accesstest.DemoDoorID, &access.UnlockRequest{ActorID: "desk-1", ActorName: "Front desk"}); err != nil {
		return err
	}
	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true}); err != nil {
		return err
	}
	_, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
	return err
}

// watch prints the notifications it understands until done says so, ctx
// ends or the subscription fails for good.
func watch(ctx context.Context, client *access.Client, out io.Writer, done func(*access.Notification) bool) error {
	for n, err := range client.Notifications.Subscribe(ctx, nil) {
		switch {
		case errors.Is(err, access.ErrDisconnected):
			fmt.Fprintln(out, "down, reconnecting:", err)
			continue
		case errors.Is(err, access.ErrReconnected):
			fmt.Fprintln(out, "gap: reconnected, events may have been missed:", err)
			continue
		case errors.Is(err, access.ErrInvalidNotification):
			continue // one unreadable message; the stream goes on
		case err != nil:
			return err
		}
		if line := describe(n); line != "" {
			fmt.Fprintln(out, line)
		}
		if done(n) {
			return nil
		}
	}
	return nil
}

// describe turns the notifications this program is about into a line.
func describe(n *access.Notification) string {
	switch n.Event {
	case access.NotificationRemoteView:
		if v, err := n.RemoteView(); err == nil {
			return fmt.Sprintf("doorbell: %s rings at %s (call %s)", v.DeviceName, v.DoorName, short(v.RequestID))
		}
	case access.NotificationRemoteViewChange:
		if v, err := n.RemoteViewChange(); err == nil {
			return fmt.Sprintf("doorbell: call %s %s", short(v.RemoteCallRequestID), v.ReasonCode)
		}
	case access.NotificationRemoteUnlock:
		if v, err := n.RemoteUnlock(); err == nil {
			return "unlocked remotely: " + v.Name
		}
	case access.NotificationLogsAdd:
		// The log entry of an unlock says who and how.
		if l, err := n.LogsAdd(); err == nil && l.Source.Event.Type == string(access.EventDoorUnlock) {
			door, _ := l.Door()
			return fmt.Sprintf("  who and how: %s (%s) opened %s, %s", l.Source.Actor.DisplayName, l.Source.Actor.Type,
				door.DisplayName, l.Source.Event.DisplayMessage)
		}
	case access.NotificationSettingUpdate:
		if s, err := n.SettingUpdate(); err == nil {
			return fmt.Sprintf("emergency: lockdown %t, evacuation %t", s.Lockdown, s.Evacuation)
		}
	}
	return ""
}

// short shortens an id for display.
func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
