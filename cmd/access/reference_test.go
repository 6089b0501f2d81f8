package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// The generated command reference: docs/cli holds one Markdown page per
// command and docs/man one man page per command, both made from the
// command tree by cobra/doc. Regenerate them after changing a command:
//
//	go test ./cmd/access -run TestReference -update
//
//go:generate go test -run ^TestReference$ -update .

// referenceDirs are the checked-in reference's directories, relative to
// this package, and the file name suffix each holds.
var referenceDirs = []struct{ dir, suffix string }{
	{filepath.Join("..", "..", "docs", "cli"), ".md"},
	{filepath.Join("..", "..", "docs", "man"), ".1"},
}

// referenceDate is the date the man pages carry, fixed so that the
// generated reference is the same on every run.
var referenceDate = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// The -update flag, shared with any other test file of the package that
// registers it first.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the generated files (docs/cli, docs/man) from the code")
	}
}

// updatingReference reports whether -update was given.
func updatingReference() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// referenceRoot builds the command tree as a run does (newApp and
// rootCommand), with an empty environment, no streams, and the
// auto-generated date footer off.
func referenceRoot() *cobra.Command {
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	root := a.rootCommand()
	root.DisableAutoGenTag = true
	return root
}

// genReference writes the Markdown pages into dir/cli and the man pages
// into dir/man, from a fresh command tree, and returns the files written
// (relative to dir, slash-separated) with their contents.
func genReference(dir string) (map[string][]byte, error) {
	cliDir, manDir := filepath.Join(dir, "cli"), filepath.Join(dir, "man")
	for _, d := range []string{cliDir, manDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := doc.GenMarkdownTree(referenceRoot(), cliDir); err != nil {
		return nil, err
	}
	date := referenceDate
	header := &doc.GenManHeader{Title: "ACCESS", Section: "1", Date: &date, Source: "access", Manual: "access manual"}
	if err := doc.GenManTree(referenceRoot(), header, manDir); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, sub := range []string{"cli", "man"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				return nil, err
			}
			files[sub+"/"+e.Name()] = b
		}
	}
	return files, nil
}

// readReference reads the checked-in reference: the files of
// referenceDirs with their suffix, keyed as genReference keys them.
func readReference(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, rd := range referenceDirs {
		entries, err := os.ReadDir(rd.dir)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), rd.suffix) {
				continue
			}
			b, err := os.ReadFile(filepath.Join(rd.dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[filepath.Base(rd.dir)+"/"+e.Name()] = b
		}
	}
	return files
}

// TestReference fails when docs/cli or docs/man differ from what the
// command tree generates (a page changed, missing or left over); with
// -update it rewrites them.
func TestReference(t *testing.T) {
	got, err := genReference(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if updatingReference() {
		writeReference(t, got)
		return
	}
	want := readReference(t)
	diffs := referenceDiff(want, got)
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Log("regenerate the reference: go test ./cmd/access -run TestReference -update")
	}
}

// writeReference replaces the checked-in reference with files: pages of
// commands that no longer exist are removed.
func writeReference(t *testing.T, files map[string][]byte) {
	t.Helper()
	for _, rd := range referenceDirs {
		if err := os.MkdirAll(rd.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		entries, err := os.ReadDir(rd.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), rd.suffix) {
				if err := os.Remove(filepath.Join(rd.dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", filepath.FromSlash(name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// referenceDiff names each file that is missing from, left over in, or
// different in the checked-in reference (want) from the generated one
// (got), in name order.
func referenceDiff(want, got map[string][]byte) []string {
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range got {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var diffs []string
	for _, n := range sorted {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inWant:
			diffs = append(diffs, "docs/"+n+": missing (the command tree has it)")
		case !inGot:
			diffs = append(diffs, "docs/"+n+": left over (no such command)")
		case !bytes.Equal(w, g):
			diffs = append(diffs, "docs/"+n+": differs from the generated page, first at line "+firstDiffLine(w, g))
		}
	}
	return diffs
}

// firstDiffLine is the 1-based number of the first line where a and b
// differ, as text.
func firstDiffLine(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	i := 0
	for i < len(la) && i < len(lb) && la[i] == lb[i] {
		i++
	}
	return strconv.Itoa(i + 1)
}

// TestReferenceStable generates the reference twice, the second time in
// an environment that sets every variable a default or the man page date
// could come from, and wants the same bytes: no date footer, the fixed
// man page date, nothing from $HOME or the environment.
func TestReferenceStable(t *testing.T) {
	first, err := genReference(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": home, "COLUMNS": "40", "TZ": "Asia/Tokyo",
		"SOURCE_DATE_EPOCH": "1000000000", "ACCESS_URL": "https://10.9.8.7:12445", "ACCESS_PROFILE": "elsewhere",
		"ACCESS_FINGERPRINT": "ab", "ACCESS_CACERT": home + "/ca.pem", "ACCESS_FAKE_TOKEN": "tok-from-env", "NO_COLOR": "1",
	} {
		t.Setenv(k, v)
	}
	second, err := genReference(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if diffs := referenceDiff(first, second); len(diffs) > 0 {
		t.Fatalf("the reference changed with the environment:\n%s", strings.Join(diffs, "\n"))
	}
	// One man page per Markdown page: two commands whose paths join to
	// the same man page name (a-b c, a b-c) would overwrite each other.
	var md, man int
	for name := range first {
		if strings.HasPrefix(name, "cli/") {
			md++
		} else {
			man++
		}
	}
	if md != man {
		t.Errorf("%d Markdown pages but %d man pages: two commands share a man page name", md, man)
	}
	for _, name := range []string{"cli/access.md", "cli/access_doors_list.md", "man/access.1", "man/access-doors-list.1"} {
		if _, ok := first[name]; !ok {
			t.Errorf("no %s generated", name)
		}
	}
	for name, b := range first {
		s := string(b)
		if strings.Contains(s, "Auto generated") {
			t.Errorf("%s has the date footer", name)
		}
		for _, leak := range []string{home, "10.9.8.7", "tok-from-env", "Asia/Tokyo"} {
			if strings.Contains(s, leak) {
				t.Errorf("%s holds %q from the environment", name, leak)
			}
		}
		if strings.HasPrefix(name, "man/") && !strings.Contains(s, `"Jan 2026"`) {
			t.Errorf("%s does not carry the fixed date Jan 2026:\n%.200s", name, s)
		}
	}
}

// TestReferenceDiff checks that a page missing from, left over in, or
// different in the checked-in reference each fails TestReference.
func TestReferenceDiff(t *testing.T) {
	t.Parallel()
	want := map[string][]byte{"cli/a.md": []byte("x\ny\n"), "cli/old.md": []byte("gone"), "man/a.1": []byte("same")}
	got := map[string][]byte{"cli/a.md": []byte("x\nz\n"), "cli/new.md": []byte("new"), "man/a.1": []byte("same")}
	diffs := referenceDiff(want, got)
	wantDiffs := []string{
		"docs/cli/a.md: differs from the generated page, first at line 2",
		"docs/cli/new.md: missing (the command tree has it)",
		"docs/cli/old.md: left over (no such command)",
	}
	if strings.Join(diffs, "\n") != strings.Join(wantDiffs, "\n") {
		t.Fatalf("diffs:\n%s\nwant:\n%s", strings.Join(diffs, "\n"), strings.Join(wantDiffs, "\n"))
	}
}
