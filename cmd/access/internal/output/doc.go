// Package output is the command line's output machinery that knows no
// command: the member order of JSON kept in YAML and in a record's table
// (YAMLNode, JSONOrder), JSON filtered by a jq program (WriteJSON), the
// cells of tables (Cell, Lookup, AsTime, DefaultColumns, Generic: records
// through their JSON form), counts for people (Count, HumanBytes), the
// progress line on stderr (Progress), the table written in blocks as a
// list streams (TableWriter, WideColumns), and the fitting of table
// columns to the terminal's width (FitColumns, FitWidths, Truncate,
// TTYWidth).
//
// It is the first room of the command line's house (issue 35; the layout
// is drawn in docs/development.md): what is left of the tables, JSON, jq
// and column shapes of cmd/access moves here next. It may import the
// standard library and the output formats' modules (YAML, gojq); never
// cmd/access nor another package under cmd/access/internal (TestLayering
// in cmd/access keeps that).
package output
