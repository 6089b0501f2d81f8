package accesstest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// The physical site: what a person does at a door, acted out as a console
// sees it. Each method changes the fake's state through the same paths as
// the API's handlers and publishes what a console publishes (webhook
// deliveries, WebSocket notifications, a system-log entry), so that a Go
// test and the web console of `access fake` play the same site.

// Errors of the physical-site methods; test them with errors.Is.
var (
	// ErrNoDevice: no device with that id is on the devices list.
	ErrNoDevice = errors.New("accesstest: no such device")
	// ErrNoDoor: no door with that id.
	ErrNoDoor = errors.New("accesstest: no such door")
	// ErrNotSupported: the device or door cannot do that (a reader
	// without a doorbell, a door without a position sensor or hub).
	ErrNotSupported = errors.New("accesstest: not supported here")
	// ErrBusy: the doorbell already rings.
	ErrBusy = errors.New("accesstest: the doorbell already rings")
)

// RingDoorbell acts out a visitor pressing the doorbell button of an
// intercom or a reader pro: the device rings, [Server.Ringing] reports the
// ring, subscribers get access.doorbell.incoming (webhook) and
// access.remote_view (WebSocket), and an unanswered ring ends after
// [DoorbellRingTimeout] with reason code 105. It returns the ring's
// request id.
func (s *Server) RingDoorbell(deviceID string) (requestID string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	h := sp.device(deviceID)
	switch {
	case h == nil:
		return "", fmt.Errorf("%w %q", ErrNoDevice, deviceID)
	case !slices.Contains(doorbellTypes, h.dev.Type):
		return "", fmt.Errorf("%w: %s %q has no doorbell", ErrNotSupported, h.dev.Type, deviceID)
	case !h.dev.IsOnline:
		return "", fmt.Errorf("%w: device %q is offline", ErrNotSupported, deviceID)
	case sp.rings[deviceID] != nil:
		return "", fmt.Errorf("%w at %q", ErrBusy, deviceID)
	}
	ring := &ringRec{requestID: s.randomHex(16)}
	sp.rings[deviceID] = ring
	ring.timeout = s.after(DoorbellRingTimeout, timerKey{Kind: timerRingTimeout, ID: deviceID})
	s.publish(change{Event: access.EventDoorbellIncoming, Location: sp.ringLocation(h), Device: eventDevice(h),
		Object: access.DoorbellObject{RequestID: ring.requestID}, AtSite: true})
	return ring.requestID, nil
}

// CancelDoorbell acts out the visitor giving up before anyone answers:
// the ring ends with reason code 108 (access.doorbell.completed,
// access.remote_view.change). A device that does not ring is left alone.
func (s *Server) CancelDoorbell(deviceID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	h := sp.device(deviceID)
	if h == nil {
		return fmt.Errorf("%w %q", ErrNoDevice, deviceID)
	}
	ring := sp.rings[deviceID]
	if ring == nil {
		return nil
	}
	ring.timeout.stop()
	delete(sp.rings, deviceID)
	s.publish(change{Event: access.EventDoorbellCompleted, Location: sp.ringLocation(h), Device: eventDevice(h),
		Object: access.DoorbellObject{RequestID: ring.requestID, ReasonCode: 108}, AtSite: true})
	return nil
}

// SetDoorPosition acts out a door being opened (open true) or closed: its
// position sensor reports the change, [access.Door.PositionStatus]
// follows, and subscribers get access.device.dps_status (webhook) and the
// door's access.data.v2.location.update (WebSocket). A door without a
// position sensor (PositionStatus empty) answers [ErrNotSupported]; a door
// already in that position changes nothing and publishes nothing.
func (s *Server) SetDoorPosition(doorID string, open bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	return s.setDoorPosition(doorID, open)
}

