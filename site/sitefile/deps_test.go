package sitefile_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestSitefileDependsOnYAMLOnly fails when package sitefile depends on a
// module other than those of the access package and the YAML parser: the
// command's modules (cobra and the rest) stay in the command, and a Go
// program that reads a document takes in nothing else.
func TestSitefileDependsOnYAMLOnly(t *testing.T) {
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
	allowed := append(mods("github.com/access-dev/access"), "go.yaml.in/yaml/v3")
	got := mods("github.com/access-dev/access/site/sitefile")
	for _, m := range got {
		if !slices.Contains(allowed, m) {
			t.Errorf("package sitefile depends on module %s: it may use those of the access package and go.yaml.in/yaml/v3 only", m)
		}
	}
	if !slices.Contains(got, "go.yaml.in/yaml/v3") {
		t.Errorf("package sitefile no longer depends on go.yaml.in/yaml/v3 (%v): update this test", got)
	}
}
