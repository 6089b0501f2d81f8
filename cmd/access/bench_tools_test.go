package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildRelease builds a main package as scripts/release.sh builds access
// (-trimpath, -ldflags "-s -w", CGO_ENABLED=0) into a temporary directory.
func buildRelease(b *testing.B, pkg, name string) string {
	goTool, err := exec.LookPath("go")
	if err != nil {
		b.Skip("no go tool")
	}
	bin := filepath.Join(b.TempDir(), name)
	cmd := exec.Command(goTool, "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// BenchmarkStartupVsCobra execs "access --version" and the same of the
// smallest cobra command line (testdata/mincobra), both built as a
// release is, taking turns (which goes first alternates). wall-ratio and
// cpu-ratio are access's wall and CPU time (user and system) over
// mincobra's in the same run (issue 38's goal: at most 2); size-ratio is
// the binaries' sizes (goal: at most 5).
func BenchmarkStartupVsCobra(b *testing.B) {
	acc := buildRelease(b, ".", "access")
	min := buildRelease(b, "./testdata/mincobra", "mincobra")
	run := func(bin string) (wall, cpu time.Duration) {
		cmd := exec.Command(bin, "--version")
		start := time.Now()
		out, err := cmd.Output()
		wall = time.Since(start)
		if err != nil || !strings.Contains(string(out), "0.1.0") {
			b.Fatalf("%s --version: %v %q", filepath.Base(bin), err, out)
		}
		return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var aw, ac, mw, mc time.Duration
	b.ResetTimer()
	for i := range b.N {
		first, second := acc, min
		if i%2 == 1 {
			first, second = min, acc
		}
		w1, c1 := run(first)
		w2, c2 := run(second)
		if first == acc {
			aw, ac, mw, mc = aw+w1, ac+c1, mw+w2, mc+c2
		} else {
			aw, ac, mw, mc = aw+w2, ac+c2, mw+w1, mc+c1
		}
	}
	b.StopTimer()
	sa, err := os.Stat(acc)
	if err != nil {
		b.Fatal(err)
	}
	sm, err := os.Stat(min)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(float64(aw.Microseconds())/n/1000, "access-ms")
	b.ReportMetric(float64(mw.Microseconds())/n/1000, "cobra-ms")
	b.ReportMetric(float64(aw)/float64(mw), "wall-ratio")
	b.ReportMetric(float64(ac)/float64(mc), "cpu-ratio")
	b.ReportMetric(float64(sa.Size())/(1<<20), "access-MiB")
	b.ReportMetric(float64(sm.Size())/(1<<20), "cobra-MiB")
	b.ReportMetric(float64(sa.Size())/float64(sm.Size()), "size-ratio")
}

// BenchmarkRootCommand builds the command tree as a start of access
// does: the whole tree (help, completion), the branch of --version and
// that of `doors list` (issue 38: only what the run needs).
func BenchmarkRootCommand(b *testing.B) {
	for _, bc := range []struct {
		name string
		args []string // nil: the whole tree
	}{{"whole", nil}, {"version", []string{"--version"}}, {"doors-list", []string{"doors", "list"}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
				a.args = bc.args
				if a.rootCommand() == nil {
					b.Fatal("no root")
				}
			}
		})
	}
}
