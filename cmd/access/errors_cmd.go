package main

import (
	"bytes"
	"encoding/json"
	"errors"

	"io"
	"reflect"
	"strings"
	"unicode"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// Errors in the user's words: the flags a command requires, all of them
// at once; --data of the wrong shape described in JSON terms; the SDK's
// validation errors named by the flag or the JSON member the user gave.

// isRequired reports whether an operation's flag must be given (unless
// --data gives the body): flagged so, or documented "(required)".
func (f flagSpec) isRequired() bool {
	return f.required || strings.HasSuffix(f.usage, "(required)") || strings.HasSuffix(f.usage, "; required)")
}

// requiredFlags returns a copy of flags with those named required.
func requiredFlags(flags []flagSpec, names ...string) []flagSpec {
	out := append([]flagSpec(nil), flags...)
	for i := range out {
		for _, n := range names {
			if out[i].name == n {
				out[i].required = true
			}
		}
	}
	return out
}

// checkRequired lists every required flag left out, in one usage error:
// "required: --first-name, --last-name". --data, when the command takes
// one, gives the body instead.
func checkRequired(c *cobra.Command, spec *opSpec) error {
	if spec.body != nil && dataGiven(c) {
		return nil
	}
	var missing []string
	for _, f := range spec.flags {
		if f.isRequired() && f.refuse == nil && !c.Flags().Changed(f.name) {
			missing = append(missing, "--"+f.name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := "required: " + strings.Join(missing, ", ")
	if spec.body != nil {
		msg += " (or the whole body with --data)"
	}
	return usageErrorf("%s", msg)
}

// snake is a Go field name in the vendor's snake case: FirstName is
// first_name, ScheduleID schedule_id.
func snake(name string) string {
	var b strings.Builder
	rs := []rune(strings.ReplaceAll(name, "IDs", "Ids"))
	for i, r := range rs {
		if unicode.IsUpper(r) {
			// A new word: after a lower-case letter, or the last
			// capital of an initialism followed by a lower-case one.
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// wireKeys lists the JSON members of a body struct: the json tag's name,
// or (for the SDK's types, which write their wire form themselves) the
// field's name in snake case.
func wireKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			keys = append(keys, wireKeys(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = snake(f.Name)
		}
		keys = append(keys, name)
	}
	return keys
}

// jsonShape describes, in JSON terms, what a value of type t is written
// as: "a JSON object with first_name, last_name, …", "a JSON array of
// strings", never a Go type.
func jsonShape(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		el := t.Elem()
		for el.Kind() == reflect.Pointer {
			el = el.Elem()
		}
		switch el.Kind() {
		case reflect.String:
			return "a JSON array of strings"
		case reflect.Struct:
			return "a JSON array of objects with " + strings.Join(wireKeys(el), ", ")
		}
		return "a JSON array"
	case reflect.String:
		return "a JSON string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Float64:
		return "a JSON number"
	case reflect.Bool:
		return "true or false"
	case reflect.Struct:
		return "a JSON object with " + strings.Join(wireKeys(t), ", ")
	case reflect.Map:
		return "a JSON object"
	}
	return "JSON"
}

// jsonKind names the JSON kind a Go type is decoded from: "a string".
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}

// dataError says what is wrong with --data in JSON terms: not JSON, a
// member of the wrong kind, an unknown member, or the wrong shape
// altogether ("want a JSON object with first_name, last_name, …").
func dataError(err error, body any) error {
	want := jsonShape(reflect.TypeOf(body))
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return usageErrorf("--data is not JSON (%s): want %s", strings.TrimPrefix(err.Error(), "json: "), want)
	case errors.As(err, &typ) && typ.Field != "":
		return usageErrorf("--data: %s: want %s, not %s", typ.Field, jsonKind(typ.Type), jsonValueWord(typ.Value))
	case strings.Contains(err.Error(), "json: unknown field "):
		_, name, _ := strings.Cut(err.Error(), "json: unknown field ")
		return usageErrorf("--data: unknown member %s: want %s", name, want)
	case strings.Contains(err.Error(), "Go "):
		// A message naming Go types: the shape is what helps.
		return usageErrorf("--data: want %s", want)
	}
	return usageErrorf("--data: %s: want %s", strings.TrimPrefix(err.Error(), "access: "), want)
}

// jsonValueWord is the JSON value an UnmarshalTypeError met, with its
// article: "a number", "an array".
func jsonValueWord(v string) string {
	switch {
	case v == "":
		return "another kind of value"
	case strings.HasPrefix(v, "number"):
		return "a number"
	case v == "array" || v == "object":
		return "an " + v
	case v == "string" || v == "bool":
		return map[string]string{"string": "a string", "bool": "true or false"}[v]
	}
	return v
}

// unknownMembers refuses members of a --data object the body does not
// have (the SDK's types read their wire form themselves, where an unknown
// member would otherwise be dropped without a word).
func unknownMembers(b []byte, body any) error {
	t := reflect.TypeOf(body)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(b), &obj); err != nil {
		return nil // not an object: the decode said what was wrong
	}
	known := map[string]bool{}
	for _, k := range wireKeys(t) {
		known[k] = true
	}
	for k := range obj {
		if !known[k] {
			return usageErrorf("--data: unknown member %q: want %s", k, jsonShape(t))
		}
	}
	return nil
}

// inUserWords names the argument of an SDK validation error as the user
// gave it: the flag (--first-name), or with --data the JSON member
// (first_name), instead of the Go field (FirstName).
func inUserWords(c *cobra.Command, spec *opSpec, err error) error {
	var ve *access.ValidationError
	if !errors.As(err, &ve) || ve.Field == "" {
		return err
	}
	member := snake(ve.Field)
	if spec.body != nil && dataGiven(c) {
		return usageErrorf("--data: %s %s", member, ve.Reason)
	}
	flag := strings.ReplaceAll(member, "_", "-")
	for _, f := range spec.flags {
		if f.name == flag || f.name == flagAliases[flag] {
			return usageErrorf("--%s %s", f.name, ve.Reason)
		}
	}
	for _, ar := range spec.args {
		if ar.name == flag {
			return usageErrorf("%s %s", strings.ToUpper(ar.name), ve.Reason)
		}
	}
	return err
}

// flagAliases maps a member's name to the flag that gives it where the two
// differ.
var flagAliases = map[string]string{
	"visit-reason": "reason", "start-time": "start", "end-time": "end", "user-email": "email",
	"mobile-phone": "phone", "visitor-company": "company", "group-name": "name",
}
