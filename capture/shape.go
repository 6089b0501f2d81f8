package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/internal/apifacts"
)

// Shapes are the members a capture's records have and their JSON types,
// by what sends them: "frame EVENT" for the stream's frames of one event
// kind, "delivery EVENT" for webhook deliveries, "answer OPERATION" for
// the answers of one operation. Each maps a member's path ("data.device.id";
// "[]" for the elements of an array: "data[].name") to its types, sorted
// and joined with "|" ("number", "string|null"); "any" stands for
// whatever JSON (what the SDK keeps raw).
type Shapes map[string]map[string]string

// ShapesOf is the shapes of c's records; a frame that is no JSON object
// with an event name is left out.
func ShapesOf(c *Capture) Shapes {
	sets := map[string]map[string]map[string]bool{}
	add := func(key string, body []byte) {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			return
		}
		m := sets[key]
		if m == nil {
			m = map[string]map[string]bool{}
			sets[key] = m
		}
		walkShape(v, "", m)
	}
	for _, r := range c.Frames {
		if ev := eventOf(r.Frame); ev != "" {
			add("frame "+ev, r.Frame)
		}
	}
	for _, r := range c.Deliveries {
		if ev := eventOf(r.Body); ev != "" {
			add("delivery "+ev, r.Body)
		}
	}
	for _, r := range c.Answers {
		if r.Status/100 == 2 {
			add("answer "+r.Operation, r.Body)
		}
	}
	out := Shapes{}
	for k, m := range sets {
		out[k] = map[string]string{}
		for p, ts := range m {
			out[k][p] = joinTypes(ts)
		}
	}
	return out
}

