package scim_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSCIMDependencies fails when package dirsync/scim (its non-test
// code) depends on a module other than those of package dirsync and the
// SCIM filter parser (github.com/scim2/filter-parser/v2 and the parser
// module it is built on): no web framework, no SCIM server library, and
// none of the command's or the tests' modules.
func TestSCIMDependencies(t *testing.T) {
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
	allowed := append(mods("github.com/access-dev/access/dirsync"), mods("github.com/scim2/filter-parser/v2")...)
	got := mods("github.com/access-dev/access/dirsync/scim")
	for _, m := range got {
		if !slices.Contains(allowed, m) {
			t.Errorf("package dirsync/scim depends on module %s: it may use those of package dirsync and the filter parser only", m)
		}
	}
	for _, m := range []string{"github.com/spf13/cobra", "go.yaml.in/yaml/v3", "github.com/stretchr/testify", "github.com/elimity-com/scim"} {
		if slices.Contains(got, m) {
			t.Errorf("package dirsync/scim depends on module %s", m)
		}
	}
	if !slices.Contains(got, "github.com/scim2/filter-parser/v2") {
		t.Errorf("package dirsync/scim no longer uses the filter parser (%v): update this test and go.mod", got)
	}
}
