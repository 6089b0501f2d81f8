package dirsync_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

var (
	t0       = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	observed = t0.Add(30 * time.Second)
)

// clock returns a Now that answers t0+1m, t0+2m, … in turn.
func clock() func() time.Time {
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Minute) }
}

// people is a directory of Ada, Ben and Chloe (all active) as a snapshot.
func people() *dirsync.Snapshot {
	return &dirsync.Snapshot{Source: "corp", Complete: true, Finished: observed, People: []dirsync.Person{
		{Key: "E1", FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Active: true, Groups: []string{"staff"}},
		{Key: "E2", FirstName: "Ben", LastName: "Hall", Email: "ben@example.com", Active: true, Groups: []string{"staff", "night"}},
		{Key: "E3", FirstName: "Chloe", LastName: "Martin", Email: "chloe@example.com", Active: true, Groups: []string{"staff"}},
	}}
}

// console is the fake console of people(), Ben holding a card, a PIN, a
// touch pass and a licence plate; and Gus, a guard with no employee
// number, whom the directory does not know.
func console(t *testing.T) (*accesstest.Server, *access.Client, map[string]string) {
	t.Helper()
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	ids := map[string]string{}
	for _, p := range people().People {
		u := access.User{FirstName: p.FirstName, LastName: p.LastName, EmployeeNumber: p.Key, UserEmail: p.Email}
		if p.Key == "E2" {
			u.NFCCards = []access.NFCCard{{ID: "100042", Token: "tok-100042"}}
		}
		ids[p.Key] = srv.AddUser(u).ID
	}
	ids["gus"] = srv.AddUser(access.User{FirstName: "Gus", LastName: "Guard", UserEmail: "gus@example.com"}).ID
	srv.AddUserGroup("", "Staff", "", ids["E1"], ids["E2"], ids["E3"])
	srv.AddUserGroup("", "Night shift", "", ids["E2"])
	if _, err := c.Users.AssignPINCode(ctx, ids["E2"], "493817"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Users.AssignLicensePlates(ctx, ids["E2"], []string{"AB-123"}); err != nil {
		t.Fatal(err)
	}
	tp := srv.AddTouchPass(access.TouchPass{CardID: "TP-7", Status: access.TouchPassInactive})
	if _, _, err := c.Users.AssignTouchPass(ctx, ids["E2"], tp.ID); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	return srv, c, ids
}

var mapping = map[string]string{"staff": "Staff", "night": "Night shift"}

// writes counts the requests that change something.
func writes(srv *accesstest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

func held(t *testing.T, srv *accesstest.Server, id string) (access.UserStatus, int) {
	t.Helper()
	u, ok := srv.User(id)
	if !ok {
		t.Fatalf("user %s gone", id)
	}
	n := len(u.NFCCards) + len(u.LicensePlates) + len(u.TouchPass)
	if u.PINCode != nil {
		n++
	}
	return u.Status, n
}

func openLog(t *testing.T) (*dirsync.EvidenceLog, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "evidence.jsonl")
	l, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// TestReconcileLeaverDeactivatedThenCredentialsUnassigned: a person the
// directory disables is deactivated first, then each credential is
// unassigned; the evidence log holds exactly the two records; a second
// run makes no write (convergence). Out-of-scope Gus is never touched.
func TestReconcileLeaverDeactivatedThenCredentialsUnassigned(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	snap := people()
	snap.People[1].Active = false
	snap.People[1].Modified = t0
	log, path := openLog(t)
	opts := &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}
	p, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if p.OutOfScope != 1 || rep.Deactivated != 1 || rep.Revoked != 4 || rep.Failed != 0 {
		t.Errorf("out of scope %d, deactivated %d, revoked %d, failed %d; want 1, 1, 4, 0", p.OutOfScope, rep.Deactivated, rep.Revoked, rep.Failed)
	}
	got := writes(srv)
	// The deactivation comes first, then the four unassignments.
	tp := srv.TouchPasses()[0]
	plate := rep.Records[1].Credentials[3].Token
	u := "/api/v1/developer/users/" + ids["E2"]
	want := []string{"PUT " + u, "PUT " + u + "/nfc_cards/delete", "DELETE " + u + "/pin_codes",
		"DELETE " + u + "/touch_passes/" + tp.ID, "DELETE " + u + "/license_plates/" + plate}
	if !slices.Equal(got, want) {
		t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 {
		t.Errorf("Ben: %s holding %d credentials; want DEACTIVATED holding none", st, n)
	}
	if st, _ := held(t, srv, ids["gus"]); st != access.UserStatusActive {
		t.Errorf("Gus (out of scope) is %s", st)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	wantLog := `{"source":"corp","key":"E2","name":"Ben Hall","user_id":"` + ids["E2"] + `","action":"deactivate","fields":["status"],"status":"done","source_changed":"2026-03-02T09:00:00Z","observed":"2026-03-02T09:00:30Z","acknowledged":"2026-03-02T09:01:00Z","latency_seconds":60}
{"source":"corp","key":"E2","name":"Ben Hall","user_id":"` + ids["E2"] + `","action":"revoke_credentials","status":"done","source_changed":"2026-03-02T09:00:00Z","observed":"2026-03-02T09:00:30Z","acknowledged":"2026-03-02T09:02:00Z","latency_seconds":120,"credentials":[{"type":"nfc_card","id":"100042","token":"tok-100042"},{"type":"pin_code"},{"type":"touch_pass","id":"TP-7","token":"` + tp.ID + `"},{"type":"license_plate","id":"AB-123","token":"` + plate + `"}]}
`
	if string(b) != wantLog {
		t.Errorf("evidence log:\n%s\nwant:\n%s", b, wantLog)
	}
	if strings.Contains(string(b), "493817") {
		t.Error("the PIN is in the evidence log")
	}

	srv.ResetRequests()
	p, rep, err = dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if p.Drift() || len(rep.Records) != 0 || len(writes(srv)) != 0 {
		t.Errorf("second run: drift %v, records %v, writes %v", p.Drift(), rep.Records, writes(srv))
	}
}

// TestReconcileRemovedPersonDeactivated: a person the directory no longer
// lists is deactivated too (no --prune needed), latency from the read.
func TestReconcileRemovedPersonDeactivated(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People = snap.People[:2] // Chloe removed
	_, rep, err := dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}, &dirsync.ApplyOptions{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := held(t, srv, ids["E3"]); st != access.UserStatusDeactivated {
		t.Errorf("Chloe is %s", st)
	}
	if len(rep.Records) != 1 || rep.Records[0].Action != dirsync.ActionDeactivate || rep.Records[0].SourceChanged != nil || rep.Records[0].LatencySeconds != 30 {
		t.Errorf("records %+v", rep.Records)
	}
}

// TestReconcileReenableGivesStatusOnly: a re-enabled person gets their
// status back, not their credentials; the record lists those taken, to
// be re-issued, and a later revocation starts afresh.
func TestReconcileReenableGivesStatusOnly(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	log, _ := openLog(t)
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}
	snap := people()
	snap.People[1].Active = false
	if _, _, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	_, rep, err := dirsync.Reconcile(ctx, c, people(), opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusActive || n != 0 {
		t.Errorf("Ben: %s holding %d credentials; want ACTIVE holding none", st, n)
	}
	if w := writes(srv); len(w) != 1 {
		t.Errorf("writes %v; want the status only", w)
	}
	if len(rep.Records) != 1 || rep.Records[0].Action != dirsync.ActionReactivate || rep.Reactivated != 1 {
		t.Fatalf("records %+v", rep.Records)
	}
	var types []string
	for _, cr := range rep.Records[0].Reissue {
		types = append(types, cr.Type+" "+cr.ID)
	}
	if want := []string{"nfc_card 100042", "pin_code ", "touch_pass TP-7", "license_plate AB-123"}; !slices.Equal(types, want) {
		t.Errorf("reissue %q; want %q", types, want)
	}
	if r := log.Revoked("E2"); len(r) != 0 {
		t.Errorf("after the reactivation the log still holds %v as revoked", r)
	}
}

// TestReconcileKeepCredentials: with KeepCredentials the leaver is
// deactivated and keeps what they hold.
func TestReconcileKeepCredentials(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People[1].Active = false
	p, _, err := dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{KeepCredentials: true, Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 4 || len(p.Revoke) != 0 {
		t.Errorf("Ben: %s holding %d credentials, %d revocations planned; want DEACTIVATED holding 4, none", st, n, len(p.Revoke))
	}
}

// TestReconcileDeleteOnlyWithOption: DeleteUsers deletes the leaver.
func TestReconcileDeleteOnlyWithOption(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People[1].Active = false
	_, rep, err := dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{DeleteUsers: true, Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := srv.User(ids["E2"]); ok || len(rep.Records) != 1 || rep.Records[0].Action != dirsync.ActionDelete || len(rep.Records[0].Credentials) != 4 {
		t.Errorf("Ben still there (%v) or records %+v; want one delete listing his 4 credentials", ok, rep.Records)
	}
}

// TestReconcileGuard: more leavers than the guard allows stops the run
// with site's guard error, nothing written; raising it lets it through.
func TestReconcileGuard(t *testing.T) {
	srv, c, _ := console(t)
	snap := people()
	snap.People[1].Active = false
	snap.People[2].Active = false
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: 1}
	p, rep, err := dirsync.Reconcile(context.Background(), c, snap, opts, nil)
	var ge *site.GuardError
	if !errors.As(err, &ge) || !errors.Is(err, site.ErrGuard) || ge.Deactivate != 2 || ge.Of != 3 {
		t.Fatalf("err = %v; want a *site.GuardError for 2 of 3", err)
	}
	if p == nil || p.Site.Summary.Deactivate != 2 || rep != nil || len(writes(srv)) != 0 {
		t.Errorf("plan %v, report %v, writes %v", p, rep, writes(srv))
	}
	if _, err := p.Apply(context.Background(), c, nil); !errors.Is(err, site.ErrGuard) {
		t.Errorf("Apply of a guarded plan: %v", err)
	}
	opts.MaxDeactivate, opts.MaxDeactivateShare = 2, -1
	if _, _, err := dirsync.Reconcile(context.Background(), c, snap, opts, nil); err != nil {
		t.Errorf("guard raised: %v", err)
	}
}

// TestReconcileScopeLeavesOthersAlone: without a scope Gus (whom the
// directory does not know) is a leaver; with one, he is counted and
// never touched.
func TestReconcileScopeLeavesOthersAlone(t *testing.T) {
	_, c, _ := console(t)
	ctx := context.Background()
	p, err := dirsync.MakePlan(ctx, c, people(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Site.Summary.Deactivate != 1 || p.Site.Changes[0].Key != "gus@example.com" || p.OutOfScope != 0 {
		t.Errorf("without scope: %+v", p.Site.Summary)
	}
	p, err = dirsync.MakePlan(ctx, c, people(), &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{UserGroup: "Staff"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Drift() || p.OutOfScope != 1 {
		t.Errorf("with scope: drift %v (%v), out of scope %d", p.Drift(), p.Site.Changes, p.OutOfScope)
	}
}

// TestReconcileGroupMapping: memberships follow the mapping.
func TestReconcileGroupMapping(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People[0].Groups = []string{"staff", "night"}
	snap.People[1].Groups = []string{"staff", "unmapped"}
	if _, _, err := dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{EmployeeNumber: true}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, g := range srv.UserGroups() {
		if g.Name == "Night shift" {
			if m := srv.GroupMembers(g.ID); !slices.Equal(m, []string{ids["E1"]}) {
				t.Errorf("Night shift members %v; want Ada only", m)
			}
		}
	}
}

// TestReconcileRefusesUnusableSnapshot: a missing, incomplete or empty
// snapshot is refused with a *SnapshotError before any request.
func TestReconcileRefusesUnusableSnapshot(t *testing.T) {
	srv, c, _ := console(t)
	full := people()
	for _, tc := range []struct {
		name  string
		snap  *dirsync.Snapshot
		cause error
	}{
		{"nil", nil, dirsync.ErrIncomplete},
		{"incomplete", &dirsync.Snapshot{Source: "corp", People: full.People}, dirsync.ErrIncomplete},
		{"failed read", &dirsync.Snapshot{Source: "corp", Pages: 2, Entries: 2000}, dirsync.ErrIncomplete},
		{"empty", &dirsync.Snapshot{Source: "corp", Complete: true, People: []dirsync.Person{}}, dirsync.ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, rep, err := dirsync.Reconcile(context.Background(), c, tc.snap, &dirsync.ReconcileOptions{MaxDeactivate: -1, MaxDeactivateShare: -1}, nil)
			var se *dirsync.SnapshotError
			if !errors.As(err, &se) || !errors.Is(err, dirsync.ErrUnusableSnapshot) || !errors.Is(err, tc.cause) {
				t.Errorf("err = %v; want a *SnapshotError matching %v", err, tc.cause)
			}
			if p != nil || rep != nil || len(srv.Requests()) != 0 {
				t.Errorf("plan %v, report %v, %d requests", p, rep, len(srv.Requests()))
			}
		})
	}
}

// TestReconcileRevokesLeftoverCredentials: a leaver deactivated earlier
// (a run cut short before the unassignments) has their credentials taken
// by the next run.
func TestReconcileRevokesLeftoverCredentials(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	if _, err := c.Users.Update(ctx, ids["E2"], &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		t.Fatal(err)
	}
	snap := people()
	snap.People[1].Active = false
	_, rep, err := dirsync.Reconcile(ctx, c, snap, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 || rep.Revoked != 4 || len(rep.Records) != 1 {
		t.Errorf("Ben: %s holding %d; revoked %d, records %+v", st, n, rep.Revoked, rep.Records)
	}
}

// TestReconcileFailures: a deactivation the console refuses leaves the
// leaver's credentials alone (never taken from an active user) and is a
// failed record; a credential the console refuses to unassign fails its
// record, the others are still taken, and the next run takes the rest.
func TestReconcileFailures(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	snap := people()
	snap.People[1].Active = false
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}}
	srv.Inject(accesstest.OpUsersUpdate, accesstest.Fault{Status: 400, Times: 1})
	_, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Now: clock()})
	if err == nil || rep.Failed != 1 || len(rep.Records) != 1 || rep.Records[0].Status != "failed" || rep.Records[0].Acknowledged != nil || rep.Records[0].Error == "" {
		t.Fatalf("err %v, records %+v", err, rep.Records)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusActive || n != 4 {
		t.Errorf("Ben: %s holding %d; want ACTIVE holding 4", st, n)
	}

	srv.Inject(accesstest.OpUsersUnassignPINCode, accesstest.Fault{Status: 400, Times: 1})
	_, rep, err = dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Now: clock()})
	if err == nil || rep.Failed != 1 || rep.Revoked != 3 || len(rep.Records) != 2 || rep.Records[1].Status != "failed" || len(rep.Records[1].Credentials) != 3 {
		t.Fatalf("err %v, revoked %d, records %+v", err, rep.Revoked, rep.Records)
	}
	_, rep, err = dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Now: clock()})
	if err != nil || rep.Revoked != 1 {
		t.Fatalf("third run: err %v, revoked %d", err, rep.Revoked)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 {
		t.Errorf("Ben: %s holding %d; want DEACTIVATED holding none", st, n)
	}
}

// TestReconcileStopsWhenEvidenceCannotBeWritten: a change whose record
// cannot be written stops the run; nothing more is changed.
func TestReconcileStopsWhenEvidenceCannotBeWritten(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People[1].Active = false
	log, _ := openLog(t)
	log.Close()
	_, rep, err := dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}},
		&dirsync.ApplyOptions{Evidence: log, Now: clock()})
	if !errors.Is(err, os.ErrClosed) || rep.Revoked != 0 {
		t.Fatalf("err %v, revoked %d; want os.ErrClosed and nothing revoked", err, rep.Revoked)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 4 {
		t.Errorf("Ben: %s holding %d; want DEACTIVATED (done before the record failed) holding 4", st, n)
	}
}

