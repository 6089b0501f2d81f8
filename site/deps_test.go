package site_test

import (
	"slices"
	"testing"

	"github.com/access-dev/access/internal/depstest"
)

// TestSiteAddsNoDependency fails when package site depends on a module the
// access package does not: YAML, cobra and the rest stay in the command.
func TestSiteAddsNoDependency(t *testing.T) {
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
	lib := mods("github.com/access-dev/access")
	for _, m := range mods("github.com/access-dev/access/site") {
		if !slices.Contains(lib, m) {
			t.Errorf("package site depends on module %s, which the access package does not", m)
		}
	}
}
