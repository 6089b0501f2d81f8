// Package depstest lists what a package of this module depends on, for
// the tests that keep each package's dependencies to what its job needs
// (site adds no module, dirsync adds go-ldap, and so on). It is imported
// by tests only and imports only the standard library.
package depstest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Modules returns the sorted paths of the modules pkg's non-test code
// depends on, the main module included. It skips the test when no go
// tool is on PATH and fails it when go list does.
func Modules(t testing.TB, pkg string) []string {
	return list(t, "{{if .Module}}{{.Module.Path}}{{end}}", pkg)
}

// Standard returns the sorted import paths of the standard library.
func Standard(t testing.TB) []string {
	return list(t, "{{if .Standard}}{{.ImportPath}}{{end}}", "std")
}

// Imports returns the sorted import paths pkg's non-test code imports
// directly.
func Imports(t testing.TB, pkg string) []string {
	t.Helper()
	out := run(t, "list", "-f", `{{join .Imports " "}}`, pkg)
	m := strings.Fields(out)
	slices.Sort(m)
	return m
}

func list(t testing.TB, format, pkg string) []string {
	t.Helper()
	m := strings.Fields(run(t, "list", "-deps", "-f", format, pkg))
	slices.Sort(m)
	return slices.Compact(m)
}

func run(t testing.TB, args ...string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
