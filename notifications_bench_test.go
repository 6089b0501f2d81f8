package access_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// BenchmarkNotifications streams b.N notifications from the fake to a
// consumer over loopback TLS. "throughput" sends as fast as the fake
// can (notifications/s); "latency" sends the next one only when the
// previous has been yielded and reports the send-to-yield latency (p50,
// p99); "offered50k" sends the published frames of testdata at 50,000 a
// second, whatever the consumer does, and reports the send-to-yield
// latency and the peak heap in use (the fake's included).
func BenchmarkNotifications(b *testing.B) {
	for _, paced := range []bool{false, true} {
		name := "throughput"
		if paced {
			name = "latency"
		}
		b.Run(name, func(b *testing.B) { benchNotifications(b, paced) })
	}
	b.Run("offered50k", func(b *testing.B) { benchNotificationsOffered(b, 50_000) })
}

// publishedFrameTemplates are the frames users published from live
// consoles (testdata/notifications/README.md), compacted, each cut before
// its closing brace so that a send time can be appended as the last
// event_object_id (the last of a repeated member counts).
func publishedFrameTemplates(b *testing.B) [][]byte {
	var out [][]byte
	for _, name := range []string{"device_update_hub_mini.json", "location_update_v2_guard.json", "location_update_v2_intercom.json",
		"device_update_eah8.json", "logs_add_hub_mini.json", "logs_add_log_category.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", "notifications", name))
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			b.Fatal(err)
		}
		out = append(out, bytes.TrimSuffix(buf.Bytes(), []byte("}")))
	}
	return out
}

// benchNotificationsOffered sends b.N published frames at rate a second
// (each at its due time, late ones at once), stamped with their send time.
func benchNotificationsOffered(b *testing.B, rate int) {
	frames := publishedFrameTemplates(b)
	srv := accesstest.New(b)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if srv.WaitNotificationClients(ctx, 1) != nil {
			return
		}
		interval := time.Second / time.Duration(rate)
		start := time.Now()
		var msg []byte
		for i := 0; i < b.N && ctx.Err() == nil; i++ {
			if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
				time.Sleep(d)
			}
			msg = append(msg[:0], frames[i%len(frames)]...)
			msg = fmt.Appendf(msg, `,"event_object_id":"%d"}`, time.Now().UnixNano())
			srv.NotifyRaw(msg)
		}
	}()
	runtime.GC()
	var peak uint64
	heapSamples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for n, err := range c.Notifications.Subscribe(ctx, &access.SubscribeOptions{MinBackoff: time.Millisecond}) {
		if err != nil {
			b.Fatal(err)
		}
		sent, _ := strconv.ParseInt(n.EventObjectID, 10, 64)
		lat = append(lat, time.Since(time.Unix(0, sent)))
		if len(lat)%2_000 == 0 {
			peak = max(peak, heapInUse(heapSamples))
		}
		if len(lat) == b.N {
			break
		}
	}
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notifications/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

func benchNotifications(b *testing.B, paced bool) {
	srv := accesstest.New(b)
	c := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	next := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if srv.WaitNotificationClients(ctx, 1) != nil {
			return
		}
		for i := 0; i < b.N; i++ {
			srv.NotifyRaw(fmt.Appendf(nil, `{"event":"bench","event_object_id":"%d","data":{}}`, time.Now().UnixNano()))
			if paced {
				select {
				case <-next:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for n, err := range c.Notifications.Subscribe(ctx, &access.SubscribeOptions{MinBackoff: time.Millisecond}) {
		if err != nil {
			b.Fatal(err)
		}
		sent, _ := strconv.ParseInt(n.EventObjectID, 10, 64)
		lat = append(lat, time.Since(time.Unix(0, sent)))
		if len(lat) == b.N {
			break
		}
		if paced {
			next <- struct{}{}
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "notifications/s")
	if paced {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	}
}

// heapInUse is the heap's spans in use (runtime.MemStats.HeapInuse) read
// through runtime/metrics, which does not stop the world as
// runtime.ReadMemStats does: sampling it does not hold up the stream
// being measured.
func heapInUse(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}
