package dirsync_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
	"github.com/access-dev/access/site"
)

// A SCIM store is a push source.
var _ dirsync.Notifier = (*scim.Store)(nil)

// fakeSource answers the snapshot (or the error) it is given; with push
// set it is a Notifier.
type fakeSource struct {
	mu      sync.Mutex
	snap    *dirsync.Snapshot
	err     error
	block   bool // Read waits for its context, after a value on reading
	reading chan struct{}
	reads   int
	ch      chan struct{}
}

func (f *fakeSource) Name() string { return "corp" }

func (f *fakeSource) Read(ctx context.Context) (*dirsync.Snapshot, error) {
	f.mu.Lock()
	f.reads++
	snap, err, block := f.snap, f.err, f.block
	f.mu.Unlock()
	if block {
		f.reading <- struct{}{}
		<-ctx.Done()
		return &dirsync.Snapshot{Source: "corp"}, fmt.Errorf("%w: %w", dirsync.ErrIncomplete, ctx.Err())
	}
	if err != nil {
		return &dirsync.Snapshot{Source: "corp"}, err
	}
	c := *snap
	c.People = append([]dirsync.Person(nil), snap.People...)
	return &c, nil
}

func (f *fakeSource) set(snap *dirsync.Snapshot, err error) {
	f.mu.Lock()
	f.snap, f.err = snap, err
	f.mu.Unlock()
}

// pushSource is a fakeSource that signals its changes.
type pushSource struct{ *fakeSource }

func (p pushSource) Changed() <-chan struct{} { return p.ch }

// startRunner runs a runner over src until the test ends; it returns the
// channel of its run results and the ticks channel that drives its
// interval.
func startRunner(t *testing.T, c *access.Client, src dirsync.Source, opts *dirsync.ReconcileOptions, aopts *dirsync.ApplyOptions) (*dirsync.Runner, <-chan dirsync.RunResult, chan<- time.Time, context.CancelFunc, <-chan error) {
	t.Helper()
	ticks := make(chan time.Time)
	results := make(chan dirsync.RunResult, 16)
	r, err := dirsync.NewRunner(c, dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: src, Options: opts}},
		Ticks:   ticks, Apply: aopts,
		OnRun: func(res dirsync.RunResult) { results <- res },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r, results, ticks, cancel, done
}

func next(t *testing.T, results <-chan dirsync.RunResult) dirsync.RunResult {
	t.Helper()
	select {
	case res := <-results:
		return res
	case <-time.After(30 * time.Second):
		t.Fatal("no run result within 30 s")
		return dirsync.RunResult{}
	}
}

var scoped = func() *dirsync.ReconcileOptions {
	return &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{EmployeeNumber: true}}
}

