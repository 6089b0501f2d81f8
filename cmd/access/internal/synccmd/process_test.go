//go:build unix

package synccmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// accessBinary builds the access command once for the process tests.
func accessBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "access-sync-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "access")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/access-dev/access/cmd/access").CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building cmd/access: %v", buildErr)
	}
	return binPath
}

// syncProc is a running access sync process.
type syncProc struct {
	cmd       *exec.Cmd
	out, errs *lines
	done      chan error
}

// startSync starts access sync with args against srv.
func startSync(t testing.TB, srv *accesstest.Server, dir string, args ...string) *syncProc {
	t.Helper()
	cmd := exec.Command(accessBinary(t), append([]string{"sync"}, args...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "ACCESS_CONFIG_DIR=" + filepath.Join(dir, "config"),
		"ACCESS_URL=" + srv.URL(), "ACCESS_TOKEN=" + srv.Token(), "ACCESS_FINGERPRINT=" + srv.Fingerprint(), "SCIM_TOKEN=" + scimToken}
	p := &syncProc{cmd: cmd, out: newLines(), errs: newLines(), done: make(chan error, 1)}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	copyLines := func(s *bufio.Scanner, l *lines) {
		defer wg.Done()
		for s.Scan() {
			l.ch <- s.Text()
		}
	}
	wg.Add(2)
	go copyLines(bufio.NewScanner(stdout), p.out)
	go copyLines(bufio.NewScanner(stderr), p.errs)
	go func() { wg.Wait(); p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

var scimAt = regexp.MustCompile(`SCIM at (http://\S+)`)

// pushDeactivate pushes the deactivation of the SCIM user id to the
// listener at base and wants it acknowledged (200).
func pushDeactivate(t *testing.T, base, id string) {
	t.Helper()
	req, _ := http.NewRequest("PATCH", base+"/Users/"+id, strings.NewReader(deactivate))
	req.Header.Set("Content-Type", "application/scim+json")
	req.Header.Set("Authorization", "Bearer "+scimToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("push: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestKill9AfterTheAcknowledgement: a deactivation pushed over SCIM is
// acknowledged, the console write it causes is held in flight, and the
// process is killed (SIGKILL) then; the console did not take it. A new
// process applies what was acknowledged: the leaver ends DEACTIVATED,
// once, with one deactivation record and one for the credentials, no
// user created twice. A SIGHUP then reloads it and a SIGTERM ends it
// cleanly, exit 0, as access monitor.
func TestKill9AfterTheAcknowledgement(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the access command")
	}
	srv, ids := console(t)
	dir := t.TempDir()
	scimIDs := pushed(t, filepath.Join(dir, "store.jsonl"))
	writeConfig(t, dir, openGuard)
	users := len(srv.Users())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	p := startSync(t, srv, dir, "--config", "sync.yaml", "--scim-listen", "127.0.0.1:0")
	m := scimAt.FindStringSubmatch(p.errs.await(t, "SCIM at "))
	p.errs.await(t, "okta (start): no change")

	// The deactivation's console write will be held until the client
	// goes away.
	srv.Inject(accesstest.OpUsersUpdate, accesstest.Fault{Delay: 10 * time.Minute, Times: 1})
	j, err := srv.RequestsSince(ctx, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	cursor := j.Next
	pushDeactivate(t, m[1], scimIDs["E2"])
	userPath := "/api/v1/developer/users/" + ids["E2"]
	for held := false; !held; {
		j, err := srv.RequestsSince(ctx, cursor, true)
		if err != nil {
			t.Fatalf("the deactivation never reached the console: %v", err)
		}
		for _, r := range j.Items {
			held = held || (r.Method == "PUT" && r.Path == userPath)
		}
		cursor = j.Next
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	if st := status(t, srv, ids["E2"]); st != access.UserStatusActive {
		t.Fatalf("the held write took effect: Ben is %s", st)
	}
	if ev, err := dirsync.ReadEvidenceFile(filepath.Join(dir, "evidence.jsonl")); err == nil && len(ev.Records) != 0 {
		t.Fatalf("evidence before the console's answer: %+v", ev.Records)
	}

	// The restart applies the acknowledged push.
	p = startSync(t, srv, dir, "--config", "sync.yaml", "--scim-listen", "127.0.0.1:0")
	p.errs.await(t, "okta (start): 1 deactivated, 0 reactivated, 1 credentials revoked, 0 failed")
	if st := status(t, srv, ids["E2"]); st != access.UserStatusDeactivated {
		t.Errorf("Ben is %s after the restart", st)
	}
	if u, _ := srv.User(ids["E2"]); len(u.NFCCards) != 0 {
		t.Errorf("Ben still holds %v", u.NFCCards)
	}
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/users") {
			t.Errorf("a user was created: %s %s", r.Method, r.Path)
		}
	}
	if n := len(srv.Users()); n != users {
		t.Errorf("the console holds %d users, want %d", n, users)
	}

	// A reload by SIGHUP keeps the process; SIGTERM ends it, exit 130.
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.errs.await(t, "reloaded sync.yaml: 1 source(s)")
	p.errs.await(t, "okta (start): no change")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.errs.await(t, "sync: stopped")
	if err := <-p.done; err != nil {
		t.Errorf("after SIGTERM: %v, want exit status 0 (as access monitor)", err)
	}
	ev, err := dirsync.ReadEvidenceFile(filepath.Join(dir, "evidence.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ev.Records {
		got = append(got, r.Action+" "+r.Key+" "+r.Status)
	}
	if strings.Join(got, "\n") != "deactivate E2 done\nrevoke_credentials E2 done" || ev.Records[0].SourceChanged == nil {
		t.Errorf("evidence:\n%s", strings.Join(got, "\n"))
	}
	// The push's arrival is the source's time of the change: the latency
	// runs from before the kill.
	if r := ev.Records[0]; r.SourceChanged != nil && !r.SourceChanged.Before(r.Observed) {
		t.Errorf("source changed %v, observed %v", r.SourceChanged, r.Observed)
	}
}

// TestKill9BeforeTheAnswer: the console takes a deactivation pushed over
// SCIM but its answer is held, and the process is killed (SIGKILL) then:
// Ben is DEACTIVATED and the log holds no record. A new process finds him
// deactivated, takes his card and writes the missing deactivate record,
// marked found_done, with the push's arrival as the source's time; a
// reload's run writes no second one.
func TestKill9BeforeTheAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the access command")
	}
	srv, ids := console(t)
	dir := t.TempDir()
	scimIDs := pushed(t, filepath.Join(dir, "store.jsonl"))
	writeConfig(t, dir, openGuard)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	p := startSync(t, srv, dir, "--config", "sync.yaml", "--scim-listen", "127.0.0.1:0")
	m := scimAt.FindStringSubmatch(p.errs.await(t, "SCIM at "))
	p.errs.await(t, "okta (start): no change")

	// The deactivation takes effect; its answer is held until the client
	// goes away.
	srv.Inject(accesstest.OpUsersUpdate, accesstest.Fault{AfterHandling: true, Delay: 10 * time.Minute, Times: 1})
	changed := make(chan struct{}, 1)
	defer srv.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})()
	pushDeactivate(t, m[1], scimIDs["E2"])
	for st := status(t, srv, ids["E2"]); st != access.UserStatusDeactivated; st = status(t, srv, ids["E2"]) {
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the console never took the deactivation: Ben is %s", st)
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-p.done
	evPath := filepath.Join(dir, "evidence.jsonl")
	if ev, err := dirsync.ReadEvidenceFile(evPath); err == nil && len(ev.Records) != 0 {
		t.Fatalf("evidence before the console's answer: %+v", ev.Records)
	}

	p = startSync(t, srv, dir, "--config", "sync.yaml", "--scim-listen", "127.0.0.1:0")
	p.errs.await(t, "okta (start): 0 deactivated, 0 reactivated, 1 credentials revoked, 0 failed; 1 deactivation(s) found done")
	if u, _ := srv.User(ids["E2"]); u.Status != access.UserStatusDeactivated || len(u.NFCCards) != 0 {
		t.Errorf("Ben is %s holding %v", u.Status, u.NFCCards)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.errs.await(t, "reloaded sync.yaml: 1 source(s)")
	p.errs.await(t, "okta (start): no change")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-p.done; err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
	ev, err := dirsync.ReadEvidenceFile(evPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ev.Records {
		got = append(got, fmt.Sprint(r.Action, " ", r.Key, " ", r.Status, " ", r.FoundDone))
	}
	if strings.Join(got, "\n") != "deactivate E2 done true\nrevoke_credentials E2 done false" {
		t.Fatalf("evidence:\n%s", strings.Join(got, "\n"))
	}
	if r := ev.Records[0]; r.UserID != ids["E2"] || r.SourceChanged == nil || r.Acknowledged == nil || !r.SourceChanged.Before(*r.Acknowledged) || r.LatencySeconds <= 0 {
		t.Errorf("the found record: %+v", r)
	}
}
