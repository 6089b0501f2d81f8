package access_test

import (
	"context"
	"fmt"
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
// p99).
func BenchmarkNotifications(b *testing.B) {
	for _, paced := range []bool{false, true} {
		name := "throughput"
		if paced {
			name = "latency"
		}
		b.Run(name, func(b *testing.B) { benchNotifications(b, paced) })
	}
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
