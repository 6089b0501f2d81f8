package site_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
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
	for _, k := range append(site.AllKinds(), "users_csv", "sites", "scope") {
		if schema.Properties[string(k)] == nil {
			t.Errorf("the schema has no member %s", k)
		}
	}
	if len(schema.Defs) != 13 {
		t.Errorf("the schema defines %d types, want 13", len(schema.Defs))
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

// TestSchemaIDServesTheFile: the $id (and the modeline access export
// writes) is a URL that serves the schema file itself, not a GitHub page
// about it (issue 34): raw.githubusercontent.com, the repository's main
// branch, and the path of the checked-in file.
func TestSchemaIDServesTheFile(t *testing.T) {
	const prefix = "https://raw.githubusercontent.com/access-dev/access/main/"
	if !strings.HasPrefix(site.SchemaID, prefix) {
		t.Fatalf("SchemaID = %s, want a URL under %s", site.SchemaID, prefix)
	}
	path := strings.TrimPrefix(site.SchemaID, prefix)
	if path != "site/site.schema.json" {
		t.Errorf("SchemaID names %s, want site/site.schema.json", path)
	}
	if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(path))); err != nil {
		t.Errorf("SchemaID names a file the repository does not hold: %v", err)
	}
}

// TestDocsModelineIsRelative: until the repository is public, the
// modeline docs/site.md shows names the schema by a path relative to the
// page, one that exists.
func TestDocsModelineIsRelative(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "site.md"))
	if err != nil {
		t.Fatal(err)
	}
	const mark = "# yaml-language-server: $schema="
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		_, ref, ok := strings.Cut(line, mark)
		if !ok {
			continue
		}
		found++
		if strings.Contains(ref, "://") {
			t.Errorf("docs/site.md: the modeline names %s, want a relative path", ref)
			continue
		}
		if _, err := os.Stat(filepath.Join("..", "docs", filepath.FromSlash(ref))); err != nil {
			t.Errorf("docs/site.md: the modeline's %s: %v", ref, err)
		}
	}
	if found == 0 {
		t.Error("docs/site.md shows no yaml-language-server modeline")
	}
}
