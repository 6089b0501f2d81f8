package main

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRoundTrip runs the round trip in both modes: the endpoint is
// registered and deleted directly, or through a UniFi OS console's proxy
// (the token as an X-API-KEY); the delivery is the same.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		roundTripIn(t, mode)
	})
}

func roundTripIn(t *testing.T, mode access.Mode) {
	fake := accesstest.New(t)
	var out strings.Builder
	if err := roundTrip(context.Background(), fake, fake.ClientFor(mode), &out); err != nil {
		t.Fatal(err)
	}
	// The receiver's port and the endpoint's id vary.
	got := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).ReplaceAllString(out.String(), "RECEIVER")
	got = regexp.MustCompile(`as [0-9a-f-]{36};`).ReplaceAllString(got, "as ID;")
	want := `registered RECEIVER as ID; secret REDACTED
delivery to RECEIVER: HTTP 200
received: access.door.unlock (object 4a98adf6-dbb8-4312-9b8b-593f6eba8c8e) at Door 3855 by Ada Lovelace: Access Granted via NFC
forged delivery: HTTP 401
deleted; 0 endpoint(s) left
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	fake.CheckModeUsed(t, mode)
}

func TestServeNeedsASecret(t *testing.T) {
	t.Parallel()
	if err := serve("127.0.0.1:0", "", ""); err == nil {
		t.Fatal("serve started without a secret")
	}
}
