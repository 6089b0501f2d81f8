package output

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFitColumns(t *testing.T) {
	table := [][]string{
		{"ID", "NAME", "RESOURCES"},
		{"ce201553-c306-416f-a53f-406efc5822cb", "Weekend security", "Main entrance,Office floors,Server room"},
	}
	FitColumns(table, []bool{true, false, false}, 70, 2)
	// 36 + 2 + 16 + 2 + 39 = 95: the widest cuttable column goes first,
	// then both, until 70 fit; the id is kept whole.
	assert.Equal(t, []string{"ce201553-c306-416f-a53f-406efc5822cb", "Weekend securi…", "Main entrance,…"}, table[1])
	for _, row := range table {
		n := 0
		for _, c := range row {
			n += len([]rune(c))
		}
		assert.LessOrEqual(t, n+4, 70)
	}
	// Too narrow for anything but the kept column: cut to MinColumn, no further.
	narrow := [][]string{{"ce201553-c306-416f-a53f-406efc5822cb", "Main entrance,Office floors"}}
	FitColumns(narrow, []bool{true, false}, 20, 2)
	assert.Equal(t, []string{"ce201553-c306-416f-a53f-406efc5822cb", "Main en…"}, narrow[0])
	// Width 0: not a terminal, nothing cut.
	wide := [][]string{{"a very long cell indeed"}}
	FitColumns(wide, []bool{false}, 0, 2)
	assert.Equal(t, "a very long cell indeed", wide[0][0])
	assert.Equal(t, "Zürich…", Truncate("Zürich Hauptbahnhof", 7))
}
