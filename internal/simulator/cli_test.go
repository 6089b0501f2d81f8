package simulator_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The command-line tests run the real `access` binary, built once.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func accessBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "access-fake-bin-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "access")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/access-dev/access/cmd/access").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	require.NoError(t, buildErr, "building cmd/access")
	return binPath
}

// fakeSavesState reports whether accesstest.Server can save its state.
var fakeSavesState = func() bool {
	_, ok := any(&accesstest.Server{}).(interface {
		WriteState(io.Writer) error
		ReadState(io.Reader) error
	})
	return ok
}()

// fakeProc is a running `access fake`.
type fakeProc struct {
	cmd    *exec.Cmd
	env    map[string]string
	stderr *bytes.Buffer
	done   chan error
}

// startFake runs `access fake --print-env args...` and waits for its
// export lines.
func startFake(t *testing.T, args ...string) *fakeProc {
	t.Helper()
	cmd := exec.Command(accessBinary(t), append([]string{"fake", "--addr", "127.0.0.1:0", "--print-env"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &fakeProc{cmd: cmd, env: map[string]string{}, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		p.done <- cmd.Wait()
	}()
	want := 5 // ACCESS_URL, ACCESS_PROXY_URL, ACCESS_TOKEN, ACCESS_FINGERPRINT, ACCESS_PUBKEY_PIN
	if slices.Contains(args, "--cert-out") {
		want++ // ACCESS_CACERT
	}
	timeout := time.After(30 * time.Second)
	for len(p.env) < want {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "access fake ended early: %s", p.stderr)
			k, v, found := strings.Cut(strings.TrimPrefix(l, "export "), "=")
			require.True(t, found, l)
			p.env[k] = strings.Trim(v, "'")
		case <-timeout:
			t.Fatal("access fake printed no environment")
		}
	}
	go func() {
		for range lines {
		}
	}()
	return p
}

// TestCurlListsDoors drives the running binary with curl, a client in no
// way related to Go: the token and the public-key pin it printed, or the
// certificate file --cert-out wrote, let curl list the demo site's doors;
// a wrong pin, or no trust at all, is refused before anything is sent.
// Node.js does the same with the certificate file, where it is installed.
// Without curl it skips, except in CI (CI=true), whose .ci/run installs it.
func TestCurlListsDoors(t *testing.T) {
	t.Parallel()
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no curl in CI: .ci/run installs it")
		}
		t.Skip("curl is not installed (.ci/run installs it)")
	}
	caFile := filepath.Join(t.TempDir(), "fake.pem")
	p := startFake(t, "--cert-out", caFile)
	assert.Equal(t, caFile, p.env["ACCESS_CACERT"])
	for _, k := range []string{"ACCESS_URL", "ACCESS_TOKEN", "ACCESS_FINGERPRINT", "ACCESS_PUBKEY_PIN"} {
		require.NotEmpty(t, p.env[k], k)
	}
	assert.Regexp(t, `^https://127\.0\.0\.1:\d+$`, p.env["ACCESS_URL"])
	assert.Regexp(t, `^[0-9a-f]{64}$`, p.env["ACCESS_FINGERPRINT"])

	run := func(trust ...string) ([]byte, error) {
		// The token goes in on stdin, not in the process list.
		args := append([]string{"-sS", "--fail-with-body", "-H", "@-"}, trust...)
		cmd := exec.Command(curl, append(args, p.env["ACCESS_URL"]+"/api/v1/developer/doors")...)
		cmd.Stdin = strings.NewReader("Authorization: Bearer " + p.env["ACCESS_TOKEN"] + "\n")
		return cmd.Output()
	}
	out, err := run("-k", "--pinnedpubkey", p.env["ACCESS_PUBKEY_PIN"])
	require.NoError(t, err, "%s", out)
	var env struct {
		Code string `json:"code"`
		Data []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(out, &env), "%s", out)
	assert.Equal(t, "SUCCESS", env.Code)
	require.Len(t, env.Data, 8, "the demo site's doors")
	assert.Equal(t, "Main entrance", env.Data[0].Name)

	_, err = run("-k", "--pinnedpubkey", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 90, exit.ExitCode(), "curl: SSL public key does not match pinned public key")

	// The certificate file instead: a full check of chain and address.
	out, err = run("--cacert", caFile)
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), `"code":"SUCCESS"`)

	// The proxy layout (ACCESS_PROXY_URL) with the token as an X-API-KEY.
	assert.Equal(t, p.env["ACCESS_URL"]+"/proxy/access/integration/v1/developer", p.env["ACCESS_PROXY_URL"])
	cmd := exec.Command(curl, "-sS", "--fail-with-body", "-H", "@-", "--cacert", caFile, p.env["ACCESS_PROXY_URL"]+"/doors")
	cmd.Stdin = strings.NewReader("X-API-KEY: " + p.env["ACCESS_TOKEN"] + "\n")
	out, err = cmd.Output()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), `"name":"Main entrance"`)
	_, err = run()
	require.ErrorAs(t, err, &exit, "without trusting the self-signed certificate")
	assert.Equal(t, 60, exit.ExitCode(), "curl: peer certificate cannot be authenticated")

	// Node.js, with nothing but its standard library, as docs/simulator.md shows.
	if node, err := exec.LookPath("node"); err == nil {
		cmd := exec.Command(node, "-e", nodeClient)
		cmd.Env = append(os.Environ(), "ACCESS_URL="+p.env["ACCESS_URL"], "ACCESS_TOKEN="+p.env["ACCESS_TOKEN"], "ACCESS_CACERT="+caFile)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Contains(t, string(out), `"name":"Main entrance"`)
	} else {
		t.Log("node is not installed: the Node.js client was not run")
	}

	// SIGTERM: a clean stop.
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case err := <-p.done:
		assert.NoError(t, err, "exit status after SIGTERM; stderr: %s", p.stderr)
		p.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("access fake did not stop on SIGTERM")
	}
}

