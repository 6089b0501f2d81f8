package site_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// applyDoc is the document of BenchmarkApplyVsProgram: the users of a
// site seeded by bigSite (as exported) and n new users, each in one of
// the site's groups.
func applyDoc(b *testing.B, srv *accesstest.Server, n, groups int) *site.Document {
	doc, _, err := site.Export(context.Background(), srv.Client(), []site.Kind{site.KindUsers})
	if err != nil {
		b.Fatal(err)
	}
	for i := range n {
		doc.Users = append(doc.Users, site.User{EmployeeNumber: fmt.Sprintf("N%05d", i), FirstName: "New",
			LastName: fmt.Sprintf("User%d", i), Groups: []string{fmt.Sprintf("Group %03d", i%groups)}})
	}
	return doc
}

// programApply is what BenchmarkApplyVsProgram compares apply with: a
// program making the reads a plan of the document needs (every user page,
// the groups, every group's members, two at a time as a plan reads them)
// and then the same creates and group additions as apply, concurrency at
// a time.
func programApply(ctx context.Context, c *access.Client, doc *site.Document, concurrency int) error {
	have := map[string]bool{}
	for u, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
		if err != nil {
			return err
		}
		have[u.EmployeeNumber] = true
	}
	groups, _, err := c.UserGroups.List(ctx)
	if err != nil {
		return err
	}
	groupID := map[string]string{}
	for _, g := range groups {
		groupID[g.Name] = g.ID
	}
	if err := parallel(len(groups), 2, func(i int) error {
		_, _, err := c.UserGroups.ListUsers(ctx, groups[i].ID)
		return err
	}); err != nil {
		return err
	}
	var todo []*site.User
	for i := range doc.Users {
		if !have[doc.Users[i].EmployeeNumber] {
			todo = append(todo, &doc.Users[i])
		}
	}
	return parallel(len(todo), concurrency, func(i int) error {
		u := todo[i]
		got, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: u.FirstName, LastName: u.LastName, EmployeeNumber: u.EmployeeNumber})
		if err != nil {
			return err
		}
		for _, g := range u.Groups {
			if _, err := c.UserGroups.AddUsers(ctx, groupID[g], []string{got.ID}); err != nil {
				return err
			}
		}
		return nil
	})
}

// parallel runs f(0..n-1), at most k at once, and returns an error of
// one of them.
func parallel(n, k int, f func(int) error) error {
	sem := make(chan struct{}, k)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// BenchmarkApplyVsProgram applies 1,000 user creates (each in one
// existing group) on a site of 10,000 users in 500 groups, as `access
// apply` does (MakePlan, then Plan.Apply with its default concurrency of
// 2), beside a program making the same reads and the same writes at the
// same concurrency (programApply). The two alternate within every
// iteration (which goes first alternates too), each on a site of its own
// seeded outside the timing; ratio is apply's time over the program's in
// the same run, requests-apply and requests-program the requests each
// sent. In "fresh" Apply uses the plan's reading (ApplyOptions.FreshFor,
// as `access apply --yes` does); in "reread" it reads the console again
// (a saved plan, a confirmation that waited).
func BenchmarkApplyVsProgram(b *testing.B) {
	for _, mode := range []struct {
		name     string
		freshFor time.Duration
	}{{"fresh", time.Minute}, {"reread", 0}} {
		b.Run(mode.name, func(b *testing.B) { benchApplyVsProgram(b, mode.freshFor) })
	}
}

func benchApplyVsProgram(b *testing.B, freshFor time.Duration) {
	const users, groups, creates = 10000, 500, 1000
	ctx := context.Background()
	tmpl := bigSite(b, users, groups)
	doc := applyDoc(b, tmpl, creates, groups)
	tmpl.Close()
	var tApply, tProgram time.Duration
	var rApply, rProgram int
	runApply := func() {
		srv := bigSite(b, users, groups)
		defer srv.Close()
		c := srv.Client()
		d0, p0 := srv.RequestsByMode()
		start := time.Now()
		p, err := site.MakePlan(ctx, c, doc, nil)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := p.Apply(ctx, c, &site.ApplyOptions{FreshFor: freshFor})
		if err != nil || rep.Done != creates {
			b.Fatalf("%v %d done", err, rep.Done)
		}
		tApply += time.Since(start)
		d1, p1 := srv.RequestsByMode()
		rApply += d1 + p1 - d0 - p0
	}
	runProgram := func() {
		srv := bigSite(b, users, groups)
		defer srv.Close()
		c := srv.Client()
		d0, p0 := srv.RequestsByMode()
		start := time.Now()
		if err := programApply(ctx, c, doc, 2); err != nil {
			b.Fatal(err)
		}
		tProgram += time.Since(start)
		d1, p1 := srv.RequestsByMode()
		rProgram += d1 + p1 - d0 - p0
	}
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			runApply()
			runProgram()
		} else {
			runProgram()
			runApply()
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(tApply.Seconds()/n, "apply-s")
	b.ReportMetric(tProgram.Seconds()/n, "program-s")
	b.ReportMetric(tApply.Seconds()/tProgram.Seconds(), "ratio")
	b.ReportMetric(float64(rApply)/n, "requests-apply")
	b.ReportMetric(float64(rProgram)/n, "requests-program")
}
