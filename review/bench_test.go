package review_test

import (
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
)

// BenchmarkCanOpen measures one answer on the demo site after loading: a
// user with two policies at the main entrance, on a weekday, a Sunday
// night and a holiday (the target is 1 µs).
func BenchmarkCanOpen(b *testing.B) {
	_, e := loadDemo(b)
	times := []time.Time{
		time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC),
		time.Date(2026, 12, 25, 15, 0, 0, 0, time.UTC),
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := e.CanOpen(accesstest.DemoUserID, accesstest.DemoDoorID, times[i%len(times)]); err != nil {
			b.Fatal(err)
		}
	}
}
