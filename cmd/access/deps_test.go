package main

import (
	"os/exec"
	"strings"
	"testing"
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
