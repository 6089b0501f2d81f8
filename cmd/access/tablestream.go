package main

import (
	"io"

	"github.com/access-dev/access/cmd/access/internal/output"
	"go.yaml.in/yaml/v3"
)

// writeTableStream writes the records of s as a table while they arrive
// (see output.TableWriter), with a progress line of the records fetched when
// lazy; names names the ids of its cells.
func (a *app) writeTableStream(w io.Writer, s stream, cols []string, lazy bool, names idNames) error {
	p := a.newProgress("record")
	p.Active = p.Active && lazy
	defer p.Done()
	t := &output.TableWriter{W: w, Stderr: a.stderr, Progress: p, Color: a.color(), Cols: cols, Names: names.withNames, Width: a.tableWidth(), CellOf: a.cellOf,
		Wide: a.wide, NoHeaders: a.noHeaders}
	var err error
	serr := s(func(rec any) bool {
		if err = t.Add(rec); err != nil {
			return false
		}
		p.Add(1, 0)
		return true
	})
	if e := firstErr(serr, err); e != nil {
		_ = t.Flush() // the rows that arrived before the error
		return e
	}
	return t.Close()
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
