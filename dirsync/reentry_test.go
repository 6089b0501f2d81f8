package dirsync_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// TestReentryAfterRevocationFlagged: a leaver deactivated through
// Reconcile (credentials kept) whose card a reader lets in from its
// offline cache is flagged in the evidence log, once, across a reopen,
// and listed by Summarize and the report; an active person's opening is
// not.
func TestReentryAfterRevocationFlagged(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	probe, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-77") // unknown: gives the card's token
	if err != nil || probe.Granted {
		t.Fatal(err, probe)
	}
	rev := srv.AddUser(access.User{FirstName: "Rev", LastName: "Oked", EmployeeNumber: "E9", UserEmail: "rev@example.com",
		NFCCards: []access.NFCCard{{ID: "CARD-77", Token: probe.Token}}})
	stay := srv.AddUser(access.User{FirstName: "Stay", LastName: "Er", EmployeeNumber: "E8", UserEmail: "stay@example.com"})
	srv.AddUserGroup("", "Synced", "", rev.ID, stay.ID)

	snap := &dirsync.Snapshot{Source: "corp", Complete: true, Finished: srv.Now(), People: []dirsync.Person{
		{Key: "E8", FirstName: "Stay", LastName: "Er", Email: "stay@example.com", Active: true},
		{Key: "E9", FirstName: "Rev", LastName: "Oked", Email: "rev@example.com", Active: false},
	}}
	log, path := openLog(t)
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{UserGroup: "Synced"}, KeepCredentials: true, MaxDeactivate: -1, MaxDeactivateShare: -1}
	if _, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: srv.Now}); err != nil || rep.Deactivated != 1 {
		t.Fatal(err, rep)
	}
	if st, n := held(t, srv, rev.ID); st != access.UserStatusDeactivated || n != 1 {
		t.Fatalf("E9 %s holding %d credentials; want DEACTIVATED, 1", st, n)
	}
	// Nothing to flag yet.
	if recs, err := dirsync.CheckReentries(ctx, c, log, time.Time{}); err != nil || len(recs) != 0 {
		t.Fatalf("before any opening: %v, %+v", err, recs)
	}

	srv.Advance(2 * time.Second)
	res, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-77")
	if err != nil || !res.Granted || res.HolderID != rev.ID {
		t.Fatalf("the reader's cache did not let the card in: %v %+v", err, res)
	}
	if _, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil); err != nil { // an API unlock: no user's opening
		t.Fatal(err)
	}
	door, _ := srv.Door(accesstest.DemoDoorID)

	recs, err := dirsync.CheckReentries(ctx, c, log, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("flagged %+v; want E9 once", recs)
	}
	r := recs[0]
	if r.Action != dirsync.ActionReentry || r.Status != "flagged" || r.Key != "E9" || r.Name != "Rev Oked" || r.UserID != rev.ID ||
		r.Source != "corp" || r.Door != door.Name || r.Via != "NFC" || r.Revoked == nil || r.Opened == nil || !r.Opened.After(*r.Revoked) {
		t.Errorf("flag record %+v", r)
	}
	// Given the same entries again, and after a reopen: not flagged twice.
	if again, err := dirsync.CheckReentries(ctx, c, log, time.Time{}); err != nil || len(again) != 0 {
		t.Errorf("second check: %v, %+v", err, again)
	}
	log.Close()
	log2, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	defer log2.Close()
	if again, err := dirsync.CheckReentries(ctx, c, log2, time.Time{}); err != nil || len(again) != 0 {
		t.Errorf("check after a reopen: %v, %+v", err, again)
	}

	ev, err := dirsync.ReadEvidenceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := dirsync.Summarize(ev.Records, time.Time{}, 5)
	if s.Leavers != 1 || s.Failed != 0 || len(s.Reentries) != 1 || s.Reentries[0].Key != "E9" || s.Reentries[0].Door != door.Name {
		t.Errorf("summary %+v", s)
	}
	var b bytes.Buffer
	if err := dirsync.WriteReport(&b, &s, dirsync.ReportText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Re-entries after revocation:  1") || !strings.Contains(b.String(), "Rev Oked  E9   corp") {
		t.Errorf("report:\n%s", b.String())
	}
}

// logEntry is a system-log entry of a door opening for user id at t.
func logEntry(id string, t time.Time, result, message string) access.SystemLog {
	return access.SystemLog{ID: "log-" + id, Source: access.SystemLogSource{
		Actor:          access.SystemLogActor{ID: id, Type: "user", DisplayName: "Someone"},
		Event:          access.SystemLogEvent{Type: string(access.EventDoorUnlock), Result: result, DisplayMessage: message, Published: access.UnixMilliOf(t)},
		Authentication: access.SystemLogAuthentication{CredentialProvider: "PIN_CODE"},
		Target:         []access.SystemLogTarget{{Type: "door", ID: "door-1", DisplayName: "Back door"}},
	}}
}

