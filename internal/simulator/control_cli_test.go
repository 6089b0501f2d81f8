package simulator_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
)

// docsSimulator is the page of the simulator's documentation.
var docsSimulator = filepath.Join("..", "..", "docs", "simulator.md")

// controlBlocks returns the sh, python and js blocks of the control API
// section (from "**The control API.**" to "**State that survives.**") of
// the Markdown page at path, by language.
func controlBlocks(t *testing.T, path string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(raw)
	i := strings.Index(s, "**The control API.**")
	require.GreaterOrEqual(t, i, 0, "%s has the control API section", path)
	s = s[i:]
	end := strings.Index(s, "**State that survives.**")
	require.GreaterOrEqual(t, end, 0, "%s: the control API section ends at **State that survives.**", path)
	s = s[:end]
	blocks := map[string]string{}
	for _, part := range strings.Split(s, "```")[1:] {
		lang, body, ok := strings.Cut(part, "\n")
		if ok && (lang == "sh" || lang == "python" || lang == "js") && blocks[lang] == "" {
			blocks[lang] = body
		}
	}
	for _, l := range []string{"sh", "python", "js"} {
		require.NotEmpty(t, blocks[l], "the control API section of %s has a %s block", path, l)
	}
	return blocks
}

// interpreter finds a program for a documented client; it skips without it,
// except in CI (CI=true), whose .ci/run installs it.
func interpreter(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no %s in CI: .ci/run installs it", name)
		}
		t.Skipf("%s is not installed (.ci/run installs it)", name)
	}
	return p
}

// TestControlAPIFromOtherLanguages runs docs/simulator.md's curl, Python and Node
// clients of the control API against a real access fake process, each
// trusting the certificate --cert-out wrote.
func TestControlAPIFromOtherLanguages(t *testing.T) {
	t.Parallel()
	blocks := controlBlocks(t, docsSimulator)
	caFile := filepath.Join(t.TempDir(), "fake.pem")
	p := startFake(t, "--cert-out", caFile)
	env := append(os.Environ(), "ACCESS_URL="+p.env["ACCESS_URL"], "ACCESS_TOKEN="+p.env["ACCESS_TOKEN"], "ACCESS_CACERT="+caFile)
	run := func(t *testing.T, name string, args []string, stdin string, extraEnv ...string) string {
		cmd := exec.Command(interpreter(t, name), args...)
		cmd.Env = append(env, extraEnv...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.NotContains(t, string(out), p.env["ACCESS_TOKEN"])
		return string(out)
	}
	t.Run("curl", func(t *testing.T) {
		interpreter(t, "curl")
		out := run(t, "bash", []string{"-euo", "pipefail"}, blocks["sh"])
		assert.Contains(t, out, `"granted":true`, "a demo card")
		assert.Contains(t, out, `"event":"access.door.unlock"`)
	})
	t.Run("python", func(t *testing.T) {
		out := run(t, "python3", []string{"-"}, blocks["python"])
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 3, out)
		assert.Equal(t, "access.device.dps_status", lines[0])
		assert.Equal(t, "open", lines[1])
		assert.Equal(t, "['/api/v1/developer/doors/"+accesstest.DemoDoorID+"']", lines[2])
	})
	t.Run("node", func(t *testing.T) {
		out := run(t, "node", []string{"--input-type=module"}, blocks["js"], "NODE_EXTRA_CA_CERTS="+caFile)
		assert.Equal(t, "access.doorbell.incoming\ngranted\n", out)
	})
}

// TestWebhookReceiverInPython runs docs/simulator.md's Python webhook
// receiver (the block of its "**Webhooks.**" paragraph) against a real
// access fake: it checks the page's exact signature example, registers
// itself with the documented body, taps a demo card and verifies the
// delivery's signature with the endpoint's secret.
func TestWebhookReceiverInPython(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(docsSimulator)
	require.NoError(t, err)
	s := string(raw)
	i := strings.Index(s, "**Webhooks.**")
	require.GreaterOrEqual(t, i, 0, "docs/simulator.md has a Webhooks paragraph")
	s = s[i:]
	s = s[:strings.Index(s, "**Scenarios.**")]
	_, block, ok := strings.Cut(s, "```python\n")
	require.True(t, ok, "the Webhooks paragraph has a Python block")
	block, _, _ = strings.Cut(block, "```")
	python := interpreter(t, "python3")
	caFile := filepath.Join(t.TempDir(), "fake.pem")
	p := startFake(t, "--cert-out", caFile)
	cmd := exec.Command(python, "-")
	cmd.Env = append(os.Environ(), "ACCESS_URL="+p.env["ACCESS_URL"], "ACCESS_TOKEN="+p.env["ACCESS_TOKEN"], "ACCESS_CACERT="+caFile)
	cmd.Stdin = strings.NewReader(block)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "access.door.unlock True\n", string(out))
}
