package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// procStat reads a process's resident set (VmRSS, VmHWM, in KiB) and its
// CPU time in clock ticks (utime+stime) from /proc.
func procStat(pid int) (rss, hwm int, ticks int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "VmRSS:" {
			rss, _ = strconv.Atoi(f[1])
		}
		if len(f) >= 2 && f[0] == "VmHWM:" {
			hwm, _ = strconv.Atoi(f[1])
		}
	}
	s, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, 0, err
	}
	// The fields after the command name in parentheses.
	_, rest, _ := strings.Cut(string(s), ") ")
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, 0, 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return rss, hwm, ut + st, nil
}

// BenchmarkMonitorProcess runs access monitor as a process against a
// site of 500 doors and 1,000 devices, scrapes it once, and reports its
// resident memory (RSS-MiB, peak-RSS-MiB) and its CPU use over 3 s of an
// idle site (idle-CPU-%, of one core). Run it with -benchtime 1x.
func BenchmarkMonitorProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "access")
	if err := os.Symlink(os.Args[0], bin); err != nil {
		b.Skipf("no symlink: %v", err)
	}
	srv := accesstest.NewServer()
	defer srv.Close()
	floor := srv.AddFloor("", "Ground")
	for i := 0; i < 500; i++ {
		d := srv.AddDoor(access.Door{Name: fmt.Sprintf("Door %d", i), FloorID: floor, IsBindHub: true, PositionStatus: access.DoorClosed})
		srv.AddDeviceInfo(access.Device{Name: fmt.Sprintf("Hub %d", i), Type: "UAH", LocationID: d.ID, IsOnline: true})
		srv.AddDeviceInfo(access.Device{Name: fmt.Sprintf("Reader %d", i), Type: "UA-Reader-Lite", LocationID: d.ID, IsOnline: true})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		cmd := exec.CommandContext(ctx, bin, "monitor", "--listen", "127.0.0.1:0", "--rate", "20", "--burst", "10")
		cmd.Env = append(os.Environ(), "ACCESS_URL="+srv.URL(), "ACCESS_TOKEN="+srv.Token(), "ACCESS_FINGERPRINT="+srv.Fingerprint(),
			"ACCESS_CONFIG_DIR="+b.TempDir(), "GORACE=atexit_sleep_ms=0")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		lines := newLineLog(stderr)
		line, _, err := lines.wait(ctx, 0, listenLine.MatchString)
		if err != nil {
			b.Fatalf("%v: %s", err, lines)
		}
		addr := listenLine.FindStringSubmatch(line)[1]
		if _, _, err := lines.wait(ctx, 0, func(s string) bool { return strings.Contains(s, "500 of 500 doors") }); err != nil {
			b.Fatalf("%v: %s", err, lines)
		}
		resp, err := httpGet(ctx, "http://"+addr+"/metrics")
		if err != nil {
			b.Fatal(err)
		}
		if n := strings.Count(resp, "access_device_online{"); n != 1000 {
			b.Fatalf("the scrape has %d devices", n)
		}
		// The site is idle from here: measure.
		rss, _, t0, err := procStat(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		const idle = 3 * time.Second
		time.Sleep(idle) // a measurement window, not a synchronisation
		_, hwm, t1, err := procStat(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		const ticksPerSecond = 100 // USER_HZ on Linux
		b.ReportMetric(float64(rss)/1024, "RSS-MiB")
		b.ReportMetric(float64(hwm)/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(t1-t0)/ticksPerSecond/idle.Seconds()*100, "idle-CPU-%")
	}
}

// httpGet returns the body of a GET.
func httpGet(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}
