// Package importcmd holds the bulk imports from CSV files: users import
// and nfc-cards import, idempotent, paced by their own --rate. It holds
// their flags, the CSV's reading and the result lines; the requests are
// the access SDK's.
//
// It may import the standard library, cobra, the access module's public
// packages and the command line's machinery (internal/cmdutil,
// internal/output); never cmd/access nor another command package
// (TestLayering in cmd/access keeps that).
package importcmd

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/output"
)

// timeNow is the clock of relative times (a variable for tests).
var timeNow = time.Now

// importResult is the outcome of one CSV row.
type importResult struct {
	Row    int    `json:"row"`
	Status string `json:"status"` // created, skipped, failed, would-create
	ID     string `json:"id,omitempty"`
	Key    string `json:"key"`
	Detail string `json:"detail,omitempty"`
}

// importRun prints per-row results and the summary.
type importRun struct {
	f      *cmdutil.Factory
	text   bool
	counts map[string]int
	p      *output.Progress
	// Of an interrupted import: the row in flight (sent, unanswered) and
	// the rows never attempted.
	inFlight     []importResult
	notAttempted []int
}

// newImportRun starts the results of an import of total rows paced by pc; on a
// terminal, stderr shows a progress bar of the rows done.
func newImportRun(f *cmdutil.Factory, total int, pc *cmdutil.Pace) *importRun {
	p := f.Progress("row")
	p.Total = int64(total)
	if pc.Rate > 0 {
		p.Note = fmt.Sprintf("paced at %g requests/s (--rate)", pc.Rate)
	} else {
		p.Note = "not paced (--rate 0)"
	}
	if p.Active {
		p.Draw()
	}
	return &importRun{f: f, text: f.Format() == "table", counts: map[string]int{}, p: p}
}

func (r *importRun) report(res importResult) {
	r.counts[res.Status]++
	if res.Status == "interrupted" {
		r.inFlight = append(r.inFlight, res)
	}
	r.p.Rows++
	var line string
	if r.text {
		line = fmt.Sprintf("row %d: %s %s", res.Row, res.Status, res.Key)
		if res.ID != "" {
			line += " (" + res.ID + ")"
		}
		if res.Detail != "" {
			line += ": " + res.Detail
		}
	} else {
		b, _ := json.Marshal(res)
		line = string(b)
	}
	r.p.Above(r.f.Out, line)
}

// finish prints the summary on stderr; failed rows make the exit code 1.
func (r *importRun) finish(ctx context.Context) error {
	r.p.Done()
	fmt.Fprintf(r.f.ErrOut, "%d created, %d skipped, %d failed", r.counts["created"], r.counts["skipped"], r.counts["failed"])
	if n := r.counts["would-create"]; n > 0 {
		fmt.Fprintf(r.f.ErrOut, ", %d would be created (dry run)", n)
	}
	if n := len(r.inFlight); n > 0 {
		fmt.Fprintf(r.f.ErrOut, ", %d in flight (may or may not exist)", n)
	}
	if n := len(r.notAttempted); n > 0 {
		fmt.Fprintf(r.f.ErrOut, ", %d not attempted", n)
	}
	fmt.Fprintln(r.f.ErrOut)
	if err := ctx.Err(); err != nil {
		// What the import did not do: a re-run does it (and skips
		// what the rows in flight did create).
		if len(r.inFlight) > 0 {
			rows := make([]int, len(r.inFlight))
			keys := make([]string, len(r.inFlight))
			for i, res := range r.inFlight {
				rows[i], keys[i] = res.Row, res.Key
			}
			fmt.Fprintf(r.f.ErrOut, "in flight when interrupted: %s (%s): sent, unanswered; each may or may not exist, a re-run skips it if it does\n",
				rowList(rows), strings.Join(keys, ", "))
		}
		if len(r.notAttempted) > 0 {
			fmt.Fprintf(r.f.ErrOut, "not attempted: %s\n", rowList(r.notAttempted))
		}
		return err
	}
	if r.counts["failed"] > 0 {
		return &cmdutil.ExitError{Code: 1, Err: fmt.Errorf("%s failed", output.Count(r.counts["failed"], "row"))}
	}
	return nil
}

// rowList writes row numbers as ranges: "row 4", "rows 5-9, 12".
func rowList(rows []int) string {
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		for j+1 < len(rows) && rows[j+1] == rows[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, fmt.Sprint(rows[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", rows[i], rows[j]))
		}
		i = j + 1
	}
	if len(rows) == 1 {
		return "row " + parts[0]
	}
	return "rows " + strings.Join(parts, ", ")
}

// readCSV reads a CSV file with a header row and checks the required
// columns; it returns the rows as maps of normalised column names.
func readCSV(path string, stdin io.Reader, required, known []string) ([]map[string]string, error) {
	var r io.Reader
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, cmdutil.UsageErrorf("%v", err)
		}
		defer f.Close()
		r = f
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var recs [][]string
	var lines []int // the line each record starts on
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, cmdutil.UsageErrorf("%s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		recs, lines = append(recs, rec), append(lines, line)
	}
	if len(recs) == 0 {
		return nil, cmdutil.UsageErrorf("%s: empty file (want a header row: %s)", path, strings.Join(known, ","))
	}
	header := make([]string, len(recs[0]))
	have := map[string]bool{}
	for i, h := range recs[0] {
		h = strings.ToLower(strings.NewReplacer(" ", "_", "-", "_").Replace(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))))
		header[i] = h
		have[h] = true
	}
	var missing []string
	for _, c := range required {
		if !have[c] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, cmdutil.UsageErrorf("%s: missing column %s (the header has %s; want %s)", path, strings.Join(missing, ", "),
			strings.Join(header, ","), strings.Join(known, ","))
	}
	// A row with more or fewer fields than the header is refused before
	// any request: its values would land in the wrong columns.
	for i, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, cmdutil.UsageErrorf("%s line %d: %d fields where the header has %d: nothing was imported", path, lines[i+1], len(rec), len(header))
		}
	}
	rows := make([]map[string]string, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, v := range rec {
			if i < len(header) {
				m[header[i]] = strings.TrimSpace(v)
			}
		}
		rows = append(rows, m)
	}
	return rows, nil
}

// oneLine joins the lines and spaces of s into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
