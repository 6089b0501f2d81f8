package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/itchyny/gojq"
	"go.yaml.in/yaml/v3"
)

// stream is a lazily fetched list: it calls yield for each record and
// stops when yield returns false or an error occurs.
type stream func(yield func(any) bool) error

// isTerminal reports whether w (a stream) is a terminal. ACCESS_FORCE_TTY=1 makes
// every stream count as one (for tests of the terminal output).
func (a *app) isTerminal(w any) bool {
	if a.getenv("ACCESS_FORCE_TTY") == "1" {
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// color reports whether stdout gets colours: only on a terminal, never
// with NO_COLOR, never on a dumb one (TERM=dumb: no escape sequences).
func (a *app) color() bool {
	_, noColor := lookupEnv(a.getenv, "NO_COLOR")
	return !noColor && !a.dumbTerminal() && a.isTerminal(a.stdout)
}

// dumbTerminal reports whether the terminal takes no escape sequences
// (TERM=dumb: Emacs shells, some CI logs).
func (a *app) dumbTerminal() bool { return a.getenv("TERM") == "dumb" }

func lookupEnv(getenv func(string) string, key string) (string, bool) {
	v := getenv(key)
	return v, v != ""
}

// format is the output format of this run.
func (a *app) format() string {
	if a.output != "" {
		return a.output
	}
	if a.jq == "" && a.isTerminal(a.stdout) {
		return "table"
	}
	return "json"
}

// emit writes a command's result in the chosen format. cols names the
// table's columns (JSON member names, dotted for nested ones).
func (a *app) emit(v any, cols []string) error {
	return a.emitAs(a.format(), v, cols)
}

// emitNamed is emit with names for the ids of a table's cells (the
// command's own, from loadTableNames).
func (a *app) emitNamed(v any, cols []string, names idNames) error {
	return a.render(a.stdout, a.format(), v, cols, names)
}

// emitAs is emit in a given format.
func (a *app) emitAs(format string, v any, cols []string) error {
	return a.emitTo(a.stdout, format, v, cols)
}

// emitTo is emitAs to out (a table is still fitted to stdout's width).
func (a *app) emitTo(out io.Writer, format string, v any, cols []string) error {
	return a.render(out, format, v, cols, nil)
}

// render is emitTo with names for the ids of a table's cells.
func (a *app) render(out io.Writer, format string, v any, cols []string, names idNames) error {
	if v == nil {
		return nil
	}
	w := bufio.NewWriterSize(out, 64<<10)
	defer w.Flush()
	var jq *gojq.Code
	if a.jq != "" {
		q, err := gojq.Parse(a.jq)
		if err != nil {
			return usageErrorf("--jq: %v", err)
		}
		if jq, err = gojq.Compile(q); err != nil {
			return usageErrorf("--jq: %v", err)
		}
	}
	s, isStream := v.(stream)
	lazy := isStream // a list still being fetched: progress is worth showing
	if lazy && a.getenv("GOGC") == "" {
		// A list being fetched allocates per record and keeps little. The
		// command's own tree (about 1 MiB that stays live) leaves a third
		// less room under Go's 4 MiB minimum heap goal than a plain SDK
		// program has, so it would collect half again as often: while a
		// list streams, the collector runs at 200 % instead of 100 %
		// (GOGC, when set, decides instead).
		defer streamGC()()
	}
	if !isStream {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() != reflect.Uint8 {
			s = sliceStream(rv)
			isStream = true
		}
	}
	switch format {
	case "jsonl":
		if !isStream {
			return output.WriteJSON(a.ctx, w, v, jq, false)
		}
		p := a.newProgress("record")
		p.Active = p.Active && lazy
		defer p.Done()
		cw := &countingWriter{w: w}
		// One encoder for every record: each line is encoded in the
		// encoder's own buffer and written once, with no slice made per
		// record (the same bytes as json.Marshal and a newline).
		enc := json.NewEncoder(cw)
		var err error
		serr := s(func(rec any) bool {
			if jq != nil {
				err = output.WriteJSON(a.ctx, cw, rec, jq, false)
			} else {
				err = enc.Encode(rec)
			}
			if err != nil {
				return false
			}
			p.Add(1, cw.n)
			return true
		})
		return firstErr(serr, err)
	case "yaml":
		if isStream {
			return a.writeYAMLStream(w, s, lazy)
		}
		g, err := output.YAMLNode(v) // in the order of JSON
		if err != nil {
			return err
		}
		enc := yaml.NewEncoder(w)
		enc.SetIndent(2)
		if err := enc.Encode(g); err != nil {
			return err
		}
		return enc.Close()
	case "table":
		if isStream { // rows written as they arrive (tablestream.go)
			return a.writeTableStream(w, s, cols, lazy, names)
		}
		return a.writeTable(w, v, cols, names)
	default: // json
		if !isStream || jq != nil {
			all, err := a.collect(v, s, isStream, lazy)
			if err != nil {
				return err
			}
			return output.WriteJSON(a.ctx, w, all, jq, true)
		}
		// Stream the array: records are written as they arrive.
		p := a.newProgress("record")
		p.Active = p.Active && lazy
		defer p.Done()
		cw := &countingWriter{w: w}
		first := true
		var err error
		io.WriteString(cw, "[")
		// One encoder and one buffer for every record (the bytes of
		// json.MarshalIndent(rec, "  ", "  "), and a newline).
		var rb bytes.Buffer
		enc := json.NewEncoder(&rb)
		enc.SetIndent("  ", "  ")
		serr := s(func(rec any) bool {
			rb.Reset()
			if err = enc.Encode(rec); err != nil {
				return false
			}
			if !first {
				io.WriteString(cw, ",")
			}
			first = false
			io.WriteString(cw, "\n  ")
			cw.Write(rb.Bytes()[:rb.Len()-1])
			p.Add(1, cw.n)
			return true
		})
		if e := firstErr(serr, err); e != nil {
			io.WriteString(cw, "\n]\n")
			return e
		}
		if first {
			_, err = io.WriteString(cw, "]\n")
		} else {
			_, err = io.WriteString(cw, "\n]\n")
		}
		return err
	}
}

// streamGCState counts the lists streaming at once (tests run several in
// one process), so that the first raises the collector's percentage and
// the last puts back what it was.
var streamGCState struct {
	sync.Mutex
	n, old int
}

// streamGC sets the collector to 200 % until the returned function is
// called.
func streamGC() (restore func()) {
	g := &streamGCState
	g.Lock()
	defer g.Unlock()
	if g.n == 0 {
		g.old = debug.SetGCPercent(200)
	}
	g.n++
	return func() {
		g.Lock()
		defer g.Unlock()
		if g.n--; g.n == 0 {
			debug.SetGCPercent(g.old)
		}
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func sliceStream(rv reflect.Value) stream {
	return func(yield func(any) bool) error {
		for i := 0; i < rv.Len(); i++ {
			if !yield(rv.Index(i).Interface()) {
				return nil
			}
		}
		return nil
	}
}

// collect turns a stream into a slice (an empty list is [], not null),
// with a progress line of the records fetched.
func (a *app) collect(v any, s stream, isStream, lazy bool) (any, error) {
	if !isStream {
		return v, nil
	}
	p := a.newProgress("record")
	p.Active = p.Active && lazy
	defer p.Done()
	all := []any{}
	err := s(func(rec any) bool {
		all = append(all, rec)
		p.Add(1, 0)
		return true
	})
	return all, err
}

// writeTable writes records as aligned columns. A single record is
// written as KEY: VALUE lines; names names the ids of its cells.
func (a *app) writeTable(w io.Writer, v any, cols []string, names idNames) error {
	g, err := output.Generic(v)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	switch x := g.(type) {
	case []any: // a list: the rows of a streamed table (tablestream.go)
		return a.writeTableStream(w, sliceStream(reflect.ValueOf(x)), cols, false, names)
	case map[string]any:
		keys := cols
		if len(keys) == 0 {
			keys = output.JSONOrder(v) // the order of JSON output
		}
		table := make([][]string, len(keys))
		for i, k := range keys {
			// A column given as path:HEADER (up_id:PARENT) is the member at
			// path, labelled header, as in a list's table.
			path, head, named := strings.Cut(k, ":")
			label := path
			if named {
				label = strings.ToLower(head)
			}
			table[i] = []string{label + ":", a.cellOf(path, names.withNames(path, output.Lookup(x, path)))}
		}
		output.FitColumns(table, []bool{true, false}, a.tableWidth(), 2)
		for _, row := range table {
			fmt.Fprintf(tw, "%s\t%s\n", row[0], row[1])
		}
		tw.Flush()
		_, err = w.Write(buf.Bytes())
		return err
	default:
		_, err = fmt.Fprintln(w, output.Cell(x))
		return err
	}
}

// cellOf is the table cell of the member at path: a time as a local date
// and time (the zone of $TZ, else the system's), anything else by cell.
// JSON and YAML keep the console's values.
func (a *app) cellOf(path string, v any) string {
	if output.IsTimeKey(path[strings.LastIndex(path, ".")+1:]) {
		if t, ok := output.AsTime(v); ok {
			if t.IsZero() {
				return "-"
			}
			return t.In(a.location()).Format(time.DateTime)
		}
	}
	return output.Cell(v)
}

// location is the time zone of the tables: $TZ, else the system's.
func (a *app) location() *time.Location {
	if tz := a.getenv("TZ"); tz != "" {
		if loc, err := time.LoadLocation(tz); err == nil {
			return loc
		}
	}
	return time.Local
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// newProgress is the progress line of what ("row", "record") on stderr,
// drawn only when stderr is a terminal that takes escape sequences.
func (a *app) newProgress(what string) *output.Progress {
	return &output.Progress{W: a.stderr, What: what, Active: a.isTerminal(a.stderr) && !a.dumbTerminal()}
}
