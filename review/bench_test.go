package review_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
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

// BenchmarkReport is a full review of a large site on the fake (issue 37
// §3): 1,000 users, 50 doors, 8 policies, and a system log of 90 days
// (entries=200000: about 2,200 door openings a day), each iteration
// reading the state through the SDK (Load), building the evaluator and
// paging the log once (NewReport). The 50,000-entry run beside it shows
// what grows with the log (time, bytes allocated while decoding pages)
// and what does not: retained-kB, the heap the finished report and its
// evaluator hold, which is bounded by people × doors. cpu-s/op is the
// process's CPU time (the fake serving the pages included), steadier than
// the wall time on a machine shared with other work.
//
//	go test ./review -run '^$' -bench BenchmarkReport -benchtime 3x
func BenchmarkReport(b *testing.B) {
	for _, entries := range []int{50_000, 200_000} {
		b.Run(fmt.Sprintf("users=1000/doors=50/entries=%d", entries), func(b *testing.B) {
			srv, at := largeSite(b, 1000, 50, entries)
			ctx := context.Background()
			c := srv.Client()
			b.ReportAllocs()
			b.ResetTimer()
			var retained uint64
			var cpu time.Duration
			for range b.N {
				var before runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				cpu0 := cpuTime()
				st, err := review.Load(ctx, c)
				if err != nil {
					b.Fatal(err)
				}
				e, err := review.New(st, time.UTC)
				if err != nil {
					b.Fatal(err)
				}
				r, err := review.NewReport(ctx, c, st, e, review.Options{At: at})
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
				if r.LogEntries != entries {
					b.Fatalf("read %d entries, want %d", r.LogEntries, entries)
				}
				var after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&after)
				if after.HeapAlloc > before.HeapAlloc {
					retained = after.HeapAlloc - before.HeapAlloc
				}
				runtime.KeepAlive(r)
				runtime.KeepAlive(e)
			}
			b.ReportMetric(float64(retained)/1024, "retained-kB")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// largeSite seeds a fake with users people, doors doors on one floor,
// eight policies (office hours or always, each on a band of doors), and
// entries granted door openings spread over the 90 days before the
// returned moment, by random users at doors their policies cover.
func largeSite(b *testing.B, users, doors, entries int) (*accesstest.Server, time.Time) {
	b.Helper()
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	srv := accesstest.New(b, accesstest.WithClock(func() time.Time { return at }),
		accesstest.WithRetention(accesstest.Retention{Requests: 1}))
	floor := srv.AddFloor("floor-1", "Floor 1")
	doorIDs := make([]string, doors)
	for i := range doors {
		doorIDs[i] = fmt.Sprintf("door-%03d", i)
		srv.AddDoor(access.Door{ID: doorIDs[i], Name: fmt.Sprintf("Door %03d", i), FloorID: floor})
	}
	office := []access.TimeRange{{StartTime: "07:00:00", EndTime: "19:00:59"}}
	all := []access.TimeRange{{StartTime: "00:00:00", EndTime: "23:59:59"}}
	srv.AddSchedule(access.Schedule{ID: "s-office", Name: "Office", WeekSchedule: &access.WeekSchedule{
		Monday: office, Tuesday: office, Wednesday: office, Thursday: office, Friday: office}})
	srv.AddSchedule(access.Schedule{ID: "s-always", Name: "Always", WeekSchedule: &access.WeekSchedule{
		Sunday: all, Monday: all, Tuesday: all, Wednesday: all, Thursday: all, Friday: all, Saturday: all}})
	const policies = 8
	covers := make([][]string, policies)
	for p := range policies {
		var res []access.Resource
		for d := p * doors / policies; d < min(doors, (p+2)*doors/policies); d++ {
			res = append(res, access.Resource{ID: doorIDs[d], Type: access.ResourceDoor})
			covers[p] = append(covers[p], doorIDs[d])
		}
		sched := "s-office"
		if p%3 == 0 {
			sched = "s-always"
		}
		srv.AddAccessPolicy(access.AccessPolicy{ID: fmt.Sprintf("p-%d", p), Name: fmt.Sprintf("Policy %d", p), ScheduleID: sched, Resources: res})
	}
	rng := rand.New(rand.NewPCG(37, 1))
	userIDs := make([]string, users)
	userPols := make([][]int, users)
	for i := range users {
		userIDs[i] = fmt.Sprintf("user-%04d", i)
		p1, p2 := rng.IntN(policies), rng.IntN(policies)
		userPols[i] = []int{p1, p2}
		srv.AddUser(access.User{ID: userIDs[i], FirstName: "User", LastName: fmt.Sprint(i), EmployeeNumber: fmt.Sprint(10000 + i),
			Status: access.UserStatusActive, AccessPolicyIDs: []string{fmt.Sprintf("p-%d", p1), fmt.Sprintf("p-%d", p2)},
			NFCCards: []access.NFCCard{{ID: fmt.Sprint(500000 + i), Token: fmt.Sprintf("tok-%d", i)}}})
	}
	logs := make([]accesstest.SystemLogEntry, entries)
	span := int64(90 * 24 * time.Hour / time.Millisecond)
	for i := range logs {
		u := rng.IntN(users)
		pol := userPols[u][rng.IntN(2)]
		door := covers[pol][rng.IntN(len(covers[pol]))]
		t := at.Add(-time.Duration(rng.Int64N(span)) * time.Millisecond)
		logs[i] = accesstest.SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings, SystemLog: access.SystemLog{
			ID: fmt.Sprintf("log-%06d", i), Source: access.SystemLogSource{
				Actor:          access.SystemLogActor{ID: userIDs[u], Type: "user", DisplayName: "User"},
				Event:          access.SystemLogEvent{Type: "access.door.unlock", Result: "ACCESS", Published: access.UnixMilliOf(t)},
				Authentication: access.SystemLogAuthentication{CredentialProvider: "NFC"},
				Target:         []access.SystemLogTarget{{Type: "door", ID: door, DisplayName: door}}}}}
	}
	srv.AddSystemLog(logs...)
	return srv, at
}
