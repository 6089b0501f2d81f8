//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package output

import "os"

// TTYWidth is the width of the terminal f is: unknown here (COLUMNS
// gives it).
func TTYWidth(*os.File) int { return 0 }
