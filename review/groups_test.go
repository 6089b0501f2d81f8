package review_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// TestLoadReadsGroups checks that Load reads user groups' members and
// policies, and that a member of a subgroup holds its parent's policies.
func TestLoadReadsGroups(t *testing.T) {
	ctx := context.Background()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	st, err := review.Load(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	it := st.AccessPolicies[slices.IndexFunc(st.AccessPolicies, func(p access.AccessPolicy) bool { return p.Name == "IT" })].ID
	user := holderOf(t, st, "100001") // Staff only
	sunday3am := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	e, err := review.New(st, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := e.CanOpen(user.ID, accesstest.DemoDoorID, sunday3am); d.Open {
		t.Fatalf("before the groups: %+v, want shut", d)
	}

	company, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Company"})
	if err != nil {
		t.Fatal(err)
	}
	night, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Night crew", UpID: company.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserGroups.AddUsers(ctx, night.ID, []string{user.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UserGroups.SetAccessPolicies(ctx, company.ID, []string{it}); err != nil {
		t.Fatal(err)
	}

	st, err = review.Load(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Members[night.ID]; !slices.Equal(got, []string{user.ID}) {
		t.Errorf("Members[Night crew] = %v, want [%s]", got, user.ID)
	}
	if got := st.GroupPolicies[company.ID]; !slices.Equal(got, []string{it}) {
		t.Errorf("GroupPolicies[Company] = %v, want [%s]", got, it)
	}
	if e, err = review.New(st, time.UTC); err != nil {
		t.Fatal(err)
	}
	d, _ := e.CanOpen(user.ID, accesstest.DemoDoorID, sunday3am)
	if !d.Open || d.Policy != "IT" || d.Schedule != "Always" {
		t.Errorf("a member of a subgroup of Company, Sunday 03:00: %+v, want open by IT (the parent's policy)", d)
	}
}
