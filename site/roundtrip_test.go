package site_test

import (
	"context"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

func TestExportThenPlanIsEmptyOnTheDemo(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	ctx := context.Background()
	doc, warns, err := site.Export(ctx, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warnings: %v", warns)
	if len(doc.Users) == 0 || len(doc.AccessPolicies) == 0 || len(doc.Schedules) == 0 {
		t.Fatalf("export is missing objects: %d users, %d policies, %d schedules", len(doc.Users), len(doc.AccessPolicies), len(doc.Schedules))
	}
	p, err := site.MakePlan(ctx, c, doc, &site.PlanOptions{Prune: true, PruneEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 0 {
		t.Fatalf("plan of the export has %d changes: %+v", len(p.Changes), p.Changes[:min(5, len(p.Changes))])
	}
}
