package review

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Document is the JSON form of a review: the reports of one or more
// consoles, one each, and the format's version. [ReadJSON] reads it back
// for [Diff].
type Document struct {
	FormatVersion string    `json:"format_version"`
	Reports       []*Report `json:"reports"`
}

// WriteJSON writes the reports as one [Document], indented.
func WriteJSON(w io.Writer, reports ...*Report) error {
	if reports == nil {
		reports = []*Report{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Document{FormatVersion: FormatVersion, Reports: reports})
}

// ReadJSON reads a [Document] that [WriteJSON] wrote; a document of
// another major format version, or none, is refused.
func ReadJSON(r io.Reader) (*Document, error) {
	var doc Document
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("review: reading a review: %w", err)
	}
	major, _, _ := strings.Cut(doc.FormatVersion, ".")
	if doc.FormatVersion == "" {
		return nil, fmt.Errorf("review: not a review document: no format_version")
	}
	if major != FormatVersion {
		return nil, fmt.Errorf("review: format_version %q: this version reads %s", doc.FormatVersion, FormatVersion)
	}
	return &doc, nil
}

// View is a direction of a review's rows in CSV and on a terminal.
type View string

// The views of a review.
const (
	// ByDoor: each door, then the people whose access covers it; a door
	// nobody's access covers has a row without a person.
	ByDoor View = "doors"
	// ByPerson: each person, then the doors; a person whose access
	// covers no door has a row without a door.
	ByPerson View = "people"
	// ByPolicy: each access policy with its doors and holders.
	ByPolicy View = "policies"
)

// CSVColumns are the columns of the CSV of the door and person views.
var CSVColumns = []string{"console", "time_zone", "at", "door", "door_id", "person", "person_id", "kind", "status",
	"policies", "schedules", "window", "holiday_groups", "open_at", "policy", "reason", "credentials", "last_use",
	"last_credential", "flags"}

// PolicyCSVColumns are the columns of the CSV of the policy view.
var PolicyCSVColumns = []string{"console", "policy", "policy_id", "schedule", "doors", "holders", "active_holders", "flags"}

// csvCell guards a cell that a spreadsheet would read as a formula (a
// name beginning with =, +, -, @, a tab or a carriage return) with a
// leading apostrophe.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// WriteCSV writes the reports' rows in the view, with a header row: the
// console and the time zone are in every row, credentials as kinds and
// counts, times in RFC 3339 in the report's zone.
func WriteCSV(w io.Writer, view View, reports ...*Report) error {
	cw := csv.NewWriter(w)
	write := func(cells []string) {
		for i := range cells {
			cells[i] = csvCell(cells[i])
		}
		_ = cw.Write(cells)
	}
	switch view {
	case ByPolicy:
		_ = cw.Write(PolicyCSVColumns)
		for _, r := range reports {
			for _, p := range r.Policies {
				write([]string{r.Console, p.Name, p.ID, p.Schedule, strings.Join(p.Doors, "; "), strconv.Itoa(p.Holders),
					strconv.Itoa(p.Active), strings.Join(p.Flags, " ")})
			}
		}
	case ByDoor, ByPerson:
		_ = cw.Write(CSVColumns)
		for _, r := range reports {
			for _, row := range r.Rows(view) {
				write(row.csv(r))
			}
		}
	default:
		return fmt.Errorf("review: unknown view %q", view)
	}
	cw.Flush()
	return cw.Error()
}

// Rows returns the report's rows in the view (ByDoor or ByPerson), with
// the rows without a person (a door nobody's access covers) or without a
// door (a person whose access covers none) in their place.
func (r *Report) Rows(view View) []Access {
	var out []Access
	if view == ByPerson {
		rows := r.ByPerson()
		i := 0
		for _, p := range r.People {
			n := 0
			for ; i < len(rows) && rows[i].PersonID == p.ID; i++ {
				out = append(out, rows[i])
				n++
			}
			if n == 0 {
				out = append(out, Access{Console: p.Console, PersonID: p.ID, Person: p.Name, Kind: p.Kind, Status: p.Status,
					VisitStart: p.VisitStart, VisitEnd: p.VisitEnd, Credentials: p.Credentials, Flags: p.Flags, Week: map[string][]string{}})
			}
		}
		return out
	}
	i := 0
	for _, d := range r.Doors {
		n := 0
		for ; i < len(r.Access) && r.Access[i].DoorID == d.ID; i++ {
			out = append(out, r.Access[i])
			n++
		}
		if n == 0 {
			out = append(out, Access{Console: d.Console, DoorID: d.ID, Door: d.Name, Flags: d.Flags, Week: map[string][]string{}})
		}
	}
	return out
}

func (a *Access) csv(r *Report) []string {
	open := ""
	if a.PersonID != "" && a.DoorID != "" {
		open = "no"
		if a.Open {
			open = "yes"
		}
	}
	var last, cred string
	if a.LastUse != nil {
		last, cred = a.LastUse.At.Format(time.RFC3339), a.LastUse.Credential
	}
	creds := ""
	if a.PersonID != "" {
		creds = a.Credentials.String()
	}
	return []string{r.Console, r.TimeZone, r.At.Format(time.RFC3339), a.Door, a.DoorID, a.Person, a.PersonID, a.Kind, a.Status,
		strings.Join(a.Policies, "; "), strings.Join(a.Schedules, "; "), a.Window, strings.Join(a.HolidayGroups, "; "), open,
		a.Policy, a.Reason, creds, last, cred, strings.Join(a.Flags, " ")}
}
