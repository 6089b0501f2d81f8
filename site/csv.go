package site

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// CSVColumns are the columns [ReadUsersCSV] knows: those of
// "access users import" plus status, groups, policies and license_plates
// (lists separated by ';').
var CSVColumns = []string{"first_name", "last_name", "email", "employee_number", "onboard_time", "status", "groups", "policies", "license_plates"}

// ReadUsersCSV reads users from a CSV file with a header row (an HR
// export, as it is). Column names are matched without regard to case or
// surrounding space; unknown columns are refused, first_name and
// last_name are required. A list column that is present is managed (an
// empty cell means none); an absent one is not. onboard_time is RFC 3339
// or a date (2006-01-02, midnight UTC). Problems name file, line and
// column.
func ReadUsersCSV(r io.Reader, file string) ([]User, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &DocumentError{Problems: []Problem{{Path: "header", Pos: Position{File: file, Line: 1}, Message: "empty file (want a header row)"}}}
	}
	if err != nil {
		return nil, csvProblem(file, err)
	}
	chk := &checker{}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if !slices.Contains(CSVColumns, h) {
			chk.problems = append(chk.problems, Problem{Path: "header", Pos: Position{File: file, Line: 1, Column: i + 1},
				Message: fmt.Sprintf("unknown column %q (want %s)", h, strings.Join(CSVColumns, ","))})
			continue
		}
		col[h] = i
	}
	for _, req := range []string{"first_name", "last_name"} {
		if _, ok := col[req]; !ok {
			chk.problems = append(chk.problems, Problem{Path: "header", Pos: Position{File: file, Line: 1}, Message: "missing column " + req})
		}
	}
	if err := chk.err(); err != nil {
		return nil, err
	}
	var out []User
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvProblem(file, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(name string) (string, bool) {
			i, ok := col[name]
			if !ok || i >= len(rec) {
				return "", ok
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
		if v, _ := get("onboard_time"); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				t, err = time.Parse(time.DateOnly, v)
			}
			if err != nil {
				_, c := cr.FieldPos(col["onboard_time"])
				chk.problems = append(chk.problems, Problem{Path: "onboard_time", Pos: Position{File: file, Line: line, Column: c},
					Message: fmt.Sprintf("%q is neither RFC 3339 nor a date", v)})
				continue
			}
			u.OnboardTime = &t
		}
		out = append(out, u)
	}
	if err := chk.err(); err != nil {
		return nil, err
	}
	if out == nil {
		out = []User{}
	}
	return out, nil
}

func csvProblem(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &DocumentError{Problems: []Problem{{Path: "csv", Pos: Position{File: file, Line: pe.Line, Column: pe.Column}, Message: pe.Err.Error()}}}
	}
	return err
}