// TestReconcileSuspendTouchPasses: with SuspendTouchPasses a leaver's
// touch pass is suspended, still theirs, and the next run leaves it.
func TestReconcileSuspendTouchPasses(t *testing.T) {
	srv, c, ids := console(t)
	snap := people()
	snap.People[1].Active = false
	opts := &dirsync.ReconcileOptions{SuspendTouchPasses: true, Scope: &site.Scope{EmployeeNumber: true}}
	_, rep, err := dirsync.Reconcile(context.Background(), c, snap, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp := srv.TouchPasses()[0]
	if tp.Status != access.TouchPassSuspended || tp.UserID != ids["E2"] {
		t.Errorf("touch pass %s of %q; want SUSPENDED, still Ben's", tp.Status, tp.UserID)
	}
	if cr := rep.Records[1].Credentials; len(cr) != 4 || !cr[2].Suspended || cr[2].Type != dirsync.CredentialTouchPass {
		t.Errorf("credentials %+v", cr)
	}
	srv.ResetRequests()
	p, _, err := dirsync.Reconcile(context.Background(), c, snap, opts, nil)
	if err != nil || p.Drift() || len(writes(srv)) != 0 {
		t.Errorf("second run: err %v, revoke %+v, writes %v", err, p.Revoke, writes(srv))
	}
}

// TestApplyNoPlan: a nil plan is an error, not a panic.
func TestApplyNoPlan(t *testing.T) {
	var p *dirsync.Plan
	if _, err := p.Apply(context.Background(), nil, nil); err == nil {
		t.Error("Apply of a nil plan succeeded")
	}
	if _, err := (&dirsync.Plan{}).Apply(context.Background(), nil, nil); err == nil {
		t.Error("Apply of an empty plan succeeded")
	}
}

// TestReconcileFirstRunCredentialGuard: on a first run against a console
// holding twelve users deactivated long ago who still hold cards, taking
// their cards back counts against the guard as deactivations do: the run
// is refused (nothing written) until the guard is raised or
// KeepCredentials set; a few leftovers (a run cut short) stay under it.
func TestReconcileFirstRunCredentialGuard(t *testing.T) {
	srv, c, _ := console(t)
	ctx := context.Background()
	for i := range 12 {
		srv.AddUser(access.User{FirstName: "Old", LastName: fmt.Sprint("Leaver", i), EmployeeNumber: fmt.Sprintf("E%d", 100+i),
			Status: access.UserStatusDeactivated, NFCCards: []access.NFCCard{{ID: fmt.Sprint(200 + i), Token: fmt.Sprint("tok-old-", i)}}})
	}
	srv.ResetRequests()
	opts := &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{EmployeeNumber: true}}
	p, rep, err := dirsync.Reconcile(ctx, c, people(), opts, nil)
	var ge *site.GuardError
	if !errors.As(err, &ge) || !errors.Is(err, site.ErrGuard) || ge.Deactivate != 12 || ge.Of != 15 || !ge.OverCount || !ge.OverShare {
		t.Fatalf("err = %v (%+v); want a *site.GuardError for 12 of 15", err, ge)
	}
	if !strings.Contains(err.Error(), "12 already deactivated") {
		t.Errorf("the refusal does not say the users are deactivated already: %v", err)
	}
	if p == nil || len(p.Revoke) != 12 || rep != nil || len(writes(srv)) != 0 {
		t.Fatalf("plan %v, report %v, writes %v", p, rep, writes(srv))
	}
	if _, err := p.Apply(ctx, c, nil); !errors.Is(err, site.ErrGuard) || len(writes(srv)) != 0 {
		t.Errorf("Apply of a guarded plan: %v, writes %v", err, writes(srv))
	}

	keep := *opts
	keep.KeepCredentials = true
	if p, _, err := dirsync.Reconcile(ctx, c, people(), &keep, nil); err != nil || p.Drift() {
		t.Errorf("KeepCredentials: %v, drift %v", err, p.Drift())
	}
	raised := *opts
	raised.MaxDeactivate, raised.MaxDeactivateShare = 12, -1
	if _, rep, err := dirsync.Reconcile(ctx, c, people(), &raised, nil); err != nil || rep.Revoked != 12 {
		t.Errorf("guard raised: %v, revoked %v", err, rep)
	}
}

