package dirsync_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// hrExport is an HR export as a European spreadsheet writes it: ';'
// between fields and headers of its own, mapped by site.CSVOptions.
const hrExport = "Personalnummer;Vorname;Nachname;E-Mail;Status;Abteilung\n" +
	"E1;Ada;Lovelace;ada@example.com;ACTIVE;staff\n" +
	"E2;Ben;Hall;ben@example.com;ACTIVE;\"staff; night\"\n" +
	";Gus;Guard;gus@example.com;ACTIVE;\n" +
	"E3;Chloe;Martin;chloe@example.com;ACTIVE;staff\n"

var hrMapping = dirsync.CSVOptions{Name: "hr", CSV: site.CSVOptions{Delimiter: ';', Columns: map[string]string{
	"employee_number": "Personalnummer", "first_name": "Vorname", "last_name": "Nachname", "email": "E-Mail",
	"status": "Status", "groups": "Abteilung"}}}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func csvSource(t *testing.T, content string, opts dirsync.CSVOptions) (*dirsync.CSVSource, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hr.csv")
	writeFile(t, path, content)
	src, err := dirsync.NewCSVSource(path, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return src, path
}

// TestCSVSourceReadsAnHRExport: site's reader with the export's delimiter
// and column mapping; a DEACTIVATED status makes an inactive person; a
// row without employee number is skipped; the file's time is each
// person's change time.
func TestCSVSourceReadsAnHRExport(t *testing.T) {
	content := strings.Replace(hrExport, "E2;Ben;Hall;ben@example.com;ACTIVE;\"staff; night\"", "E2;Ben;Hall;ben@example.com;DEACTIVATED;\"staff; night\"", 1)
	src, path := csvSource(t, content, hrMapping)
	mtime := time.Date(2026, 3, 2, 8, 59, 0, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	snap, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !snap.Complete || snap.Source != "hr" || snap.Entries != 4 || len(snap.People) != 3 || len(snap.Skipped) != 1 ||
		snap.Skipped[0].SourceID != "hr.csv:4" {
		t.Fatalf("snapshot %+v", snap)
	}
	ben := snap.People[1]
	if ben.Key != "E2" || ben.Active || ben.InactiveReason != "status DEACTIVATED" || strings.Join(ben.Groups, ",") != "night,staff" ||
		ben.SourceID != "hr.csv:3" || !ben.Modified.Equal(mtime) || ben.Email != "ben@example.com" {
		t.Errorf("Ben %+v", ben)
	}
	if ada := snap.People[0]; ada.Key != "E1" || !ada.Active || ada.FirstName != "Ada" || ada.LastName != "Lovelace" {
		t.Errorf("Ada %+v", ada)
	}
}

// TestCSVSourceNeverReadsAShortFileAsEveryoneLeft: a missing, empty,
// header-only, half-written or refused file is an error and a snapshot
// with no one; Reconcile refuses it before any request, so no one is
// deactivated.
func TestCSVSourceNeverReadsAShortFileAsEveryoneLeft(t *testing.T) {
	header := "Personalnummer;Vorname;Nachname;E-Mail;Status;Abteilung\n"
	for _, tc := range []struct {
		name, content string
		allow         bool
		want          error
	}{
		{"missing", "", false, dirsync.ErrUnavailable},
		{"empty", "", false, dirsync.ErrEmpty},
		{"header only", header, false, dirsync.ErrEmpty},
		{"nobody with an employee number", header + ";Gus;Guard;gus@example.com;ACTIVE;\n", false, dirsync.ErrEmpty},
		// "…;ACTIVE;sta": every field there, the last one cut; only the
		// missing line end tells.
		{"cut in the last field", hrExport[:len(hrExport)-3], false, dirsync.ErrIncomplete},
		{"cut in a row, no final newline allowed", hrExport[:strings.Index(hrExport, "Martin")], true, dirsync.ErrIncomplete},
		{"cut in a quoted field", header + "E1;\"Ada", true, dirsync.ErrIncomplete},
		{"two rows with one number", hrExport + "E1;Ann;Other;ann@example.com;ACTIVE;\n", false, dirsync.ErrIncomplete},
		{"a bad status", header + "E1;Ada;Lovelace;ada@example.com;GONE;\n", false, dirsync.ErrIncomplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := hrMapping
			opts.AllowNoFinalNewline = tc.allow
			src, path := csvSource(t, tc.content, opts)
			if tc.name == "missing" {
				os.Remove(path)
			}
			snap, err := src.Read(context.Background())
			if !errors.Is(err, tc.want) {
				t.Fatalf("Read = %v; want %v", err, tc.want)
			}
			if snap == nil || snap.Complete || len(snap.People) != 0 {
				t.Fatalf("snapshot %+v", snap)
			}
			srv, c, _ := console(t)
			_, _, err = dirsync.Reconcile(context.Background(), c, snap, &dirsync.ReconcileOptions{MaxDeactivate: -1, MaxDeactivateShare: -1}, nil)
			if !errors.Is(err, dirsync.ErrUnusableSnapshot) || len(srv.Requests()) != 0 {
				t.Errorf("Reconcile = %v after %d requests; want a refusal before any", err, len(srv.Requests()))
			}
		})
	}
	// Allowed, a file without a final newline that is whole reads.
	opts := hrMapping
	opts.AllowNoFinalNewline = true
	src, _ := csvSource(t, strings.TrimSuffix(hrExport, "\n"), opts)
	if snap, err := src.Read(context.Background()); err != nil || len(snap.People) != 3 {
		t.Errorf("whole file without final newline: %v", err)
	}
}

// TestNewCSVSourceRefusesABadMapping: site's checks of the delimiter
// and the mapping, before any read.
func TestNewCSVSourceRefusesABadMapping(t *testing.T) {
	for _, o := range []dirsync.CSVOptions{
		{CSV: site.CSVOptions{Delimiter: '"'}},
		{CSV: site.CSVOptions{Columns: map[string]string{"badge": "Badge"}}},
		{Poll: -time.Second},
	} {
		if _, err := dirsync.NewCSVSource("hr.csv", &o); !errors.Is(err, dirsync.ErrConfig) {
			t.Errorf("NewCSVSource(%+v) = %v; want ErrConfig", o, err)
		}
	}
	if _, err := dirsync.NewCSVSource(" ", nil); !errors.Is(err, dirsync.ErrConfig) {
		t.Errorf("no path: %v", err)
	}
	if src, err := dirsync.NewCSVSource(filepath.Join(t.TempDir(), "not-yet.csv"), nil); err != nil || src.Name() != "csv" {
		t.Errorf("a file that does not exist yet: %v", err)
	}
}

func signalled(src *dirsync.CSVSource) bool {
	select {
	case <-src.Changed():
		return true
	default:
		return false
	}
}

// TestCSVSourcePollSignalsAChangeOnceItHoldsStill: the first poll takes
// the file's state; a change signals at the poll that finds it unchanged
// since the previous one (not while it is being written), once; a change
// of content with the same size and time is seen by its hash.
func TestCSVSourcePollSignalsAChangeOnceItHoldsStill(t *testing.T) {
	src, path := csvSource(t, hrExport, hrMapping)
	first, second := src.Poll(), src.Poll()
	if first || second || signalled(src) {
		t.Fatal("an unchanged file signalled")
	}
	writeFile(t, path, hrExport[:40]) // being written
	if src.Poll() {
		t.Error("signalled while the file was changing")
	}
	writeFile(t, path, hrExport+"E4;Dan;Okafor;dan@example.com;ACTIVE;staff\n")
	if src.Poll() {
		t.Error("signalled while the file was changing")
	}
	if !src.Poll() || !signalled(src) {
		t.Fatal("no signal once the file held still")
	}
	if src.Poll() || signalled(src) {
		t.Error("signalled twice for one change")
	}

	fi, _ := os.Stat(path)
	same := strings.Replace(hrExport+"E4;Dan;Okafor;dan@example.com;ACTIVE;staff\n", "ACTIVE;staff\n", "ACTIVE;night\n", 1)
	writeFile(t, path, same)
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if fi2, _ := os.Stat(path); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Fatal("the rewrite changed the size or the time")
	}
	src.Poll()
	if !src.Poll() || !signalled(src) {
		t.Error("a change of content alone was not seen")
	}

	os.Remove(path)
	src.Poll()
	if !src.Poll() {
		t.Error("a file removed was not signalled (the runner's read then reports it)")
	}
}

