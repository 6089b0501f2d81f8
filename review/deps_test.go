package review_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestReviewImportsOnlyTheSDK fails when package review imports anything
// but the standard library, the access package and the module's internal
// helpers (internal/bounded), or depends on a module
// the access package does not.
func TestReviewImportsOnlyTheSDK(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	list := func(format, pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "-f", format, pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		m := strings.Fields(string(out))
		slices.Sort(m)
		return slices.Compact(m)
	}
	out, err := exec.Command(goTool, "list", "-f", `{{join .Imports " "}}`, "github.com/access-dev/access/review").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	std := list(`{{if .Standard}}{{.ImportPath}}{{end}}`, "std")
	for _, imp := range strings.Fields(string(out)) {
		if imp != "github.com/access-dev/access" && !strings.HasPrefix(imp, "github.com/access-dev/access/internal/") && !slices.Contains(std, imp) {
			t.Errorf("package review imports %s: only the SDK and the standard library are allowed", imp)
		}
	}
	mods := func(pkg string) []string { return list("{{if .Module}}{{.Module.Path}}{{end}}", pkg) }
	lib := mods("github.com/access-dev/access")
	for _, m := range mods("github.com/access-dev/access/review") {
		if !slices.Contains(lib, m) {
			t.Errorf("package review depends on module %s, which the access package does not", m)
		}
	}
}
