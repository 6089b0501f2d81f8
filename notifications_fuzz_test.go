package access

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseNotification decodes arbitrary messages and runs every accessor
// on what parses: errors only of the documented kinds, never a panic, and a
// parsed notification survives a round trip through its own encoding.
func FuzzParseNotification(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "notifications", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`Hello`, `"Hello"`, `{}`, `null`, `{"event":null}`,
		`{"event":"access.data.v2.device.update","data":{"category":null,"location_states":[null]}}`,
		`{"event":"access.remote_view.change","data":{"reason_code":"107"}}`,
		`{"event":"access.data.v2.location.update","data":{"state":{"remain_lock":{"until":"x"}}}}`,
		`{"event":"access.logs.add","data":{"_source":{"target":[{"type":"door"}]}}}`,
		`{"event":"access.hw.door_bell","receiver_id":1.5e300,"save_to_history":"1","data":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		n, err := ParseNotification(msg)
		if err != nil {
			if !errors.Is(err, ErrInvalidNotification) {
				t.Fatalf("error of another kind: %v", err)
			}
			return
		}
		if n.Event == "" {
			t.Fatal("parsed a notification without an event name")
		}
		accessors := []func() (any, error){
			func() (any, error) { return n.RemoteView() },
			func() (any, error) { return n.RemoteViewChange() },
			func() (any, error) { return n.RemoteUnlock() },
			func() (any, error) { return n.DeviceUpdate() },
			func() (any, error) { return n.DeviceUpdateV2() },
			func() (any, error) { return n.LocationUpdate() },
			func() (any, error) { return n.LocationUpdateV2() },
			func() (any, error) { return n.SettingUpdate() },
			func() (any, error) { return n.LogsAdd() },
			func() (any, error) { return n.DoorBell() },
		}
		for _, get := range accessors {
			// Every accessor also runs on data of another event's shape.
			for _, ev := range []NotificationEvent{n.Event, NotificationRemoteView, NotificationRemoteViewChange,
				NotificationRemoteUnlock, NotificationDeviceUpdate, NotificationDeviceUpdateV2, NotificationLocationUpdate,
				NotificationLocationUpdateV2, NotificationSettingUpdate, NotificationLogsAdd, NotificationDoorBell} {
				saved := n.Event
				n.Event = ev
				v, err := get()
				n.Event = saved
				if err == nil && v == nil {
					t.Fatal("nil value without an error")
				}
				if err != nil && !errors.Is(err, ErrEventMismatch) && !errors.Is(err, ErrInvalidNotification) {
					// A malformed time inside data (UnixTime) is the one
					// other decoding error.
					var se *json.SyntaxError
					if errors.As(err, &se) {
						t.Fatalf("syntax error from valid JSON: %v", err)
					}
				}
			}
		}
		b, err := json.Marshal(n)
		if err != nil {
			t.Fatalf("cannot encode a parsed notification: %v", err)
		}
		again, err := ParseNotification(b)
		if err != nil {
			t.Fatalf("own encoding does not parse: %v\n%s", err, b)
		}
		if again.Event != n.Event || again.ReceiverID != n.ReceiverID || again.EventObjectID != n.EventObjectID ||
			again.SaveToHistory != n.SaveToHistory || (len(again.Data) == 0) != (len(n.Data) == 0) {
			t.Fatalf("round trip changed the notification:\n%+v\n%+v", n, again)
		}
	})
}
