package site

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// CSVColumns are the columns [ReadUsersCSV] knows: those of
// "access users import" plus status, groups, policies and license_plates
// (lists separated by ';').
var CSVColumns = []string{"first_name", "last_name", "email", "employee_number", "onboard_time", "status", "groups", "policies", "license_plates"}

// CSVOptions say how [ReadUsersCSV] reads an HR export as it is; nil (or
// the zero value) reads comma-separated values whose header names the
// columns as [CSVColumns] does.
type CSVOptions struct {
	// Delimiter separates the fields: 0 for ',', ';' for the exports of
	// European spreadsheets. It cannot be '"', '\r', '\n' or a space.
	Delimiter rune
	// Columns maps a column of [CSVColumns] to the header of the file's
	// column that holds it, e.g. "employee_number": "Personalnummer";
	// headers are matched without regard to case or surrounding space, and
	// a column it does not map is found by its own name. With a mapping,
	// the file's columns that are neither mapped nor one of CSVColumns
	// are ignored (the mapping names what matters); without one they are
	// refused, so that a misspelt column does not go unnoticed.
	Columns map[string]string
}

// maxCSVProblems bounds the problems one file reports; the rest are
// counted.
const maxCSVProblems = 100

// ReadUsersCSV reads users from a CSV file with a header row (an HR
// export, as it is); opts may be nil. Column names are matched without
// regard to case or surrounding space; unknown columns are refused (but
// see [CSVOptions].Columns), first_name and last_name are required. A list
// column that is present is managed (an empty cell means none); an absent
// one is not. onboard_time is RFC 3339 or a date (2006-01-02, midnight
// UTC).
//
// Each problem names the file and the line of the file (1-based, the
// header and any quoted field over several lines counted), and the column
// where it is one field's: a row whose number of fields is not the
// header's (its Err is [csv.ErrFieldCount]: such a row would otherwise
// empty its user's managed lists), a user without first or last name or
// without both employee number and email, a bad status or onboard_time,
// a user key (see [User.Key]) or an email that an earlier row has, with
// that row's line too.
func ReadUsersCSV(r io.Reader, file string, opts *CSVOptions) ([]User, error) {
	users, _, err := ReadUsersCSVWithLocator(r, file, opts)
	return users, err
}

