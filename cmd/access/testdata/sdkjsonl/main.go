// Command sdkjsonl is the baseline of BenchmarkStreamProcesses: a plain
// program on the SDK that writes every user as a JSON line, as
// `access users list --all -o jsonl` does, or with -json as one indented
// JSON array, as `-o json` does. It reads ACCESS_URL, ACCESS_TOKEN and
// ACCESS_FINGERPRINT.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/access-dev/access"
)

func main() {
	c, err := access.NewClient(os.Getenv("ACCESS_URL"), os.Getenv("ACCESS_TOKEN"),
		access.WithPinnedCertificate(os.Getenv("ACCESS_FINGERPRINT")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	array := len(os.Args) > 1 && os.Args[1] == "-json"
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	n := 0
	for u, err := range c.Users.All(context.Background(), nil) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		var b []byte
		if array {
			b, err = json.MarshalIndent(u, "  ", "  ")
		} else {
			b, err = json.Marshal(u)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		switch {
		case !array:
		case n == 0:
			w.WriteString("[\n  ")
		default:
			w.WriteString(",\n  ")
		}
		w.Write(b)
		if !array {
			w.WriteByte('\n')
		}
		n++
	}
	if array {
		w.WriteString("\n]\n")
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
