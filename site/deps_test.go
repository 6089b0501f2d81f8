package site_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSiteAddsNoDependency fails when package site depends on a module the
// access package does not: YAML, cobra and the rest stay in the command.
func TestSiteAddsNoDependency(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	mods := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if .Module}}{{.Module.Path}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		m := strings.Fields(string(out))
		slices.Sort(m)
		return slices.Compact(m)
	}
	lib := mods("github.com/access-dev/access")
	for _, m := range mods("github.com/access-dev/access/site") {
		if !slices.Contains(lib, m) {
			t.Errorf("package site depends on module %s, which the access package does not", m)
		}
	}
}
