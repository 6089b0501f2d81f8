package site_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/site"
)

// TestPlanJSONGolden keeps the JSON form of a plan (creates, updates, a
// dependency, prune deletions, built-ins left alone) in
// testdata/plan.golden.json; -update rewrites it.
func TestPlanJSONGolden(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	doc := &site.Document{
		Schedules: []site.Schedule{
			{Name: "Office hours", Week: site.Week{Monday: []site.Range{{Start: "08:00:00", End: "18:00:59"}}}, HolidayGroup: "Public Holidays 2026"},
			{Name: "Nights", Week: site.Week{Friday: []site.Range{{Start: "20:00:00", End: "23:59:59"}}}, HolidayGroup: "Winter Shutdown"},
		},
		UserGroups: []site.UserGroup{{Name: "Crew"}, {Name: "Night", Parent: "Crew", Policies: []string{"Cleaning"}}},
	}
	p, err := site.MakePlan(context.Background(), c, doc, &site.PlanOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const file = "testdata/plan.golden.json"
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the plan differs from %s (go test ./site -run TestPlanJSONGolden -update):\n%s", file, got)
	}
}
