package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the example in both modes: direct, and through a UniFi OS
// console's proxy (the token as an X-API-KEY). The pages and the
// requests they take are the same.
func TestRun(t *testing.T) {
	t.Parallel()
	for _, mode := range []access.Mode{access.ModeDirect, access.ModeProxy} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			runIn(t, mode)
		})
	}
}

func runIn(t *testing.T, mode access.Mode) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	var out strings.Builder
	if err := run(context.Background(), srv, srv.ClientFor(mode), &out); err != nil {
		t.Fatal(err)
	}
	want := `page 2 of VISITED: 10 visitors (page_num 2, page_size 10, total 42)
all visitors: 250, in 7 requests of up to 40
  ACTIVE      41
  CANCELLED   42
  NO_VISIT    41
  UPCOMING    42
  VISITED     42
  VISITING    42
  found Kamala Adeyemi
  found Priya Adeyemi
  found Avery Eriksen
  found Amara Schmidt
  found Avery Varga
stopped after 5 visitors and 2 requests
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if got, ok := srv.ModeUsed(); !ok || got != mode {
		direct, proxy := srv.RequestsByMode()
		t.Errorf("%d requests direct, %d through the proxy: want every one in %s mode", direct, proxy, mode)
	}
}
