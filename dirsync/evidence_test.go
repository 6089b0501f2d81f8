package dirsync_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/dirsync"
)

func ack(t time.Time) *time.Time { return &t }

// TestEvidenceLogAppendsAndSurvivesATornLine: a log opened again keeps
// its lines and appends after them; a last line cut short by a crash is
// set apart and counted as damaged, never taken for a record, and the
// credentials it recorded as revoked are known after a reopen.
func TestEvidenceLogAppendsAndSurvivesATornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence.jsonl")
	l, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := dirsync.Record{Source: "corp", Key: "E2", Name: "Ben Hall", Action: dirsync.ActionRevokeCredentials, Status: "done",
		Observed: t0, Acknowledged: ack(t0.Add(time.Second)), Credentials: []dirsync.Credential{{Type: dirsync.CredentialNFCCard, ID: "100042", Token: "tok"}}}
	if err := l.Append(&rec); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := l.Append(&rec); err == nil {
		t.Error("Append after Close succeeded")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v; want 0600", fi.Mode().Perm())
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"source":"corp","key":"E3","act`) // a crash mid-line
	f.Close()

	l, err = dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if r := l.Revoked("E2"); len(r) != 1 || r[0].ID != "100042" {
		t.Errorf("Revoked(E2) after reopen = %v", r)
	}
	rec.Key = "E4"
	if err := l.Append(&rec); err != nil {
		t.Fatal(err)
	}
	ev, err := dirsync.ReadEvidenceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range ev.Records {
		keys = append(keys, r.Key)
	}
	if !slices.Equal(keys, []string{"E2", "E4"}) || !slices.Equal(ev.Damaged, []int{2}) || ev.Torn {
		t.Errorf("keys %v, damaged %v, torn %v; want [E2 E4], [2], false", keys, ev.Damaged, ev.Torn)
	}
	b, _ := os.ReadFile(path)
	if lines := strings.Split(string(b), "\n"); len(lines) != 4 || lines[3] != "" {
		t.Errorf("log:\n%s", b)
	}
}

// TestSummarize: leavers since a time, nearest-rank percentiles, the
// slowest by name, reactivations, credentials and failures counted.
func TestSummarize(t *testing.T) {
	var recs []dirsync.Record
	for i := 1; i <= 100; i++ {
		a := t0.Add(time.Duration(i) * time.Hour)
		recs = append(recs, dirsync.Record{Source: "corp", Key: fmt.Sprintf("E%03d", i), Name: fmt.Sprintf("Person %d", i),
			Action: dirsync.ActionDeactivate, Status: "done", Observed: a, Acknowledged: ack(a), LatencySeconds: float64(i)})
	}
	recs = append(recs,
		dirsync.Record{Key: "E100", Action: dirsync.ActionRevokeCredentials, Status: "done", Acknowledged: ack(t0.Add(200 * time.Hour)),
			Credentials: []dirsync.Credential{{Type: dirsync.CredentialPINCode}, {Type: dirsync.CredentialLicensePlate, ID: "AB-1"}}},
		dirsync.Record{Key: "E200", Action: dirsync.ActionReactivate, Status: "done", Acknowledged: ack(t0.Add(200 * time.Hour))},
		dirsync.Record{Key: "E300", Action: dirsync.ActionDeactivate, Status: "failed", Observed: t0.Add(200 * time.Hour), Error: "HTTP 500"},
		// Before the window: not counted.
		dirsync.Record{Key: "E000", Action: dirsync.ActionDeactivate, Status: "done", Acknowledged: ack(t0), LatencySeconds: 9999},
		dirsync.Record{Key: "E000", Action: dirsync.ActionReentry, Status: "flagged", Revoked: ack(t0), Opened: ack(t0.Add(time.Second))},
		// A re-entry flagged: listed, neither a leaver nor a failure.
		dirsync.Record{Source: "corp", Key: "E100", Name: "Person 100", Action: dirsync.ActionReentry, Status: "flagged",
			Observed: t0.Add(300 * time.Hour), Revoked: ack(t0.Add(100 * time.Hour)), Opened: ack(t0.Add(250 * time.Hour)), Door: "Front door"},
	)
	s := dirsync.Summarize(recs, t0.Add(time.Minute), 3)
	if s.Leavers != 100 || s.Reactivated != 1 || s.CredentialsRevoked != 2 || s.Failed != 1 {
		t.Errorf("leavers %d, reactivated %d, credentials %d, failed %d", s.Leavers, s.Reactivated, s.CredentialsRevoked, s.Failed)
	}
	if s.P50 != 50*time.Second || s.P95 != 95*time.Second || s.P99 != 99*time.Second || s.Max != 100*time.Second {
		t.Errorf("p50 %v p95 %v p99 %v max %v", s.P50, s.P95, s.P99, s.Max)
	}
	if len(s.Reentries) != 1 || s.Reentries[0] != (dirsync.Reentry{Key: "E100", Name: "Person 100", Source: "corp",
		Revoked: t0.Add(100 * time.Hour), Opened: t0.Add(250 * time.Hour), Door: "Front door"}) {
		t.Errorf("re-entries %+v", s.Reentries)
	}
	var slow []string
	for _, l := range s.Slowest {
		slow = append(slow, fmt.Sprintf("%s %v %d", l.Name, l.Latency, l.Credentials))
	}
	if want := []string{"Person 100 1m40s 2", "Person 99 1m39s 0", "Person 98 1m38s 0"}; !slices.Equal(slow, want) {
		t.Errorf("slowest %q; want %q", slow, want)
	}
	if e := dirsync.Summarize(nil, t0, 5); e.Leavers != 0 || e.P99 != 0 || e.Slowest == nil || e.Reentries == nil {
		t.Errorf("empty summary %+v", e)
	}
}

// TestOpenEvidenceRefusesASecondWriter: an evidence log open for writing
// (a running access sync) refuses a second opener with ErrEvidenceLocked,
// so two syncs never append over each other's view of who was revoked;
// once closed it opens again.
func TestOpenEvidenceRefusesASecondWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "evidence.jsonl")
	first, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatal(err)
	}
	second, err := dirsync.OpenEvidence(path)
	if second != nil {
		second.Close()
	}
	if !errors.Is(err, dirsync.ErrEvidenceLocked) || !strings.Contains(fmt.Sprint(err), "evidence log") {
		t.Fatalf("second open: %v, want ErrEvidenceLocked naming the evidence log", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := dirsync.OpenEvidence(path)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	again.Close()
}
