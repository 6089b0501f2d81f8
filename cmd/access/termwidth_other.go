//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// ttyWidth is the width of the terminal f is: unknown here (COLUMNS
// gives it).
func ttyWidth(*os.File) int { return 0 }
