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
