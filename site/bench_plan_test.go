package site_test

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/site"
)

// cpuTime is the process's CPU time so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// planReads is the program BenchmarkPlanVsReads compares a plan with:
// the reads a plan of users and user groups needs (every user page, the
// groups, each group's members and policies, two groups at a time as a
// plan reads them), keeping what it read.
func planReads(ctx context.Context, c *access.Client) (any, error) {
	var users []access.User
	for u, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	groups, _, err := c.UserGroups.List(ctx)
	if err != nil {
		return nil, err
	}
	members := make([][]access.User, len(groups))
	policies := make([][]access.AccessPolicy, len(groups))
	err = parallel(len(groups), 2, func(i int) error {
		var err error
		if members[i], _, err = c.UserGroups.ListUsers(ctx, groups[i].ID); err != nil {
			return err
		}
		policies[i], _, err = c.UserGroups.ListAccessPolicies(ctx, groups[i].ID)
		return err
	})
	return []any{users, members, policies}, err
}

// BenchmarkPlanVsReads plans a document of 10,000 users in 500 groups
// (the console's own export, with one user changed) beside a program
// making the reads such a plan needs (planReads), alternating within
// every iteration against one fake on loopback. ratio is the plan's wall
// time over the program's in the same run; cpu-ratio the same for the
// process's CPU time (the fake's included, the same on both sides);
// alloc-ratio the bytes allocated (the fake's included); heap-ratio the
// live heap with the result held (the plan, with its document; the
// program's users, members and policies) over the heap before.
func BenchmarkPlanVsReads(b *testing.B) {
	srv := bigSite(b, 10000, 500)
	c := srv.Client()
	ctx := context.Background()
	doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers, site.KindUserGroups})
	if err != nil {
		b.Fatal(err)
	}
	doc.Users[42].LastName = "Changed"
	type side struct {
		wall, cpu   time.Duration
		alloc, heap float64
	}
	var plan, prog side
	measure := func(s *side, f func() any) {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		c0, w0 := cpuTime(), time.Now()
		keep := f()
		s.wall += time.Since(w0)
		s.cpu += cpuTime() - c0
		runtime.ReadMemStats(&m1)
		s.alloc += float64(m1.TotalAlloc - m0.TotalAlloc)
		runtime.GC()
		var m2 runtime.MemStats
		runtime.ReadMemStats(&m2)
		s.heap += float64(m2.HeapAlloc) - float64(m0.HeapAlloc)
		runtime.KeepAlive(keep)
	}
	runPlan := func() any {
		p, err := site.MakePlan(ctx, c, doc, nil)
		if err != nil || len(p.Changes) != 1 {
			b.Fatalf("%v", err)
		}
		return p
	}
	runProg := func() any {
		r, err := planReads(ctx, c)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			measure(&plan, runPlan)
			measure(&prog, runProg)
		} else {
			measure(&prog, runProg)
			measure(&plan, runPlan)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(plan.wall.Seconds()/n, "plan-s")
	b.ReportMetric(prog.wall.Seconds()/n, "reads-s")
	b.ReportMetric(plan.wall.Seconds()/prog.wall.Seconds(), "ratio")
	b.ReportMetric(plan.cpu.Seconds()/prog.cpu.Seconds(), "cpu-ratio")
	b.ReportMetric(plan.alloc/n/(1<<20), "plan-alloc-MiB")
	b.ReportMetric(prog.alloc/n/(1<<20), "reads-alloc-MiB")
	b.ReportMetric(plan.alloc/prog.alloc, "alloc-ratio")
	b.ReportMetric(plan.heap/n/(1<<20), "plan-heap-MiB")
	b.ReportMetric(prog.heap/n/(1<<20), "reads-heap-MiB")
	b.ReportMetric(plan.heap/prog.heap, "heap-ratio")
}