// nodeClient is docs/simulator.md's Node.js client.
const nodeClient = `
const fs = require("fs"), https = require("https");
https.get(process.env.ACCESS_URL + "/api/v1/developer/doors", {
  headers: { Authorization: "Bearer " + process.env.ACCESS_TOKEN },
  ca: fs.readFileSync(process.env.ACCESS_CACERT), // trust the simulator's certificate
}, (res) => res.pipe(process.stdout)).on("error", (e) => { console.error(e.message); process.exit(1); });
`

// runFake runs `access fake args...` expecting it to refuse to start.
func runFake(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, accessBinary(t), append([]string{"fake"}, args...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "access fake %v should have refused to start", args)
	return exit.ExitCode(), errb.String()
}

// busyPair returns a loopback port that is free and a listener on the
// port after it, for --sites 2 whose second site cannot listen.
func busyPair(t *testing.T) (free int, busy net.Listener) {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		p := ln.Addr().(*net.TCPAddr).Port
		if probe, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p-1)); err == nil {
			probe.Close()
			t.Cleanup(func() { ln.Close() })
			return p - 1, ln
		}
		ln.Close()
	}
	t.Fatal("no free port before a busy one")
	return 0, nil
}

// TestBadInputExitsTwo: every refused start is one line on stderr and
// exit status 2, and leaves the state file as it was, bytes and
// modification time: with --sites 2 and the second site's port busy,
// the first site's existing state file is not rewritten either.
func TestBadInputExitsTwo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	freePort, busy := busyPair(t)

	existing := filepath.Join(t.TempDir(), "st.json") // its own directory: no other case's files beside it
	var state bytes.Buffer
	seed := accesstest.NewServer(accesstest.WithDemoData())
	require.NoError(t, seed.WriteState(&state))
	seed.Close()
	require.NoError(t, os.WriteFile(existing, state.Bytes(), 0o600))
	certOut := filepath.Join(filepath.Dir(existing), "cert.pem")

	corrupt := filepath.Join(dir, "corrupt.json")
	require.NoError(t, os.WriteFile(corrupt, []byte(`{"version":1,"users":[{"id":`), 0o600))
	newer := filepath.Join(dir, "newer.json")
	require.NoError(t, os.WriteFile(newer, []byte(`{"version":999}`), 0o600))
	emptyFile := filepath.Join(dir, "empty-token")
	require.NoError(t, os.WriteFile(emptyFile, []byte("\n"), 0o600))
	badScenario := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(badScenario, []byte("version: 1\nsteps:\n  - do: door/open\n    colour: red\n"), 0o600))
	asDir := filepath.Join(dir, "a-directory")
	require.NoError(t, os.Mkdir(asDir, 0o700))

	cases := []struct {
		name   string
		args   []string
		want   []string // substrings of the message
		file   string   // must be unchanged
		absent string   // must not be created
	}{
		{"port in use", []string{"--addr", fmt.Sprintf("127.0.0.1:%d", freePort), "--sites", "2", "--state", existing, "--cert-out", certOut},
			[]string{"cannot listen on " + busy.Addr().String()}, existing, certOut},
		{"port taken", []string{"--addr", busy.Addr().String()},
			[]string{"cannot listen on " + busy.Addr().String(), "--addr 127.0.0.1:0"}, "", ""},
		{"state file unreadable", []string{"--addr", "127.0.0.1:0", "--state", asDir}, []string{asDir}, "", ""},
		{"state file corrupt", []string{"--addr", "127.0.0.1:0", "--state", corrupt}, []string{corrupt}, corrupt, ""},
		{"state file newer", []string{"--addr", "127.0.0.1:0", "--state", newer}, []string{newer, "999"}, newer, ""},
		{"non-loopback without a password", []string{"--addr", "0.0.0.0:0"}, []string{"ACCESS_FAKE_UI_PASSWORD", "--ui-password-file", "--no-ui"}, "", ""},
		{"bad permission", []string{"--addr", "127.0.0.1:0", "--permissions", "view:space,fly:plane"}, []string{`"fly:plane"`}, "", ""},
		{"empty permission", []string{"--addr", "127.0.0.1:0", "--permissions", ""}, []string{"--permissions"}, "", ""},
		{"cert without key", []string{"--addr", "127.0.0.1:0", "--cert", corrupt}, []string{"--cert and --key"}, "", ""},
		{"unknown flag", []string{"--nope"}, []string{"--nope"}, "", ""},
		{"scenario with an unknown key", []string{"--addr", "127.0.0.1:0", "--scenario", badScenario},
			[]string{"scenario " + badScenario + ": line 4: a step has no member colour: give name, at, every, for, do or with"}, "", ""},
		{"scenario missing", []string{"--addr", "127.0.0.1:0", "--scenario", filepath.Join(dir, "none.yaml")}, []string{"--scenario", "none.yaml"}, "", ""},
		{"bad clock start", []string{"--addr", "127.0.0.1:0", "--clock-start", "tomorrow"}, []string{`--clock-start "tomorrow"`}, "", ""},
		{"token as a flag value", []string{"--addr", "127.0.0.1:0", "--token", "tok-in-argv-0123"},
			[]string{"a token is never accepted as a flag value (it would show in the process list): use ACCESS_FAKE_TOKEN or --token-file FILE"}, "", ""},
		{"password as a flag value", []string{"--addr", "127.0.0.1:0", "--ui-password=pw-in-argv-0123"},
			[]string{"a password is never accepted as a flag value (it would show in the process list): use ACCESS_FAKE_UI_PASSWORD or --ui-password-file FILE"}, "", ""},
		{"empty token file", []string{"--addr", "127.0.0.1:0", "--token-file", emptyFile}, []string{"--token-file " + emptyFile + " is empty"}, "", ""},
		{"webhook retries out of range", []string{"--addr", "127.0.0.1:0", "--webhook-retries", "11"}, []string{"--webhook-retries 11", "0 to 10"}, "", ""},
		{"negative retention", []string{"--addr", "127.0.0.1:0", "--keep-logs", "-1"}, []string{"--keep-logs", "0 (keep everything) or more"}, "", ""},
	}
	// An hour old: a rewrite shows in the modification time whatever the
	// file system's timestamp resolution.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, f := range []string{existing, corrupt, newer} {
		require.NoError(t, os.Chtimes(f, old, old))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(c.name, "state") && !fakeSavesState {
				t.Skip("this build's accesstest has no WriteState/ReadState yet")
			}
			var before []byte
			if c.file != "" {
				var err error
				before, err = os.ReadFile(c.file)
				require.NoError(t, err)
			}
			code, stderr := runFake(t, c.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
			assert.NotContains(t, stderr, "in-argv", "a secret given as a flag value is not echoed")
			if c.absent != "" {
				assert.NoFileExists(t, c.absent, "nothing written")
			}
			if c.file != "" {
				after, err := os.ReadFile(c.file)
				require.NoError(t, err)
				assert.Equal(t, before, after, "the state file is left alone")
				fi, err := os.Stat(c.file)
				require.NoError(t, err)
				assert.True(t, fi.ModTime().Equal(old), "the state file was not rewritten: modified %v, was %v", fi.ModTime(), old)
				assert.NoFileExists(t, c.file+".2", "no second site's file")
				entries, err := os.ReadDir(filepath.Dir(c.file))
				require.NoError(t, err)
				for _, e := range entries {
					assert.NotContains(t, e.Name(), ".tmp-", "no temporary file left")
				}
			}
		})
	}
}