// TestRunnerPushReconcilesAtOnce: a push source's signal makes a run at
// once (no tick), which deactivates the leaver, unassigns their
// credentials and writes the evidence.
func TestRunnerPushReconcilesAtOnce(t *testing.T) {
	srv, c, ids := console(t)
	src := pushSource{&fakeSource{snap: people(), ch: make(chan struct{}, 1)}}
	log, path := openLog(t)
	_, results, _, _, _ := startRunner(t, c, src, scoped(), &dirsync.ApplyOptions{Evidence: log})
	if res := next(t, results); res.Trigger != dirsync.TriggerStart || res.Err != nil || res.Plan.Drift() {
		t.Fatalf("first run: %+v", res)
	}
	if w := writes(srv); len(w) != 0 {
		t.Fatalf("first run wrote %v", w)
	}
	leave := people()
	leave.People[1].Active = false
	src.set(leave, nil)
	src.ch <- struct{}{}
	res := next(t, results)
	if res.Trigger != dirsync.TriggerPush || res.Err != nil || res.Report == nil || res.Report.Deactivated != 1 || res.Report.Revoked != 4 {
		t.Fatalf("push run: trigger %s, err %v, report %+v", res.Trigger, res.Err, res.Report)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 {
		t.Errorf("Ben: %s with %d credentials", st, n)
	}
	ev, err := dirsync.ReadEvidenceFile(path)
	if err != nil || len(ev.Records) != 2 || ev.Records[0].Action != dirsync.ActionDeactivate || ev.Records[1].Action != dirsync.ActionRevokeCredentials {
		t.Fatalf("evidence %+v, %v", ev, err)
	}
}

// TestRunnerInterval: a pull source is read at each tick; a run with no
// change writes nothing, the status counts the people.
func TestRunnerInterval(t *testing.T) {
	srv, c, ids := console(t)
	src := &fakeSource{snap: people()}
	r, results, ticks, _, _ := startRunner(t, c, src, scoped(), nil)
	next(t, results)
	ticks <- t0
	if res := next(t, results); res.Trigger != dirsync.TriggerInterval || res.Err != nil || len(writes(srv)) != 0 {
		t.Fatalf("idle tick: %+v, writes %v", res, writes(srv))
	}
	leave := people()
	leave.People = leave.People[:2] // Chloe no longer listed
	src.set(leave, nil)
	ticks <- t0
	res := next(t, results)
	if res.Trigger != dirsync.TriggerInterval || res.Err != nil || res.Report.Deactivated != 1 {
		t.Fatalf("tick: %+v", res)
	}
	if st, _ := held(t, srv, ids["E3"]); st != access.UserStatusDeactivated {
		t.Errorf("Chloe: %s", st)
	}
	st := r.Status()[0]
	if st.Runs != 3 || st.People != 2 || st.PendingLeavers != 0 || st.LastSuccess.IsZero() || !st.SourceOK || !st.ConsoleOK || st.OutOfScope != 1 {
		t.Errorf("status %+v", st)
	}
}

// TestRunnerCancelEndsCleanly: cancelling the context ends Run with nil,
// also while a read is in progress (abandoned: its result says so).
func TestRunnerCancelEndsCleanly(t *testing.T) {
	_, c, _ := console(t)
	src := &fakeSource{snap: people(), reading: make(chan struct{})}
	_, results, ticks, cancel, done := startRunner(t, c, src, scoped(), nil)
	next(t, results)
	src.mu.Lock()
	src.block = true
	src.mu.Unlock()
	ticks <- t0
	<-src.reading
	cancel()
	res := next(t, results)
	if !res.SourceFailed || !errors.Is(res.Err, context.Canceled) || res.Plan != nil {
		t.Errorf("abandoned run: %+v", res)
	}
	if err := <-done; err != nil {
		t.Errorf("Run after cancel mid-read: %v", err)
	}
	select {
	case res := <-results:
		t.Errorf("a run after cancel: %+v", res)
	default:
	}
}

// TestRunnerGuardHolds: a run over the guard applies nothing and holds
// the source; the next runs refuse (ErrHeld) even when the directory
// looks normal again, until SetOptions changes the options.
func TestRunnerGuardHolds(t *testing.T) {
	srv, c, ids := console(t)
	leave := people()
	leave.People[1].Active = false
	leave.People[2].Active = false
	src := &fakeSource{snap: leave}
	opts := scoped()
	opts.MaxDeactivate = 1
	r, results, ticks, _, _ := startRunner(t, c, src, opts, nil)
	res := next(t, results)
	var ge *site.GuardError
	if !errors.As(res.Err, &ge) || ge.Deactivate != 2 || res.Report != nil {
		t.Fatalf("first run: %+v", res)
	}
	st := r.Status()[0]
	if st.GuardTrips != 1 || st.Held == nil || st.PendingLeavers != 2 || !st.LastSuccess.IsZero() {
		t.Errorf("status after trip: %+v", st)
	}
	src.set(people(), nil) // the directory looks normal again
	ticks <- t0
	res = next(t, results)
	if !errors.Is(res.Err, dirsync.ErrHeld) || !errors.Is(res.Err, site.ErrGuard) || res.Report != nil {
		t.Fatalf("held run: %+v", res)
	}
	src.set(leave, nil)
	ticks <- t0
	if res = next(t, results); !errors.Is(res.Err, dirsync.ErrHeld) {
		t.Fatalf("held run: %+v", res)
	}
	if w := writes(srv); len(w) != 0 {
		t.Fatalf("held runs wrote %v", w)
	}
	if st := r.Status()[0]; st.GuardTrips != 1 || st.Held == nil {
		t.Errorf("status while held: %+v", st)
	}
	opts = scoped()
	opts.MaxDeactivate, opts.MaxDeactivateShare = 2, -1
	if err := r.SetOptions("corp", opts); err != nil {
		t.Fatal(err)
	}
	res = next(t, results)
	if res.Trigger != dirsync.TriggerOptions || res.Err != nil || res.Report.Deactivated != 2 {
		t.Fatalf("run after SetOptions: %+v", res)
	}
	for _, k := range []string{"E2", "E3"} {
		if st, _ := held(t, srv, ids[k]); st != access.UserStatusDeactivated {
			t.Errorf("%s: %s", k, st)
		}
	}
	if st := r.Status()[0]; st.Held != nil || st.PendingLeavers != 0 || st.GuardTrips != 1 {
		t.Errorf("status after release: %+v", st)
	}
	if err := r.SetOptions("nobody", opts); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("SetOptions of an unknown source: %v", err)
	}
}

