package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpExamplesWithFakeRun runs every "access --fake ..." example of
// every command's help, in a directory holding the files they name, and
// expects success. It changes the working directory, so it is not
// parallel (parallel tests start after it).
func TestHelpExamplesWithFakeRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"people.csv": "first_name,last_name,email\nGrace,Hopper,grace@example.com\n",
		"cards.csv":  "nfc_id,alias\n0A1B2C3D,lobby-1\n",
	}
	for name, content := range files {
		if err := os.WriteFile(dir+"/"+name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd) //nolint:errcheck // back to the package directory

	a := newApp(context.Background(), nil, nil, nil, func(string) string { return "" })
	var examples []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			if l := strings.TrimSpace(line); strings.HasPrefix(l, "access --fake ") {
				examples = append(examples, l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
	if len(examples) < 20 {
		t.Fatalf("found %d examples with --fake, want at least 20", len(examples))
	}
	for _, ex := range examples {
		args, err := shellWords(ex)
		if err != nil {
			t.Fatalf("%s: %v", ex, err)
		}
		var out, errb bytes.Buffer
		env := map[string]string{"ACCESS_CONFIG_DIR": dir}
		if code := run(context.Background(), args[1:], strings.NewReader(""), &out, &errb, func(k string) string { return env[k] }); code != 0 {
			t.Errorf("%s: exit %d: %s", ex, code, errb.String())
		}
	}
}
