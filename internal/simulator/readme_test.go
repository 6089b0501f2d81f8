package simulator_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
)

// firstScreenLines is how much of README.md a reader sees first.
const firstScreenLines = 40

// firstScreenBlocks returns the ```sh blocks of the first lines of the
// Markdown page at path, each as its command lines (comments and the
// indentation of a continued line kept, blank lines dropped).
func firstScreenBlocks(t *testing.T, path string, lines int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var blocks [][]string
	var cur []string
	in := false
	sc := bufio.NewScanner(f)
	for n := 0; n < lines && sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case !in && l == "```sh":
			in, cur = true, nil
		case in && l == "```":
			in = false
			blocks = append(blocks, cur)
		case in && strings.TrimSpace(l) != "":
			cur = append(cur, l)
		}
	}
	require.NoError(t, sc.Err())
	return blocks
}

// withoutComment drops a shell line's trailing "# comment" (the lines of
// the first screen quote no #).
func withoutComment(l string) string {
	if i := strings.Index(l, " #"); i >= 0 {
		l = l[:i]
	}
	return strings.TrimSpace(l)
}

// TestReadmeFirstScreen: the first 40 lines of README.md hold the
// library's two commands, the command line's block (install, a console or
// --fake, three commands) and the simulator's (start it, curl it, open the
// page), and each of them works as written: the quickstart on the embedded
// fake and against a running access fake, the test command, the install
// from this clone, a login to a console (a running access fake on a port
// of the test's choosing), the three commands against --fake, and the
// simulator started, curled and its page fetched.
func TestReadmeFirstScreen(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	blocks := firstScreenBlocks(t, filepath.Join(root, "README.md"), firstScreenLines)
	require.Len(t, blocks, 3, "the first %d lines of README.md have three sh blocks: the library, the command line, the simulator", firstScreenLines)
	library, cli, sim := blocks[0], blocks[1], blocks[2]

	// Only what the test gives: no ACCESS_* of the machine's.
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ACCESS_") {
			base = append(base, kv)
		}
	}
	work := t.TempDir()
	base = append(base, "ACCESS_CONFIG_DIR="+filepath.Join(work, "config"))

	// The simulator's block first: the other blocks use the console it serves.
	require.Len(t, sim, 5, "the simulator block: start, wait and source, curl (two lines), open")
	start := withoutComment(sim[0])
	require.True(t, strings.HasPrefix(start, "access fake ") && strings.HasSuffix(start, " &"), "the simulator block starts access fake in the background: %q", sim[0])
	args := strings.Fields(strings.TrimSuffix(start, " &"))[2:]
	assert.Equal(t, "until [ -s fake.env ]; do sleep 0.2; done; . ./fake.env", withoutComment(sim[1]))
	env := startFakeAsWritten(t, work, base, args)
	for _, k := range []string{"ACCESS_URL", "ACCESS_TOKEN", "ACCESS_CACERT"} {
		require.NotEmpty(t, env[k], "fake.env sets %s", k)
	}
	withFake := append([]string{}, base...)
	for k, v := range env {
		withFake = append(withFake, k+"="+v)
	}

	t.Run("simulator", func(t *testing.T) {
		curl := strings.Join(sim[2:4], "\n")
		require.Contains(t, curl, "curl ")
		interpreter(t, "curl")
		out := runShell(t, work, withFake, curl)
		var doors struct {
			Code string `json:"code"`
			Data []struct {
				Name string `json:"name"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doors), out)
		assert.Equal(t, "SUCCESS", doors.Code)
		require.Len(t, doors.Data, 8, "the demo site's doors")
		assert.Equal(t, "Main entrance", doors.Data[0].Name)
		assert.NotContains(t, out, env["ACCESS_TOKEN"])

		// The page: what open (xdg-open) shows, fetched trusting the
		// certificate the block wrote.
		open := regexp.MustCompile(`^(open|xdg-open) "\$ACCESS_URL/"$`)
		require.Regexp(t, open, withoutComment(sim[4]))
		require.True(t, filepath.IsAbs(env["ACCESS_CACERT"]), "ACCESS_CACERT is absolute: %s", env["ACCESS_CACERT"])
		page := fetchPage(t, env["ACCESS_URL"]+"/", env["ACCESS_CACERT"])
		assert.Contains(t, page, "<title>access fake")
		assert.Contains(t, page, "Main entrance", "the page shows the demo site")
		assert.NotContains(t, page, env["ACCESS_TOKEN"])
	})

	t.Run("library", func(t *testing.T) {
		require.Len(t, library, 2)
		assert.Equal(t, "go run ./examples/quickstart", withoutComment(library[0]))
		assert.Equal(t, "go test ./...", withoutComment(library[1]))
		quickstart := func(env []string) string {
			cmd := exec.Command("go", "run", "./examples/quickstart")
			cmd.Dir, cmd.Env = root, env
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			return string(out)
		}
		// The embedded fake, then a console: the running simulator.
		out := quickstart(base)
		assert.Contains(t, out, "Done.")
		out = quickstart(append(append([]string{}, base...), "ACCESS_URL="+env["ACCESS_URL"], "ACCESS_TOKEN="+env["ACCESS_TOKEN"], "ACCESS_FINGERPRINT="+env["ACCESS_FINGERPRINT"]))
		assert.Contains(t, out, env["ACCESS_URL"], "the quickstart names the console it talks to")
		assert.Contains(t, out, "Main entrance")
		assert.NotContains(t, out, env["ACCESS_TOKEN"])
		if testing.Short() {
			t.Skip("-short: go test ./... not run")
		}
		// The test command, without running the tests again (this one
		// among them).
		cmd := exec.Command("go", "test", "-run", "^$", "./...")
		cmd.Dir, cmd.Env = root, base
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		assert.Contains(t, string(b), "ok  \tgithub.com/access-dev/access\t")
	})

	t.Run("command line", func(t *testing.T) {
		require.Len(t, cli, 6, "the command line block: clone, install, a console, three commands with --fake")
		// The install that works on a fresh machine leads: a clone (the
		// module is not on the module proxy yet, issue 34); @latest is
		// the comment, for when it is.
		mod := moduleOf(t, filepath.Join(root, "go.mod"))
		assert.Equal(t, "git clone https://"+mod+" && cd access", withoutComment(cli[0]))
		assert.Equal(t, "go install ./cmd/access", withoutComment(cli[1]))
		require.Contains(t, cli[1], "# once published: go install "+mod+"/cmd/access@latest")
		cli = cli[1:]
		// The install from the clone (this one), into a directory on PATH.
		bin := filepath.Join(work, "bin")
		install := exec.Command("go", "install", "./cmd/access")
		install.Dir, install.Env = root, append(append([]string{}, base...), "GOBIN="+bin)
		out, err := install.CombinedOutput()
		require.NoError(t, err, "%s", out)
		shellEnv := append(append([]string{}, base...), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

		// A console: the simulator stands for 192.168.1.1; FP is its
		// fingerprint, token.txt holds its token.
		login := withoutComment(cli[1])
		require.True(t, strings.HasPrefix(login, "access login 192.168.1.1 "), login)
		u, err := url.Parse(env["ACCESS_URL"])
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, "token.txt"), []byte(env["ACCESS_TOKEN"]), 0o600))
		out2 := runShell(t, work, append(shellEnv, "FP="+env["ACCESS_FINGERPRINT"]), strings.Replace(login, "192.168.1.1", u.Host, 1))
		assert.Contains(t, out2, "logged in to "+env["ACCESS_URL"])
		assert.NotContains(t, out2, env["ACCESS_TOKEN"])
		out2 = runShell(t, work, shellEnv, "access doors get 'Main entrance' --jq .id")
		assert.Equal(t, accesstest.DemoDoorID+"\n", out2, "the saved console is the next command's")

		// As a terminal shows them (tables; a write says what it did).
		tty := append(shellEnv, "ACCESS_FORCE_TTY=1", "NO_COLOR=1")
		want := []string{"Main entrance  HQ - Ground floor - Main entrance", "unlocked door \"Main entrance\"\n", "Ada Lovelace\n"}
		for i, l := range cli[2:] {
			line := withoutComment(l)
			require.True(t, strings.HasPrefix(line, "access --fake "), line)
			assert.Contains(t, runShell(t, work, tty, line), want[i], line)
		}
	})
}

// startFakeAsWritten runs `access fake args... --addr 127.0.0.1:0` in dir
// as a process, waits until it says where its --env-file is, and returns
// what that file exports.
func startFakeAsWritten(t *testing.T, dir string, env, args []string) map[string]string {
	t.Helper()
	i := -1
	for j, a := range args {
		if a == "--env-file" && j+1 < len(args) {
			i = j + 1
		}
	}
	require.GreaterOrEqual(t, i, 0, "access fake %v writes an --env-file", args)
	cmd := exec.Command(accessBinary(t), append(append([]string{"fake"}, args...), "--addr", "127.0.0.1:0")...)
	cmd.Dir, cmd.Env = dir, env
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	ready := make(chan bool, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "environment (token included) in "+args[i]) {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
		_ = cmd.Wait()
	}()
	select {
	case ok := <-ready:
		require.True(t, ok, "access fake ended before writing %s: %s", args[i], stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("access fake did not write %s", args[i])
	}
	raw, err := os.ReadFile(filepath.Join(dir, args[i]))
	require.NoError(t, err)
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		k, v, ok := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		require.True(t, ok, l)
		vars[k] = strings.Trim(v, "'")
	}
	return vars
}

// runShell runs a shell line as the README shows it with bash -e -o
// pipefail in dir and returns its standard output.
func runShell(t *testing.T, dir string, env []string, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", line)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "$ %s\n%s%s", line, out, stderr.String())
	return string(out)
}

// fetchPage GETs u trusting the CA certificates in caFile.
func fetchPage(t *testing.T, u, caFile string) string {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pem))
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer c.CloseIdleConnections()
	resp, err := c.Get(u)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/html")
	return string(b)
}

// moduleOf returns the module path of a go.mod file.
func moduleOf(t *testing.T, gomod string) string {
	t.Helper()
	raw, err := os.ReadFile(gomod)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(raw)
	require.NotNil(t, m)
	return string(m[1])
}