// TestKillNineKeepsAcknowledgedChanges kills `access fake --state` with
// SIGKILL at random moments during a burst of writes from several
// clients, 20 times: each restart loads the file (a refused file would
// exit 2), the file holds every user whose creation was acknowledged,
// whenever the kill came, and the restarted process serves them all.
func TestKillNineKeepsAcknowledgedChanges(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	const (
		kills    = 20
		writers  = 4
		perRound = 200 // creations per writer per round, at most
	)
	state := filepath.Join(t.TempDir(), "state.json")
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("kill-test-token\n"), 0o600))
	args := []string{"--state", state, "--demo=false", "--token-file", tokenFile}
	acked := map[string]bool{} // every creation acknowledged, all rounds
	ackedTotal := 0
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(19, seed))
	for round := range kills {
		p := startFake(t, args...)
		c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
		require.NoError(t, err)
		// The restart serves every user acknowledged before.
		_, resp, err := c.Users.List(context.Background(), &access.UserListOptions{PageSize: 1})
		require.NoError(t, err)
		require.NotNil(t, resp.Pagination)
		require.GreaterOrEqual(t, resp.Pagination.Total, len(acked), "round %d: the restart serves fewer users than were acknowledged", round)

		var mu sync.Mutex
		var wg sync.WaitGroup
		ctx, cancel := context.WithCancel(context.Background())
		first := make(chan struct{}) // the first acknowledgement of the round
		var firstOnce sync.Once
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perRound {
					name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
					_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: name, LastName: "kill"})
					if err != nil {
						return // killed
					}
					mu.Lock()
					acked[name] = true
					ackedTotal++
					mu.Unlock()
					firstOnce.Do(func() { close(first) })
				}
			}()
		}
		// The kill comes at a random moment of the burst, once it has
		// begun.
		<-first
		timer := time.NewTimer(time.Duration(rng.IntN(60_000)) * time.Microsecond)
		<-timer.C
		require.NoError(t, p.cmd.Process.Kill())
		err = <-p.done
		p.done <- err
		cancel()
		wg.Wait()

		// The file is whole JSON and holds every acknowledged creation.
		have := usersInFile(t, state)
		mu.Lock()
		for name := range acked {
			require.True(t, have[name], "round %d (seed %d): %s was acknowledged and is lost", round, seed, name)
		}
		mu.Unlock()
	}
	t.Logf("%d kills; %d creations acknowledged, all kept", kills, ackedTotal)
	require.Greater(t, len(acked), kills, "writes were acknowledged between the kills")
	// A last start serves what the last kill left.
	p := startFake(t, args...)
	c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
	require.NoError(t, err)
	_, resp, err := c.Users.List(context.Background(), &access.UserListOptions{PageSize: 1})
	require.NoError(t, err)
	require.NotNil(t, resp.Pagination)
	assert.Equal(t, len(usersInFile(t, state)), resp.Pagination.Total, "the restart serves what the file holds")
}

