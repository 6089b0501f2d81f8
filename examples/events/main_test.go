package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestRunOnTheFake(t *testing.T) {
	t.Setenv("ACCESS_URL", "")
	t.Setenv("ACCESS_TOKEN", "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, &out); err != nil {
		t.Fatal(err)
	}
	// Call ids are random: the two doorbell lines must name the same one.
	calls := regexp.MustCompile(`call ([0-9a-f]{8})`).FindAllStringSubmatch(out.String(), -1)
	if len(calls) != 2 || calls[0][1] != calls[1][1] {
		t.Fatalf("doorbell call ids %v in:\n%s", calls, out.String())
	}
	got := strings.ReplaceAll(out.String(), calls[0][1], "CALLID")
	want := `Watching the embedded fake controller (set ACCESS_URL and ACCESS_TOKEN for a console).
doorbell: UA Intercom Main rings at Main entrance (call CALLID)
doorbell: call CALLID cancelled by the visitor
unlocked remotely: Main entrance
  who and how: Front desk (open_api) opened Main entrance, Access Granted (Remote)
emergency: lockdown true, evacuation false
emergency: lockdown false, evacuation false
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
}
