package scim_test

import (
	"slices"
	"testing"

	"github.com/access-dev/access/internal/depstest"
)

// TestSCIMDependencies fails when package dirsync/scim (its non-test
// code) depends on a module other than those of package dirsync and the
// SCIM filter parser (github.com/scim2/filter-parser/v2 and the parser
// module it is built on): no web framework, no SCIM server library, and
// none of the command's or the tests' modules.
func TestSCIMDependencies(t *testing.T) {
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
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
