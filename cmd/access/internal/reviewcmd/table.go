package reviewcmd

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/access-dev/access/review"
)

// writeTable writes the reports for a terminal: a head per console (the
// moment, the zone, the look-back, the flags counted), then the rows.
func writeTable(w io.Writer, view review.View, reports []*review.Report) error {
	multi := len(reports) > 1
	for i, r := range reports {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if multi {
			fmt.Fprintf(w, "== %s ==\n", r.Console)
		}
		fmt.Fprintf(w, "Access review at %s, time zone %s (%s)\n", r.At.Format("2006-01-02 15:04:05 MST"), r.TimeZone, r.TimeZoneSource)
		fmt.Fprintf(w, "Last use since %s (%d system-log entries)\n", r.Since.Format("2006-01-02 15:04 MST"), r.LogEntries)
		var counts []string
		for _, fl := range review.Flags() {
			if fl == review.FlagNotInDirectory && !r.DirectoryChecked {
				continue
			}
			counts = append(counts, fmt.Sprintf("%s %d", fl, r.Counts[fl]))
		}
		fmt.Fprintf(w, "Flags: %s\n", strings.Join(counts, ", "))
		fmt.Fprintf(w, "Note: %s.\n\n", review.CredentialsNote)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		cons := func(s string) string {
			if multi {
				return s + "\t"
			}
			return ""
		}
		dash := func(s string) string {
			if s == "" {
				return "-"
			}
			return s
		}
		switch view {
		case review.ByPolicy:
			fmt.Fprintln(tw, cons("CONSOLE")+"POLICY\tSCHEDULE\tDOORS\tHOLDERS\tACTIVE\tFLAGS")
			for _, p := range r.Policies {
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%d\t%d\t%s\n", cons(r.Console), p.Name, dash(p.Schedule), dash(strings.Join(p.Doors, ", ")),
					p.Holders, p.Active, dash(strings.Join(p.Flags, " ")))
			}
		default:
			first, second := "DOOR", "PERSON"
			if view == review.ByPerson {
				first, second = "PERSON", "DOOR"
			}
			fmt.Fprintln(tw, cons("CONSOLE")+first+"\t"+second+"\tKIND\tSTATUS\tPOLICIES\tWINDOW\tNOW\tCREDENTIALS\tLAST USE\tFLAGS")
			for _, a := range r.Rows(view) {
				a1, a2 := a.Door, a.Person
				if view == review.ByPerson {
					a1, a2 = a.Person, a.Door
				}
				now := ""
				switch {
				case a.PersonID == "" || a.DoorID == "":
				case a.Open:
					now = "open"
					if a.Policy != "" {
						now += " (" + a.Policy + ")"
					}
				default:
					now = "shut: " + a.Reason
				}
				last := ""
				if a.LastUse != nil {
					last = a.LastUse.At.Format("2006-01-02 15:04") + " " + a.LastUse.Credential
				}
				creds := ""
				if a.PersonID != "" {
					creds = a.Credentials.String()
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", cons(r.Console), dash(a1), dash(a2), dash(a.Kind), dash(a.Status),
					dash(strings.Join(a.Policies, ", ")), dash(a.Window), dash(now), dash(creds), dash(last), dash(strings.Join(a.Flags, " ")))
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
