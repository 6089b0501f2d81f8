package importcmd

import (
	"fmt"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/spf13/cobra"
)

// NewUsers returns users import, built on f.
func NewUsers(f *cmdutil.Factory) *cobra.Command {
	var dry bool
	var pc cmdutil.Pace
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

` + cmdutil.FactsHelp("Users.All, Users.Create", "view:user, edit:user"),
		Example: "  access --fake users import people.csv --dry-run",
		Args:    cmdutil.ExactArgs(1, "FILE.csv"),
		RunE: func(c *cobra.Command, args []string) error {
			if err := pc.Check(); err != nil {
				return err
			}
			rows, err := readCSV(args[0], f.In, []string{"first_name", "last_name"},
				[]string{"first_name", "last_name", "email", "employee_number", "onboard_time"})
			if err != nil {
				return err
			}
			cl, err := f.PacedClient(pc.Rate)
			if err != nil {
				return err
			}
			byEmail, byNumber := map[string]string{}, map[string]string{}
			for u, err := range cl.Users.All(c.Context(), &access.UserListOptions{PageSize: 100}) {
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
			run := newImportRun(f, len(rows), &pc)
			for i, row := range rows {
				if c.Context().Err() != nil {
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
					t, err := cmdutil.ParseWhen(ot, timeNow())
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
					u, _, err := cl.Users.Create(c.Context(), req)
					if err != nil {
						if c.Context().Err() != nil {
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
			return run.finish(c.Context())
		},
	}
	cmd.Flags().BoolVar(&dry, "dry-run", false, "print what would be done; change nothing")
	pc.Add(cmd)
	return cmd
}
