package review_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/review"
)

// roundTrip writes a report as JSON and reads it back, as the diff of two
// saved reviews does.
func roundTrip(t *testing.T, r *review.Report) *review.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := review.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	doc, err := review.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDiff compares the fixture's review with a later one in which Bob
// was granted the server room, Dora lost the server room, Ada's main
// entrance went from always to office hours with Saturday mornings,
// Vic's visit was extended and Carl got a second card: each change is
// reported once, by person, door and kind; equal reviews have none.
func TestDiff(t *testing.T) {
	old := roundTrip(t, buildFixture(t, nil))
	if d := review.Diff(old, roundTrip(t, buildFixture(t, nil))); len(d) != 0 {
		t.Fatalf("two reviews of the same console differ: %v", d)
	}
	cur := roundTrip(t, buildFixture(t, nil))
	r := cur.Reports[0]
	var keep []review.Access
	for _, a := range r.Access {
		switch {
		case a.PersonID == fxDora && a.DoorID == fxServer:
			continue // revoked
		case a.PersonID == fxAda && a.DoorID == fxMain:
			a.Window = "Mon-Fri 07:30-18:30; Sat 08:00-12:00"
			a.Week = map[string][]string{"mon": {"07:30:00-18:30:59"}, "tue": {"07:30:00-18:30:59"}, "wed": {"07:30:00-18:30:59"},
				"thu": {"07:30:00-18:30:59"}, "fri": {"07:30:00-18:30:59"}, "sat": {"08:00:00-12:00:59"}}
		case a.PersonID == fxBob && a.DoorID == fxMain:
			a.Window = "Mon-Fri 07:00-18:30"
			a.Week = map[string][]string{"mon": {"07:00:00-18:30:59"}, "tue": {"07:00:00-18:30:59"}, "wed": {"07:00:00-18:30:59"},
				"thu": {"07:00:00-18:30:59"}, "fri": {"07:00:00-18:30:59"}}
		case a.PersonID == fxVic:
			end := a.VisitEnd.Add(24 * time.Hour)
			a.VisitEnd = &end
			a.Window = "always, visit 2026-12-01 09:00 to 2026-12-02 17:00"
		}
		keep = append(keep, a)
	}
	bob := review.Access{DoorID: fxServer, Door: "Server room", PersonID: fxBob, Person: "Bob Babbage", Window: "always",
		Week: map[string][]string{"mon": {"00:00:00-23:59:59"}}}
	r.Access = append(keep, bob)
	for i := range r.People {
		if r.People[i].ID == fxCarl {
			r.People[i].Credentials.NFCCards = 2
		}
	}
	var got []string
	for _, c := range review.Diff(old, cur) {
		got = append(got, c.String())
	}
	want := []string{
		"hq: narrowed: Ada Lovelace at Main entrance (always -> Mon-Fri 07:30-18:30; Sat 08:00-12:00)",
		"hq: widened: Bob Babbage at Main entrance (Mon-Fri 07:30-18:30 -> Mon-Fri 07:00-18:30)",
		"hq: granted: Bob Babbage at Server room (always)",
		"hq: new_credentials: Carl Gauss (NFC card -> 2 NFC cards)",
		"hq: revoked: Dora Diaz at Server room (was always)",
		"hq: widened: Vic Visitor at Main entrance (always, visit 2026-12-01 09:00 to 2026-12-01 17:00 -> always, visit 2026-12-01 09:00 to 2026-12-02 17:00)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
