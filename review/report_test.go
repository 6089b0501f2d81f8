package review_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// The report's fixture: a console in Europe/Zurich reviewed at
// Wednesday 2026-12-02 10:00, with a look-back of 30 days.
//
//   - Main entrance: Staff (office hours) and IT (always).
//   - Server room: IT.
//   - Roof hatch: no policy (door_nobody_can_open).
//   - Lab: only the policy Orphan, which nobody holds (unused_policy),
//     and the deactivated Carl's Lab policy (nobody ACTIVE holds it).
//
// Ada (ACTIVE, Staff and IT, an NFC card and a PIN) used the main
// entrance by NFC and the server room by PIN in the look-back; Bob
// (ACTIVE, Staff) did not (stale), though an older use and a denied one
// are in the log, but he used the Lab, which he is not given (so the
// person is not stale, the row is); Carl is DEACTIVATED with a card and the Labs policy
// (inactive_with_credentials); Dora is ACTIVE with IT and in no
// directory; Vic is a visitor whose visit ended on 1 December, still
// holding a PIN (visitor_past_end, inactive_with_credentials); Val is a
// visitor at the main entrance today.
const (
	fxMain, fxServer, fxRoof, fxLab = "door-main", "door-server", "door-roof", "door-lab"
	fxAda, fxBob, fxCarl, fxDora    = "u-ada", "u-bob", "u-carl", "u-dora"
	fxVic, fxVal                    = "v-vic", "v-val"
)

func reportFixture(t testing.TB) (*accesstest.Server, time.Time, *time.Location) {
	t.Helper()
	loc := zurich(t)
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, loc)
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return at }))
	floor := srv.AddFloor("f-ground", "Ground floor")
	for _, d := range []access.Door{{ID: fxMain, Name: "Main entrance"}, {ID: fxServer, Name: "Server room"},
		{ID: fxRoof, Name: "Roof hatch"}, {ID: fxLab, Name: "Lab"}} {
		d.FloorID = floor
		srv.AddDoor(d)
	}
	all := []access.TimeRange{{StartTime: "00:00:00", EndTime: "23:59:59"}}
	srv.AddSchedule(access.Schedule{ID: "s-office", Name: "Office hours", WeekSchedule: weekdays("07:30:00", "18:30:59")})
	srv.AddSchedule(access.Schedule{ID: "s-always", Name: "Always", WeekSchedule: week(map[time.Weekday][]access.TimeRange{
		time.Sunday: all, time.Monday: all, time.Tuesday: all, time.Wednesday: all, time.Thursday: all, time.Friday: all, time.Saturday: all})})
	door := func(id string) access.Resource { return access.Resource{ID: id, Type: access.ResourceDoor} }
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p-staff", Name: "Staff", ScheduleID: "s-office", Resources: []access.Resource{door(fxMain)}})
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p-it", Name: "IT", ScheduleID: "s-always", Resources: []access.Resource{door(fxMain), door(fxServer)}})
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p-orphan", Name: "Orphan", ScheduleID: "s-always", Resources: []access.Resource{door(fxLab)}})
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p-lab", Name: "Labs", ScheduleID: "s-office", Resources: []access.Resource{door(fxLab)}})
	srv.AddUser(access.User{ID: fxAda, FirstName: "Ada", LastName: "Lovelace", FullName: "Ada Lovelace", EmployeeNumber: "E1",
		UserEmail: "ada@example.com", Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-staff", "p-it"},
		NFCCards: []access.NFCCard{{ID: "100", Token: "tok-100"}}, PINCode: &access.PINCode{Token: "pin-ada"}})
	srv.AddUser(access.User{ID: fxBob, FirstName: "Bob", LastName: "Babbage", FullName: "Bob Babbage", EmployeeNumber: "E2",
		Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-staff"}})
	srv.AddUser(access.User{ID: fxCarl, FirstName: "Carl", LastName: "Gauss", FullName: "Carl Gauss", EmployeeNumber: "E3",
		Status: access.UserStatusDeactivated, AccessPolicyIDs: []string{"p-lab"}, NFCCards: []access.NFCCard{{ID: "300", Token: "tok-300"}}})
	srv.AddUser(access.User{ID: fxDora, FirstName: "Dora", LastName: "Diaz", FullName: "Dora Diaz", UserEmail: "dora@example.com",
		Status: access.UserStatusActive, AccessPolicyIDs: []string{"p-it"}})
	srv.AddVisitor(access.Visitor{ID: fxVic, FirstName: "Vic", LastName: "Visitor", Status: "VISITED",
		StartTime: access.UnixTime(time.Date(2026, 12, 1, 9, 0, 0, 0, loc).Unix()), EndTime: access.UnixTime(time.Date(2026, 12, 1, 17, 0, 0, 0, loc).Unix()),
		Resources: []access.Resource{door(fxMain)}, PINCode: &access.PINCode{Token: "pin-vic"}})
	srv.AddVisitor(access.Visitor{ID: fxVal, FirstName: "Val", LastName: "Guest", Status: "VISITING",
		StartTime: access.UnixTime(time.Date(2026, 12, 2, 9, 0, 0, 0, loc).Unix()), EndTime: access.UnixTime(time.Date(2026, 12, 2, 17, 0, 0, 0, loc).Unix()),
		Resources: []access.Resource{door(fxMain)}})
	entry := func(id, actor, doorID, result, cred string, t time.Time) accesstest.SystemLogEntry {
		return accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings, SystemLog: access.SystemLog{ID: id, Source: access.SystemLogSource{
			Actor:          access.SystemLogActor{ID: actor, Type: "user"},
			Event:          access.SystemLogEvent{Type: "access.door.unlock", Result: result, Published: access.UnixMilliOf(t)},
			Authentication: access.SystemLogAuthentication{CredentialProvider: cred},
			Target:         []access.SystemLogTarget{{Type: "door", ID: doorID}}}}}
	}
	srv.AddSystemLog(
		entry("l1", fxAda, fxMain, "ACCESS", "NFC", time.Date(2026, 11, 20, 8, 0, 0, 0, loc)),
		entry("l2", fxAda, fxMain, "ACCESS", "MOBILE_TAP", time.Date(2026, 11, 10, 8, 0, 0, 0, loc)), // older: not the last
		entry("l3", fxAda, fxServer, "ACCESS", "PIN_CODE", time.Date(2026, 12, 1, 23, 30, 0, 0, loc)),
		entry("l4", fxBob, fxMain, "BLOCKED", "NFC", time.Date(2026, 11, 25, 8, 0, 0, 0, loc)), // denied: no use
		entry("l5", fxBob, fxMain, "ACCESS", "NFC", time.Date(2026, 10, 1, 8, 0, 0, 0, loc)),   // before the look-back
		entry("l6", fxBob, fxLab, "ACCESS", "NFC", time.Date(2026, 11, 28, 8, 0, 0, 0, loc)),   // a door his access does not cover
	)
	return srv, at, loc
}

