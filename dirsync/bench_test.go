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
