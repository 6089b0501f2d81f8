package main

import (
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// knownEvents are the notifications the SDK names (the handshake,
// access.base.info, is never yielded, so it is not one to wait for).
var knownEvents = []access.NotificationEvent{
	access.NotificationRemoteView, access.NotificationRemoteViewChange, access.NotificationRemoteUnlock,
	access.NotificationDeviceUpdate, access.NotificationDeviceUpdateV2, access.NotificationLocationUpdate,
	access.NotificationLocationUpdateV2, access.NotificationDeviceLocationUpdateV2, access.NotificationSettingUpdate,
	access.NotificationLogsAdd, access.NotificationDoorBell,
}

// checkEventTypes refuses a --type value that is neither a short name nor
// a known event (with or without "access."): the stream would never match
// it and the command would wait forever.
func checkEventTypes(types []string) error {
	for _, t := range types {
		if _, ok := eventAliases[t]; ok {
			continue
		}
		if slices.Contains(knownEvents, access.NotificationEvent(t)) || slices.Contains(knownEvents, access.NotificationEvent("access."+t)) {
			continue
		}
		aliases := eventTypeCompletions()
		slices.Sort(aliases)
		names := make([]string, len(knownEvents))
		for i, e := range knownEvents {
			names[i] = string(e)
		}
		return usageErrorf("--type %q is not a known event: use %s, or an event name (with or without \"access.\"): %s",
			t, strings.Join(aliases, ", "), strings.Join(names, ", "))
	}
	return nil
}