// TestFlagReentriesOnlyAfterTheAcknowledgement: an opening at or before
// the deactivation's acknowledgement, a refusal, another user's opening
// and one after a reactivation are not flagged; one after it is.
func TestFlagReentriesOnlyAfterTheAcknowledgement(t *testing.T) {
	log, _ := openLog(t)
	for _, r := range []dirsync.Record{
		{Source: "corp", Key: "E2", Name: "Ben Hall", UserID: "u2", Action: dirsync.ActionDeactivate, Status: "done", Acknowledged: ack(t0)},
		{Source: "corp", Key: "E3", Name: "Chloe Martin", UserID: "u3", Action: dirsync.ActionDeactivate, Status: "done", Acknowledged: ack(t0)},
		{Source: "corp", Key: "E3", Name: "Chloe Martin", Action: dirsync.ActionReactivate, Status: "done", Acknowledged: ack(t0.Add(time.Minute))},
		{Source: "corp", Key: "E4", UserID: "u4", Action: dirsync.ActionDeactivate, Status: "failed", Observed: t0},
	} {
		if err := log.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	if got := log.RevokedSince(); !got.Equal(t0) {
		t.Errorf("RevokedSince %v; want %v", got, t0)
	}
	entries := []access.SystemLog{
		logEntry("u2", t0.Add(-time.Second), "ACCESS", "Access Granted (PIN_CODE)"), // before
		logEntry("u2", t0, "ACCESS", "Access Granted (PIN_CODE)"),                   // at the acknowledgement
		logEntry("u2", t0.Add(time.Second), "BLOCKED", "Access Denied (PIN_CODE)"),  // refused
		logEntry("u1", t0.Add(time.Second), "ACCESS", "Access Granted (PIN_CODE)"),  // not a leaver
		logEntry("u3", t0.Add(2*time.Minute), "ACCESS", "Access Granted"),           // reactivated
		logEntry("u4", t0.Add(time.Second), "ACCESS", "Access Granted"),             // deactivation failed
		logEntry("u2", t0.Add(90*time.Second), "ACCESS", "Access Granted (PIN_CODE)"),
	}
	recs, err := log.FlagReentries(entries, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Key != "E2" || !recs[0].Opened.Equal(t0.Add(90*time.Second)) || recs[0].Door != "Back door" ||
		recs[0].Via != "PIN_CODE" || !recs[0].Observed.Equal(t0.Add(time.Hour)) {
		t.Errorf("flagged %+v; want E2 at t0+90s", recs)
	}
}

// TestRunnerFlagsReentries: with CheckReentries, the run after a reader
// let a leaver in from its cache flags them; the next run does not flag
// them again. Without an evidence log the option is refused.
func TestRunnerFlagsReentries(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	probe, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-78")
	if err != nil {
		t.Fatal(err)
	}
	rev := srv.AddUser(access.User{FirstName: "Rev", LastName: "Oked", EmployeeNumber: "E9", UserEmail: "rev@example.com",
		NFCCards: []access.NFCCard{{ID: "CARD-78", Token: probe.Token}}})
	stay := srv.AddUser(access.User{FirstName: "Stay", LastName: "Er", EmployeeNumber: "E8", UserEmail: "stay@example.com"})
	srv.AddUserGroup("", "Synced", "", rev.ID, stay.ID)
	src := &fakeSource{snap: &dirsync.Snapshot{Source: "corp", Complete: true, Finished: srv.Now(), People: []dirsync.Person{
		{Key: "E8", FirstName: "Stay", LastName: "Er", Email: "stay@example.com", Active: true},
		{Key: "E9", FirstName: "Rev", LastName: "Oked", Email: "rev@example.com", Active: false},
	}}}
	log, _ := openLog(t)
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{UserGroup: "Synced"}, KeepCredentials: true}
	if _, err := dirsync.NewRunner(c, dirsync.RunnerOptions{Sources: []dirsync.RunnerSource{{Source: src}}, CheckReentries: true}); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("CheckReentries without a log: %v", err)
	}
	ticks := make(chan time.Time)
	results := make(chan dirsync.RunResult, 4)
	r, err := dirsync.NewRunner(c, dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: src, Options: opts}}, Ticks: ticks, CheckReentries: true,
		Apply: &dirsync.ApplyOptions{Evidence: log, Now: srv.Now},
		OnRun: func(res dirsync.RunResult) { results <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() { cancel(); <-done }()

	if res := next(t, results); res.Err != nil || res.Report == nil || res.Report.Deactivated != 1 || len(res.Reentries) != 0 || res.ReentryErr != nil {
		t.Fatalf("start run: %+v", res)
	}
	srv.Advance(2 * time.Second)
	if res, err := srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-78"); err != nil || !res.Granted {
		t.Fatal(err, res)
	}
	ticks <- time.Now()
	res := next(t, results)
	if res.Err != nil || res.ReentryErr != nil || len(res.Reentries) != 1 || res.Reentries[0].Key != "E9" {
		t.Fatalf("run after the opening: %+v", res)
	}
	ticks <- time.Now()
	if res := next(t, results); res.ReentryErr != nil || len(res.Reentries) != 0 {
		t.Errorf("flagged again: %+v", res.Reentries)
	}
}
