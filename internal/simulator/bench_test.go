package simulator_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// The figures, as Go benchmarks (go test -run '^$' -bench .
// ./internal/simulator):
//
//   - BenchmarkREST/standalone: REST calls/s to the standalone fake over
//     loopback TLS from 32 concurrent keep-alive clients; /baseline is the
//     same load on accesstest's own in-process TLS server, in the same run;
//   - BenchmarkNotificationFanout: notifications/s fanned out to 10
//     WebSocket subscribers;
//   - BenchmarkSave10000Users (saver_bench_test.go): one save of a site
//     of 10,000 users;
//   - BenchmarkDemoResidentMemory: the demo site's resident memory, of
//     the real `access fake` process.

func benchHTTP(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback benchmark
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
	}}
}

func BenchmarkREST(b *testing.B) {
	const clients = 32
	run := func(b *testing.B, url, token string) {
		hc := benchHTTP(clients)
		defer hc.CloseIdleConnections()
		target := url + "/api/v1/developer/doors/" + accesstest.DemoDoorID
		get := func() error {
			req, _ := http.NewRequest(http.MethodGet, target, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}
		if err := get(); err != nil {
			b.Fatal(err)
		}
		b.SetParallelism((clients + 1) / 2) // 16 goroutines per core: 32 on 2 cores
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := get(); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	}
	b.Run("standalone", func(b *testing.B) {
		sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Demo: true, NoUI: true})
		if err != nil {
			b.Fatal(err)
		}
		defer sim.Close()
		run(b, sim.Sites[0].URL, sim.Sites[0].Token())
	})
	b.Run("baseline", func(b *testing.B) {
		// The simulator's bounds: the request journal does not grow with
		// b.N on either side.
		srv := accesstest.New(b, accesstest.WithDemoData(), accesstest.WithRetention(accesstest.DefaultRetention()))
		run(b, srv.URL(), srv.Token())
	})
}

func BenchmarkNotificationFanout(b *testing.B) {
	const subscribers = 10
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", NoUI: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	st := sim.Sites[0]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hc := benchHTTP(subscribers)
	var wg sync.WaitGroup
	// Each subscriber counts the notifications it reads and reports once,
	// when it has read all b.N of them. The readers share the machine with
	// the fake, so they read as cheaply as a client can: into a reused
	// buffer, with a context that never ends (a cancellable one costs the
	// library a context.AfterFunc per message, on a context the ten
	// readers would share); closing the connection ends the read.
	want := int64(b.N)
	counts := make([]atomic.Int64, subscribers)
	done := make(chan struct{}, subscribers)
	conns := make([]*websocket.Conn, 0, subscribers)
	defer func() {
		for _, conn := range conns {
			_ = conn.CloseNow()
		}
		wg.Wait()
	}()
	for i := range subscribers {
		conn, _, err := websocket.Dial(ctx, "wss"+strings.TrimPrefix(st.URL, "https")+"/api/v1/developer/devices/notifications",
			&websocket.DialOptions{HTTPClient: hc, HTTPHeader: http.Header{"Authorization": {"Bearer " + st.Token()}}})
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, conn)
		conn.SetReadLimit(1 << 20)
		wg.Add(1)
		go func(n *atomic.Int64) {
			defer wg.Done()
			var buf bytes.Buffer
			marker := []byte(`"bench"`)
			for {
				_, r, err := conn.Reader(context.Background())
				if err != nil {
					return
				}
				buf.Reset()
				if _, err := buf.ReadFrom(r); err != nil {
					return
				}
				if bytes.Contains(buf.Bytes(), marker) && n.Add(1) == want {
					done <- struct{}{}
				}
			}
		}(&counts[i])
	}
	if err := st.Fake.WaitNotificationClients(ctx, subscribers); err != nil {
		b.Fatal(err)
	}
	n := &access.Notification{Event: "bench", EventObjectID: "x", Data: []byte(`{"door":"Main entrance","state":"unlocked"}`)}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if err := st.Fake.Notify(n); err != nil {
			b.Fatal(err)
		}
	}
	// Until every subscriber has read all of them.
	for range subscribers {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			got := make([]int64, subscribers)
			for i := range counts {
				got[i] = counts[i].Load()
			}
			b.Fatalf("the subscribers got %v of %d", got, b.N)
		}
	}
	el := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N)/el, "notifications/s")
	b.ReportMetric(float64(b.N*subscribers)/el, "deliveries/s")
	b.StopTimer()
	cancel()
}

// BenchmarkDemoResidentMemory starts the real `access fake` with the demo
// site, lists every user once (so that the site has been served), and
// reports its resident memory (VmRSS).
func BenchmarkDemoResidentMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc")
	}
	for range b.N {
		rss := demoRSS(b)
		b.ReportMetric(float64(rss)/(1<<20), "RSS-MiB")
	}
}

