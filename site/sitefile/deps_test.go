package sitefile_test

import (
	"slices"
	"testing"

	"github.com/access-dev/access/internal/depstest"
)

// TestSitefileDependsOnYAMLOnly fails when package sitefile depends on a
// module other than those of the access package and the YAML parser: the
// command's modules (cobra and the rest) stay in the command, and a Go
// program that reads a document takes in nothing else.
func TestSitefileDependsOnYAMLOnly(t *testing.T) {
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
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
