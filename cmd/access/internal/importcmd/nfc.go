package importcmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
)

// NewNFCCards returns nfc-cards import, built on f.
func NewNFCCards(f *cmdutil.Factory) *cobra.Command {
	var pc cmdutil.Pace
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

` + cmdutil.FactsHelp("NFCCards.All, NFCCards.Import", "view:credential, edit:credential"),
		Example: "  access --fake nfc-cards import cards.csv",
		Args:    cmdutil.ExactArgs(1, "FILE.csv"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := pc.Check(); err != nil {
				return err
			}
			rows, err := readCSV(args[0], f.In, []string{"nfc_id", "alias"}, []string{"nfc_id", "alias"})
			if err != nil {
				return err
			}
			cl, err := f.PacedClient(pc.Rate)
			if err != nil {
				return err
			}
			known, aliases := map[string]string{}, map[string]string{}
			for card, err := range cl.NFCCards.All(c.Context(), &access.NFCCardListOptions{PageSize: 100}) {
				if err != nil {
					return err
				}
				known[strings.ToUpper(firstNonEmpty(card.DisplayID, card.ID))] = card.Token
				if card.Alias != "" {
					aliases[card.Alias] = card.Token
				}
			}
			run := newImportRun(f, len(rows), &pc)
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
				importCards(c.Context(), cl, todo, todoRow, results)
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
			return run.finish(c.Context())
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
func importCards(ctx context.Context, cl *access.Client, rows []access.NFCImportRow, idx []int, results []importResult) {
	answers, _, err := cl.NFCCards.Import(ctx, rows)
	var partial *access.NFCImportError
	if err != nil && !errors.As(err, &partial) {
		if ctx.Err() != nil {
			// Sent, unanswered: the cards may have been imported.
			for _, i := range idx {
				results[i].Status, results[i].Detail = "interrupted", "in flight: the card may or may not have been imported (a re-run skips it if it was)"
			}
			return
		}
		if len(rows) > 1 {
			for i := range rows {
				if ctx.Err() != nil {
					return // the rows left are not attempted
				}
				importCards(ctx, cl, rows[i:i+1], idx[i:i+1], results)
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
