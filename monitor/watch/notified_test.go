package watch_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
	"github.com/access-dev/access/monitor/watch"
)

// eventCounts gathers access_events_total: the sum over its series and
// the count of one event.
func eventCounts(reg prometheus.Gatherer, event string) (total, of float64, err error) {
	mfs, err := reg.Gather()
	if err != nil {
		return 0, 0, err
	}
	for _, mf := range mfs {
		if mf.GetName() != "access_events_total" {
			continue
		}
		for _, m := range mf.Metric {
			total += m.GetCounter().GetValue()
			for _, l := range m.Label {
				if l.GetName() == "event" && l.GetValue() == event {
					of += m.GetCounter().GetValue()
				}
			}
		}
	}
	return total, of, nil
}

// TestNotifiedAfterEachNotification: Options.Notified is called once per
// notification of the stream, after the watcher has handled it (the
// k-th call sees k notifications counted in the metrics) and without the
// watcher's lock (the hook gathers the registry, whose collector takes
// it).
func TestNotifiedAfterEachNotification(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	m, reg, creg := newMetrics(t)
	type seen struct{ total, bells float64 }
	calls := make(chan seen, 64)
	o := watch.Options{Engine: monitor.Config{Console: "a"}, Metrics: m, Notified: func() {
		total, bells, err := eventCounts(reg, string(access.NotificationDoorBell))
		if err != nil {
			total = -1
		}
		calls <- seen{total, bells}
	}}
	var w *watch.Watcher
	cl := srv.Client(access.WithRateLimit(100, 20), access.WithTransportWrapper(m.Transport(func() { w.Upgraded() })))
	w, err := watch.New(cl, o)
	require.NoError(t, err)
	require.NoError(t, creg.Register(w.Collector()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	defer func() { cancel(); <-done }()

	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	const bells = 3
	for i := range bells {
		require.NoError(t, srv.Notify(mustNotification(access.NotificationDoorBell, fmt.Sprint("bell-", i),
			access.DoorBellData{DeviceID: "dev-1", RequestID: fmt.Sprint("req-", i)})))
	}
	for k := 1; ; k++ {
		var s seen
		select {
		case s = <-calls:
		case <-ctx.Done():
			t.Fatalf("%d calls of Notified, not all the door bells", k-1)
		}
		require.Equal(t, float64(k), s.total, "call %d: the notifications counted when Notified was called", k)
		if s.bells == bells {
			// One call per bell: the handshake (access.base.info) is
			// no notification (the SDK does not pass it on).
			require.Equal(t, bells, k, "calls of Notified when the last bell was handled")
			return
		}
	}
}
