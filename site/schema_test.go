package site_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/access-dev/access/site"
)

var update = flag.Bool("update", false, "rewrite site.schema.json from the Go types")

// TestSchemaMatchesTheTypes keeps site.schema.json equal to what the Go
// types generate; go test ./site -run TestSchema -update rewrites it.
func TestSchemaMatchesTheTypes(t *testing.T) {
	got, err := site.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("site.schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("site.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
		Defs       map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(got, &schema); err != nil {
		t.Fatal(err)
	}
	for _, k := range append(site.AllKinds(), "users_csv", "sites") {
		if schema.Properties[string(k)] == nil {
			t.Errorf("the schema has no member %s", k)
		}
	}
	if len(schema.Defs) != 12 {
		t.Errorf("the schema defines %d types, want 12", len(schema.Defs))
	}
	// users_csv is a path, or an object with the path and how to read it.
	csvMember, _ := json.Marshal(schema.Properties["users_csv"])
	if want := `{"oneOf":[{"minLength":1,"type":"string"},{"$ref":"#/$defs/UsersCSV"}]}`; string(csvMember) != want {
		t.Errorf("users_csv is %s, want %s", csvMember, want)
	}
	def, _ := json.Marshal(schema.Defs["UsersCSV"])
	for _, s := range []string{`"required":["path"]`, `"delimiter":{"maxLength":1,"minLength":1,"type":"string"}`, `"propertyNames":{"enum":["first_name",`} {
		if !strings.Contains(string(def), s) {
			t.Errorf("the UsersCSV definition %s lacks %s", def, s)
		}
	}
	if !bytes.Equal(got, want) {
		t.Fatal("site.schema.json differs from the Go types: run go test ./site -run TestSchema -update")
	}
}
