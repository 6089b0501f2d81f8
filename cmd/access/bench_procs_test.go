package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Sizes of BenchmarkToolProcesses' site.
const (
	toolUsers   = 10_000
	toolGroups  = 500
	toolCreates = 1_000
)

// toolState writes the state file of a fake of toolUsers users in
// toolGroups groups (each user in one), as `access fake --state` loads
// it, and returns its path.
func toolState(b *testing.B) string {
	srv := accesstest.New(b)
	ids := make([]string, toolUsers)
	for i := range toolUsers {
		ids[i] = srv.AddUser(access.User{FirstName: "First", LastName: fmt.Sprintf("Last%06d", i),
			EmployeeNumber: fmt.Sprintf("E%06d", i), UserEmail: fmt.Sprintf("u%06d@example.com", i),
			OnboardTime: 1700000000, Status: access.UserStatusActive}).ID
	}
	per := toolUsers / toolGroups
	for g := range toolGroups {
		srv.AddUserGroup("", fmt.Sprintf("Group %03d", g), "", ids[g*per:(g+1)*per]...)
	}
	rec, err := accesstest.RecordSite(context.Background(), srv.Client())
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "site.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := rec.WriteState(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// fakeProc is a running `access fake` process.
type fakeProc struct {
	cmd *exec.Cmd
	env map[string]string // ACCESS_URL, ACCESS_PROXY_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT
}

// startFake starts `access fake` on a copy of the state file, on a free
// loopback port, with the extra arguments, and reads its --print-env
// lines.
func startFake(b *testing.B, cli, state string, extra ...string) *fakeProc {
	data, err := os.ReadFile(state)
	if err != nil {
		b.Fatal(err)
	}
	copyPath := filepath.Join(b.TempDir(), "state.json")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		b.Fatal(err)
	}
	args := append([]string{"fake", "--state", copyPath, "--async-save", "--addr", "127.0.0.1:0", "--print-env", "--no-ui"}, extra...)
	cmd := exec.Command(cli, args...)
	cmd.Env = append(os.Environ(), "ACCESS_CONFIG_DIR=/nonexistent-access-config")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &fakeProc{cmd: cmd, env: map[string]string{}}
	sc := bufio.NewScanner(out)
	for len(p.env) < 4 && sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok && k != "ACCESS_PUBKEY_PIN" {
			p.env[k] = strings.Trim(v, "'")
		}
	}
	if len(p.env) < 4 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.Fatalf("access fake printed %v", p.env)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return p
}

func (p *fakeProc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	_ = p.cmd.Wait()
}

// environ is the environment of a client of the fake in a console mode.
func (p *fakeProc) environ(mode access.Mode) []string {
	url := p.env["ACCESS_URL"]
	if mode == access.ModeProxy {
		url = p.env["ACCESS_PROXY_URL"]
	}
	return append(os.Environ(), "ACCESS_URL="+url, "ACCESS_TOKEN="+p.env["ACCESS_TOKEN"],
		"ACCESS_FINGERPRINT="+p.env["ACCESS_FINGERPRINT"], "ACCESS_CONFIG_DIR=/nonexistent-access-config", "TZ=UTC")
}

