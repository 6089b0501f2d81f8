package site_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// bigSite seeds a fake console (the server "access fake" serves) with
// users and groups, each user in one group.
func bigSite(b testing.TB, users, groups int) *accesstest.Server {
	srv := accesstest.New(b)
	ids := make([]string, users)
	for i := range users {
		u := srv.AddUser(access.User{FirstName: "First", LastName: fmt.Sprintf("Last%d", i),
			EmployeeNumber: fmt.Sprintf("E%06d", i), UserEmail: fmt.Sprintf("u%d@example.com", i), OnboardTime: 1700000000})
		ids[i] = u.ID
	}
	per := users / groups
	for g := range groups {
		srv.AddUserGroup("", fmt.Sprintf("Group %03d", g), "", ids[g*per:(g+1)*per]...)
	}
	return srv
}

// heapMiB reports the heap in use, after a collection, in MiB.
func heapMiB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// BenchmarkPlan10kUsers500Groups plans a document of 10,000 users in 500
// groups (the console's own export, with one user changed) against the
// fake on loopback. The baseline is the reads a plan cannot avoid, done
// directly with the SDK: every user page and every group's members.
// heap-MiB is the live heap with the plan held, the document included.
func BenchmarkPlan10kUsers500Groups(b *testing.B) {
	srv := bigSite(b, 10000, 500)
	c := srv.Client()
	ctx := context.Background()
	doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers, site.KindUserGroups})
	if err != nil {
		b.Fatal(err)
	}
	doc.Users[42].LastName = "Changed"
	b.Run("baseline-reads", func(b *testing.B) {
		for range b.N {
			n := 0
			for _, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			groups, _, err := c.UserGroups.List(ctx)
			if err != nil {
				b.Fatal(err)
			}
			for _, g := range groups {
				if _, _, err := c.UserGroups.ListUsers(ctx, g.ID); err != nil {
					b.Fatal(err)
				}
				if _, _, err := c.UserGroups.ListAccessPolicies(ctx, g.ID); err != nil {
					b.Fatal(err)
				}
			}
			if n != 10000 {
				b.Fatalf("%d users", n)
			}
		}
	})
	b.Run("plan", func(b *testing.B) {
		before := heapMiB()
		var p *site.Plan
		for range b.N {
			if p, err = site.MakePlan(ctx, c, doc, nil); err != nil {
				b.Fatal(err)
			}
			if len(p.Changes) != 1 {
				b.Fatalf("%d changes, want 1", len(p.Changes))
			}
		}
		b.ReportMetric(heapMiB()-before, "heap-MiB")
		runtime.KeepAlive(p)
	})
}

// BenchmarkExport10kUsers exports 10,000 users and encodes the document
// as JSON; the baseline reads the same users directly with the SDK.
func BenchmarkExport10kUsers(b *testing.B) {
	srv := bigSite(b, 10000, 500)
	c := srv.Client()
	ctx := context.Background()
	b.Run("baseline-reads", func(b *testing.B) {
		for range b.N {
			for _, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("export", func(b *testing.B) {
		for range b.N {
			doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkApply1000Creates applies a document of 1,000 new users (in one
// new group) with two writes in flight; the baseline sends the same
// creates and group additions directly with the SDK, two at a time. The
// difference is the tool's own cost: the reads before and the settling.
func BenchmarkApply1000Creates(b *testing.B) {
	doc := &site.Document{UserGroups: []site.UserGroup{{Name: "New"}}, Users: make([]site.User, 1000)}
	for i := range doc.Users {
		doc.Users[i] = site.User{EmployeeNumber: fmt.Sprintf("N%04d", i), FirstName: "New", LastName: fmt.Sprintf("User%d", i), Groups: []string{"New"}}
	}
	ctx := context.Background()
	b.Run("baseline-sdk", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			srv := accesstest.New(b)
			c := srv.Client()
			b.StartTimer()
			g, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "New"})
			if err != nil {
				b.Fatal(err)
			}
			sem := make(chan struct{}, 2)
			errs := make(chan error, len(doc.Users))
			for _, u := range doc.Users {
				sem <- struct{}{}
				go func() {
					defer func() { <-sem }()
					got, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: u.FirstName, LastName: u.LastName, EmployeeNumber: u.EmployeeNumber})
					if err == nil {
						_, err = c.UserGroups.AddUsers(ctx, g.ID, []string{got.ID})
					}
					errs <- err
				}()
			}
			for range doc.Users {
				if err := <-errs; err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			srv.Close()
			b.StartTimer()
		}
	})
	b.Run("apply", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			srv := accesstest.New(b)
			c := srv.Client()
			b.StartTimer()
			p, err := site.MakePlan(ctx, c, doc, nil)
			if err != nil {
				b.Fatal(err)
			}
			if rep, err := p.Apply(ctx, c, nil); err != nil || rep.Done != 1001 {
				b.Fatalf("%v %+v", err, rep)
			}
			b.StopTimer()
			srv.Close()
			b.StartTimer()
		}
	})
}
