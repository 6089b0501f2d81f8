package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/access-dev/access"
)

// TestRun runs the walk-through in both modes: direct, and through a
// UniFi OS console's proxy (the token as an X-API-KEY).
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
	srv := newSite()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	var out strings.Builder
	if err := run(context.Background(), srv, srv.ClientFor(mode), &out, dir); err != nil {
		t.Fatal(err)
	}
	if got, ok := srv.ModeUsed(); !ok || got != mode {
		direct, proxy := srv.RequestsByMode()
		t.Errorf("%d requests direct, %d through the proxy: want every one in %s mode", direct, proxy, mode)
	}
	want := `visitor Grace Hopper, UPCOMING from 14:00 to 16:30
PIN with 6 digits assigned
QR code saved as visitor_qr_code.png (image/png)
reader awake: hold the card on it
card 100742 enrolled
card 100742 assigned to Ada Lovelace
visitor Grace CANCELLED
`
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "visitor_qr_code.png"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("the saved QR code is not a PNG: %v", err)
	}
}
