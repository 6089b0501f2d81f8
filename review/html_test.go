package review_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/access-dev/access/internal/browsertest"

	"github.com/access-dev/access/review"
)

// TestHTMLInChromium renders the fixture's page in headless Chromium: the
// matrix has a row per person and a column per door, with the marks,
// the stale cells and every flag in place; the zone and the moment are
// printed; the page asks for nothing else and runs no script; it prints
// to a PDF.
func TestHTMLInChromium(t *testing.T) {
	r := buildFixture(t, []string{"E1", "E2", "E3"})
	var buf bytes.Buffer
	if err := review.WriteHTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "review.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := browsertest.Tab(t, 1280, 1000)

	var (
		rows, cols, scripts, resources int
		tz, at, bobMain, roof, lab     string
		flagTexts                      []string
		pdf                            []byte
	)
	err := chromedp.Run(ctx,
		chromedp.Navigate("file://"+path),
		chromedp.WaitVisible(`table.matrix`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('table.matrix tbody tr').length`, &rows),
		chromedp.Evaluate(`document.querySelectorAll('table.matrix th.door').length`, &cols),
		chromedp.Evaluate(`document.scripts.length`, &scripts),
		chromedp.Evaluate(`performance.getEntriesByType('resource').length`, &resources),
		chromedp.Text(`span.tz`, &tz, chromedp.ByQuery),
		chromedp.Text(`dd.at`, &at, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const r = document.querySelector('tr[data-person="u-bob"]');
			const i = [...document.querySelectorAll('table.matrix th.door')].findIndex(th => th.textContent === 'Main entrance');
			const td = r.querySelectorAll('td.cell')[i]; return td.className + '|' + td.textContent })()`, &bobMain),
		chromedp.Text(`td.doorflags[data-door="door-roof"]`, &roof, chromedp.ByQuery),
		chromedp.Text(`td.doorflags[data-door="door-lab"]`, &lab, chromedp.ByQuery),
		chromedp.Evaluate(`[...new Set([...document.querySelectorAll('span.flag')].map(s => s.textContent))].sort()`, &flagTexts),
		chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			pdf, _, err = page.PrintToPDF().WithLandscape(true).Do(ctx)
			return err
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 6 || cols != 4 {
		t.Errorf("matrix of %d people × %d doors, want 6 × 4", rows, cols)
	}
	if scripts != 0 || resources != 0 {
		t.Errorf("the page has %d scripts and fetched %d resources, want none", scripts, resources)
	}
	if tz != "Europe/Zurich" || at != "2026-12-02 10:00:00 CET" {
		t.Errorf("zone %q at %q, want Europe/Zurich at 2026-12-02 10:00:00 CET", tz, at)
	}
	if bobMain != "cell open stale|●" {
		t.Errorf("Bob's main-entrance cell %q, want an open, stale ●", bobMain)
	}
	if roof != "door_nobody_can_open" || lab != "door_nobody_can_open" {
		t.Errorf("door flags: roof %q, lab %q", roof, lab)
	}
	want := []string{"door_nobody_can_open", "inactive_with_credentials", "not_in_directory", "stale", "unused_policy", "visitor_past_end"}
	if strings.Join(flagTexts, ",") != strings.Join(want, ",") {
		t.Errorf("flags shown %q, want every one: %q", flagTexts, want)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF")) || len(pdf) < 1000 {
		t.Errorf("print to PDF gave %d bytes", len(pdf))
	}
}