func buildFixture(t testing.TB, dir []string) *review.Report {
	t.Helper()
	srv, at, loc := reportFixture(t)
	ctx := context.Background()
	st, err := review.Load(ctx, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	e, err := review.New(st, loc)
	if err != nil {
		t.Fatal(err)
	}
	r, err := review.NewReport(ctx, srv.Client(), st, e, review.Options{Console: "hq", At: at, LookBack: 30 * 24 * time.Hour, Directory: dir})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReportRows checks every row of the fixture's report, by door, with
// its policies, window, decision at the moment, credentials, last use and
// flags, and the people's, doors' and policies' flags.
func TestReportRows(t *testing.T) {
	r := buildFixture(t, []string{"E1", "e2", "E3", "nobody@example.com"})
	if r.TimeZone != "Europe/Zurich" || r.Console != "hq" || !r.DirectoryChecked || r.LogEntries != 5 {
		t.Errorf("report head: zone %q, console %q, directory %v, %d entries; want Europe/Zurich, hq, true, 5 (one is before the look-back)",
			r.TimeZone, r.Console, r.DirectoryChecked, r.LogEntries)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "mobile") || !strings.Contains(r.Notes[0], "face") {
		t.Errorf("notes %q: want the note on mobile and face credentials", r.Notes)
	}
	type row struct {
		door, person, policies, window string
		open                           bool
		reason, creds, last, flags     string
	}
	var got []row
	for _, a := range r.Rows(review.ByDoor) {
		last := ""
		if a.LastUse != nil {
			last = a.LastUse.At.Format("2006-01-02 15:04 ") + a.LastUse.Credential
		}
		got = append(got, row{a.Door, a.Person, strings.Join(a.Policies, ","), a.Window, a.Open, a.Reason,
			map[bool]string{true: a.Credentials.String(), false: ""}[a.PersonID != ""], last, strings.Join(a.Flags, " ")})
	}
	want := []row{
		{"Lab", "Carl Gauss", "Labs", "Mon-Fri 07:30-18:30", false, "status DEACTIVATED", "NFC card", "", "inactive_with_credentials"},
		{"Main entrance", "Ada Lovelace", "Staff,IT", "always", true, "", "NFC card, PIN", "2026-11-20 08:00 NFC", ""},
		{"Main entrance", "Bob Babbage", "Staff", "Mon-Fri 07:30-18:30", true, "", "none", "", "stale"},
		{"Main entrance", "Dora Diaz", "IT", "always", true, "", "none", "", "stale not_in_directory"},
		{"Main entrance", "Val Guest", "", "always, visit 2026-12-02 09:00 to 2026-12-02 17:00", true, "", "none", "", ""},
		{"Main entrance", "Vic Visitor", "", "always, visit 2026-12-01 09:00 to 2026-12-01 17:00", false, "after the visit", "PIN", "",
			"inactive_with_credentials visitor_past_end"},
		{"Roof hatch", "", "", "", false, "", "", "", "door_nobody_can_open"},
		{"Server room", "Ada Lovelace", "IT", "always", true, "", "NFC card, PIN", "2026-12-01 23:30 PIN_CODE", ""},
		{"Server room", "Dora Diaz", "IT", "always", true, "", "none", "", "stale not_in_directory"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}

	flags := map[string]string{}
	for _, p := range r.People {
		flags[p.Name] = strings.Join(p.Flags, " ")
	}
	for _, d := range r.Doors {
		flags[d.Name] = strings.Join(d.Flags, " ")
	}
	for _, p := range r.Policies {
		flags["policy "+p.Name] = strings.Join(p.Flags, " ")
	}
	wantFlags := map[string]string{
		"Ada Lovelace": "", "Bob Babbage": "", "Carl Gauss": "inactive_with_credentials", "Dora Diaz": "stale not_in_directory",
		"Vic Visitor": "inactive_with_credentials visitor_past_end", "Val Guest": "",
		"Main entrance": "", "Server room": "", "Roof hatch": "door_nobody_can_open",
		// The Lab is covered by Carl's policy only: he is deactivated.
		"Lab":          "door_nobody_can_open",
		"policy Staff": "", "policy IT": "", "policy Orphan": "unused_policy", "policy Labs": "unused_policy",
	}
	for k, w := range wantFlags {
		if flags[k] != w {
			t.Errorf("%s: flags %q, want %q", k, flags[k], w)
		}
	}
	wantCounts := review.FlagCount{"stale": 1, "inactive_with_credentials": 2, "visitor_past_end": 1, "unused_policy": 2,
		"door_nobody_can_open": 2, "not_in_directory": 1}
	for _, f := range review.Flags() {
		if r.Counts[f] != wantCounts[f] {
			t.Errorf("count of %s: %d, want %d", f, r.Counts[f], wantCounts[f])
		}
	}
	for _, p := range r.People {
		if p.Name == "Ada Lovelace" && (p.LastUse == nil || p.LastUse.Door != "Server room" || p.Doors != 2 || p.Open != 2) {
			t.Errorf("Ada: %+v; want last use at the server room, 2 doors, 2 open", p)
		}
		if p.Name == "Bob Babbage" && (p.LastUse == nil || p.LastUse.Door != "Lab" || p.LastUse.Credential != "NFC") {
			t.Errorf("Bob's last use: %+v; want the Lab by NFC", p.LastUse)
		}
	}
	for _, d := range r.Doors {
		if d.Name == "Lab" && (d.LastUse == nil || !d.LastUse.At.Equal(time.Date(2026, 11, 28, 8, 0, 0, 0, r.At.Location()))) {
			t.Errorf("the Lab's last use: %+v; want Bob's of 28 November", d.LastUse)
		}
	}
}

// TestReportAtNight: at 03:00 on a Sunday, Staff's office hours keep Bob
// out; IT opens at any hour.
func TestReportAtNight(t *testing.T) {
	srv, _, loc := reportFixture(t)
	ctx := context.Background()
	st, _ := review.Load(ctx, srv.Client())
	e, _ := review.New(st, loc)
	r, err := review.NewReport(ctx, srv.Client(), st, e, review.Options{At: time.Date(2026, 12, 6, 3, 0, 0, 0, loc)})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range r.Access {
		switch a.Person {
		case "Bob Babbage":
			if a.Open || a.Reason != "outside Office hours" {
				t.Errorf("Bob on Sunday 03:00: open %v (%q), want shut, outside Office hours", a.Open, a.Reason)
			}
		case "Dora Diaz":
			if !a.Open || a.Policy != "IT" {
				t.Errorf("Dora on Sunday 03:00: open %v by %q, want open by IT", a.Open, a.Policy)
			}
		}
	}
	if r.DirectoryChecked || r.Counts[review.FlagNotInDirectory] != 0 {
		t.Errorf("no directory given, yet checked: %v, %d", r.DirectoryChecked, r.Counts[review.FlagNotInDirectory])
	}
	// The default look-back is 90 days: Bob's use of 1 October counts.
	for _, p := range r.People {
		if p.Name == "Bob Babbage" && (p.LastUse == nil || slices.Contains(p.Flags, review.FlagStale)) {
			t.Errorf("Bob with the default look-back: last use %v, flags %q; want 2026-10-01, not stale", p.LastUse, p.Flags)
		}
	}
}

// TestReportReadsTheLogOnce: the system log is paged once for the whole
// report (never per person, one pass of pages), over the look-back, topic door_openings.
func TestReportReadsTheLogOnce(t *testing.T) {
	srv, at, loc := reportFixture(t)
	ctx := context.Background()
	st, _ := review.Load(ctx, srv.Client())
	e, _ := review.New(st, loc)
	srv.ResetRequests()
	if _, err := review.NewReport(ctx, srv.Client(), st, e, review.Options{At: at}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.RequestsFor(accesstest.OpSystemLogsList)
	if len(reqs) == 0 || len(reqs) != len(srv.Requests()) {
		t.Fatalf("%d system-log requests of %d in all, want only system-log pages", len(reqs), len(srv.Requests()))
	}
	// One pass: pages 1, 2, … each once (the pager asks for the page
	// after a short first one, which cannot be told from a capped one).
	for i, r := range reqs {
		if got := r.Query.Get("page_num"); got != strconv.Itoa(i+1) {
			t.Errorf("request %d asks for page %q, want %d", i, got, i+1)
		}
	}
	body := string(reqs[0].Body)
	for _, w := range []string{`"topic":"door_openings"`, `"since":` + strconv.FormatInt(at.Add(-review.DefaultLookBack).Unix(), 10), `"until":` + strconv.FormatInt(at.Unix(), 10)} {
		if !strings.Contains(body, w) {
			t.Errorf("request body %s lacks %s", body, w)
		}
	}
}

// TestReportCSV: the door view's CSV has the header, the console and the
// zone in every row, and guards a cell a spreadsheet would compute.
func TestReportCSV(t *testing.T) {
	r := buildFixture(t, nil)
	r.Access[0].Person = "=HYPERLINK(\"x\")"
	var buf bytes.Buffer
	if err := review.WriteCSV(&buf, review.ByDoor, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(review.CSVColumns, ",") {
		t.Errorf("header %q", recs[0])
	}
	if len(recs) != 10 {
		t.Errorf("%d records, want the header and 9 rows", len(recs))
	}
	for _, rec := range recs[1:] {
		if rec[0] != "hq" || rec[1] != "Europe/Zurich" || rec[2] != "2026-12-02T10:00:00+01:00" {
			t.Errorf("row %q: want console hq, zone Europe/Zurich, at 2026-12-02T10:00:00+01:00", rec)
		}
	}
	if got := recs[1][5]; got != `'=HYPERLINK("x")` {
		t.Errorf("a formula cell is written %q, want it guarded", got)
	}
	buf.Reset()
	if err := review.WriteCSV(&buf, review.ByPolicy, r); err != nil {
		t.Fatal(err)
	}
	if want := "hq,Orphan,p-orphan,Always,Lab,0,0,unused_policy\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("policy CSV:\n%s\nlacks %q", buf.String(), want)
	}
}

// TestReportJSONRoundTrip: the JSON form has its format_version and
// reads back equal; another major version is refused.
func TestReportJSONRoundTrip(t *testing.T) {
	r := buildFixture(t, nil)
	var buf bytes.Buffer
	if err := review.WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"format_version": "1"`) || !strings.Contains(buf.String(), `"time_zone": "Europe/Zurich"`) {
		t.Errorf("JSON lacks format_version or time_zone:\n%.400s", buf.String())
	}
	doc, err := review.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Reports) != 1 || len(doc.Reports[0].Access) != len(r.Access) || len(review.Diff(&review.Document{Reports: []*review.Report{r}}, doc)) != 0 {
		t.Errorf("the document does not read back as written")
	}
	if _, err := review.ReadJSON(strings.NewReader(`{"format_version":"2","reports":[]}`)); err == nil {
		t.Errorf("format_version 2 read without error")
	}
	if _, err := review.ReadJSON(strings.NewReader(`{"reports":[]}`)); err == nil {
		t.Errorf("a document without format_version read without error")
	}
}