// TestSecondProcessOnAStateFileExitsTwo: a second `access fake` given the
// state file of a running one exits 2 at once, naming the file and the
// running one's pid; SIGHUP then stops the first as SIGTERM does, saving
// what it acknowledged.
func TestSecondProcessOnAStateFileExitsTwo(t *testing.T) {
	t.Parallel()
	if !fakeSavesState {
		t.Skip("this build's accesstest has no WriteState/ReadState yet")
	}
	state := filepath.Join(t.TempDir(), "state.json")
	p := startFake(t, "--state", state, "--demo=false")
	code, stderr := runFake(t, "--addr", "127.0.0.1:0", "--state", state)
	assert.Equal(t, 2, code, stderr)
	assert.Equal(t, "access: state file "+state+" is in use by another access fake (pid "+strconv.Itoa(p.cmd.Process.Pid)+")\n", stderr)

	c, err := access.NewClient(p.env["ACCESS_URL"], p.env["ACCESS_TOKEN"], access.WithPinnedCertificate(p.env["ACCESS_FINGERPRINT"]))
	require.NoError(t, err)
	_, _, err = c.Users.Create(context.Background(), &access.UserRequest{FirstName: "Hangup", LastName: "Saved"})
	require.NoError(t, err)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
	select {
	case err := <-p.done:
		assert.NoError(t, err, "exit status after SIGHUP; stderr: %s", p.stderr)
		p.done <- err
	case <-time.After(20 * time.Second):
		t.Fatal("access fake did not stop on SIGHUP")
	}
	b, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Hangup"`)
}

