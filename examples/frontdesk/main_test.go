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
	dir := t.TempDir()
	var out strings.Builder
	if err := run(context.Background(), srv, srv.ClientFor(mode), &out, dir); err != nil {
		t.Fatal(err)
	}
	srv.CheckModeUsed(t, mode)
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
