package main

import (
	"os"
	"strconv"
	"unicode/utf8"
)

// Tables fit the terminal: on a terminal, columns wider than the screen
// allows are cut, the widest first, their cells ending in "…"; the id
// column is never cut (an id is copied whole). Piped output is not cut.

// minColumn is the narrowest a cut column gets.
const minColumn = 8

// tableWidth is the width tables are fitted to: $COLUMNS, else the
// terminal's; 0 (do not fit) when stdout is not a terminal.
func (a *app) tableWidth() int {
	if !a.isTerminal(a.stdout) {
		return 0
	}
	if n, err := strconv.Atoi(a.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := a.stdout.(*os.File); ok {
		return ttyWidth(f)
	}
	return 0
}

// truncate cuts s to n runes, the last an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// fitColumns cuts the cells of table (a header row, then rows) so that
// the columns, gap apart, fit width (see fitWidths).
func fitColumns(table [][]string, keep []bool, width, gap int) {
	if width <= 0 || len(table) == 0 {
		return
	}
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	fitWidths(widths, keep, width, gap)
	for _, row := range table {
		for i := range row {
			row[i] = truncate(row[i], widths[i])
		}
	}
}

// fitWidths narrows column widths so that the columns, gap apart, fit
// width: the widest column that may be cut (not keep[i]) loses a cell at
// a time, down to minColumn; when nothing is left to cut the table
// overflows.
func fitWidths(widths []int, keep []bool, width, gap int) {
	total := gap * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for total > width {
		widest := -1
		for i, w := range widths {
			if !keep[i] && w > minColumn && (widest < 0 || w > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		widths[widest]--
		total--
	}
}
