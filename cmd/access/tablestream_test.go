package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/access-dev/access/cmd/access/internal/output"
	"go.yaml.in/yaml/v3"
)

// streamRec is a record of the stream tests, with characters JSON
// escapes and a name whose width varies.
type streamRec struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Note string `json:"note"`
}

func streamRecs(n int, name func(i int) string) []streamRec {
	out := make([]streamRec, n)
	for i := range out {
		out[i] = streamRec{ID: fmt.Sprintf("r%05d", i), Name: name(i), Note: "<a & b>"}
	}
	return out
}

// recStream yields recs one by one, calling at(i) before the i-th.
func recStream(recs []streamRec, at func(i int)) stream {
	return func(yield func(any) bool) error {
		for i, r := range recs {
			if at != nil {
				at(i)
			}
			if !yield(r) {
				return nil
			}
		}
		return nil
	}
}

func testApp(stdout io.Writer) (*app, *bytes.Buffer) {
	var errb bytes.Buffer
	return newApp(context.Background(), strings.NewReader(""), stdout, &errb, func(string) string { return "" }), &errb
}

// TestStreamedJSONIsTheMarshalledList: the json and jsonl streams write
// exactly what json.MarshalIndent of the whole list and json.Marshal of
// each record write, HTML escaping included.
func TestStreamedJSONIsTheMarshalledList(t *testing.T) {
	t.Parallel()
	recs := streamRecs(5, func(i int) string { return strings.Repeat("é", i) })
	var out bytes.Buffer
	a, _ := testApp(&out)
	if err := a.emitAs("json", recStream(recs, nil), nil); err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(recs, "", "  ")
	if got := out.String(); got != string(want)+"\n" {
		t.Errorf("json:\n%s\nwant:\n%s", got, want)
	}
	out.Reset()
	if err := a.emitAs("jsonl", recStream(recs, nil), nil); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for _, r := range recs {
		b, _ := json.Marshal(r)
		lines.Write(b)
		lines.WriteByte('\n')
	}
	if got := out.String(); got != lines.String() {
		t.Errorf("jsonl:\n%s\nwant:\n%s", got, lines.String())
	}
}

// tabwriterTable is the table text/tabwriter makes of recs' id and name
// columns, as the command wrote every table before tables streamed.
func tabwriterTable(recs []streamRec) string {
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME")
	for _, r := range recs {
		name := r.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintln(tw, r.ID+"\t"+name)
	}
	tw.Flush()
	return b.String()
}

// TestTableStreamsInBlocks: a table of up to one block is laid out as
// text/tabwriter lays it out; a longer one is written block by block
// while the records still arrive (the first rows are out before the
// 1,001st record is fetched), never holding the whole list, and a wider
// cell in a later block widens its column from that block on.
func TestTableStreamsInBlocks(t *testing.T) {
	t.Parallel()
	small := streamRecs(7, func(i int) string { return strings.Repeat("x", i*3%5) })
	var out bytes.Buffer
	a, _ := testApp(&out)
	if err := a.emitAs("table", recStream(small, nil), []string{"id", "name"}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), tabwriterTable(small); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}

	// Rows of about 100 bytes: a block is more than the 64 KiB the
	// output buffers.
	long := strings.Repeat("n", 90)
	n := 2*output.TableBlock + 10
	big := streamRecs(n, func(int) string { return long })
	out.Reset()
	written := -1
	err := a.emitAs("table", recStream(big, func(i int) {
		if i == output.TableBlock {
			written = out.Len()
		}
	}), []string{"id", "name"})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != n+1 {
		t.Fatalf("%d lines, want %d", len(lines), n+1)
	}
	first := len(strings.Join(lines[:output.TableBlock+1], "\n")) + 1 // the heading and the first block
	if written <= 0 || written > first {
		t.Errorf("when record %d was fetched, %d bytes were written, want some of the first block's %d and nothing after", output.TableBlock+1, written, first)
	}
	if got, want := out.String()[:first], tabwriterTable(big[:output.TableBlock]); got != want {
		t.Errorf("the first block is not laid out as tabwriter lays it out")
	}
	if got, want := lines[n], fmt.Sprintf("r%05d  %s", n-1, long); got != want {
		t.Errorf("last row %q, want %q", got, want)
	}
}

// TestTableWidensAColumnFromItsBlock: a first column that gets a wider
// cell in the second block is padded to it from that block on.
func TestTableWidensAColumnFromItsBlock(t *testing.T) {
	t.Parallel()
	n := output.TableBlock + 3
	recs := streamRecs(n, func(int) string { return "n" })
	recs[output.TableBlock+1].ID = "a-much-longer-id"
	var out bytes.Buffer
	a, _ := testApp(&out)
	if err := a.emitAs("table", recStream(recs, nil), []string{"id", "name"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if got, want := lines[1], "r00000  n"; got != want {
		t.Errorf("first block row %q, want %q", got, want)
	}
	if got, want := lines[output.TableBlock+1], "r01000            n"; got != want {
		t.Errorf("second block row %q, want %q", got, want)
	}
	if got, want := lines[output.TableBlock+2], "a-much-longer-id  n"; got != want {
		t.Errorf("wide row %q, want %q", got, want)
	}
}

// TestEmptyTableSaysNoRecords: an empty list writes no table and "no
// records" on stderr.
func TestEmptyTableSaysNoRecords(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	a, errb := testApp(&out)
	if err := a.emitAs("table", recStream(nil, nil), []string{"id"}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 || errb.String() != "no records\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

// TestStreamGCNests: streams running at once raise the collector's
// percentage once, and the last one to end puts back what was set
// before (not run in parallel: the percentage is the process's).
func TestStreamGCNests(t *testing.T) {
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
	r1 := streamGC()
	r2 := streamGC()
	if p := percent(); p != 200 {
		t.Fatalf("two streams: %d %%", p)
	}
	r1()
	if p := percent(); p != 200 {
		t.Fatalf("one stream left: %d %%", p)
	}
	r2()
	if p := percent(); p != 150 {
		t.Fatalf("after the streams: %d %%, want the 150 set before", p)
	}
}

// TestStreamedYAMLIsTheWholeSequence: a list written as YAML record by
// record is the document the whole list makes, nested values and
// multi-line strings included; an empty list is [].
func TestStreamedYAMLIsTheWholeSequence(t *testing.T) {
	t.Parallel()
	recs := []any{
		map[string]any{"id": "a", "tags": []any{"x", "y"}, "nested": map[string]any{"k": 1, "list": []any{map[string]any{"n": "m"}}}},
		map[string]any{"id": "b", "note": "two\nlines", "empty": []any{}, "none": nil},
		streamRec{ID: "c", Name: "- not a list", Note: "<a & b>"},
	}
	var out bytes.Buffer
	a, _ := testApp(&out)
	s := func(yield func(any) bool) error {
		for _, r := range recs {
			if !yield(r) {
				break
			}
		}
		return nil
	}
	if err := a.emitAs("yaml", stream(s), nil); err != nil {
		t.Fatal(err)
	}
	g, err := output.Generic(recs)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	enc := yaml.NewEncoder(&want)
	enc.SetIndent(2)
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	enc.Close()
	if out.String() != want.String() {
		t.Errorf("streamed:\n%s\nwhole:\n%s", out.String(), want.String())
	}
	out.Reset()
	if err := a.emitAs("yaml", recStream(nil, nil), nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != "[]\n" {
		t.Errorf("empty list: %q", out.String())
	}
}
