package accesstest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The fake's scale (issue 24 item 3), as benchmarks whose figures are per
// record at several sizes, so that a cost growing with the size shows as
// a per-record figure that grows (run with -benchtime 1x for the large
// sizes):
//
//   - BenchmarkSeedUsers: AddUser of n users into an empty fake;
//   - BenchmarkGetUser: GET /users/{id} through the SDK with n users
//     stored; BenchmarkGetUserHandler: the same served by the fake's
//     handler in process, without a connection;
//   - BenchmarkSystemLogsAll: SystemLogs.All, pages of 500, over a log
//     of n entries; BenchmarkSystemLogsAllOf1M: the newest n entries of
//     one log of 1,000,000.
//
// The servers keep one request (WithRetention), so that the request
// journal does not grow with b.N.

var scaleSizes = []int{10_000, 100_000, 1_000_000}

func scaleServer(b *testing.B) *accesstest.Server {
	return accesstest.New(b, accesstest.WithClock(func() time.Time { return t0 }),
		accesstest.WithRetention(accesstest.Retention{Requests: 1}))
}

func BenchmarkSeedUsers(b *testing.B) {
	for _, n := range scaleSizes[:2] {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				srv := scaleServer(b)
				b.StartTimer()
				start, cpu := time.Now(), cpuTime()
				for i := range n {
					srv.AddUser(access.User{FirstName: "User", LastName: strconv.Itoa(i), EmployeeNumber: strconv.Itoa(100000 + i)})
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "ns/user")
				b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(n), "cpu-ns/user")
			}
		})
	}
}

func BenchmarkGetUser(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			srv := scaleServer(b)
			ids := make([]string, n)
			for i := range n {
				ids[i] = srv.AddUser(access.User{FirstName: "User", LastName: strconv.Itoa(i)}).ID
			}
			c := srv.Client()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for range b.N {
				if _, _, err := c.Users.Get(ctx, ids[rng.IntN(n)], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGetUserHandler is GET /users/{id} served by the fake's
// handler in process, with no connection: the fake's own cost per
// request, which the SDK's round trip over loopback TLS hides.
func BenchmarkGetUserHandler(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			srv := scaleServer(b)
			ids := make([]string, n)
			for i := range n {
				ids[i] = srv.AddUser(access.User{FirstName: "User", LastName: strconv.Itoa(i)}).ID
			}
			h := srv.Handler()
			auth := "Bearer " + srv.Token()
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			cpu := cpuTime()
			for range b.N {
				req := httptest.NewRequest(http.MethodGet, "/api/v1/developer/users/"+ids[rng.IntN(n)], nil)
				req.Header.Set("Authorization", auth)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// seedLog adds n door-opening entries, one a second from t0.
func seedLog(srv *accesstest.Server, n int) {
	const batch = 10_000
	for i := 0; i < n; i += batch {
		es := make([]accesstest.SystemLogEntry, min(batch, n-i))
		for j := range es {
			e := &es[j]
			e.Topic = access.SystemLogTopicDoorOpenings
			e.ID = fmt.Sprint("log-", i+j)
			e.Source.Event.Type = "access.door.unlock"
			e.Source.Event.Published = access.UnixMilliOf(t0.Add(time.Duration(i+j) * time.Second))
		}
		srv.AddSystemLog(es...)
	}
}

// readLog reads the entries q selects with SystemLogs.All, pages of 500,
// b.N times, and reports the time and CPU time per entry.
func readLog(b *testing.B, srv *accesstest.Server, q access.SystemLogQuery, n int) {
	c := srv.Client()
	ctx := context.Background()
	q.PageSize = 500
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		got := 0
		for _, err := range c.SystemLogs.All(ctx, &q) {
			if err != nil {
				b.Fatal(err)
			}
			got++
		}
		if got != n {
			b.Fatalf("got %d entries of %d", got, n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/entry")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/entry")
}

func BenchmarkSystemLogsAll(b *testing.B) {
	for _, n := range scaleSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			srv := scaleServer(b)
			seedLog(srv, n)
			readLog(b, srv, access.SystemLogQuery{Topic: access.SystemLogTopicAll}, n)
		})
	}
}

// BenchmarkSystemLogsAllOf1M reads the newest n entries (Since) of one
// log of 1,000,000 entries: the same log and heap at every n, so the
// figure per entry shows what a page costs, whatever the log holds around
// it (a page that walked the log would cost the whole log's size).
func BenchmarkSystemLogsAllOf1M(b *testing.B) {
	const size = 1_000_000
	srv := scaleServer(b)
	seedLog(srv, size)
	for _, n := range scaleSizes {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			readLog(b, srv, access.SystemLogQuery{Topic: access.SystemLogTopicAll, Since: t0.Add(time.Duration(size-n) * time.Second)}, n)
		})
	}
}