// TestRunnerFailingSourceKeepsEveryone: a source that fails, or answers
// nobody, is never read as "everyone left": nothing is written and the
// status says the source cannot be read.
func TestRunnerFailingSourceKeepsEveryone(t *testing.T) {
	srv, c, ids := console(t)
	src := &fakeSource{err: fmt.Errorf("%w: connection refused", dirsync.ErrUnavailable)}
	opts := scoped()
	opts.MaxDeactivate, opts.MaxDeactivateShare = -1, -1 // no guard to save us
	r, results, ticks, _, _ := startRunner(t, c, src, opts, nil)
	res := next(t, results)
	if !res.SourceFailed || !errors.Is(res.Err, dirsync.ErrUnavailable) || res.Plan != nil {
		t.Fatalf("failed read: %+v", res)
	}
	if st := r.Status()[0]; st.SourceOK || !st.ConsoleOK || st.LastError == "" || !st.LastSuccess.IsZero() {
		t.Errorf("status %+v", st)
	}
	src.set(&dirsync.Snapshot{Source: "corp", Complete: true}, nil) // nobody, no error
	ticks <- t0
	res = next(t, results)
	if !res.SourceFailed || !errors.Is(res.Err, dirsync.ErrUnusableSnapshot) {
		t.Fatalf("empty read: %+v", res)
	}
	all := people() // everyone disabled at once: site refuses the document
	for i := range all.People {
		all.People[i].Active = false
	}
	src.set(all, nil)
	ticks <- t0
	res = next(t, results)
	var de *site.DocumentError
	if !errors.As(res.Err, &de) || res.SourceFailed || res.ConsoleFailed {
		t.Fatalf("everyone disabled: %+v", res)
	}
	if st := r.Status()[0]; !st.ConsoleOK {
		t.Errorf("status %+v", st)
	}
	if w := writes(srv); len(w) != 0 {
		t.Fatalf("wrote %v", w)
	}
	for _, k := range []string{"E1", "E2", "E3"} {
		if st, _ := held(t, srv, ids[k]); st != access.UserStatusActive {
			t.Errorf("%s: %s", k, st)
		}
	}
	src.set(people(), nil)
	ticks <- t0
	if res = next(t, results); res.Err != nil {
		t.Fatalf("recovered: %+v", res)
	}
	if st := r.Status()[0]; !st.SourceOK || st.LastError != "" || st.People != 3 {
		t.Errorf("status after recovery %+v", st)
	}
}

