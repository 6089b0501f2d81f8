package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the example in both modes: direct, and through a UniFi OS
// console's proxy.
func TestRun(t *testing.T) {
	t.Parallel()
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		runIn(t, mode)
	})
}

func runIn(t *testing.T, mode access.Mode) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	var out strings.Builder
	if err := run(context.Background(), srv.ClientFor(mode), accesstest.DemoDoorID, &out); err != nil {
		t.Fatal(err)
	}
	want := `group "New starters" holds policy "New starters: main entrance" on schedule "Onboarding office hours"
registered Grace Hopper
assigned a generated 6-digit PIN (the console keeps only its hash: true)
found Grace Hopper (E-1906, ACTIVE)
  policy "New starters: main entrance" (through the group)
delete while active: CODE_OPERATION_FORBIDDEN
deactivated and deleted: true
group "New starters" now has 0 member(s)
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(srv.Users()) != accesstest.DemoUserCount {
		t.Errorf("%d users left, want the demo's %d", len(srv.Users()), accesstest.DemoUserCount)
	}
}
