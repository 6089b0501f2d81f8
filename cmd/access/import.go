package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/spf13/cobra"
)

// defaultRate is the bulk commands' default pace, in requests per second.
const defaultRate = cmdutil.DefaultRate

// pace is the --rate of a bulk command (cmdutil.Pace).
type pace = cmdutil.Pace

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
	a      *app
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
func (a *app) newImportRun(total int, pc *pace) *importRun {
	p := a.newProgress("row")
	p.Total = int64(total)
	if pc.Rate > 0 {
		p.Note = fmt.Sprintf("paced at %g requests/s (--rate)", pc.Rate)
	} else {
		p.Note = "not paced (--rate 0)"
	}
	if p.Active {
		p.Draw()
	}
	return &importRun{a: a, text: a.format() == "table", counts: map[string]int{}, p: p}
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
	r.p.Above(r.a.stdout, line)
}

// finish prints the summary on stderr; failed rows make the exit code 1.
func (r *importRun) finish() error {
	r.p.Done()
	fmt.Fprintf(r.a.stderr, "%d created, %d skipped, %d failed", r.counts["created"], r.counts["skipped"], r.counts["failed"])
	if n := r.counts["would-create"]; n > 0 {
		fmt.Fprintf(r.a.stderr, ", %d would be created (dry run)", n)
	}
	if n := len(r.inFlight); n > 0 {
		fmt.Fprintf(r.a.stderr, ", %d in flight (may or may not exist)", n)
	}
	if n := len(r.notAttempted); n > 0 {
		fmt.Fprintf(r.a.stderr, ", %d not attempted", n)
	}
	fmt.Fprintln(r.a.stderr)
	if err := r.a.ctx.Err(); err != nil {
		// What the import did not do: a re-run does it (and skips
		// what the rows in flight did create).
		if len(r.inFlight) > 0 {
			rows := make([]int, len(r.inFlight))
			keys := make([]string, len(r.inFlight))
			for i, res := range r.inFlight {
				rows[i], keys[i] = res.Row, res.Key
			}
			fmt.Fprintf(r.a.stderr, "in flight when interrupted: %s (%s): sent, unanswered; each may or may not exist, a re-run skips it if it does\n",
				rowList(rows), strings.Join(keys, ", "))
		}
		if len(r.notAttempted) > 0 {
			fmt.Fprintf(r.a.stderr, "not attempted: %s\n", rowList(r.notAttempted))
		}
		return err
	}
	if r.counts["failed"] > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s failed", output.Count(r.counts["failed"], "row"))}
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
			return nil, usageErrorf("%v", err)
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
			return nil, usageErrorf("%s: %v", path, err)
		}
		line, _ := cr.FieldPos(0)
		recs, lines = append(recs, rec), append(lines, line)
	}
	if len(recs) == 0 {
		return nil, usageErrorf("%s: empty file (want a header row: %s)", path, strings.Join(known, ","))
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
		return nil, usageErrorf("%s: missing column %s (the header has %s; want %s)", path, strings.Join(missing, ", "),
			strings.Join(header, ","), strings.Join(known, ","))
	}
	// A row with more or fewer fields than the header is refused before
	// any request: its values would land in the wrong columns.
	for i, rec := range recs[1:] {
		if len(rec) != len(header) {
			return nil, usageErrorf("%s line %d: %d fields where the header has %d: nothing was imported", path, lines[i+1], len(rec), len(header))
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

func (a *app) usersImportCommand() *cobra.Command {
	var dry bool
	var pc pace
	cmd := &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Onboard users from a CSV file (idempotent)",
		Long: `Create a user for each row of a CSV file with the header
first_name,last_name[,email][,employee_number][,onboard_time]. A row whose email or
employee number already belongs to a user is skipped, and so is one whose email or
employee number is on an earlier row of the file, so a re-run creates only what is
missing. A row needs an email or an employee number, the key a re-run recognises
it by: a row with neither fails (create such a user with "access users create").
A failed row never stops the others. Requests are paced (--rate, default 10 a
second, what consoles are reported to tolerate). Each row gets a result line (JSONL when
piped), then a summary on stderr; failed rows make the exit code 1. --dry-run
prints the lines the run would print, "would-create" for "created" (a refusal by
the console aside).

FILE.csv is the CSV file's path, or - for standard input.

` + factsHelp("Users.All, Users.Create", "view:user, edit:user"),
		Example: "  access --fake users import people.csv --dry-run",
		Args:    exactArgs(1, "FILE.csv"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := pc.Check(); err != nil {
				return err
			}
			rows, err := readCSV(args[0], a.stdin, []string{"first_name", "last_name"},
				[]string{"first_name", "last_name", "email", "employee_number", "onboard_time"})
			if err != nil {
				return err
			}
			cl, err := a.pacedClient(&pc)
			if err != nil {
				return err
			}
			byEmail, byNumber := map[string]string{}, map[string]string{}
			for u, err := range cl.Users.All(a.ctx, &access.UserListOptions{PageSize: 100}) {
				if err != nil {
					return err
				}
				if e := strings.ToLower(firstNonEmpty(u.UserEmail, u.Email)); e != "" {
					byEmail[e] = u.ID
				}
				if u.EmployeeNumber != "" {
					byNumber[u.EmployeeNumber] = u.ID
				}
			}
			// The keys of the rows this run created (or, in a dry run,
			// would create), and those rows: a later row with the same
			// email or employee number is skipped in both.
			onRow := map[string]int{}
			created := map[int]string{}
			run := a.newImportRun(len(rows), &pc)
			for i, row := range rows {
				if a.ctx.Err() != nil {
					for j := i; j < len(rows); j++ {
						run.notAttempted = append(run.notAttempted, j+2)
					}
					break
				}
				res := importResult{Row: i + 2, Key: strings.TrimSpace(row["first_name"] + " " + row["last_name"])}
				email, num := strings.ToLower(row["email"]), row["employee_number"]
				emailKey, numKey := "email "+email, "number "+num
				switch {
				case email != "" && byEmail[email] != "":
					res.Status, res.ID, res.Detail = "skipped", byEmail[email], "email "+row["email"]+" exists"
				case num != "" && byNumber[num] != "":
					res.Status, res.ID, res.Detail = "skipped", byNumber[num], "employee number "+num+" exists"
				case email != "" && onRow[emailKey] != 0:
					r := onRow[emailKey]
					res.Status, res.ID, res.Detail = "skipped", created[r], fmt.Sprintf("email %s is on row %d", row["email"], r)
				case num != "" && onRow[numKey] != 0:
					r := onRow[numKey]
					res.Status, res.ID, res.Detail = "skipped", created[r], fmt.Sprintf("employee number %s is on row %d", num, r)
				case email == "" && num == "":
					res.Status, res.Detail = "failed", "no email or employee number: a re-run could not tell it was done (use access users create)"
				}
				if res.Status != "" {
					run.report(res)
					continue
				}
				req := &access.UserRequest{FirstName: row["first_name"], LastName: row["last_name"], UserEmail: row["email"], EmployeeNumber: num}
				if ot := row["onboard_time"]; ot != "" {
					t, err := parseWhen(ot, timeNow())
					if err != nil {
						res.Status, res.Detail = "failed", "onboard_time: "+err.Error()
						run.report(res)
						continue
					}
					req.OnboardTime = t
				}
				if req.FirstName == "" || req.LastName == "" {
					res.Status, res.Detail = "failed", "first_name and last_name must not be empty"
					run.report(res)
					continue
				}
				if dry {
					res.Status = "would-create"
				} else {
					u, _, err := cl.Users.Create(a.ctx, req)
					if err != nil {
						if a.ctx.Err() != nil {
							// Sent, unanswered: the user may exist.
							res.Status, res.Detail = "interrupted", "in flight: the user may or may not exist (a re-run skips it if it does)"
							run.report(res)
							for j := i + 1; j < len(rows); j++ {
								run.notAttempted = append(run.notAttempted, j+2)
							}
							break
						}
						res.Status, res.Detail = "failed", strings.TrimPrefix(oneLine(err.Error()), "access: ")
						run.report(res)
						continue
					}
					res.Status, res.ID = "created", u.ID
					created[res.Row] = u.ID
				}
				if email != "" {
					onRow[emailKey] = res.Row
				}
				if num != "" {
					onRow[numKey] = res.Row
				}
				run.report(res)
			}
			return run.finish()
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what would be done; change nothing")
	pc.Add(cmd)
	return cmd
}

func (a *app) nfcImportCommand() *cobra.Command {
	var pc pace
	var dry bool
	cmd := &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Import third-party NFC cards from a CSV file (idempotent)",
		Long: `Import cards from a CSV file with the header nfc_id,alias (ids in hexadecimal).
Cards whose id or alias the console already knows are skipped, and so are those
whose id or alias is on an earlier row of the file, so a re-run imports only what
is missing; a failed row never stops the others. The cards are sent in one
upload (row by row when the console refuses it), paced by --rate (default 10
requests a second). Each row gets a result line, in
the order of the file (JSONL when piped), then a summary on stderr; failed rows
make the exit code 1. --dry-run prints the lines the run would print,
"would-create" for "created" (a refusal by the console aside).

FILE.csv is the CSV file's path, or - for standard input.

` + factsHelp("NFCCards.All, NFCCards.Import", "view:credential, edit:credential"),
		Example: "  access --fake nfc-cards import cards.csv",
		Args:    exactArgs(1, "FILE.csv"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := pc.Check(); err != nil {
				return err
			}
			rows, err := readCSV(args[0], a.stdin, []string{"nfc_id", "alias"}, []string{"nfc_id", "alias"})
			if err != nil {
				return err
			}
			cl, err := a.pacedClient(&pc)
			if err != nil {
				return err
			}
			known, aliases := map[string]string{}, map[string]string{}
			for card, err := range cl.NFCCards.All(a.ctx, &access.NFCCardListOptions{PageSize: 100}) {
				if err != nil {
					return err
				}
				known[strings.ToUpper(firstNonEmpty(card.DisplayID, card.ID))] = card.Token
				if card.Alias != "" {
					aliases[card.Alias] = card.Token
				}
			}
			run := a.newImportRun(len(rows), &pc)
			results := make([]importResult, len(rows))
			idRow, aliasRow := map[string]int{}, map[string]int{} // the row of each id and alias to import
			dupOf := make([]int, len(rows))                       // the earlier row a row repeats
			var todo []access.NFCImportRow
			var todoRow []int
			for i, row := range rows {
				id, alias := strings.ToUpper(row["nfc_id"]), row["alias"]
				res := &results[i]
				*res = importResult{Row: i + 2, Key: id}
				switch {
				case id == "" || alias == "":
					res.Status, res.Detail = "failed", "nfc_id and alias must not be empty"
				case strings.Trim(id, "0123456789ABCDEF") != "":
					res.Status, res.Detail = "failed", "nfc_id must be hexadecimal"
				case known[id] != "":
					res.Status, res.ID, res.Detail = "skipped", known[id], "card exists"
				case aliases[alias] != "":
					res.Status, res.ID, res.Detail = "skipped", aliases[alias], "alias "+alias+" exists"
				case idRow[id] != 0:
					dupOf[i] = idRow[id]
					res.Status, res.Detail = "skipped", fmt.Sprintf("card is on row %d", idRow[id])
				case aliasRow[alias] != 0:
					dupOf[i] = aliasRow[alias]
					res.Status, res.Detail = "skipped", fmt.Sprintf("alias %s is on row %d", alias, aliasRow[alias])
				default:
					idRow[id], aliasRow[alias] = res.Row, res.Row
					if dry {
						res.Status = "would-create"
						break
					}
					todo = append(todo, access.NFCImportRow{NFCID: id, Alias: alias})
					todoRow = append(todoRow, i)
				}
			}
			if len(todo) > 0 {
				a.importCards(cl, todo, todoRow, results)
			}
			// A row skipped for an earlier row of the file shows the
			// token that row's card got.
			for i, first := range dupOf {
				if first != 0 && results[first-2].Status == "created" {
					results[i].ID = results[first-2].ID
				}
			}
			for _, res := range results {
				if res.Status == "" { // interrupted before it was sent
					run.notAttempted = append(run.notAttempted, res.Row)
					continue
				}
				run.report(res)
			}
			return run.finish()
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what would be done; change nothing")
	pc.Add(cmd)
	return cmd
}

// importCards imports the rows in one upload and fills in their results
// (results[idx[i]] for rows[i]); when the console refuses the whole file
// (or the SDK the rows), each row is imported alone so that one bad row
// does not stop the others.
func (a *app) importCards(cl *access.Client, rows []access.NFCImportRow, idx []int, results []importResult) {
	answers, _, err := cl.NFCCards.Import(a.ctx, rows)
	var partial *access.NFCImportError
	if err != nil && !errors.As(err, &partial) {
		if a.ctx.Err() != nil {
			// Sent, unanswered: the cards may have been imported.
			for _, i := range idx {
				results[i].Status, results[i].Detail = "interrupted", "in flight: the card may or may not have been imported (a re-run skips it if it was)"
			}
			return
		}
		if len(rows) > 1 {
			for i := range rows {
				if a.ctx.Err() != nil {
					return // the rows left are not attempted
				}
				a.importCards(cl, rows[i:i+1], idx[i:i+1], results)
			}
			return
		}
		res := &results[idx[0]]
		res.Status, res.Detail = "failed", strings.TrimPrefix(oneLine(err.Error()), "access: ")
		return
	}
	byID := map[string]access.NFCImportResult{}
	for _, r := range answers {
		byID[strings.ToUpper(r.NFCID)] = r
	}
	for i, row := range rows {
		res := &results[idx[i]]
		r, ok := byID[row.NFCID]
		switch {
		case !ok:
			res.Status, res.Detail = "failed", "the console did not answer for this row"
		case r.Token == "":
			res.Status, res.Detail = "failed", "the console refused the row"
		default:
			res.Status, res.ID = "created", r.Token
		}
	}
}

func exactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErrorf("%s: missing argument %s", c.CommandPath(), strings.Join(names[len(args):], " "))
		}
		if len(args) > n {
			return usageErrorf("%s: too many arguments", c.CommandPath())
		}
		return nil
	}
}