// TestNewRunnerRefusesBadOptions: bad options are an ErrConfig before
// any read.
func TestNewRunnerRefusesBadOptions(t *testing.T) {
	_, c, _ := console(t)
	a, b := &fakeSource{}, &fakeSource{}
	for name, o := range map[string]dirsync.RunnerOptions{
		"no source":     {},
		"nil source":    {Sources: []dirsync.RunnerSource{{}}},
		"same name":     {Sources: []dirsync.RunnerSource{{Source: a}, {Source: b}}},
		"negative ival": {Sources: []dirsync.RunnerSource{{Source: a}}, Interval: -time.Second},
	} {
		if _, err := dirsync.NewRunner(c, o); !errors.Is(err, dirsync.ErrConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := dirsync.NewRunner(nil, dirsync.RunnerOptions{Sources: []dirsync.RunnerSource{{Source: a}}}); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("nil client: %v", err)
	}
	if a.reads+b.reads != 0 {
		t.Error("read before Run")
	}
}

// TestRunnerSCIMPushReconcilesAtOnce: with a real SCIM store as the
// source, Entra's deactivation PATCH makes a run at once (no tick) that
// deactivates the person on the console, as acknowledged by the store.
func TestRunnerSCIMPushReconcilesAtOnce(t *testing.T) {
	srv, c, ids := console(t)
	store, err := scim.Open(filepath.Join(t.TempDir(), "scim.jsonl"), scim.Options{Name: "corp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	const token = "scim-test-token-0123456789abcdef"
	h, err := scim.NewHandler(store, scim.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, path, body string) map[string]any {
		t.Helper()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/scim+json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		var out map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &out)
		return out
	}
	scimID := map[string]string{}
	for _, p := range people().People {
		u := do("POST", "/scim/v2/Users", fmt.Sprintf(`{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User","urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
			"userName":%q,"active":true,"name":{"givenName":%q,"familyName":%q},"emails":[{"type":"work","primary":true,"value":%q}],
			"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User":{"employeeNumber":%q}}`, p.Email, p.FirstName, p.LastName, p.Email, p.Key))
		scimID[p.Key], _ = u["id"].(string)
	}
	select { // the creations' signal: the start run reads them anyway
	case <-store.Changed():
	default:
	}
	// No group mapping: the pushes carry no group.
	_, results, _, _, _ := startRunner(t, c, store, &dirsync.ReconcileOptions{Scope: &site.Scope{EmployeeNumber: true}}, nil)
	if res := next(t, results); res.Trigger != dirsync.TriggerStart || res.Err != nil || res.Plan.Drift() {
		t.Fatalf("first run: %+v (%v)", res, res.Plan.Site.Changes)
	}
	do("PATCH", "/scim/v2/Users/"+scimID["E2"], `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"Replace","path":"active","value":"False"}]}`)
	res := next(t, results)
	if res.Trigger != dirsync.TriggerPush || res.Err != nil || res.Report == nil || res.Report.Deactivated != 1 {
		t.Fatalf("push run: %+v", res)
	}
	if st, n := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated || n != 0 {
		t.Errorf("Ben: %s with %d credentials", st, n)
	}
}

// TestRunnerClosedTicks: a Ticks channel that is closed ends the interval
// runs (it does not make a run of every source, again and again); pushes
// still make runs.
func TestRunnerClosedTicks(t *testing.T) {
	_, c, _ := console(t)
	src := pushSource{&fakeSource{snap: people(), ch: make(chan struct{}, 1)}}
	ticks := make(chan time.Time)
	results := make(chan dirsync.RunResult, 64)
	r, err := dirsync.NewRunner(c, dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: src, Options: scoped()}},
		Ticks:   ticks,
		OnRun: func(res dirsync.RunResult) {
			select {
			case results <- res:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	next(t, results)
	close(ticks)
	src.ch <- struct{}{}
	if res := next(t, results); res.Trigger != dirsync.TriggerPush {
		t.Errorf("run after the ticks closed: %s", res.Trigger)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := r.Status()[0].Runs; n != 2 {
		t.Errorf("%d runs, want 2 (start, push)", n)
	}
}