func eventOf(b []byte) string {
	var h struct {
		Event string `json:"event"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Event
}

func joinTypes(ts map[string]bool) string {
	l := make([]string, 0, len(ts))
	for t := range ts {
		l = append(l, t)
	}
	sort.Strings(l)
	return strings.Join(l, "|")
}

func walkShape(v any, path string, m map[string]map[string]bool) {
	note := func(t string) {
		if path == "" {
			return
		}
		if m[path] == nil {
			m[path] = map[string]bool{}
		}
		m[path][t] = true
	}
	switch x := v.(type) {
	case map[string]any:
		note("object")
		for k, e := range x {
			walkShape(e, join(path, k), m)
		}
	case []any:
		note("array")
		for _, e := range x {
			walkShape(e, path+"[]", m)
		}
	case string:
		note("string")
	case json.Number:
		note("number")
	case bool:
		note("boolean")
	case nil:
		note("null")
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// Difference is one change of shape between two captures, or between a
// capture and what the SDK documents.
type Difference struct {
	// Key is what sends it ("frame access.remote_view").
	Key string
	// Change is '+' (a member only the second has), '-' (a member only the
	// first has), '~' (a member whose type changed), or '?' for a kind
	// (an event, an operation) the other side does not know.
	Change   byte
	Path     string
	From, To string // the types ('~'), the new type ('+'), why ('?')
}

// String is the difference as one line: "frame access.remote_view: +
// data.new_field (string)", "...: - data.gone", "...: ~ data.x: number ->
// string", "frame access.new.event: ? unknown event kind".
func (d Difference) String() string {
	switch d.Change {
	case '+':
		return fmt.Sprintf("%s: + %s (%s)", d.Key, d.Path, d.To)
	case '-':
		return fmt.Sprintf("%s: - %s", d.Key, d.Path)
	case '~':
		return fmt.Sprintf("%s: ~ %s: %s -> %s", d.Key, d.Path, d.From, d.To)
	}
	return fmt.Sprintf("%s: ? %s", d.Key, d.To)
}

// Compare returns how the shapes of b differ from those of a, sorted: the
// kinds only one of them has ('?'), then per kind both have the members
// added, gone and retyped. A member null on one side and of a type on the
// other is no difference (members are often null), nor is one whose
// types only gained or lost null.
func Compare(a, b Shapes) []Difference {
	var out []Difference
	for _, k := range keysOf(a, b) {
		sa, ina := a[k]
		sb, inb := b[k]
		switch {
		case !ina:
			out = append(out, Difference{Key: k, Change: '?', To: "only in the second (" + unknownKind(k) + ")"})
			continue
		case !inb:
			out = append(out, Difference{Key: k, Change: '?', To: "only in the first (not seen in the second)"})
			continue
		}
		out = append(out, compareKind(k, sa, sb, true)...)
	}
	return out
}

func unknownKind(k string) string {
	if strings.HasPrefix(k, "answer ") {
		return "an operation not captured before"
	}
	return "unknown event kind"
}

func compareKind(k string, sa, sb map[string]string, gone bool) []Difference {
	var out []Difference
	for _, p := range keysOf(sa, sb) {
		ta, ina := sa[p]
		tb, inb := sb[p]
		switch {
		case !ina:
			if covered(sa, p) || newParent(sa, p) {
				continue
			}
			out = append(out, Difference{Key: k, Change: '+', Path: p, To: tb})
		case !inb:
			if gone && !covered(sb, p) && !newParent(sb, p) {
				out = append(out, Difference{Key: k, Change: '-', Path: p})
			}
		case !sameTypes(ta, tb):
			out = append(out, Difference{Key: k, Change: '~', Path: p, From: ta, To: tb})
		}
	}
	return out
}

// covered reports whether a member under p is below one whose type is
// "any" (or whose parent is only reported once: a new object's members
// are not listed one by one).
func covered(s map[string]string, p string) bool {
	for q := parent(p); q != ""; q = parent(q) {
		if t, ok := s[q]; ok {
			return t == "any"
		}
	}
	return false
}

// newParent reports whether p's parent is missing from s too: only the
// topmost member added (or gone) is reported.
func newParent(s map[string]string, p string) bool {
	q := parent(p)
	if q == "" {
		return false
	}
	_, ok := s[q]
	return !ok
}

func parent(p string) string {
	i := max(strings.LastIndex(p, "."), strings.LastIndex(p, "[]"))
	if i <= 0 {
		return ""
	}
	if strings.HasSuffix(p, "[]") {
		return p[:len(p)-2]
	}
	return p[:i]
}

func sameTypes(a, b string) bool {
	if a == "any" || b == "any" {
		return true
	}
	strip := func(s string) []string {
		return slices.DeleteFunc(strings.Split(s, "|"), func(t string) bool { return t == "null" })
	}
	ta, tb := strip(a), strip(b)
	if len(ta) == 0 || len(tb) == 0 {
		return true
	}
	return slices.Equal(ta, tb)
}

func keysOf[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Check compares a capture with what the SDK and the operation table
// (internal/apifacts) document: an event kind the SDK does not name, an
// answer to a request that is no operation of the table (or not the
// operation it is recorded as), and for the kinds whose Go types the SDK
// decodes (the typed views of the notifications, webhook events, and the
// answers of every operation whose SDK method returns data: [AnswerTypes])
// a member the SDK does not
// decode ('+') or decodes as another JSON type ('~'). A member the SDK
// has that the capture lacks is no difference: consoles leave many out.
func Check(c *Capture) []Difference {
	var out []Difference
	for _, r := range c.Answers {
		op, ok := Operation(r.Method, r.Path)
		switch {
		case !ok:
			out = append(out, Difference{Key: "answer " + r.Operation, Change: '?', To: fmt.Sprintf("%s %s is no operation of the table", r.Method, r.Path)})
		case op != r.Operation && !sameOperation(op, r.Operation):
			out = append(out, Difference{Key: "answer " + r.Operation, Change: '?', To: fmt.Sprintf("%s %s is %s by the table", r.Method, r.Path, op)})
		}
	}
	got := ShapesOf(c)
	known := map[string]bool{}
	for _, e := range notificationEvents {
		known["frame "+string(e)] = true
	}
	for _, e := range access.AllEvents() {
		known["delivery "+string(e)] = true
	}
	sdk := sdkShapes()
	for _, k := range keysOf(got, got) {
		want, typed := sdk[k]
		switch {
		case typed:
			out = append(out, compareKind(k, want, got[k], false)...)
		case strings.HasPrefix(k, "answer "):
		case !known[k]:
			out = append(out, Difference{Key: k, Change: '?', To: "unknown event kind (the SDK does not name it)"})
		}
	}
	return out
}

// sameOperation reports whether two SDK names are one operation (Users.List
// and Users.All).
func sameOperation(a, b string) bool {
	oa, oka := apifacts.Lookup(a)
	ob, okb := apifacts.Lookup(b)
	return oka && okb && oa.Method == ob.Method && oa.Path == ob.Path
}

// notificationEvents are the events the SDK names.
var notificationEvents = []access.NotificationEvent{
	access.NotificationRemoteView, access.NotificationRemoteViewChange, access.NotificationRemoteUnlock,
	access.NotificationDeviceUpdate, access.NotificationDeviceUpdateV2, access.NotificationLocationUpdate,
	access.NotificationLocationUpdateV2, access.NotificationDeviceLocationUpdateV2, access.NotificationSettingUpdate,
	access.NotificationLogsAdd, access.NotificationDoorBell, access.NotificationBaseInfo,
}

// sdkShapes are the shapes the SDK's Go types give, by kind.
func sdkShapes() Shapes {
	out := Shapes{}
	// The envelope, decoded leniently (ids as numbers, save_to_history as
	// a string or a number).
	envelope := map[string]string{"event": "string", "receiver_id": "any", "event_object_id": "any", "save_to_history": "any"}
	views := map[access.NotificationEvent]any{
		access.NotificationRemoteView:             access.RemoteViewData{},
		access.NotificationRemoteViewChange:       access.RemoteViewChangeData{},
		access.NotificationRemoteUnlock:           access.NotificationLocation{},
		access.NotificationLocationUpdate:         access.NotificationLocation{},
		access.NotificationDeviceUpdate:           access.DeviceUpdateData{},
		access.NotificationDeviceUpdateV2:         access.DeviceUpdateV2Data{},
		access.NotificationLocationUpdateV2:       access.LocationUpdateV2Data{},
		access.NotificationDeviceLocationUpdateV2: access.LocationUpdateV2Data{},
		access.NotificationSettingUpdate:          access.SettingUpdateData{},
		access.NotificationLogsAdd:                access.LogsAddData{},
		access.NotificationDoorBell:               access.DoorBellData{},
	}
	for ev, v := range views {
		s := map[string]string{}
		for p, t := range envelope {
			s[p] = t
		}
		s["data"] = "object"
		for p, t := range typeShape(reflect.TypeOf(v)) {
			s["data."+p] = t
		}
		if ev == access.NotificationLogsAdd || strings.Contains(string(ev), ".v2.") || ev == access.NotificationDeviceLocationUpdateV2 {
			s["meta"] = "any"
		}
		out["frame "+string(ev)] = s
	}
	hook := typeShape(reflect.TypeOf(access.WebhookEvent{}))
	for _, e := range access.AllEvents() {
		out["delivery "+string(e)] = hook
	}
	answerShapes(out)
	return out
}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

// kindOf is the JSON type a Go type decodes from ("any" for a type that
// decodes itself or takes anything).
func kindOf(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || t.Kind() == reflect.Interface {
		return "any"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Struct:
		return "object"
	case reflect.Map:
		return "any" // keys of its own
	}
	return "any"
}

// typeShape is the members a struct type decodes, by path, with their
// JSON types; "any" members are not walked.
func typeShape(t reflect.Type) map[string]string {
	out := map[string]string{}
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if depth > 8 || depth > 0 && kindOf(t) == "any" {
			return // a type that decodes itself is walked at the top only
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			p := path + "[]"
			out[p] = kindOf(t.Elem())
			walk(t.Elem(), p, depth+1)
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue
				}
				if f.Anonymous && name == "" {
					walk(f.Type, path, depth+1)
					continue
				}
				if name == "" {
					name = f.Name
				}
				p := join(path, name)
				out[p] = kindOf(f.Type)
				walk(f.Type, p, depth+1)
			}
		}
	}
	walk(t, "", 0)
	return out
}
