package dirsync_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/access-dev/access/internal/browsertest"

	"github.com/access-dev/access/dirsync"
)

// TestReportPageInChromium opens the HTML report in headless Chromium
// and reads what it shows: the counts, the percentiles, the slowest
// leavers by name and the flagged re-entry; hostile names show as text
// and run nothing; the page asks for nothing but itself.
func TestReportPageInChromium(t *testing.T) {
	s := reportSummary()
	s.Slowest[0].Name = `<img src=x onerror="window.pwned=1">`
	s.Reentries[0].Door = `<script>window.pwned=2</script>`
	var page bytes.Buffer
	if err := dirsync.WriteReport(&page, s, dirsync.ReportHTML); err != nil {
		t.Fatal(err)
	}
	requests := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests <- r.URL.Path
		if r.URL.Path != "/report.html" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	}))
	defer srv.Close()

	ctx := browsertest.Tab(t, 0, 0)

	var title, leavers, p50, p95, p99, reentries, pwned string
	var slowest, flagged [][]string
	rows := func(sel string) string {
		return `Array.from(document.querySelectorAll("` + sel + ` tr")).slice(1).map(r => Array.from(r.cells).map(c => c.textContent))`
	}
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+"/report.html"),
		chromedp.WaitVisible(`#reentries`, chromedp.ByQuery),
		chromedp.Title(&title),
		chromedp.Text(`#leavers`, &leavers, chromedp.ByQuery),
		chromedp.Text(`#p50`, &p50, chromedp.ByQuery),
		chromedp.Text(`#p95`, &p95, chromedp.ByQuery),
		chromedp.Text(`#p99`, &p99, chromedp.ByQuery),
		chromedp.Text(`#reentry-count`, &reentries, chromedp.ByQuery),
		chromedp.Evaluate(rows("#slowest"), &slowest),
		chromedp.Evaluate(rows("#reentries"), &flagged),
		chromedp.Evaluate(`String(window.pwned)`, &pwned),
	)
	if err != nil {
		t.Fatal(err)
	}
	if title != "Directory sync report" || leavers != "2" || p50 != "31s" || p95 != "1m35.5s" || p99 != "1m35.5s" || reentries != "1" {
		t.Errorf("title %q, leavers %q, p50 %q, p95 %q, p99 %q, re-entries %q", title, leavers, p50, p95, p99, reentries)
	}
	wantSlow := [][]string{
		{`<img src=x onerror="window.pwned=1">`, "E2", "corp-ldap", "1m35.5s", "2026-03-02T09:02:00Z", "2"},
		{`=HYPERLINK("x")`, "E3", "okta", "31s", "2026-03-02T09:03:00Z", "1"},
	}
	if !slices.EqualFunc(slowest, wantSlow, slices.Equal) {
		t.Errorf("slowest rows shown %q; want %q", slowest, wantSlow)
	}
	wantFlag := [][]string{{"Ben Hall", "E2", "corp-ldap", "2026-03-02T09:02:00Z", "2026-03-02T09:10:00Z", `<script>window.pwned=2</script>`}}
	if !slices.EqualFunc(flagged, wantFlag, slices.Equal) {
		t.Errorf("re-entry rows shown %q; want %q", flagged, wantFlag)
	}
	if pwned != "undefined" {
		t.Errorf("a hostile name ran in the page (window.pwned = %s)", pwned)
	}
	srv.Close()
	close(requests)
	for p := range requests {
		if p != "/report.html" && p != "/favicon.ico" {
			t.Errorf("the page asked for %s", p)
		}
	}
}
