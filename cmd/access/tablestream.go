package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/access-dev/access/cmd/access/internal/output"
	"go.yaml.in/yaml/v3"
)

// tableBlock is how many rows a table holds before it writes them: a
// table streams in blocks, so that a list of 100,000 records never is in
// memory at once.
const tableBlock = 1000

// tableWriter writes a list as aligned columns as its records arrive, in
// blocks of tableBlock rows. A column is as wide as the widest of its
// cells so far (its heading included) plus two spaces; the last column is
// not padded. A block is aligned within itself and with the blocks before
// it, except where a cell is wider than every one before it: its column
// widens from that block on. A list of up to tableBlock records is
// therefore laid out exactly as text/tabwriter lays out the whole table.
type tableWriter struct {
	w      io.Writer
	stderr io.Writer
	p      *output.Progress // cleared before a block is written; nil: none
	color  bool             // the heading in bold
	cols   []string         // as given: "key" or "key:HEADING"; none: output.DefaultColumns
	// names shows a cell's ids as names (idNames.withNames); width, when
	// positive, is the width the table is fitted to (fit.go).
	names func(col string, v any) any
	width int
	// cellOf writes a cell (app.cellOf: times as local date and time).
	cellOf func(col string, v any) string
	// wide adds every other member of the records, in the order of JSON,
	// after the columns (-o wide); noHeaders leaves the heading out.
	wide, noHeaders bool

	keys, heads []string
	widths      []int
	rows        [][]string
	started     bool // the heading is written
	buf         bytes.Buffer
}

// add adds a record (any value; its JSON form is what the columns name).
func (t *tableWriter) add(rec any) error {
	g, err := output.Generic(rec)
	if err != nil {
		return err
	}
	if t.keys == nil {
		cols := t.cols
		if len(cols) == 0 {
			cols = output.DefaultColumns(g)
		}
		if t.wide {
			cols = wideColumns(cols, rec)
		}
		t.keys, t.heads = make([]string, len(cols)), make([]string, len(cols))
		t.widths = make([]int, len(cols))
		for i, c := range cols {
			key, head, named := strings.Cut(c, ":")
			if !named {
				head = strings.ToUpper(strings.ReplaceAll(c[strings.LastIndex(c, ".")+1:], "_", " "))
			}
			t.keys[i], t.heads[i] = key, head
			if !t.noHeaders {
				t.widths[i] = utf8.RuneCountInString(head)
			}
		}
	}
	cells := make([]string, len(t.keys))
	for i, k := range t.keys {
		v := output.Lookup(g, k)
		if t.names != nil {
			v = t.names(k, v)
		}
		if t.cellOf != nil {
			cells[i] = t.cellOf(k, v)
		} else {
			cells[i] = output.Cell(v)
		}
	}
	t.rows = append(t.rows, cells)
	if len(t.rows) >= tableBlock {
		return t.flush()
	}
	return nil
}

// flush writes the rows held, after the heading if it is not written
// yet.
func (t *tableWriter) flush() error {
	if len(t.rows) == 0 {
		return nil
	}
	for _, r := range t.rows {
		for i, c := range r {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	if t.width > 0 {
		keep := make([]bool, len(t.keys))
		for i, k := range t.keys {
			keep[i] = k == "id"
		}
		output.FitWidths(t.widths, keep, t.width, 2)
		for _, r := range t.rows {
			for i := range r {
				r[i] = output.Truncate(r[i], t.widths[i])
			}
		}
	}
	t.buf.Reset()
	if !t.started {
		t.started = true
		if !t.noHeaders {
			if t.color {
				t.buf.WriteString("\x1b[1m")
			}
			t.line(t.heads)
			if t.color {
				t.buf.Truncate(t.buf.Len() - 1)
				t.buf.WriteString("\x1b[0m\n")
			}
		}
	}
	for _, r := range t.rows {
		t.line(r)
	}
	clear(t.rows)
	t.rows = t.rows[:0]
	if t.p == nil || !t.p.Drawn() {
		_, err := t.w.Write(t.buf.Bytes())
		return err
	}
	// The progress line is on the terminal: the rows take its place and
	// it is drawn again below them.
	t.p.Clear()
	_, err := t.w.Write(t.buf.Bytes())
	if f, ok := t.w.(interface{ Flush() error }); ok && err == nil {
		err = f.Flush()
	}
	t.p.Draw()
	return err
}

// line adds one row of cells to the buffer.
func (t *tableWriter) line(cells []string) {
	for i, c := range cells {
		t.buf.WriteString(c)
		if i < len(cells)-1 {
			for n := t.widths[i] + 2 - utf8.RuneCountInString(c); n > 0; n-- {
				t.buf.WriteByte(' ')
			}
		}
	}
	t.buf.WriteByte('\n')
}

// close writes what is left; a list without records is "no records" on
// stderr.
func (t *tableWriter) close() error {
	if err := t.flush(); err != nil {
		return err
	}
	if !t.started {
		_, err := fmt.Fprintln(t.stderr, "no records")
		return err
	}
	return nil
}

// writeTableStream writes the records of s as a table while they arrive
// (see tableWriter), with a progress line of the records fetched when
// lazy; names names the ids of its cells.
func (a *app) writeTableStream(w io.Writer, s stream, cols []string, lazy bool, names idNames) error {
	p := a.newProgress("record")
	p.Active = p.Active && lazy
	defer p.Done()
	t := &tableWriter{w: w, stderr: a.stderr, p: p, color: a.color(), cols: cols, names: names.withNames, width: a.tableWidth(), cellOf: a.cellOf,
		wide: a.wide, noHeaders: a.noHeaders}
	var err error
	serr := s(func(rec any) bool {
		if err = t.add(rec); err != nil {
			return false
		}
		p.Add(1, 0)
		return true
	})
	if e := firstErr(serr, err); e != nil {
		_ = t.flush() // the rows that arrived before the error
		return e
	}
	return t.close()
}

// writeYAMLStream writes the records of s as one YAML sequence while they
// arrive: each record is encoded as a sequence of one item, which is the
// item as the whole sequence would hold it; no records is "[]".
func (a *app) writeYAMLStream(w io.Writer, s stream, lazy bool) error {
	p := a.newProgress("record")
	p.Active = p.Active && lazy
	defer p.Done()
	n := 0
	var err error
	serr := s(func(rec any) bool {
		var g *yaml.Node
		if g, err = output.YAMLNode(rec); err != nil { // in the order of JSON
			return false
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err = enc.Encode(&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{g}}); err == nil {
			err = enc.Close()
		}
		if err != nil {
			return false
		}
		n++
		p.Add(1, 0)
		return true
	})
	if e := firstErr(serr, err); e != nil {
		return e
	}
	if n == 0 {
		_, err = io.WriteString(w, "[]\n")
	}
	return err
}

// wideColumns is cols and then every other top-level member of rec, in
// the order of JSON (-o wide).
func wideColumns(cols []string, rec any) []string {
	have := map[string]bool{}
	for _, c := range cols {
		key, _, _ := strings.Cut(c, ":")
		have[key] = true
	}
	out := append([]string(nil), cols...)
	for _, k := range output.JSONOrder(rec) {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out
}