// execTool runs bin with args in env and returns its wall and CPU time
// (the process's rusage: user and system). A run is killed after ten
// minutes, so that a stream that stopped short fails the benchmark.
func execTool(b *testing.B, env []string, dir, bin string, args ...string) (wall, cpu time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir = env, dir
	var errs strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &errs
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s %v: %v\n%s", filepath.Base(bin), args, err, errs.String())
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// BenchmarkToolProcesses runs the built access as a process against a
// separately started `access fake` process of 10,000 users in 500 groups,
// in both console modes, beside a plain SDK program doing the same work
// (testdata/sdktools; users: testdata/sdkjsonl), the two taking turns
// (which goes first alternates), and reports access's wall and CPU time
// over the program's in the same run (cli/sdk-wall, cli/sdk-cpu):
//
//   - users: `users list --all -o jsonl` against the program's JSON lines;
//   - export: `export --kinds users,user-groups` against the program's
//     reads of users, groups, members and policies, written as JSON;
//   - plan: `plan -f` of the console's own export against the same reads;
//   - apply: `apply --yes -f` of the export and 1,000 new users, each in
//     one group, against the same reads and the same creates and group
//     additions two at a time (each side on a fake of its own, started
//     from the same state, outside the timing);
//   - monitor: `monitor --events N` against the program's plain reader of
//     the notifications stream (sdktools notifications N), each on a fake
//     of its own replaying a capture of toolFrames real console frames
//     (--replay, --speed max: from the first subscription, at the pace of
//     the reader), N being the capture's frames; it reports too
//     each side's events/s and CPU µs per event, and the monitor's rate
//     over the reader's (mon/reader-rate, on the wall time, and
//     mon/reader-cpu-rate, per CPU-second; issue 38's goal: at least 0.5).
//
// apply runs with --rate 0 (unpaced, as the program is; the reading
// commands are not paced): a pacing, a quadratic step or a doubled read
// shows as a ratio far from 1.
func BenchmarkToolProcesses(b *testing.B) {
	cli := buildBench(b, ".", "access")
	sdk := buildBench(b, "./testdata/sdktools", "sdktools")
	jsonl := buildBench(b, "./testdata/sdkjsonl", "sdkjsonl")
	state := toolState(b)
	dir := b.TempDir()
	replay := writeFramesCapture(b, filepath.Join(dir, "frames.capture"), toolFrames)
	events := fmt.Sprint(toolFrames) // every frame (the handshake is no notification)
	for _, mode := range []access.Mode{access.ModeDirect, access.ModeProxy} {
		shared := startFake(b, cli, state)
		env := shared.environ(mode)
		// The documents: the console's export, and with the new users.
		docPath := filepath.Join(dir, "site.yaml")
		cmd := exec.Command(cli, "export", "--kinds", "users,user-groups", "-O", docPath)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("export: %v\n%s", err, out)
		}
		writeApplyDocs(b, cli, env, dir)
		for _, c := range []struct {
			name     string
			cli, sdk []string
			sdkBin   string
			fresh    bool     // each side on a fake of its own
			fakeArgs []string // its extra arguments
			events   int      // the notifications each side reads
		}{
			{name: "users", cli: []string{"users", "list", "--all", "-o", "jsonl"}, sdkBin: jsonl},
			{name: "export", cli: []string{"export", "--kinds", "users,user-groups"}, sdk: []string{"export"}, sdkBin: sdk},
			{name: "plan", cli: []string{"plan", "-f", "site.yaml"}, sdk: []string{"plan"}, sdkBin: sdk},
			{name: "apply", cli: []string{"apply", "--yes", "-f", "apply.json", "--rate", "0"}, sdk: []string{"apply", "apply.jsonl"}, sdkBin: sdk, fresh: true},
			{name: "monitor", cli: []string{"monitor", "--listen", "127.0.0.1:0", "--events", events}, sdk: []string{"notifications", events},
				sdkBin: sdk, fresh: true, fakeArgs: []string{"--replay", replay, "--speed", "max"}, events: toolFrames},
		} {
			b.Run(fmt.Sprintf("%s/%s", mode, c.name), func(b *testing.B) {
				var kw, kc, sw, sc time.Duration
				run := func(cliSide bool) {
					e := env
					if c.fresh {
						b.StopTimer()
						f := startFake(b, cli, state, c.fakeArgs...)
						defer f.stop()
						e = f.environ(mode)
						b.StartTimer()
					}
					if cliSide {
						w, cpu := execTool(b, e, dir, cli, c.cli...)
						kw, kc = kw+w, kc+cpu
					} else {
						w, cpu := execTool(b, e, dir, c.sdkBin, c.sdk...)
						sw, sc = sw+w, sc+cpu
					}
				}
				for i := range b.N {
					run(i%2 == 0)
					run(i%2 == 1)
				}
				n := float64(b.N)
				b.ReportMetric(kw.Seconds()/n, "cli-s")
				b.ReportMetric(sw.Seconds()/n, "sdk-s")
				b.ReportMetric(float64(kw)/float64(sw), "cli/sdk-wall")
				b.ReportMetric(float64(kc)/float64(sc), "cli/sdk-cpu")
				if c.events > 0 {
					ev := float64(c.events) * n
					b.ReportMetric(ev/kw.Seconds(), "cli-events/s")
					b.ReportMetric(ev/sw.Seconds(), "sdk-events/s")
					b.ReportMetric(float64(kc.Microseconds())/ev, "cli-cpu-us/event")
					b.ReportMetric(float64(sc.Microseconds())/ev, "sdk-cpu-us/event")
					b.ReportMetric(float64(sw)/float64(kw), "mon/reader-rate")
					b.ReportMetric(float64(sc)/float64(kc), "mon/reader-cpu-rate")
				}
			})
		}
		shared.stop()
	}
}

// writeApplyDocs writes, in dir, apply.json (the export site.yaml,
// converted by access itself to JSON, with toolCreates new users, each
// in one of the groups) and apply.jsonl (the same new users, for
// sdktools).
func writeApplyDocs(b *testing.B, cli string, env []string, dir string) {
	cmd := exec.Command(cli, "export", "--kinds", "users,user-groups", "-o", "json")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("export -o json: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		b.Fatalf("export -o json: %v", err)
	}
	users, _ := doc["users"].([]any)
	var lines strings.Builder
	for i := range toolCreates {
		u := map[string]any{"employee_number": fmt.Sprintf("N%05d", i), "first_name": "New", "last_name": fmt.Sprintf("User%d", i),
			"groups": []string{fmt.Sprintf("Group %03d", i%toolGroups)}}
		users = append(users, u)
		line, _ := json.Marshal(map[string]string{"employee_number": u["employee_number"].(string), "first_name": "New",
			"last_name": u["last_name"].(string), "group": fmt.Sprintf("Group %03d", i%toolGroups)})
		lines.Write(line)
		lines.WriteByte('\n')
	}
	doc["users"] = users
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "apply.json"), data, 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "apply.jsonl"), []byte(lines.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}
