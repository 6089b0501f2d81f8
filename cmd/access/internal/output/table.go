package output

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TableBlock is how many rows a table holds before it writes them: a
// table streams in blocks, so that a list of 100,000 records never is in
// memory at once.
const TableBlock = 1000

// TableWriter writes a list as aligned columns as its records arrive, in
// blocks of TableBlock rows. A column is as wide as the widest of its
// cells so far (its heading included) plus two spaces; the last column is
// not padded. A block is aligned within itself and with the blocks before
// it, except where a cell is wider than every one before it: its column
// widens from that block on. A list of up to TableBlock records is
// therefore laid out exactly as text/tabwriter lays out the whole table.
type TableWriter struct {
	W        io.Writer // stdout
	Stderr   io.Writer // where "no records" goes
	Progress *Progress // cleared before a block is written; nil: none
	Color    bool      // the heading in bold
	Cols     []string  // as given: "key" or "key:HEADING"; none: DefaultColumns
	// Names shows a cell's ids as names (nil: none); Width, when
	// positive, is the width the table is fitted to (FitWidths).
	Names func(col string, v any) any
	Width int
	// CellOf writes a cell (nil: Cell; the command line's writes times
	// as local date and time).
	CellOf func(col string, v any) string
	// Wide adds every other member of the records, in the order of JSON,
	// after the columns (-o wide); NoHeaders leaves the heading out.
	Wide, NoHeaders bool

	keys, heads []string
	widths      []int
	rows        [][]string
	started     bool // the heading is written
	buf         bytes.Buffer
}

// Add adds a record (any value; its JSON form is what the columns name).
func (t *TableWriter) Add(rec any) error {
	g, err := Generic(rec)
	if err != nil {
		return err
	}
	if t.keys == nil {
		cols := t.Cols
		if len(cols) == 0 {
			cols = DefaultColumns(g)
		}
		if t.Wide {
			cols = WideColumns(cols, rec)
		}
		t.keys, t.heads = make([]string, len(cols)), make([]string, len(cols))
		t.widths = make([]int, len(cols))
		for i, c := range cols {
			key, head, named := strings.Cut(c, ":")
			if !named {
				head = strings.ToUpper(strings.ReplaceAll(c[strings.LastIndex(c, ".")+1:], "_", " "))
			}
			t.keys[i], t.heads[i] = key, head
			if !t.NoHeaders {
				t.widths[i] = utf8.RuneCountInString(head)
			}
		}
	}
	cells := make([]string, len(t.keys))
	for i, k := range t.keys {
		v := Lookup(g, k)
		if t.Names != nil {
			v = t.Names(k, v)
		}
		if t.CellOf != nil {
			cells[i] = t.CellOf(k, v)
		} else {
			cells[i] = Cell(v)
		}
	}
	t.rows = append(t.rows, cells)
	if len(t.rows) >= TableBlock {
		return t.Flush()
	}
	return nil
}

// Flush writes the rows held, after the heading if it is not written
// yet.
func (t *TableWriter) Flush() error {
	if len(t.rows) == 0 {
		return nil
	}
	for _, r := range t.rows {
		for i, c := range r {
			t.widths[i] = max(t.widths[i], utf8.RuneCountInString(c))
		}
	}
	if t.Width > 0 {
		keep := make([]bool, len(t.keys))
		for i, k := range t.keys {
			keep[i] = k == "id"
		}
		FitWidths(t.widths, keep, t.Width, 2)
		for _, r := range t.rows {
			for i := range r {
				r[i] = Truncate(r[i], t.widths[i])
			}
		}
	}
	t.buf.Reset()
	if !t.started {
		t.started = true
		if !t.NoHeaders {
			if t.Color {
				t.buf.WriteString("\x1b[1m")
			}
			t.line(t.heads)
			if t.Color {
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
	if t.Progress == nil || !t.Progress.Drawn() {
		_, err := t.W.Write(t.buf.Bytes())
		return err
	}
	// The progress line is on the terminal: the rows take its place and
	// it is drawn again below them.
	t.Progress.Clear()
	_, err := t.W.Write(t.buf.Bytes())
	if f, ok := t.W.(interface{ Flush() error }); ok && err == nil {
		err = f.Flush()
	}
	t.Progress.Draw()
	return err
}

// line adds one row of cells to the buffer.
func (t *TableWriter) line(cells []string) {
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

// Close writes what is left; a list without records is "no records" on
// stderr.
func (t *TableWriter) Close() error {
	if err := t.Flush(); err != nil {
		return err
	}
	if !t.started {
		_, err := fmt.Fprintln(t.Stderr, "no records")
		return err
	}
	return nil
}

// WideColumns is cols and then every other top-level member of rec, in
// the order of JSON (-o wide).
func WideColumns(cols []string, rec any) []string {
	have := map[string]bool{}
	for _, c := range cols {
		key, _, _ := strings.Cut(c, ":")
		have[key] = true
	}
	out := append([]string(nil), cols...)
	for _, k := range JSONOrder(rec) {
		if !have[k] {
			out = append(out, k)
		}
	}
	return out
}