// setDoorPosition is SetDoorPosition; the caller holds s.mu.
func (s *Server) setDoorPosition(doorID string, open bool) error {
	sp := s.sp()
	d := sp.door(doorID)
	switch {
	case d == nil:
		return fmt.Errorf("%w %q", ErrNoDoor, doorID)
	case d.door.PositionStatus == "":
		return fmt.Errorf("%w: door %q has no position sensor", ErrNotSupported, doorID)
	}
	want, status := access.DoorClosed, "close"
	if open {
		want, status = access.DoorOpen, "open"
	}
	if d.door.PositionStatus == want {
		return nil
	}
	d.door.PositionStatus = want
	// The WebSocket form first, as publish queues it for other events.
	s.queueNotification(wsMessage(access.NotificationLocationUpdateV2, d.door.ID, s.locationV2(d)))
	s.publish(change{Event: access.EventDeviceDPSStatus, Location: sp.location(d), Device: eventDevice(sp.hubOf(d.door.ID)),
		Object: access.DPSStatusObject{EventType: "dps_change", Status: status}, AtSite: true})
	return nil
}

// PressExitButton acts out someone pressing the request-to-exit button
// inside a door: the hub unlocks the door for [DoorUnlockDuration], and
// subscribers get access.door.unlock with authentication type REX. In a
// lockdown the door stays locked ([ErrNotSupported]).
func (s *Server) PressExitButton(doorID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	sp := s.sp()
	d := sp.door(doorID)
	switch {
	case d == nil:
		return fmt.Errorf("%w %q", ErrNoDoor, doorID)
	case !d.door.IsBindHub:
		return fmt.Errorf("%w: door %q is not bound to a hub", ErrNotSupported, doorID)
	case sp.emergency.Lockdown:
		return fmt.Errorf("%w: the site is in lockdown", ErrNotSupported)
	}
	s.unlockFor(d, nil, access.DoorUnlockObject{AuthenticationType: "REX", Result: "Access Granted"})
	return nil
}

// unlockFor holds a door's relay open for DoorUnlockDuration and
// publishes access.door.unlock. The caller holds s.mu.
func (s *Server) unlockFor(d *doorRec, actor *access.EventActor, obj access.DoorUnlockObject) {
	sp := s.sp()
	d.relock.stop()
	d.unlocked = true
	d.relock = s.after(DoorUnlockDuration, timerKey{Kind: timerRelock, ID: d.door.ID})
	s.publish(change{Event: access.EventDoorUnlock, Location: sp.location(d), Device: eventDevice(sp.hubOf(d.door.ID)), Actor: actor, Object: obj, AtSite: true})
}

// TapResult is what a reader made of a card held to it with
// [Server.PresentCard].
type TapResult struct {
	// Granted reports whether the door opened.
	Granted bool
	// Enrolled is set when the reader had an enrollment session open: the
	// tap went to the session (as [Server.TapCard]) and no door opened.
	Enrolled bool
	// Token is the card's token; HolderID the id of the user or visitor
	// holding it ("" for an unknown card).
	Token    string
	HolderID string
	// Reason says why access was denied: "outside Office hours",
	// "Public Holidays 2026: Good Friday", "status DEACTIVATED", "unknown
	// card" (see [TapDecision]).
	Reason string
	// Decision is the reader's whole decision: the granting policy and
	// schedule, or why not ([Server.Decide]); zero for an enrolled card.
	Decision TapDecision
}

