package reviewcmd

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/review"
)

func diffCommand(f *cmdutil.Factory) *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "What changed between two saved reviews (granted, revoked, widened, narrowed, new credentials)",
		Long: `diff compares two reviews saved with -o json (e.g. last quarter's and this one's), row by row (a
console, person and door): access granted and revoked, weekly windows or visits widened and narrowed,
and people holding more credentials of a kind.

  OLD.json  the earlier review, as "access review ... -o json" wrote it
  NEW.json  the later review

Exit codes: 0 when the reviews have the same access, 5 when they differ (as plan --detailed-exitcode),
2 when a file is not a review.`,
		Example: "  access review people -o json > 2026-Q3.json\n  access review diff 2026-Q3.json 2026-Q4.json",
		Args:    cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "", "table", "json":
			default:
				return cmdutil.UsageErrorf("unknown output format %q for review diff: want table or json", format)
			}
			var docs [2]*review.Document
			for i, path := range args {
				fh, err := os.Open(path)
				if err != nil {
					return cmdutil.UsageErrorf("%v", err)
				}
				docs[i], err = review.ReadJSON(fh)
				fh.Close()
				if err != nil {
					return cmdutil.UsageErrorf("%s: %v", path, err)
				}
			}
			changes := review.Diff(docs[0], docs[1])
			if format == "" {
				format = "json"
				if f.IsTerminal != nil && f.IsTerminal(f.Out) {
					format = "table"
				}
			}
			if format == "json" {
				if changes == nil {
					changes = []review.Change{}
				}
				if err := f.PrintAs(f.Out, "json", changes, nil); err != nil {
					return err
				}
			} else {
				for _, ch := range changes {
					fmt.Fprintln(f.Out, ch.String())
				}
			}
			if len(changes) == 0 {
				if format == "table" {
					fmt.Fprintln(f.Out, "No changes: the reviews have the same access.")
				}
				return nil
			}
			return cmdutil.Exit(cmdutil.ExitChanges, errors.New(summary(changes)))
		},
	}
	c.Flags().StringVarP(&format, "output", "o", "", "output format: table or json (default table on a terminal, json otherwise)")
	return c
}

// summary counts the changes by kind: "3 changes: 1 granted, 2 revoked".
func summary(changes []review.Change) string {
	var parts []string
	for _, k := range []string{review.ChangeGranted, review.ChangeRevoked, review.ChangeWidened, review.ChangeNarrowed, review.ChangeNewCredentials} {
		n := 0
		for _, c := range changes {
			if c.Kind == k {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	s := "changes"
	if len(changes) == 1 {
		s = "change"
	}
	return fmt.Sprintf("%d %s between the reviews: %s", len(changes), s, strings.Join(parts, ", "))
}
