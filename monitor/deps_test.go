package monitor_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEngineAddsNoDependency: the engine depends on the SDK and the
// standard library only; the command's Prometheus client stays out of it.
func TestEngineAddsNoDependency(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if .Module}}{{.Module.Path}}{{end}}", "github.com/access-dev/access/monitor").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/access-dev/access":          true,
		"github.com/hashicorp/go-retryablehttp": true,
		"github.com/hashicorp/go-cleanhttp":     true,
		"github.com/google/go-querystring":      true,
		"github.com/coder/websocket":            true,
	}
	for _, m := range strings.Fields(string(out)) {
		if !allowed[m] {
			t.Errorf("the monitor package depends on module %s", m)
		}
	}
}
