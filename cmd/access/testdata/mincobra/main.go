// Command mincobra is the smallest command line built with cobra: a root
// command with a version. The start-up and size benchmarks of access
// (BenchmarkStartupVsCobra) compare the access binary with it.
package main

import (
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{Use: "mincobra", Version: "0.1.0", Run: func(*cobra.Command, []string) {}}
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
