package accesstest_test

import (
	"context"
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
)

// BenchmarkDemoVisitTimers measures a request to the demo site with its
// visitors' status timers pending (the demo as it starts) against the same
// site once every timer has fired (the baseline): each request looks for
// timers that fell due.
func BenchmarkDemoVisitTimers(b *testing.B) {
	at := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	bench := func(b *testing.B, advance time.Duration) {
		srv := accesstest.New(b, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return at }))
		srv.Advance(advance)
		c := srv.Client()
		ctx := context.Background()
		b.ResetTimer()
		for range b.N {
			if _, _, err := c.Doors.Get(ctx, accesstest.DemoDoorID); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("pending", func(b *testing.B) { bench(b, 0) })
	b.Run("baseline", func(b *testing.B) { bench(b, 60*24*time.Hour) })
}
