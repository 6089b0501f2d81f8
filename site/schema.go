package site

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// SchemaID is the $id of the document's JSON Schema, and the schema
// access export names in its yaml-language-server modeline: the URL that
// serves the checked-in file site/site.schema.json itself (the raw file of
// the main branch), once the repository is public.
const SchemaID = "https://raw.githubusercontent.com/access-dev/access/main/site/site.schema.json"

// JSONSchema returns the JSON Schema (draft 2020-12) of a [Document],
// generated from the Go types: members from their JSON names, required
// members those without omitempty, no other member allowed. The
// repository keeps its output in site/site.schema.json, for editors.
func JSONSchema() ([]byte, error) {
	defs := map[string]any{}
	root := structSchema(reflect.TypeFor[Document](), defs)
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID
	root["title"] = "access site document"
	root["$defs"] = defs
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

var timeType = reflect.TypeFor[time.Time]()

// extra holds what the types cannot say.
var extra = map[string]map[string]any{
	"Range.start":        {"pattern": timeOfDayPattern},
	"Range.end":          {"pattern": timeOfDayPattern},
	"Webhook.headers":    {"additionalProperties": map[string]any{"type": "string", "pattern": envRefPattern}},
	"Resource":           {"minProperties": 1, "maxProperties": 1},
	"User.status":        {"enum": []string{"ACTIVE", "DEACTIVATED", "PENDING"}},
	"Webhook.endpoint":   {"pattern": "^https?://"},
	"UsersCSV.path":      {"minLength": 1},
	"UsersCSV.delimiter": {"minLength": 1, "maxLength": 1},
	"UsersCSV.columns": {"propertyNames": map[string]any{"enum": CSVColumns},
		"additionalProperties": map[string]any{"type": "string", "minLength": 1}},
	"Scope": {"minProperties": 1},
}

func schemaOf(t reflect.Type, defs map[string]any) map[string]any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[Document]():
		return map[string]any{"$ref": "#"} // a site override is a document
	case t == reflect.TypeFor[UsersCSV]():
		defs[t.Name()] = structSchema(t, defs)
		return map[string]any{"oneOf": []any{map[string]any{"type": "string", "minLength": 1}, map[string]any{"$ref": "#/$defs/" + t.Name()}}}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), defs)}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), defs)}
	case t.Kind() != reflect.Struct:
		return map[string]any{}
	}
	defs[t.Name()] = structSchema(t, defs)
	return map[string]any{"$ref": "#/$defs/" + t.Name()}
}

// structSchema is the schema of a struct: its members by JSON name.
func structSchema(t reflect.Type, defs map[string]any) map[string]any {
	props := map[string]any{}
	required := []string{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		s := schemaOf(sf.Type, defs)
		for k, v := range extra[t.Name()+"."+name] {
			s[k] = v
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	for k, v := range extra[t.Name()] {
		s[k] = v
	}
	return s
}
