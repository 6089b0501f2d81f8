package output

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgressLineGrammar(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := &Progress{W: &b, What: "row", Rows: 1, Bytes: 76}
	p.Draw()
	if got, want := b.String(), "\r\x1b[K1 row, 76 B"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	b.Reset()
	p.Rows = 2
	p.Draw()
	if got, want := b.String(), "\r\x1b[K2 rows, 76 B"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	b.Reset()
	p = &Progress{W: &b, What: "record", Rows: 1}
	p.Draw()
	if got, want := b.String(), "\r\x1b[K1 record"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
}

// TestProgressBar: with a total the line is a bar of rows done out of the
// total; each result line is printed above it (the bar erased, the line
// written, the bar drawn again), and done erases it.
func TestProgressBar(t *testing.T) {
	t.Parallel()
	var errb, out bytes.Buffer
	p := &Progress{W: &errb, What: "row", Total: 3, Active: true}
	p.Draw()
	for i, line := range []string{"row 2: created A", "row 3: created B", "row 4: created C"} {
		p.Rows = int64(i + 1)
		p.Above(&out, line)
	}
	p.Done()
	const clr = "\r\x1b[K"
	want := clr + "[" + strings.Repeat(" ", 30) + "] 0/3 rows" +
		clr + clr + "[=========>" + strings.Repeat(" ", 20) + "] 1/3 rows" +
		clr + clr + "[===================>" + strings.Repeat(" ", 10) + "] 2/3 rows" +
		clr + clr + "[" + strings.Repeat("=", 30) + "] 3/3 rows" +
		clr
	if got := errb.String(); got != want {
		t.Errorf("stderr\n%q, want\n%q", got, want)
	}
	if got, want := out.String(), "row 2: created A\nrow 3: created B\nrow 4: created C\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}

	// Not on a terminal: the lines only.
	errb.Reset()
	out.Reset()
	p = &Progress{W: &errb, What: "row", Total: 3}
	p.Above(&out, "row 2: created A")
	p.Done()
	if errb.Len() != 0 || out.String() != "row 2: created A\n" {
		t.Errorf("inactive progress wrote %q on stderr and %q on stdout", errb.String(), out.String())
	}
}
