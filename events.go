package access

// EventType names a webhook event. Values are case-sensitive and sent
// verbatim (note the capital REN in [EventDoorbellIncomingREN]).
type EventType string

// The subscribable webhook events. Those marked 3.3.10 need that controller
// version or later.
const (
	EventDoorbellIncoming         EventType = "access.doorbell.incoming"
	EventDoorbellCompleted        EventType = "access.doorbell.completed"
	EventDoorbellIncomingREN      EventType = "access.doorbell.incoming.REN"
	EventDeviceDPSStatus          EventType = "access.device.dps_status"
	EventDoorUnlock               EventType = "access.door.unlock"
	EventDeviceEmergencyStatus    EventType = "access.device.emergency_status"
	EventUnlockScheduleActivate   EventType = "access.unlock_schedule.activate"   // 3.3.10
	EventUnlockScheduleDeactivate EventType = "access.unlock_schedule.deactivate" // 3.3.10
	EventTemporaryUnlockStart     EventType = "access.temporary_unlock.start"     // 3.3.10
	EventTemporaryUnlockEnd       EventType = "access.temporary_unlock.end"       // 3.3.10
	EventVisitorStatusChanged     EventType = "access.visitor.status.changed"     // 3.3.10
)

// AllEvents lists every subscribable event, in the vendor's order.
func AllEvents() []EventType {
	return []EventType{
		EventDoorbellIncoming, EventDoorbellCompleted, EventDoorbellIncomingREN,
		EventDeviceDPSStatus, EventDoorUnlock, EventDeviceEmergencyStatus,
		EventUnlockScheduleActivate, EventUnlockScheduleDeactivate,
		EventTemporaryUnlockStart, EventTemporaryUnlockEnd, EventVisitorStatusChanged,
	}
}

// Known reports whether e is one of the documented events.
func (e EventType) Known() bool {
	for _, k := range AllEvents() {
		if e == k {
			return true
		}
	}
	return false
}