// TestReconcileRecordsADeactivationWhoseAnswerWasLost: the console took
// a leaver's deactivation but the sync never had its answer (killed in
// between), so the log holds no deactivate record. The next reconcile
// finds Ben DEACTIVATED, takes his credentials and writes exactly one
// deactivate record, marked found_done, acknowledged when found, the
// latency from the source's time; a second reconcile writes none. A
// leaver the source dates before the log began, found deactivated, is
// not the sync's and gets no record.
func TestReconcileRecordsADeactivationWhoseAnswerWasLost(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	log, path := openLog(t)
	if _, err := c.Users.Update(ctx, ids["E2"], &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Users.Update(ctx, ids["E3"], &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		t.Fatal(err)
	}
	changed := time.Now().UTC().Add(time.Second).Truncate(time.Millisecond)
	snap := people()
	snap.People[1].Active, snap.People[1].Modified = false, changed
	// Chloe left long before this log began (deactivated by hand then).
	snap.People[2].Active, snap.People[2].Modified = false, t0.Add(-24*time.Hour)
	found := changed.Add(2 * time.Second)
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}, MaxDeactivate: -1, MaxDeactivateShare: -1}
	_, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: func() time.Time { return found }})
	if err != nil {
		t.Fatal(err)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 {
		t.Errorf("Ben: %s holding %d", st, n)
	}
	ev, err := dirsync.ReadEvidenceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ev.Records {
		got = append(got, r.Action+" "+r.Key+" "+r.Status)
	}
	if want := "deactivate E2 done\nrevoke_credentials E2 done"; strings.Join(got, "\n") != want {
		t.Fatalf("evidence:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitN(string(b), "\n", 2)[0]
	for _, want := range []string{`"user_id":"` + ids["E2"] + `"`, `"found_done":true`, `"acknowledged":"` + found.Format(time.RFC3339Nano) + `"`, `"latency_seconds":2}`} {
		if !strings.Contains(first, want) {
			t.Errorf("the deactivate record lacks %s:\n%s", want, first)
		}
	}
	if rep == nil || len(rep.Records) != 2 {
		t.Errorf("report %+v", rep)
	}

	// Once: the next run finds it recorded, and a reopened log too.
	srv.ResetRequests()
	_, rep, err = dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()})
	if err != nil || len(rep.Records) != 0 || len(writes(srv)) != 0 {
		t.Errorf("second run: %v, records %+v, writes %v", err, rep, writes(srv))
	}
	log.Close()
	again, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: again, Now: clock()}); err != nil || len(rep.Records) != 0 {
		t.Errorf("after reopening the log: %v, records %+v", err, rep)
	}
	if ev, _ := dirsync.ReadEvidenceFile(path); len(ev.Records) != 2 {
		t.Errorf("the log holds %d records, want 2", len(ev.Records))
	}
}