// ReadUsersCSVWithLocator is [ReadUsersCSV], and returns a [Locator] that
// places "users[i]" (i indexes the users returned) and its members at
// their line and column of the file. A caller that appends the users to a
// document's shifts the index.
func ReadUsersCSVWithLocator(r io.Reader, file string, opts *CSVOptions) ([]User, Locator, error) {
	if opts == nil {
		opts = &CSVOptions{}
	}
	chk := &csvChecker{file: file}
	delim := opts.Delimiter
	if delim == 0 {
		delim = ','
	}
	if delim == '"' || delim == '\r' || delim == '\n' || delim == ' ' || delim == utf8.RuneError || !utf8.ValidRune(delim) {
		chk.add(Problem{Path: "delimiter", Message: fmt.Sprintf("%q cannot separate fields", delim)})
	}
	want := map[string]string{} // column -> normalised header
	for _, c := range CSVColumns {
		want[c] = c
	}
	mapped := map[string]string{}
	for _, c := range sortedKeys(opts.Columns) {
		h := normHeader(opts.Columns[c])
		switch {
		case !slices.Contains(CSVColumns, c):
			chk.add(Problem{Path: "columns." + c, Message: fmt.Sprintf("unknown column %q (want %s)", c, strings.Join(CSVColumns, ","))})
		case h == "":
			chk.add(Problem{Path: "columns." + c, Message: "a column's header is required"})
		case mapped[h] != "":
			chk.add(Problem{Path: "columns." + c, Message: fmt.Sprintf("the header %q is mapped to %s already", opts.Columns[c], mapped[h])})
		default:
			mapped[h] = c
			want[c] = h
		}
	}
	if err := chk.err(); err != nil {
		return nil, nil, err
	}
	cr := csv.NewReader(r)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, nil, &DocumentError{Problems: []Problem{{Path: "header", Pos: Position{File: file, Line: 1}, Message: "empty file (want a header row)"}}}
	}
	if err != nil {
		return nil, nil, csvProblem(file, err)
	}
	headerLine, _ := cr.FieldPos(0)
	col := map[string]int{}
	for i, h := range header {
		h = normHeader(h)
		c := mapped[h]
		if c == "" && want[h] == h {
			c = h
		}
		_, dup := col[c]
		line, column := cr.FieldPos(i)
		switch {
		case c == "" && len(opts.Columns) > 0:
			continue // not a column the mapping or the names ask for
		case c == "":
			chk.add(Problem{Path: "header", Pos: Position{File: file, Line: line, Column: column},
				Message: fmt.Sprintf("unknown column %q (want %s)", h, strings.Join(CSVColumns, ","))})
			continue
		case dup:
			chk.add(Problem{Path: "header", Pos: Position{File: file, Line: line, Column: column}, Message: fmt.Sprintf("the column %q appears twice", h)})
			continue
		}
		col[c] = i
	}
	for _, req := range []string{"first_name", "last_name"} {
		if _, ok := col[req]; !ok {
			msg := "missing column " + req
			if want[req] != req {
				msg += fmt.Sprintf(" (mapped to %q)", opts.Columns[req])
			}
			chk.add(Problem{Path: "header", Pos: Position{File: file, Line: headerLine}, Message: msg})
		}
	}
	if err := chk.err(); err != nil {
		return nil, nil, err
	}
	type row struct {
		line int
		cols map[string]int // column -> column of the file's line
	}
	var out []User
	var rows []row
	keys, emails := map[string]int{}, map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, csv.ErrFieldCount) {
			var de *DocumentError
			if !errors.As(csvProblem(file, err), &de) {
				return nil, nil, err
			}
			chk.add(de.Problems[0])
			break
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			chk.add(Problem{Path: "row", Pos: Position{File: file, Line: line}, Err: csv.ErrFieldCount,
				Message: fmt.Sprintf("the row has %d fields, the header %d", len(rec), len(header))})
			continue
		}
		at := func(name string) Position {
			l, c := cr.FieldPos(col[name])
			return Position{File: file, Line: l, Column: c}
		}
		get := func(name string) (string, bool) {
			i, ok := col[name]
			if !ok {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		lst := func(name string) []string {
			v, ok := get(name)
			if !ok {
				return nil
			}
			out := []string{}
			for _, p := range strings.Split(v, ";") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
			return out
		}
		u := User{Groups: lst("groups"), Policies: lst("policies"), LicensePlates: lst("license_plates")}
		u.FirstName, _ = get("first_name")
		u.LastName, _ = get("last_name")
		u.Email, _ = get("email")
		u.EmployeeNumber, _ = get("employee_number")
		u.Status, _ = get("status")
		u.Status = strings.ToUpper(u.Status)
		n := chk.n
		for _, req := range []string{"first_name", "last_name"} {
			if v, _ := get(req); v == "" {
				chk.add(Problem{Path: req, Pos: at(req), Message: req + " is required"})
			}
		}
		switch u.Status {
		case "", "ACTIVE", "DEACTIVATED", "PENDING":
		default:
			chk.add(Problem{Path: "status", Pos: at("status"), Message: fmt.Sprintf("status %q is not ACTIVE, DEACTIVATED or PENDING", u.Status)})
		}
		if v, _ := get("onboard_time"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				t, err = time.Parse(time.DateOnly, v)
			}
			if err != nil {
				chk.add(Problem{Path: "onboard_time", Pos: at("onboard_time"), Message: fmt.Sprintf("%q is neither RFC 3339 nor a date", v)})
			} else {
				u.OnboardTime = &t
			}
		}
		switch k := u.Key(); {
		case k == "":
			chk.add(Problem{Path: "row", Pos: Position{File: file, Line: line}, Message: "a user needs an employee_number or an email to be managed"})
		case keys[k] != 0:
			name := "employee_number"
			if u.EmployeeNumber == "" {
				name = "email"
			}
			chk.add(Problem{Path: name, Pos: at(name), Message: fmt.Sprintf("duplicate user %q (also line %d)", k, keys[k])})
		default:
			keys[k] = line
			if e := strings.ToLower(u.Email); e != "" && emails[e] != 0 {
				chk.add(Problem{Path: "email", Pos: at("email"), Message: fmt.Sprintf("duplicate email %q (also line %d)", u.Email, emails[e])})
			} else if e != "" {
				emails[e] = line
			}
		}
		if chk.n > n {
			continue
		}
		r := row{line: line, cols: map[string]int{}}
		for c, i := range col {
			_, r.cols[c] = cr.FieldPos(i)
		}
		out = append(out, u)
		rows = append(rows, r)
	}
	if err := chk.err(); err != nil {
		return nil, nil, err
	}
	if out == nil {
		out = []User{}
	}
	loc := func(path string) Position {
		var i int
		var rest string
		if _, err := fmt.Sscanf(path, "users[%d]", &i); err != nil || i < 0 || i >= len(rows) {
			return Position{File: file}
		}
		_, rest, _ = strings.Cut(path, "]")
		p := Position{File: file, Line: rows[i].line}
		member, _, _ := strings.Cut(strings.TrimPrefix(rest, "."), "[")
		if c, ok := rows[i].cols[member]; ok && member != "" {
			p.Column = c
		}
		return p
	}
	return out, loc, nil
}

func normHeader(h string) string {
	return strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
}

// csvChecker gathers the problems of one file, at most maxCSVProblems of
// them, then counts the rest.
type csvChecker struct {
	file     string
	problems []Problem
	n        int
}

func (c *csvChecker) add(p Problem) {
	c.n++
	if p.Pos.File == "" {
		p.Pos.File = c.file
	}
	if len(c.problems) < maxCSVProblems {
		c.problems = append(c.problems, p)
	}
}

func (c *csvChecker) err() error {
	if c.n == 0 {
		return nil
	}
	probs := c.problems
	if more := c.n - len(probs); more > 0 {
		probs = append(probs, Problem{Path: "csv", Pos: Position{File: c.file}, Message: fmt.Sprintf("%d more problems not shown", more)})
	}
	return &DocumentError{Problems: probs}
}

func csvProblem(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &DocumentError{Problems: []Problem{{Path: "csv", Pos: Position{File: file, Line: pe.Line, Column: pe.Column}, Message: pe.Err.Error(), Err: pe.Err}}}
	}
	return err
}
