package main

import (
	"os"
	"strconv"

	"github.com/access-dev/access/cmd/access/internal/output"
)

// Tables fit the terminal (output.FitColumns).

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
		return output.TTYWidth(f)
	}
	return 0
}