// TestReconcileRecordsALostAnswerWithoutDrift: a leaver holding no
// credential, deactivated on the console whose answer was lost, leaves
// nothing to change (no drift); the reconcile still applies to write the
// record, once, and makes no write to the console.
func TestReconcileRecordsALostAnswerWithoutDrift(t *testing.T) {
	srv, c, ids := console(t)
	ctx := context.Background()
	log, _ := openLog(t)
	if _, err := c.Users.Update(ctx, ids["E3"], &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	snap := people()
	snap.People[2].Active = false // Chloe: no source time
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}}
	for run := range 2 {
		p, rep, err := dirsync.Reconcile(ctx, c, snap, opts, &dirsync.ApplyOptions{Evidence: log, Now: clock()})
		if err != nil {
			t.Fatal(err)
		}
		want := 1 - run
		if p.Drift() || len(rep.Records) != want || len(writes(srv)) != 0 {
			t.Fatalf("run %d: drift %v, records %+v, writes %v; want %d record(s), no write", run, p.Drift(), rep.Records, writes(srv), want)
		}
		if run == 0 && (rep.Records[0].Action != dirsync.ActionDeactivate || rep.Records[0].Key != "E3" || rep.FoundDone != 1 || rep.Records[0].LatencySeconds != 30) {
			t.Errorf("record %+v, found %d", rep.Records[0], rep.FoundDone)
		}
	}
}

