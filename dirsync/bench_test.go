package dirsync_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/site"
)

// BenchmarkLDAPRead5000 reads 5,000 people from a loopback slapd with
// Active Directory's limits, in pages of 1,000 (bind, five pages,
// mapping). It skips without slapd.
func BenchmarkLDAPRead5000(b *testing.B) {
	srv := startSlapd(b, slapdOptions{users: 5000})
	cfg := ldapConfig(srv)
	cfg.PageSize = 1000
	src := newSource(b, cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.People) != 5000 {
			b.Fatal(snap.Summary())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/5000, "µs/person")
}

// BenchmarkReconcile10000NoChange reconciles a directory of 10,000
// people (in 50 mapped groups) with a fake console on loopback that
// already holds them: a plan and no write (writes/op must be 0). The
// baseline is site's plan of the same document alone, the console read
// any reconcile needs; the difference is dirsync's own cost.
func BenchmarkReconcile10000NoChange(b *testing.B) {
	const n, groups = 10000, 50
	srv := accesstest.New(b)
	c := srv.Client()
	ctx := context.Background()
	snap := &dirsync.Snapshot{Source: "bench", Complete: true, Finished: time.Now(), People: make([]dirsync.Person, n)}
	mapping := map[string]string{}
	members := make([][]string, groups)
	for i := range n {
		g := fmt.Sprintf("g%02d", i%groups)
		mapping[g] = "Group " + g
		p := dirsync.Person{Key: fmt.Sprintf("E%06d", i), FirstName: "First", LastName: fmt.Sprintf("Last%d", i),
			Email: fmt.Sprintf("u%d@example.com", i), Groups: []string{g}, Active: true}
		snap.People[i] = p
		u := srv.AddUser(access.User{FirstName: p.FirstName, LastName: p.LastName, EmployeeNumber: p.Key, UserEmail: p.Email})
		members[i%groups] = append(members[i%groups], u.ID)
	}
	for g := range groups {
		srv.AddUserGroup("", fmt.Sprintf("Group g%02d", g), "", members[g]...)
	}
	opts := &dirsync.ReconcileOptions{Groups: mapping, Scope: &site.Scope{EmployeeNumber: true}}
	doc, err := dirsync.Document(snap, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("baseline-site-plan", func(b *testing.B) {
		defer srv.ResetRequests()
		for range b.N {
			p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, Scope: opts.Scope})
			if err != nil || p.Drift() {
				b.Fatal(err, p.Summary)
			}
		}
	})
	b.Run("reconcile", func(b *testing.B) {
		srv.ResetRequests()
		for range b.N {
			p, rep, err := dirsync.Reconcile(ctx, c, snap, opts, nil)
			if err != nil || p.Drift() || len(rep.Records) != 0 {
				b.Fatal(err, p.Site.Summary)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(len(writes(srv)))/float64(b.N), "writes/op")
		srv.ResetRequests()
	})
}

// BenchmarkFirstImportGrowth makes a first import — every person of the
// directory created on the console and put in the scope's user group, as
// `access sync --once --apply` does over a new HR file — at two sizes,
// 1,000 and 4,000 people, alternated in each op, each against a fake
// console of its own (made off the clock). µs/create-1k and
// µs/create-4k are the imports' times per person; growth is their ratio,
// about 1 when a create costs the same however many the group holds
// already (issue 38: an add walked the group's members, and a 10,000-row
// import slowed from 14 creates a second to 4.6). Run it with
// -benchtime 1x (-count 3).
func BenchmarkFirstImportGrowth(b *testing.B) {
	ctx := context.Background()
	sizes := []int{1000, 4000}
	per := make([]time.Duration, len(sizes))
	for op := range b.N {
		for i, n := range sizes {
			b.StopTimer()
			srv := accesstest.New(b)
			srv.AddUserGroup("", "Contractors", "")
			snap := &dirsync.Snapshot{Source: "hr", Complete: true, Finished: time.Now(), People: make([]dirsync.Person, n)}
			for j := range n {
				snap.People[j] = dirsync.Person{Key: fmt.Sprintf("C%d-%06d", op, j), FirstName: "First", LastName: fmt.Sprint("Last", j),
					Email: fmt.Sprintf("p%d@example.com", j), Groups: []string{"Contractors"}, Active: true}
			}
			opts := &dirsync.ReconcileOptions{Groups: map[string]string{"Contractors": "Contractors"},
				Scope: &site.Scope{UserGroup: "Contractors"}}
			b.StartTimer()
			start := time.Now()
			_, rep, err := dirsync.Reconcile(ctx, srv.Client(), snap, opts, &dirsync.ApplyOptions{})
			per[i] += time.Since(start)
			b.StopTimer()
			if err != nil || rep.Failed != 0 || len(srv.GroupMembers(srv.UserGroups()[0].ID)) != n {
				b.Fatalf("%d people: err %v, report %+v", n, err, rep)
			}
			srv.Close()
			b.StartTimer()
		}
	}
	b.StopTimer()
	us := func(i int) float64 { return float64(per[i].Microseconds()) / float64(b.N*sizes[i]) }
	b.ReportMetric(us(0), "µs/create-1k")
	b.ReportMetric(us(1), "µs/create-4k")
	b.ReportMetric(us(1)/us(0), "growth")
}
