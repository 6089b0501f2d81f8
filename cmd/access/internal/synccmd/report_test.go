package synccmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/dirsync"
)

// evidenceOf writes a log of leavers with the given latencies (seconds),
// acknowledged at now less a day each, and one leaver 40 days ago.
func evidenceOf(t *testing.T, now time.Time, latencies ...float64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "evidence.jsonl")
	l, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	add := func(key, name string, ack time.Time, lat float64) {
		changed := ack.Add(-time.Duration(lat * float64(time.Second)))
		if err := l.Append(&dirsync.Record{Source: "corp-ad", Key: key, Name: name, Action: dirsync.ActionDeactivate, Status: "done",
			SourceChanged: &changed, Observed: ack, Acknowledged: &ack, LatencySeconds: lat}); err != nil {
			t.Fatal(err)
		}
	}
	for i, lat := range latencies {
		add("E"+string(rune('A'+i)), "Leaver "+string(rune('A'+i)), now.Add(-time.Duration(i+1)*24*time.Hour), lat)
	}
	add("OLD", "Long Gone", now.Add(-40*24*time.Hour), 9999)
	return path
}

// TestReportFormats: the report is dirsync's summary of the records since
// --since in each format; the leaver of 40 days ago is left out of 30d.
func TestReportFormats(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	path := evidenceOf(t, now, 1, 2, 31, 0.5)
	ev, err := dirsync.ReadEvidenceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := dirsync.Summarize(ev.Records, now.AddDate(0, 0, -30), 2)
	for _, format := range dirsync.ReportFormats {
		var want bytes.Buffer
		if err := dirsync.WriteReport(&want, &s, format); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		c := reportCommand(&cmdutil.Factory{IOStreams: cmdutil.IOStreams{Out: &out, ErrOut: &errOut}}, &reportOptions{now: clock})
		args := []string{"--evidence", path, "--since", "30d", "--slowest", "2"}
		if format != dirsync.ReportText {
			args = append(args, "-o", format)
		}
		c.SetArgs(args)
		c.SilenceUsage, c.SilenceErrors = true, true
		if err := c.Execute(); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if out.String() != want.String() {
			t.Errorf("-o %s:\n%s\nwant:\n%s", format, &out, &want)
		}
	}
	if s.Leavers != 4 || s.P50 != time.Second || s.Max != 31*time.Second || len(s.Slowest) != 2 || s.Slowest[0].Name != "Leaver C" {
		t.Errorf("summary %+v", s)
	}
	var out bytes.Buffer
	c := reportCommand(&cmdutil.Factory{IOStreams: cmdutil.IOStreams{Out: &out, ErrOut: &out}}, &reportOptions{now: clock})
	c.SetArgs([]string{"--evidence", path, "--since", "30d", "-o", "json"})
	c.SilenceUsage, c.SilenceErrors = true, true
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	var got dirsync.Summary
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Leavers != 4 || got.P99 != 31*time.Second {
		t.Errorf("json: %v %+v", err, got)
	}
	if !strings.Contains(func() string {
		var b bytes.Buffer
		_ = dirsync.WriteReport(&b, &s, "text")
		return b.String()
	}(), "Leaver C") {
		t.Error("the text report does not name the slowest")
	}
	for _, args := range [][]string{{"--since", "30d"}, {"--evidence", path, "-o", "xml"}, {"--evidence", path, "--since", "yesterday"}, {"--evidence", path, "--config", "x.yaml"}} {
		c := newReportCommand(&cmdutil.Factory{IOStreams: cmdutil.IOStreams{Out: &out, ErrOut: &out}})
		c.SetArgs(args)
		c.SilenceUsage, c.SilenceErrors = true, true
		if err := c.Execute(); exitCode(err) != cmdutil.ExitUsage {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// TestReportFlagsAReentry: a leaver whose card a reader's offline cache
// still honours after the sync deactivated them is flagged by
// --check-reentries, in the log and the report.
func TestReportFlagsAReentry(t *testing.T) {
	srv, rev, cfg := reentrySetup(t)
	if _, errOut, code := run(t, srv, "--config", cfg, "--once", "--apply"); code != 0 {
		t.Fatalf("apply: exit %d: %s", code, errOut)
	}
	if u, _ := srv.User(rev.ID); u.Status != access.UserStatusDeactivated {
		t.Fatalf("Ben is %s", u.Status)
	}
	srv.Advance(2 * time.Second)
	if res, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-77"); err != nil || !res.Granted {
		t.Fatalf("the reader's cache did not let the card in: %v %+v", err, res)
	}
	_, errOut, code := run(t, srv, "report", "--config", cfg, "--since", "30d", "--check-reentries", "-o", "csv")
	if code != 0 || !strings.Contains(errOut, "1 leavers flagged for a door opened after their revocation") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := run(t, srv, "report", "--config", cfg, "--since", "30d", "-o", "csv")
	if code != 0 || !strings.Contains(out, "\nreentry,E2,Ben Hall,okta,") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
}

// TestLongRunningFlagsAReentry: the long-running sync ends each run with
// the check of the door openings: a leaver whose card a reader's offline
// cache still honoured after their revocation is flagged, on stdout and
// in the evidence log.
func TestLongRunningFlagsAReentry(t *testing.T) {
	srv, _, cfg := reentrySetup(t)
	out, errOut := newLines(), newLines()
	hup := make(chan struct{}, 1)
	c := newCommand(factory(srv, out, errOut), &options{hangup: hup})
	c.SetArgs([]string{"--config", cfg})
	c.SilenceUsage, c.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	errOut.await(t, "okta (start): 1 deactivated")
	srv.Advance(2 * time.Second)
	if res, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-77"); err != nil || !res.Granted {
		t.Fatalf("the reader's cache did not let the card in: %v %+v", err, res)
	}
	hup <- struct{}{} // a run now (a reload starts one)
	line := out.await(t, "flagged reentry E2 Ben Hall")
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	door, _ := srv.Door(accesstest.DemoDoorID)
	if !strings.Contains(line, ": "+door.Name+" at ") {
		t.Errorf("line %q does not name the door %s", line, door.Name)
	}
	ev, err := dirsync.ReadEvidenceFile(filepath.Join(filepath.Dir(cfg), "evidence.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if s := dirsync.Summarize(ev.Records, time.Time{}, 1); len(s.Reentries) != 1 || s.Reentries[0].Key != "E2" {
		t.Errorf("summary %+v", s)
	}
}

// reentrySetup is the directory of the reentry tests: Ben Hall (E2), whose
// card CARD-77 a reader's offline cache holds, Ada and Chloe, all three in
// the group Synced; a SCIM store in which only E2 was pushed; and the
// sync's configuration file, whose path it returns with the server and Ben.
func reentrySetup(t *testing.T) (*accesstest.Server, access.User, string) {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithDemoData())
	probe, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-77")
	if err != nil || probe.Granted {
		t.Fatal(err, probe)
	}
	rev := srv.AddUser(access.User{FirstName: "Ben", LastName: "Hall", EmployeeNumber: "E2", UserEmail: "ben@example.com",
		NFCCards: []access.NFCCard{{ID: "CARD-77", Token: probe.Token}}})
	members := []string{rev.ID}
	for _, p := range [][3]string{{"E1", "Ada", "Lovelace"}, {"E3", "Chloe", "Martin"}} {
		members = append(members, srv.AddUser(access.User{FirstName: p[1], LastName: p[2], EmployeeNumber: p[0], UserEmail: strings.ToLower(p[1]) + "@example.com"}).ID)
	}
	srv.AddUserGroup("", "Synced", "", members...)
	dir := t.TempDir()
	pushed(t, filepath.Join(dir, "store.jsonl"), "E2")
	cfg := filepath.Join(dir, "sync.yaml")
	if err := os.WriteFile(cfg, []byte("evidence: evidence.jsonl\nsources:\n  - name: okta\n    scim: {store: store.jsonl, token_env: SCIM_TOKEN}\n    scope: {user_group: Synced}\n    guard: {max_deactivate_share: 100}\n    credentials: keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, rev, cfg
}
