package access_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Stream the console's notifications: a doorbell ring and its outcome.
// The fake emits them as soon as the subscriber is connected.
func ExampleNotificationsService_Subscribe() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	go func() { // the console's side
		if srv.WaitNotificationClients(ctx, 1) != nil {
			return
		}
		_ = srv.Notify(
			&access.Notification{Event: access.NotificationRemoteView, EventObjectID: "ring-1",
				Data: json.RawMessage(`{"door_name":"Front Door","device_name":"Front Reader","request_id":"req-1","create_time":1706940900}`)},
			&access.Notification{Event: access.NotificationRemoteViewChange,
				Data: json.RawMessage(`{"reason_code":107,"remote_call_request_id":"req-1"}`)},
		)
	}()

	for n, err := range client.Notifications.Subscribe(ctx, nil) {
		switch {
		case errors.Is(err, access.ErrDisconnected):
			fmt.Println("down, reconnecting:", err) // alert, or poll the system logs
			continue
		case errors.Is(err, access.ErrReconnected):
			fmt.Println("reconnected: refresh state through the REST operations")
			continue
		case err != nil:
			log.Fatal(err) // the sequence has ended
		}
		switch n.Event {
		case access.NotificationRemoteView:
			v, _ := n.RemoteView()
			fmt.Printf("doorbell at %s (%s), call %s\n", v.DoorName, v.DeviceName, v.RequestID)
		case access.NotificationRemoteViewChange:
			v, _ := n.RemoteViewChange()
			fmt.Printf("call %s ended: %s\n", v.RemoteCallRequestID, v.ReasonCode)
		}
		if n.Event == access.NotificationRemoteViewChange {
			break // closes the connection
		}
	}
	// Output:
	// doorbell at Front Door (Front Reader), call req-1
	// call req-1 ended: unlocked by an admin
}

// A console that refuses the stream when the loop starts: the outage is
// reported once, with its cause, then the stream comes back and the
// notifications follow.
func ExampleDisconnectedError() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: 503, Times: 2})
	client := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	go func() { // the console's side, once it accepts the stream
		if srv.WaitNotificationClients(ctx, 1) != nil {
			return
		}
		_ = srv.Notify(&access.Notification{Event: access.NotificationRemoteView,
			Data: json.RawMessage(`{"door_name":"Front Door","request_id":"req-1"}`)})
	}()

	opts := &access.SubscribeOptions{MinBackoff: 10 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	for n, err := range client.Notifications.Subscribe(ctx, opts) {
		var down *access.DisconnectedError
		var back *access.ReconnectedError
		var apiErr *access.APIError
		switch {
		case errors.As(err, &down):
			errors.As(down.Cause, &apiErr)
			fmt.Println("down: HTTP", apiErr.StatusCode, "- never connected:", down.LastMessage.IsZero())
			continue
		case errors.As(err, &back):
			fmt.Println("back after", back.Attempts, "attempts; lost before:", back.Cause != nil)
			continue
		case err != nil:
			log.Fatal(err)
		}
		v, _ := n.RemoteView()
		fmt.Println("doorbell at", v.DoorName)
		break
	}
	// Output:
	// down: HTTP 503 - never connected: true
	// back after 3 attempts; lost before: false
	// doorbell at Front Door
}
