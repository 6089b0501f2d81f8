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
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		runIn(t, mode)
	})
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
	srv.CheckModeUsed(t, mode)
}
