package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the sync in both modes: direct, and through a UniFi OS
// console's proxy (the token as an X-API-KEY).
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
	if err := run(context.Background(), srv.ClientFor(mode), strings.NewReader(hrExport), &out); err != nil {
		t.Fatal(err)
	}
	srv.CheckModeUsed(t, mode)
	want := `pass 1: 6 to create, 0 to change, 294 not in the document (kept: only pruning removes them)
  done: create user_group Engineering
  done: create user_group Facilities
  done: create user_group Night shift
  done: create user HR-1906
  done: create user HR-1912
  done: create user HR-1914
pass 2: 0 to create, 0 to change, 294 not in the document (kept: only pruning removes them)
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if n := len(srv.Users()); n != accesstest.DemoUserCount+3 {
		t.Errorf("%d users, want %d", n, accesstest.DemoUserCount+3)
	}
}