// TestReconcileScopeGroupWithoutMappingKeepsWhomItCreates: a source
// scoped by a user group without a group mapping puts the people it
// creates in that group, so that they stay in its scope and are revoked
// when they leave; the memberships of users already on the console are
// not touched (without a mapping they are not managed).
func TestReconcileScopeGroupWithoutMappingKeepsWhomItCreates(t *testing.T) {
	srv := accesstest.New(t)
	c := srv.Client()
	ctx := context.Background()
	old := srv.AddUser(access.User{FirstName: "Olga", LastName: "Old", EmployeeNumber: "E7", UserEmail: "olga@example.com"})
	srv.AddUserGroup("", "Contractors", "", old.ID)
	srv.AddUserGroup("", "Night shift", "", old.ID)
	opts := &dirsync.ReconcileOptions{Scope: &site.Scope{UserGroup: "Contractors"}, MaxDeactivate: -1, MaxDeactivateShare: -1}
	snap := func(newActive bool) *dirsync.Snapshot {
		return &dirsync.Snapshot{Source: "hr", Complete: true, Finished: srv.Now(), People: []dirsync.Person{
			{Key: "E7", FirstName: "Olga", LastName: "Old", Email: "olga@example.com", Active: true},
			{Key: "E8", FirstName: "Nina", LastName: "New", Email: "nina@example.com", Active: newActive},
		}}
	}
	if _, rep, err := dirsync.Reconcile(ctx, c, snap(true), opts, &dirsync.ApplyOptions{Now: srv.Now}); err != nil || rep.Failed != 0 {
		t.Fatal(err, rep)
	}
	members := func(group string) []string {
		t.Helper()
		groups, _, err := c.UserGroups.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			if g.Name == group {
				us, _, err := c.UserGroups.ListUsers(ctx, g.ID)
				if err != nil {
					t.Fatal(err)
				}
				var keys []string
				for _, u := range us {
					keys = append(keys, u.EmployeeNumber)
				}
				slices.Sort(keys)
				return keys
			}
		}
		t.Fatalf("no group %s", group)
		return nil
	}
	if got := members("Contractors"); !slices.Equal(got, []string{"E7", "E8"}) {
		t.Fatalf("Contractors holds %v; want E7 and the created E8", got)
	}
	if got := members("Night shift"); !slices.Equal(got, []string{"E7"}) {
		t.Fatalf("Night shift holds %v; an existing user's groups are not managed without a mapping", got)
	}
	// Nina leaves: she is in the scope, so she is revoked.
	if _, rep, err := dirsync.Reconcile(ctx, c, snap(false), opts, &dirsync.ApplyOptions{Now: srv.Now}); err != nil || rep.Deactivated != 1 {
		t.Fatal(err, rep)
	}
}