func demoRSS(b *testing.B) int64 {
	cmd, env := startBenchFake(b)
	defer func() { _ = cmd.Process.Kill() }() // one process at a time, whatever b.N
	c, err := access.NewClient(env["ACCESS_URL"], env["ACCESS_TOKEN"], access.WithPinnedCertificate(env["ACCESS_FINGERPRINT"]))
	if err != nil {
		b.Fatal(err)
	}
	for _, err := range c.Users.All(context.Background(), nil) {
		if err != nil {
			b.Fatal(err)
		}
	}
	return vmRSS(b, cmd.Process.Pid)
}

// BenchmarkUnlocksResidentMemory is issue 22's bound: the real `access
// fake --state` takes 30,000 unlocks with a webhook endpoint that refuses
// every connection, then reports its resident memory (VmRSS) and the size
// of its state file; /keep-all is the same with every bound off (--keep-*
// 0), the simulator as it was before the bounds.
func BenchmarkUnlocksResidentMemory(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc")
	}
	const unlocks = 30000
	for _, c := range []struct {
		name string
		args []string
	}{
		{"bounded", nil},
		{"keep-all", []string{"--keep-logs", "0", "--keep-log-days", "0", "--keep-deliveries", "0", "--keep-requests", "0"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				state := filepath.Join(b.TempDir(), "state.json")
				cmd, env := startBenchFake(b, append([]string{"--state", state}, c.args...)...)
				cl, err := access.NewClient(env["ACCESS_URL"], env["ACCESS_TOKEN"], access.WithPinnedCertificate(env["ACCESS_FINGERPRINT"]))
				if err != nil {
					b.Fatal(err)
				}
				deadWebhookUnlocks(b, cl, unlocks)
				rss := vmRSS(b, cmd.Process.Pid)
				if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
					b.Fatal(err)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				fi, err := os.Stat(state)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(rss)/(1<<20), "RSS-MiB")
				b.ReportMetric(float64(fi.Size())/(1<<20), "state-MiB")
			}
		})
	}
}

// startBenchFake starts `access fake` on a free loopback port and returns
// it with the environment it printed.
func startBenchFake(b *testing.B, args ...string) (*exec.Cmd, map[string]string) {
	cmd := exec.Command(accessBinary(b), append([]string{"fake", "--addr", "127.0.0.1:0", "--print-env"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	env := map[string]string{}
	sc := bufio.NewScanner(out)
	for len(env) < 4 && sc.Scan() {
		k, v, _ := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		env[k] = strings.Trim(v, "'")
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, env
}

// vmRSS is a process's resident memory in bytes.
func vmRSS(b *testing.B, pid int) int64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

// BenchmarkDurableCreates is user creations/s acknowledged by the
// simulator from 32 concurrent clients: /durable with --state (each
// answered once its change is on disk; creates/save is the group
// commit's mean batch), on the demo site and on a site of 10,000 users;
// /async with --async-save; /memory without a state file, the baseline,
// in the same run.
func BenchmarkDurableCreates(b *testing.B) {
	const clients = 32
	run := func(b *testing.B, cfg simulator.Config, users int) {
		cfg.Addr, cfg.NoUI, cfg.Demo = "127.0.0.1:0", true, true
		sim, err := simulator.Start(cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer sim.Close()
		st := sim.Sites[0]
		for i := len(st.Fake.Users()); i < users; i++ {
			st.Fake.AddUser(access.User{FirstName: "User", LastName: strconv.Itoa(i), UserEmail: fmt.Sprintf("user%d@example.com", i),
				EmployeeNumber: strconv.Itoa(100000 + i), Status: access.UserStatusActive})
		}
		hc := benchHTTP(clients)
		defer hc.CloseIdleConnections()
		var n atomic.Int64
		create := func() error {
			body := fmt.Sprintf(`{"first_name":"Bench","last_name":"%d"}`, n.Add(1))
			req, _ := http.NewRequest(http.MethodPost, st.URL+"/api/v1/developer/users", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+st.Token())
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}
		if err := create(); err != nil {
			b.Fatal(err)
		}
		b.SetParallelism((clients + 1) / 2) // 16 goroutines per core: 32 on 2 cores
		savesBefore := simulator.SiteSaves(st)
		b.ResetTimer()
		start := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := create(); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "creates/s")
		if saves := simulator.SiteSaves(st) - savesBefore; saves > 0 && !cfg.AsyncSave {
			b.ReportMetric(float64(b.N)/float64(saves), "creates/save") // the group commit's batch
		}
	}
	for _, users := range []int{0, 10000} {
		name := "demo"
		if users > 0 {
			name = strconv.Itoa(users) + "users"
		}
		b.Run("durable/"+name, func(b *testing.B) {
			run(b, simulator.Config{StatePath: filepath.Join(b.TempDir(), "state.json")}, users)
		})
		b.Run("async/"+name, func(b *testing.B) {
			run(b, simulator.Config{StatePath: filepath.Join(b.TempDir(), "state.json"), AsyncSave: true}, users)
		})
		b.Run("memory/"+name, func(b *testing.B) { run(b, simulator.Config{}, users) })
	}
}
