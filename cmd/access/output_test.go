package main

import (
	"bytes"
	"testing"
)

func TestCountSingularAndPlural(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 rows"}, {1, "1 row"}, {2, "2 rows"}, {76, "76 rows"}} {
		if got := count(tc.n, "row"); got != tc.want {
			t.Errorf("count(%d, row) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestProgressLineGrammar(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	p := &progress{w: &b, what: "row", rows: 1, bytes: 76}
	p.draw()
	if got, want := b.String(), "\r1 row, 76 B"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	b.Reset()
	p.rows = 2
	p.draw()
	if got, want := b.String(), "\r2 rows, 76 B"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
	b.Reset()
	p = &progress{w: &b, what: "record", rows: 1}
	p.draw()
	if got, want := b.String(), "\r1 record"; got != want {
		t.Errorf("progress line %q, want %q", got, want)
	}
}
