package sitecmd

import (
	"fmt"
	"testing"
	"time"

	"github.com/access-dev/access/site"
)

// BenchmarkMarshalDocumentYAML writes the YAML of a document of 10,000
// users, as access export does (issue 38: most of an export's time).
func BenchmarkMarshalDocumentYAML(b *testing.B) {
	b.ReportAllocs()
	d := &site.Document{UserGroups: []site.UserGroup{{Name: "G"}}}
	t := time.Unix(1700000000, 0).UTC()
	for i := range 10000 {
		d.Users = append(d.Users, site.User{EmployeeNumber: fmt.Sprintf("E%06d", i), FirstName: "First", LastName: fmt.Sprintf("Last%d", i),
			Email: fmt.Sprintf("u%d@example.com", i), Status: "ACTIVE", OnboardTime: &t, Groups: []string{"G"}, Policies: []string{}, LicensePlates: []string{}})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := marshalDocumentYAML(d); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTopKeysInOrder: the kinds of a document come out in the order of
// its JSON form, whatever their values hold.
func TestTopKeysInOrder(t *testing.T) {
	got, err := topKeys([]byte(`{"schedules":[{"name":"a","x":{"users":1}}],"user_groups":[],"users":[{"k":"}"}],"webhooks":null}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"schedules", "user_groups", "users", "webhooks"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
