package review_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/access-dev/access/internal/depstest"
)

// TestReviewImportsOnlyTheSDK fails when package review imports anything
// but the standard library, the access package and the module's internal
// helpers (internal/bounded), or depends on a module
// the access package does not.
func TestReviewImportsOnlyTheSDK(t *testing.T) {
	std := depstest.Standard(t)
	for _, imp := range depstest.Imports(t, "github.com/access-dev/access/review") {
		if imp != "github.com/access-dev/access" && !strings.HasPrefix(imp, "github.com/access-dev/access/internal/") && !slices.Contains(std, imp) {
			t.Errorf("package review imports %s: only the SDK and the standard library are allowed", imp)
		}
	}
	mods := func(pkg string) []string { return depstest.Modules(t, pkg) }
	lib := mods("github.com/access-dev/access")
	for _, m := range mods("github.com/access-dev/access/review") {
		if !slices.Contains(lib, m) {
			t.Errorf("package review depends on module %s, which the access package does not", m)
		}
	}
}
