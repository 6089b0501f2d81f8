package site

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	return JSONSchemaFor(Document{}, SchemaID, "access site document", nil)
}

// JSONSchemaFor returns the JSON Schema (draft 2020-12) of another file
// read by package sitefile (the directory sync's configuration, say): v is
// a value of (or a pointer to) its struct type, id and title the schema's
// $id and title. It is generated as [JSONSchema] is: members from their
// JSON names, required members those without omitempty, no other member
// allowed; integers, numbers and durations (a string such as "30s")
// besides. more adds keywords by Go type name ("Source") or type and
// member ("Source.credentials") to those site's own types carry.
func JSONSchemaFor(v any, id, title string, more map[string]map[string]any) ([]byte, error) {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("site: JSONSchemaFor needs a struct, not %T", v)
	}
	g := &schemaGen{defs: map[string]any{}, extra: map[string]map[string]any{}}
	for k, v := range extra {
		g.extra[k] = v
	}
	for k, v := range more {
		g.extra[k] = v
	}
	root := g.structSchema(t)
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = id
	root["title"] = title
	root["$defs"] = g.defs
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// schemaGen generates a schema: the definitions made so far and the
// keywords the types cannot say.
type schemaGen struct {
	defs  map[string]any
	extra map[string]map[string]any
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	durationType = reflect.TypeFor[time.Duration]()
)

// durationPattern is what time.ParseDuration reads.
const durationPattern = `^-?([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`

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

func (g *schemaGen) schemaOf(t reflect.Type) map[string]any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[Document]():
		return map[string]any{"$ref": "#"} // a site override is a document
	case t == reflect.TypeFor[UsersCSV]():
		g.defs[t.Name()] = g.structSchema(t)
		return map[string]any{"oneOf": []any{map[string]any{"type": "string", "minLength": 1}, map[string]any{"$ref": "#/$defs/" + t.Name()}}}
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == durationType:
		return map[string]any{"type": "string", "pattern": durationPattern}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	case t.Kind() == reflect.String:
		return map[string]any{"type": "string"}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": g.schemaOf(t.Elem())}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schemaOf(t.Elem())}
	case t.Kind() != reflect.Struct:
		return map[string]any{}
	}
	g.defs[t.Name()] = g.structSchema(t)
	return map[string]any{"$ref": "#/$defs/" + t.Name()}
}

// structSchema is the schema of a struct: its members by JSON name.
func (g *schemaGen) structSchema(t reflect.Type) map[string]any {
	props := map[string]any{}
	required := []string{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		s := g.schemaOf(sf.Type)
		for k, v := range g.extra[t.Name()+"."+name] {
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
	for k, v := range g.extra[t.Name()] {
		s[k] = v
	}
	return s
}
