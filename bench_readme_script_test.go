package access_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchReadmeScriptWritesThePerformanceTables: with BENCH_DOC,
// scripts/bench-readme.sh replaces the tables between the bench-tables
// marks of docs/performance.md with those of the benchmark output
// (BENCH_IN here, so that nothing is benchmarked), keeping every other
// line; a page without the marks is refused.
func TestBenchReadmeScriptWritesThePerformanceTables(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"sh", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	orig, err := os.ReadFile(filepath.Join("docs", "performance.md"))
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(orig), "<!-- bench-tables -->\n")
	require.True(t, ok, "docs/performance.md marks its tables")
	_, after, ok := strings.Cut(rest, "<!-- /bench-tables -->\n")
	require.True(t, ok, "docs/performance.md marks the end of its tables")

	dir := t.TempDir()
	doc := filepath.Join(dir, "performance.md")
	require.NoError(t, os.WriteFile(doc, orig, 0o644))
	in := filepath.Join(dir, "bench.out")
	require.NoError(t, os.WriteFile(in, []byte(
		"BenchmarkInterleaved/Doors.Get-2  2000  170000 ns/op  1.100 ratio  1.050 p50-ratio  109 base-allocs/call  80000 base-ns/call  109 sdk-allocs/call  88000 sdk-ns/call\n"+
			"BenchmarkInterleaved/Doors.Get-2  2000  170000 ns/op  1.150 ratio  1.070 p50-ratio  109 base-allocs/call  80000 base-ns/call  109 sdk-allocs/call  92000 sdk-ns/call\n"+
			"BenchmarkNotificationsReplay/sdk-2  50000  8000 ns/op  125000 events/s  1100 B/op  2 allocs/op\n"+
			"BenchmarkNotificationsReplay/baseline-2  50000  40000 ns/op  25000 events/s  4400 B/op  31 allocs/op\n"), 0o644))
	run := func(doc string) (string, error) {
		cmd := exec.Command("sh", filepath.Join("scripts", "bench-readme.sh"))
		cmd.Env = append(os.Environ(), "BENCH_IN="+in, "BENCH_DOC="+doc)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(doc)
	require.NoError(t, err, out)

	got, err := os.ReadFile(doc)
	require.NoError(t, err)
	want := before + "<!-- bench-tables -->\n\n" +
		"Interleaved, single requests:\n\n" +
		"| operation | SDK µs/call | baseline µs/call | ratio (median) | ratio (runs) | per-call median ratio | SDK allocs | baseline allocs | extra allocs | |\n" +
		"|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n" +
		"| Doors.Get | 90.0 | 80.0 | 1.125 | 1.100–1.150 | 1.060 | 109 | 109 | +0 | over |\n\n" +
		"1 operations (medians of 2 runs): median ratio 1.125 (per-call median ratio 1.060); 1 over 1.05 or +8 allocations, 0 more straddling 1.05.\n\n" +
		"Interleaved, iterators and composite calls:\n\n" +
		"| operation | SDK µs/call | baseline µs/call | ratio (median) | ratio (runs) | per-call median ratio | SDK allocs | baseline allocs | extra allocs | |\n" +
		"|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n\n" +
		"0 operations (medians of 2 runs): median ratio 0.000; 0 over 1.05 or +8 allocations, 0 more straddling 1.05.\n\n" +
		"| benchmark | SDK ns/op | baseline ns/op | ratio | SDK allocs/op | baseline allocs/op | SDK rate | baseline rate |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|\n" +
		"| NotificationsReplay | 8000 | 40000 | 0.200 | 2 | 31 | 125000/s | 25000/s |\n\n" +
		"<!-- /bench-tables -->\n" + after
	assert.Equal(t, want, string(got))

	// Run again: the same page (the marks stay, nothing accumulates).
	out, err = run(doc)
	require.NoError(t, err, out)
	again, err := os.ReadFile(doc)
	require.NoError(t, err)
	assert.Equal(t, string(got), string(again))

	unmarked := filepath.Join(dir, "unmarked.md")
	require.NoError(t, os.WriteFile(unmarked, []byte(before+after), 0o644))
	out, err = run(unmarked)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, out)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, out, "has no <!-- bench-tables -->")
	kept, err := os.ReadFile(unmarked)
	require.NoError(t, err)
	assert.Equal(t, before+after, string(kept))
}
