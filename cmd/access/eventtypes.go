package main

import (
	"slices"
	"strings"
	"sync"

	"github.com/access-dev/access"
)

// knownEvents are the notifications the short names of eventAliases
// stand for, which are all the SDK names but the handshake
// (access.base.info, never yielded, so not one to wait for); sorted.
var knownEvents = sync.OnceValue(func() []access.NotificationEvent {
	var out []access.NotificationEvent
	for _, evs := range eventAliases() {
		out = append(out, evs...)
	}
	slices.Sort(out)
	return slices.Compact(out)
})

// checkEventTypes refuses a --type value that is neither a short name nor
// a known event (with or without "access."): the stream would never match
// it and the command would wait forever.
func checkEventTypes(types []string) error {
	for _, t := range types {
		if _, ok := eventAliases()[t]; ok {
			continue
		}
		known := knownEvents()
		if slices.Contains(known, access.NotificationEvent(t)) || slices.Contains(known, access.NotificationEvent("access."+t)) {
			continue
		}
		aliases := eventTypeCompletions()
		slices.Sort(aliases)
		names := make([]string, len(known))
		for i, e := range known {
			names[i] = string(e)
		}
		return usageErrorf("--type %q is not a known event: use %s, or an event name (with or without \"access.\"): %s",
			t, strings.Join(aliases, ", "), strings.Join(names, ", "))
	}
	return nil
}