// PresentCard acts out a card held to a reader. With an enrollment
// session open on the reader the tap enrolls the card, exactly as
// [Server.TapCard]. Otherwise the reader decides the card at the fake's
// time by the rules of [Server.Decide]: the holder's status, their own
// and their groups' access policies, the policies' schedules with their
// holidays, a visitor's visit and schedule. A granted tap unlocks the door
// for [DoorUnlockDuration] and publishes access.door.unlock
// (authentication type NFC, the holder as actor, the granting policy); a
// denied one is only logged, as consoles do, with the reason:
// "Access Denied (NFC 100001 at Main entrance): outside Office hours".
func (s *Server) PresentCard(deviceID, cardNumber string) (TapResult, error) {
	s.mu.Lock()
	s.runDue()
	if s.deviceSession(deviceID) != nil {
		s.mu.Unlock()
		token, err := s.TapCard(deviceID, cardNumber)
		return TapResult{Enrolled: err == nil, Token: token}, err
	}
	defer s.mu.Unlock()
	sp := s.sp()
	h, d, err := sp.readerDoor(deviceID)
	if err != nil {
		return TapResult{}, err
	}
	dec := s.decideTap(d, cardNumber, s.clockNow())
	res := TapResult{Granted: dec.Granted, Token: dec.Token, HolderID: dec.HolderID, Reason: dec.Reason, Decision: dec}
	var actor *access.EventActor
	switch {
	case dec.HolderID == "":
	case dec.Visitor:
		if v := s.visitor(dec.HolderID); v != nil {
			actor = &access.EventActor{ID: v.ID, Name: v.FirstName + " " + v.LastName, Type: "visitor"}
		}
	default:
		if u := s.user(dec.HolderID); u != nil {
			actor = &access.EventActor{ID: u.ID, Name: strings.TrimSpace(u.FirstName + " " + u.LastName), Type: "user"}
		}
	}
	if res.Granted {
		s.unlockFor(d, actor, access.DoorUnlockObject{AuthenticationType: "NFC", AuthenticationValue: cardNumber,
			PolicyID: dec.PolicyID, PolicyName: dec.Policy, ReaderID: h.dev.ID, Result: "Access Granted"})
		return res, nil
	}
	s.publish(change{Log: "Access Denied (NFC " + cardNumber + " at " + d.door.Name + "): " + res.Reason,
		LogTopic: access.SystemLogTopicDoorOpenings, Location: sp.location(d), Device: eventDevice(h), Actor: actor, AtSite: true})
	return res, nil
}

// SetEmergency starts or ends the site's emergency modes as the console's
// own emergency switch does (lockdown and evacuation cannot both be on):
// the doors' relays follow ([access.Door.LockRelayStatus]) and subscribers
// get access.device.emergency_status for each mode that flips (webhook)
// and access.data.setting.update (WebSocket).
func (s *Server) SetEmergency(st access.EmergencyStatus) error {
	if st.Lockdown && st.Evacuation {
		return fmt.Errorf("%w: lockdown and evacuation cannot both be on", ErrNotSupported)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	s.switchEmergency(st, true)
	return nil
}

// switchEmergency makes next the site's emergency status and publishes
// access.device.emergency_status for each mode that flips, from the site's
// emergency-capable device (or hub); turning one mode off is published
// before turning the other on. atSite marks a switch made at the site
// ([Server.SetEmergency]) rather than through the API. The caller holds
// s.mu and has checked that next does not have both modes on.
func (s *Server) switchEmergency(next access.EmergencyStatus, atSite bool) {
	sp := s.sp()
	prev := sp.emergency
	sp.emergency = next
	var dev *access.EventDevice
	for _, h := range sp.hw.list {
		if slices.Contains(h.dev.Capabilities, "emergency_settings") || slices.Contains(h.dev.Capabilities, "is_hub") {
			dev = eventDevice(h)
			break
		}
	}
	flip := func(mode string, value bool) {
		s.publish(change{Event: access.EventDeviceEmergencyStatus, Device: dev,
			Object: access.EmergencyStatusObject{Global: true, Mode: mode, Value: value}, AtSite: atSite})
	}
	if prev.Lockdown && !next.Lockdown {
		flip("lockdown", false)
	}
	if prev.Evacuation && !next.Evacuation {
		flip("evacuation", false)
	}
	if !prev.Lockdown && next.Lockdown {
		flip("lockdown", true)
	}
	if !prev.Evacuation && next.Evacuation {
		flip("evacuation", true)
	}
}

// Floor is a floor of the site's building, as [Server.Floors] lists it.
type Floor struct {
	ID, Name string
}

// Floors returns the building's floors in order.
func (s *Server) Floors() []Floor {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.sp()
	out := make([]Floor, sp.floors.len())
	for i, f := range sp.floors.list {
		out[i] = Floor{ID: f.id, Name: f.name}
	}
	return out
}

// EnrollingDevices returns the ids of the readers that have an NFC
// enrollment session open (a card held to them enrolls it).
func (s *Server) EnrollingDevices() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	var out []string
	for _, ss := range s.cr().sessions {
		if !slices.Contains(out, ss.deviceID) {
			out = append(out, ss.deviceID)
		}
	}
	slices.Sort(out)
	return out
}
