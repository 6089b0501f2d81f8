package output

import "unicode/utf8"

// Tables fit the terminal: on a terminal, columns wider than the screen
// allows are cut, the widest first, their cells ending in "…"; the id
// column is never cut (an id is copied whole). Piped output is not cut.

// MinColumn is the narrowest a cut column gets.
const MinColumn = 8

// Truncate cuts s to n runes, the last an ellipsis.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// FitColumns cuts the cells of table (a header row, then rows) so that
// the columns, gap apart, fit width (see FitWidths).
func FitColumns(table [][]string, keep []bool, width, gap int) {
	if width <= 0 || len(table) == 0 {
		return
	}
	widths := make([]int, len(table[0]))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	FitWidths(widths, keep, width, gap)
	for _, row := range table {
		for i := range row {
			row[i] = Truncate(row[i], widths[i])
		}
	}
}

// FitWidths narrows column widths so that the columns, gap apart, fit
// width: the widest column that may be cut (not keep[i]) loses a cell at
// a time, down to MinColumn; when nothing is left to cut the table
// overflows.
func FitWidths(widths []int, keep []bool, width, gap int) {
	total := gap * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for total > width {
		widest := -1
		for i, w := range widths {
			if !keep[i] && w > MinColumn && (widest < 0 || w > widths[widest]) {
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
