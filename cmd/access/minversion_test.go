package main

import (
	"context"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/spf13/cobra"
)

// specOperation is an operation row of full-api.md: its SDK methods and
// its minimum version ("Min" column) as the spec writes it.
type specOperation struct {
	section string
	sdk     []string
	min     string
}

var specRow = regexp.MustCompile(`^\| (\d+\.\d+) \|`)

// readFullAPI reads the operation rows of the project's spec, full-api.md
// (beside the clone, or where $ACCESS_FULL_API says); ok is false when it
// is not there.
func readFullAPI(t *testing.T) (ops []specOperation, ok bool) {
	t.Helper()
	path := os.Getenv("ACCESS_FULL_API")
	if path == "" {
		path = "../../../shared/spec/full-api.md"
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Logf("%s: %v; checking against internal/apifacts/operations.tsv only", path, err)
		return nil, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if !specRow.MatchString(line) {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) != 11 {
			t.Fatalf("full-api.md: operation row with %d cells: %s", len(cells), line)
		}
		// The SDK cell: "Users.List, Users.All (exist)", remarks in
		// parentheses (which may hold commas) dropped.
		var names strings.Builder
		depth := 0
		for _, r := range cells[1] {
			switch {
			case r == '(':
				depth++
			case r == ')':
				depth--
			case depth == 0:
				names.WriteRune(r)
			}
		}
		var sdk []string
		for _, n := range strings.Split(names.String(), ",") {
			if n = strings.TrimSpace(n); n != "" {
				sdk = append(sdk, n)
			}
		}
		ops = append(ops, specOperation{section: strings.TrimSpace(cells[0]), sdk: sdk, min: strings.TrimSpace(strings.ReplaceAll(cells[9], "**", ""))})
	}
	return ops, true
}

// commandSDKs returns every command of the tree whose help names the SDK
// methods it calls on its "SDK:" line, with those methods.
func commandSDKs() map[*cobra.Command][]string {
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	out := map[*cobra.Command][]string{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range strings.Split(c.Long, "\n") {
			if list, ok := strings.CutPrefix(l, "SDK: "); ok {
				for _, m := range strings.Split(list, ",") {
					out[c] = append(out[c], strings.TrimSpace(m))
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
	return out
}

// helpMinimum is the minimum version a command's help states ("" for
// none); more than one such line is an error.
func helpMinimum(t *testing.T, c *cobra.Command) string {
	var got []string
	for _, l := range strings.Split(c.Long, "\n") {
		if v, ok := strings.CutPrefix(l, "Minimum Access version: "); ok {
			got = append(got, v)
		}
	}
	if len(got) > 1 {
		t.Errorf("%q --help states %d minimum versions", c.CommandPath(), len(got))
	}
	return strings.Join(got, "\n")
}

// TestHelpMinimumVersionIsTheSpecs: every command that calls operations
// of the API states in its help their minimum Access version exactly as
// full-api.md does (its whole text, without Markdown backticks; for a
// command that calls several operations, each one's followed by its
// method), or none when the spec states none; every operation has a
// command; and the facts the help reads (internal/apifacts) are
// full-api.md's.
func TestHelpMinimumVersionIsTheSpecs(t *testing.T) {
	t.Parallel()
	facts := apifacts.Operations()
	spec, ok := readFullAPI(t)
	if ok {
		if len(spec) != len(facts) {
			t.Fatalf("full-api.md has %d operations, internal/apifacts %d: regenerate it with go test -run TestConformance -update . (in the module root)", len(spec), len(facts))
		}
		for i, o := range spec {
			if f := facts[i]; o.section != f.Section || strings.Join(o.sdk, ", ") != strings.Join(f.SDK, ", ") || o.min != f.Since {
				t.Errorf("§%s: full-api.md says %v since %q, internal/apifacts %v since %q", o.section, o.sdk, o.min, f.SDK, f.Since)
			}
		}
	} else {
		for _, f := range facts {
			spec = append(spec, specOperation{section: f.Section, sdk: f.SDK, min: f.Since})
		}
	}
	if len(spec) != 107 {
		t.Fatalf("%d operations, want the API's 106 and the notifications WebSocket", len(spec))
	}
	rowOf := map[string]*specOperation{}
	for i, o := range spec {
		for _, m := range o.sdk {
			rowOf[m] = &spec[i]
		}
	}
	covered := map[*specOperation]bool{}
	commands := 0
	for c, sdks := range commandSDKs() {
		var rows []*specOperation
		var methods []string
		for _, m := range sdks {
			if r := rowOf[m]; r != nil && !slices.Contains(rows, r) {
				rows, methods = append(rows, r), append(methods, m)
				covered[r] = true
			}
		}
		if len(rows) == 0 {
			continue
		}
		commands++
		var want []string
		for i, r := range rows {
			if r.min == "—" {
				continue
			}
			v := strings.ReplaceAll(r.min, "`", "")
			if len(rows) > 1 {
				v += " (" + methods[i] + ")"
			}
			want = append(want, v)
		}
		if got := helpMinimum(t, c); got != strings.Join(want, "; ") {
			t.Errorf("%q --help says minimum version %q, full-api.md %q", c.CommandPath(), got, strings.Join(want, "; "))
		}
	}
	for i, o := range spec {
		if !covered[&spec[i]] {
			t.Errorf("§%s %v: no command's help names it", o.section, o.sdk)
		}
	}
	t.Logf("%d commands checked against %d operations", commands, len(spec))
}
