package dirsync_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access/dirsync"
)

// reportSummary is a known summary: two leavers, one of them flagged for
// a re-entry, one of them with a name a spreadsheet would run.
func reportSummary() *dirsync.Summary {
	return &dirsync.Summary{
		Since: t0, Leavers: 2, Reactivated: 1, CredentialsRevoked: 3, Failed: 1,
		P50: 31 * time.Second, P95: 95500 * time.Millisecond, P99: 95500 * time.Millisecond, Max: 95500 * time.Millisecond,
		Slowest: []dirsync.Leaver{
			{Key: "E2", Name: "Ben Hall", Source: "corp-ldap", Acknowledged: t0.Add(2 * time.Minute), Latency: 95500 * time.Millisecond, Credentials: 2},
			{Key: "E3", Name: "=HYPERLINK(\"x\")", Source: "okta", Acknowledged: t0.Add(3 * time.Minute), Latency: 31 * time.Second, Credentials: 1},
		},
		Reentries: []dirsync.Reentry{{Key: "E2", Name: "Ben Hall", Source: "corp-ldap", Revoked: t0.Add(2 * time.Minute),
			Opened: t0.Add(10 * time.Minute), Door: "Front door"}},
	}
}

func report(t *testing.T, s *dirsync.Summary, format string) string {
	t.Helper()
	var b bytes.Buffer
	if err := dirsync.WriteReport(&b, s, format); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestWriteReportText: the counts, the percentiles, the slowest by name
// and the re-entries, aligned; a name's control characters cannot forge a
// line.
func TestWriteReportText(t *testing.T) {
	want := `Directory sync report since 2026-03-02T09:00:00Z
Leavers:                      2
Reactivated:                  1
Credentials revoked:          3
Failed changes:               1
Latency:                      p50 31s  p95 1m35.5s  p99 1m35.5s  max 1m35.5s
Re-entries after revocation:  1

Slowest leavers:
NAME             KEY  SOURCE     LATENCY  ACKNOWLEDGED          CREDENTIALS
Ben Hall         E2   corp-ldap  1m35.5s  2026-03-02T09:02:00Z  2
=HYPERLINK("x")  E3   okta       31s      2026-03-02T09:03:00Z  1

Re-entries after revocation (a door opened for a leaver after the console revoked them):
NAME      KEY  SOURCE     REVOKED               OPENED                DOOR
Ben Hall  E2   corp-ldap  2026-03-02T09:02:00Z  2026-03-02T09:10:00Z  Front door
`
	if got := report(t, reportSummary(), dirsync.ReportText); got != want {
		t.Errorf("text report:\n%s\nwant:\n%s", got, want)
	}

	empty := dirsync.Summarize(nil, t0, 5)
	want = `Directory sync report since 2026-03-02T09:00:00Z
Leavers:                      0
Reactivated:                  0
Credentials revoked:          0
Failed changes:               0
Latency:                      -
Re-entries after revocation:  0
`
	if got := report(t, &empty, dirsync.ReportText); got != want {
		t.Errorf("empty text report:\n%s\nwant:\n%s", got, want)
	}

	forged := reportSummary()
	forged.Slowest[0].Name = "Eve\nLeavers: 0\t"
	got := report(t, forged, dirsync.ReportText)
	if strings.Contains(got, "\nLeavers: 0") || !strings.Contains(got, "Eve\uFFFDLeavers: 0\uFFFD") {
		t.Errorf("a name with a newline forged a line:\n%s", got)
	}
}

// TestWriteReportCSV: one row per leaver named and per re-entry; a
// formula is quoted out.
func TestWriteReportCSV(t *testing.T) {
	want := "kind,key,name,source,acknowledged,latency_seconds,credentials,opened,door\n" +
		"leaver,E2,Ben Hall,corp-ldap,2026-03-02T09:02:00Z,95.5,2,,\n" +
		"leaver,E3,\"'=HYPERLINK(\"\"x\"\")\",okta,2026-03-02T09:03:00Z,31,1,,\n" +
		"reentry,E2,Ben Hall,corp-ldap,2026-03-02T09:02:00Z,,,2026-03-02T09:10:00Z,Front door\n"
	if got := report(t, reportSummary(), dirsync.ReportCSV); got != want {
		t.Errorf("CSV report:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriteReportJSON: the summary itself, which reads back equal.
func TestWriteReportJSON(t *testing.T) {
	s := reportSummary()
	got := report(t, s, dirsync.ReportJSON)
	var back dirsync.Summary
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatal(err)
	}
	if back.P95 != s.P95 || back.Leavers != 2 || len(back.Slowest) != 2 || back.Slowest[1].Name != s.Slowest[1].Name ||
		len(back.Reentries) != 1 || back.Reentries[0].Door != "Front door" || !back.Reentries[0].Opened.Equal(s.Reentries[0].Opened) {
		t.Errorf("JSON report read back %+v", back)
	}
	for _, field := range []string{`"leavers": 2`, `"p99": 95500000000`, `"reentries": [`, `"door": "Front door"`} {
		if !strings.Contains(got, field) {
			t.Errorf("JSON report lacks %s:\n%s", field, got)
		}
	}
}

// TestWriteReportHTML: the page shows the figures and the names, and a
// hostile name is escaped, never markup.
func TestWriteReportHTML(t *testing.T) {
	s := reportSummary()
	s.Slowest[0].Name = `<script>alert("x")</script>`
	s.Reentries[0].Door = `"><img src=x onerror=alert(1)>`
	got := report(t, s, dirsync.ReportHTML)
	for _, want := range []string{
		`<td id="p50">31s</td><td id="p95">1m35.5s</td><td id="p99">1m35.5s</td><td id="max">1m35.5s</td>`,
		`<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td><td>E2</td><td>corp-ldap</td><td>1m35.5s</td><td>2026-03-02T09:02:00Z</td>`,
		`<td>=HYPERLINK(&#34;x&#34;)</td>`,
		`<tr class="flag"><td>Ben Hall</td><td>E2</td><td>corp-ldap</td><td>2026-03-02T09:02:00Z</td><td>2026-03-02T09:10:00Z</td><td>&#34;&gt;&lt;img src=x onerror=alert(1)&gt;</td></tr>`,
		`<td class="num" id="reentry-count">1</td>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("HTML report lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "<script") || strings.Contains(got, "<img") || strings.Contains(got, "http") {
		t.Errorf("HTML report holds markup from a name, or an outside resource:\n%s", got)
	}

	empty := dirsync.Summarize(nil, t0, 5)
	got = report(t, &empty, dirsync.ReportHTML)
	if !strings.Contains(got, `<p id="latency">No leavers in this period.</p>`) || !strings.Contains(got, `<p id="reentries">None.</p>`) {
		t.Errorf("empty HTML report:\n%s", got)
	}
}

// TestWriteReportUnknownFormat: an unknown format is an error and writes
// nothing.
func TestWriteReportUnknownFormat(t *testing.T) {
	var b bytes.Buffer
	err := dirsync.WriteReport(&b, reportSummary(), "pdf")
	if !errors.Is(err, dirsync.ErrReportFormat) || b.Len() != 0 {
		t.Errorf("WriteReport(pdf) = %v, wrote %q", err, b.String())
	}
}