// TestCSVSourceWatchDrivesTheRunner: with Watch running, a leaver written
// to the file is deactivated by a runner at once (a push run), without
// waiting for the interval.
func TestCSVSourceWatchDrivesTheRunner(t *testing.T) {
	srv, c, ids := console(t)
	ticks := make(chan time.Time)
	opts := hrMapping
	opts.Ticks = ticks
	src, path := csvSource(t, hrExport, opts)
	log, _ := openLog(t)
	results := make(chan dirsync.RunResult, 4)
	runner, err := dirsync.NewRunner(c, dirsync.RunnerOptions{
		Sources: []dirsync.RunnerSource{{Source: src, Options: &dirsync.ReconcileOptions{Groups: mapping,
			Scope: &site.Scope{EmployeeNumber: true}, KeepCredentials: true}}},
		Ticks: make(chan time.Time), // no interval runs
		Apply: &dirsync.ApplyOptions{Evidence: log},
		OnRun: func(r dirsync.RunResult) { results <- r },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	go func() { done <- runner.Run(ctx) }()
	go func() { done <- src.Watch(ctx) }()
	defer func() { cancel(); <-done; <-done }()

	wait := func() dirsync.RunResult {
		t.Helper()
		select {
		case r := <-results:
			return r
		case <-time.After(30 * time.Second):
			t.Fatal("no run")
		}
		return dirsync.RunResult{}
	}
	if r := wait(); r.Trigger != dirsync.TriggerStart || r.Err != nil || r.Plan.Drift() {
		t.Fatalf("start run %+v", r)
	}
	ticks <- time.Now() // Watch's first poll is done
	writeFile(t, path, strings.Replace(hrExport, "E2;Ben;Hall;ben@example.com;ACTIVE", "E2;Ben;Hall;ben@example.com;DEACTIVATED", 1))
	ticks <- time.Now() // sees the change
	ticks <- time.Now() // sees it held still: signals
	r := wait()
	if r.Trigger != dirsync.TriggerPush || r.Err != nil || r.Report == nil || r.Report.Deactivated != 1 {
		t.Fatalf("run after the file changed: %+v (%v)", r, r.Err)
	}
	if st, _ := held(t, srv, ids["E2"]); st != access.UserStatusDeactivated {
		t.Errorf("Ben is %s", st)
	}
}
