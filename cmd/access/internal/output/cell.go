package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The cells of tables: a value as people read it, times found by their
// member's name, records through their JSON form (the wire names).

// Generic converts v to maps and slices through its JSON form, so that
// YAML, jq and tables see the wire names.
func Generic(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var g any
	if err := d.Decode(&g); err != nil {
		return nil, err
	}
	return FixNumbers(g), nil
}

// FixNumbers turns json.Number into int64 or float64 (gojq and YAML need
// plain numbers).
func FixNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = FixNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = FixNumbers(e)
		}
	}
	return v
}

// DefaultColumns are the columns of a list's table when none are asked
// for: those of id, name, full_name, type and status the record has, else
// all its members, sorted.
func DefaultColumns(rec any) []string {
	m, ok := rec.(map[string]any)
	if !ok {
		return []string{"."}
	}
	var cols []string
	for _, k := range []string{"id", "name", "full_name", "type", "status"} {
		if _, ok := m[k]; ok {
			cols = append(cols, k)
		}
	}
	if len(cols) == 0 {
		for k := range m {
			cols = append(cols, k)
		}
		sort.Strings(cols)
	}
	return cols
}

// Lookup is the member of v at path (dotted for nested members; "." is
// v itself), or nil.
func Lookup(v any, path string) any {
	if path == "." {
		return v
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

// IsTimeKey reports whether a member holds a time, by its name.
func IsTimeKey(k string) bool {
	switch k {
	case "@timestamp", "published", "since", "until", "last_activity", "last_seen", "door_thumbnail_last_update":
		return true
	}
	return strings.HasSuffix(k, "_time") || strings.HasSuffix(k, "_at")
}

// AsTime reads the forms the console writes times in: Unix seconds or
// milliseconds (a number or digits), RFC 3339, or "2006-01-02 15:04:05"
// with a zone or Z. A zero number is the zero time (unset).
func AsTime(v any) (time.Time, bool) {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		n = int64(x)
	case string:
		if d, err := strconv.ParseInt(x, 10, 64); err == nil {
			n = d
			break
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z"} {
			if t, err := time.Parse(layout, x); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	default:
		return time.Time{}, false
	}
	switch {
	case n == 0:
		return time.Time{}, true
	case n > 1e11: // milliseconds
		return time.UnixMilli(n), true
	}
	return time.Unix(n, 0), true
}

// Cell is the table cell of a value: "-" for none, yes or no, a list
// joined by commas (a record by its name or id), a record by its name or
// id, anything else as fmt prints it.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case string:
		if x == "" {
			return "-"
		}
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		if len(x) == 0 {
			return "-"
		}
		parts := make([]string, 0, len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				e = FirstNonNil(m["name"], m["id"], m["token"])
			}
			parts = append(parts, Cell(e))
		}
		return strings.Join(parts, ",")
	case map[string]any:
		if n := FirstNonNil(x["name"], x["id"]); n != nil {
			return Cell(n)
		}
		b, _ := json.Marshal(x)
		return string(b)
	default:
		return fmt.Sprint(x)
	}
}

// FirstNonNil is the first of vs neither nil nor "", or nil.
func FirstNonNil(vs ...any) any {
	for _, v := range vs {
		if v != nil && v != "" {
			return v
		}
	}
	return nil
}

// Count is n with the noun, singular for exactly one: "1 row", "2 rows".
func Count[N int | int64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// HumanBytes is n bytes for people: "12.3 KiB".
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
