package main

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/spf13/cobra"
)

// specOperation is an operation of the spec: its SDK methods and its
// minimum version ("Min" column) as the spec writes it.
type specOperation struct {
	section string
	sdk     []string
	min     string
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
// method), or none when the spec states none; and every operation has a
// command. The facts come from internal/apifacts, which the root
// package's TestConformance keeps equal to full-api.md.
func TestHelpMinimumVersionIsTheSpecs(t *testing.T) {
	t.Parallel()
	// The facts are full-api.md's: the root package's TestConformance
	// fails when internal/apifacts and the spec disagree.
	var spec []specOperation
	for _, f := range apifacts.Operations() {
		spec = append(spec, specOperation{section: f.Section, sdk: f.SDK, min: f.Since})
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