// TestRestartKeepsAPinnedTailConnected: `access fake --state` restarted
// on the same address presents the same certificate, so an `access
// events tail` pinned to the fingerprint the first run printed
// reconnects by itself and goes on printing events.
func TestRestartKeepsAPinnedTailConnected(t *testing.T) {
	t.Parallel()
	if !fakeSavesState {
		t.Skip("this build's accesstest has no WriteState/ReadState yet")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	state := filepath.Join(t.TempDir(), "state.json")
	p := startFake(t, "--state", state)
	u := p.env["ACCESS_URL"]
	_, port, err := net.SplitHostPort(strings.TrimPrefix(u, "https://"))
	require.NoError(t, err)

	tail := exec.CommandContext(ctx, accessBinary(t), "events", "tail", "--type", "door.unlock")
	tail.Env = []string{"ACCESS_URL=" + u, "ACCESS_TOKEN=" + p.env["ACCESS_TOKEN"], "ACCESS_FINGERPRINT=" + p.env["ACCESS_FINGERPRINT"],
		"ACCESS_CONFIG_DIR=" + t.TempDir(), "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	stdout, err := tail.StdoutPipe()
	require.NoError(t, err)
	stderr, err := tail.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, tail.Start())
	lines, gaps := make(chan string, 1024), make(chan string, 16)
	var stderrText syncLines
	var reading sync.WaitGroup
	reading.Add(2)
	go func() {
		defer reading.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() {
		defer reading.Done()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			stderrText.add(sc.Text())
			if strings.HasPrefix(sc.Text(), "gap:") {
				select {
				case gaps <- sc.Text():
				default:
				}
			}
		}
	}()
	unlock := func(env map[string]string, door string) {
		c, err := access.NewClient(env["ACCESS_URL"], env["ACCESS_TOKEN"], access.WithPinnedCertificate(env["ACCESS_FINGERPRINT"]))
		require.NoError(t, err)
		_, err = c.Doors.Unlock(ctx, door, nil)
		require.NoError(t, err)
	}
	// The tail subscribes at a moment the test cannot see: unlock until
	// it prints one.
	for first := false; !first; {
		unlock(p.env, accesstest.DemoDoorID)
		select {
		case l, ok := <-lines:
			require.True(t, ok, "the tail ended: %s", stderrText.String())
			assert.Contains(t, l, accesstest.DemoDoorID)
			first = true
		case <-ctx.Done():
			t.Fatal("the tail printed no unlock")
		default:
		}
	}

	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, <-p.done, "stderr: %s", p.stderr)
	p.done <- nil
	again := startFake(t, "--addr", "127.0.0.1:"+port, "--state", state)
	require.Equal(t, u, again.env["ACCESS_URL"])
	assert.Equal(t, p.env["ACCESS_FINGERPRINT"], again.env["ACCESS_FINGERPRINT"], "the same certificate")
	assert.Equal(t, p.env["ACCESS_PUBKEY_PIN"], again.env["ACCESS_PUBKEY_PIN"])

	select {
	case <-gaps: // the tail is back, on the pinned certificate
	case <-ctx.Done():
		t.Fatalf("the pinned tail did not reconnect: %s", stderrText.String())
	}
	// Another door than before the restart: a line about it is new. The
	// fake registers the tail's new socket just after its handshake, a
	// moment the test cannot see: unlock until the tail prints one.
	const serverRoom = "5c496423-6d25-4e4f-8cdf-95ad5135188a"
	for seen := false; !seen; {
		unlock(again.env, serverRoom)
		for drained := false; !seen && !drained; {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "the tail ended: %s", stderrText.String())
				seen = strings.Contains(l, serverRoom)
			case <-ctx.Done():
				t.Fatal("the tail printed nothing after the restart")
			default:
				drained = true
			}
		}
	}
	require.NoError(t, tail.Process.Signal(os.Interrupt))
	reading.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, tail.Wait(), &exit)
	assert.Equal(t, 130, exit.ExitCode(), "stopped by the test; stderr: %s", stderrText.String())
}

// syncLines collects lines from one goroutine for another to print.
type syncLines struct {
	mu    sync.Mutex
	lines []string
}

func (s *syncLines) add(l string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, l)
}

func (s *syncLines) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}
