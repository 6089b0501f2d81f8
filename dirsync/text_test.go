package dirsync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// TestPlanWriteText: a sync plan prints as access plan prints a site plan
// (the leaver as a deactivation with the status change), then the
// leaver's credentials to unassign by type, a PIN by its type only.
func TestPlanWriteText(t *testing.T) {
	_, c, _ := console(t)
	snap := people()
	snap.People[1].Active = false
	p, err := dirsync.MakePlan(context.Background(), c, snap, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := p.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	var site strings.Builder
	if err := p.Site.WriteText(&site); err != nil {
		t.Fatal(err)
	}
	want := site.String() + "\ncredentials (revoke):\n  - E2 Ben Hall: nfc_card 100042, pin_code, touch_pass TP-7, license_plate AB-123\n\n4 credentials of 1 leavers to unassign.\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	if !strings.Contains(site.String(), "users (prune):\n  - E2 Ben Hall (deactivate)\n      status: \"ACTIVE\" -> \"DEACTIVATED\"\n") ||
		strings.Contains(b.String(), "493817") {
		t.Errorf("site's text:\n%s", site.String())
	}
}
