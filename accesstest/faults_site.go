package accesstest

import (
	"fmt"
	"strings"

	"github.com/access-dev/access"
)

// Site faults: what goes wrong at a site without anyone calling the API,
// acted out as a console reports it (see physical.go for the ordinary
// acts). Like those, each changes the state and publishes through
// [Server.publish].

// SetDeviceOnline acts out a device losing its connection to the console
// (online false: unplugged, a cut cable) or getting it back: the devices
// list's IsOnline follows, subscribers of the notifications WebSocket get
// access.data.device.update with the device's online state, and the
// change is logged under the device_events topic; an offline device rings
// no doorbell and reads no card, as on a console. A device already in
// that state changes nothing and publishes nothing.
func (s *Server) SetDeviceOnline(deviceID string, online bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	h := sp.device(deviceID)
	if h == nil {
		return fmt.Errorf("%w %q", ErrNoDevice, deviceID)
	}
	if h.dev.IsOnline == online {
		return nil
	}
	h.dev.IsOnline, h.dev.IsConnected = online, online
	data := access.DeviceUpdateData{UniqueID: h.dev.ID, Name: h.dev.Name, Alias: h.dev.Alias, DeviceType: h.dev.Type, Online: online,
		IsAdopted: h.dev.IsAdopted, ConnectedUAHID: h.dev.ConnectedUAHID, LocationID: h.dev.LocationID, Configs: []access.DeviceConfig{}}
	if len(h.doors) > 0 {
		if d := sp.door(h.doors[0]); d != nil {
			loc := s.notificationLocation(d)
			data.Door = &loc
		}
	}
	// The WebSocket form first, as SetDoorPosition does.
	s.queueNotification(wsMessage(access.NotificationDeviceUpdate, h.dev.ID, data))
	state := "offline"
	if online {
		state = "online"
	}
	s.publish(change{Log: "Device " + h.dev.Name + " is " + state, LogTopic: access.SystemLogTopicDeviceEvents,
		Device: eventDevice(h), AtSite: true})
	return nil
}

// PresentCardFromCache acts out a reader that cannot reach its hub and
// decides from its offline cache: it lets in the card's holder whatever
// the holder's status now is, as field reports describe for revoked cards
// (a deactivated user's card still opens the door). The door unlocks for
// [DoorUnlockDuration] and the grant is published and logged as a
// granted tap is ([Server.PresentCard]): access.door.unlock with
// authentication type NFC and the holder as actor. A card that no one
// holds is refused as by PresentCard; a device at no door, or a door not
// bound to a hub, answers [ErrNotSupported].
func (s *Server) PresentCardFromCache(deviceID, cardNumber string) (TapResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	h, d, err := sp.readerDoor(deviceID)
	if err != nil {
		return TapResult{}, err
	}
	if !d.door.IsBindHub {
		return TapResult{}, fmt.Errorf("%w: door %q is not bound to a hub", ErrNotSupported, d.door.ID)
	}
	token := cardToken(cardNumber)
	res := TapResult{Token: token}
	id, kind := s.nfcHolder(token)
	res.HolderID = id
	var actor *access.EventActor
	switch kind {
	case "USER":
		if u := s.user(id); u != nil {
			actor = &access.EventActor{ID: u.ID, Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Type: "user"}
		}
	case "VISITOR":
		if v := s.people.visitors.get(id); v != nil {
			actor = &access.EventActor{ID: v.ID, Name: v.FirstName + " " + v.LastName, Type: "visitor"}
		}
	}
	if actor == nil {
		res.Reason = "unknown card"
		s.publish(change{Log: "Access Denied (NFC " + cardNumber + " at " + d.door.Name + "): " + res.Reason,
			LogTopic: access.SystemLogTopicDoorOpenings, Location: sp.location(d), Device: eventDevice(h), AtSite: true})
		return res, nil
	}
	res.Granted = true
	s.unlockFor(d, actor, access.DoorUnlockObject{AuthenticationType: "NFC", AuthenticationValue: cardNumber, ReaderID: h.dev.ID,
		Result: "Access Granted"})
	return res, nil
}
