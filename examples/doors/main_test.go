package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the walk-through in both modes: direct, and through a
// UniFi OS console's proxy (the token as an X-API-KEY).
func TestRun(t *testing.T) {
	t.Parallel()
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		runIn(t, mode)
	})
}

func runIn(t *testing.T, mode access.Mode) {
	srv := newSite()
	t.Cleanup(srv.Close)
	var out strings.Builder
	if err := run(context.Background(), srv, srv.ClientFor(mode), &out); err != nil {
		t.Fatal(err)
	}
	srv.CheckModeUsed(t, mode)
	want := `09:00:00 after the unlock: Main entrance is unlock
  webhook access.door.unlock by Visitor desk, extra {"ticket":"T-1042"}
09:00:05 a few seconds later: Main entrance is lock
09:00:05 rule custom until 09:15: Main entrance is unlock
  webhook access.temporary_unlock.start at Main entrance
09:15:05 the rule ended: Main entrance is lock
  webhook access.temporary_unlock.end at Main entrance
unlock during the lockdown: CODE_OPERATION_FORBIDDEN
emergency now: lockdown false, evacuation false
  webhook access.device.emergency_status: lockdown true
  webhook access.device.emergency_status: lockdown false
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
