package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibraryStaysLean fails when the SDK's root package depends on a module
// other than the library's own: the command line's cobra, gojq, testscript
// and YAML must stay out of it.
func TestLibraryStaysLean(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if .Module}}{{.Module.Path}}{{end}}", "github.com/access-dev/access").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/access-dev/access":          true,
		"github.com/hashicorp/go-retryablehttp": true,
		"github.com/hashicorp/go-cleanhttp":     true, // go-retryablehttp's own dependency
		"github.com/google/go-querystring":      true,
		"github.com/coder/websocket":            true,
	}
	seen := map[string]bool{}
	for _, m := range strings.Fields(string(out)) {
		seen[m] = true
		if !allowed[m] {
			t.Errorf("the access package depends on module %s", m)
		}
	}
	for _, cli := range []string{"github.com/spf13/cobra", "github.com/spf13/pflag", "github.com/itchyny/gojq", "github.com/rogpeppe/go-internal", "go.yaml.in/yaml/v3", "github.com/prometheus/client_golang"} {
		if seen[cli] {
			t.Errorf("the access package depends on the CLI-only module %s", cli)
		}
	}
	if !seen["github.com/access-dev/access"] {
		t.Fatalf("go list printed no module of the package itself:\n%s", out)
	}
}

// machinery are the packages under cmd/access/internal that every command
// may import: they know no command. Every other package there is a
// command package (one family of commands). The value is the package's
// layer: machinery imports only machinery of a lower layer.
var machinery = map[string]int{
	"output":  1, // tables, JSON, YAML order, column fitting, the progress line
	"connect": 1, // the config file of profiles, the console's certificate
	"cmdutil": 2, // the factory given to every command package, exit codes
}

// layeringProblems returns what breaks the command line's layering in
// imports (package path to the paths it imports): a command package
// imports another command package, or a machinery package imports a
// command package or a machinery package of its own or a higher layer (cmdutil
// may use output, output nothing of the command line).
func layeringProblems(imports map[string][]string) []string {
	const base = "github.com/access-dev/access/cmd/access/internal/"
	room := func(path string) (string, bool) {
		rest, ok := strings.CutPrefix(path, base)
		if !ok {
			return "", false
		}
		name, _, _ := strings.Cut(rest, "/")
		return name, true
	}
	var problems []string
	for pkg, deps := range imports {
		from, ok := room(pkg)
		if !ok {
			continue
		}
		for _, dep := range deps {
			to, ok := room(dep)
			if !ok || to == from {
				if dep == "github.com/access-dev/access/cmd/access" {
					problems = append(problems, pkg+" imports the command line's main package")
				}
				continue
			}
			switch {
			case machinery[from] > 0 && machinery[to] > 0 && machinery[to] < machinery[from]:
				// machinery of a lower layer: cmdutil may use output
			case machinery[from] > 0:
				problems = append(problems, fmt.Sprintf("%s (machinery) imports %s: machinery imports only machinery of a lower layer", pkg, dep))
			case machinery[to] == 0:
				problems = append(problems, fmt.Sprintf("%s imports %s: a command package imports the machinery (%s), never another command package", pkg, dep, strings.Join(sortedKeys(machinery), ", ")))
			}
		}
	}
	sort.Strings(problems)
	return problems
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestLayering: no package under cmd/access/internal imports another
// command package, or a command package at all when it is machinery
// (issue 35, docs/development.md).
func TestLayering(t *testing.T) {
	t.Parallel()
	const base = "github.com/access-dev/access/cmd/access/internal/"
	// The rule itself, on a made-up tree.
	assert.Equal(t, []string{
		base + "monitor imports " + base + "site: a command package imports the machinery (cmdutil, connect, output), never another command package",
		base + "output (machinery) imports " + base + "cmdutil: machinery imports only machinery of a lower layer",
		base + "output (machinery) imports " + base + "site: machinery imports only machinery of a lower layer",
	}, layeringProblems(map[string][]string{
		base + "site":    {base + "output", base + "cmdutil", "github.com/access-dev/access/site"},
		base + "monitor": {base + "output", base + "site", base + "monitor/internal/x"},
		base + "output":  {base + "site", base + "cmdutil"},
		base + "cmdutil": {base + "output"},
	}))
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}}", "github.com/access-dev/access/cmd/access/...").CombinedOutput()
	require.NoError(t, err, "go list: %s", out)
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	require.Contains(t, imports, base+"output", "go list: %s", out)
	assert.Empty(t, layeringProblems(imports))
}

// tables are the files under cmd/ allowed past maxFileLines: one table
// each (the opSpec registry's rows).
var tables = map[string]bool{"registry.go": true}

// maxFileLines is the size past which a file of the command line is split
// by what it does (issue 35).
const maxFileLines = 500

// TestNoFileOverFiveHundredLines: no non-test Go file under cmd/ is over
// 500 lines, apart from the tables.
func TestNoFileOverFiveHundredLines(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..") // cmd/
	var big []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || tables[d.Name()] {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
			big = append(big, fmt.Sprintf("%s: %d lines", path, n))
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, big, "split these by what they do (docs/development.md)")
}
