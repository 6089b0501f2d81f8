package capture

import (
	"net/http"
	"reflect"
	"strings"
	"sync"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/internal/apifacts"
)

var responseType = reflect.TypeOf((*access.Response)(nil))

// AnswerTypes is the Go type the SDK decodes each operation's answer's
// data into, by the SDK names of the operation table (internal/apifacts):
// for every operation, the type T of the first of its SDK methods that
// returns (T, *access.Response, error), found by reflection on the
// services of *access.Client (or, for the few methods that decode the
// data into another type than they return, that type: the page of
// SystemLogs.List), under each of the operation's SDK names
// ("Users.List" and "Users.All"). An operation whose methods return no
// data (a write answered with its code only, a download) is not in it.
// The map is the caller's.
func AnswerTypes() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for k, v := range answerTypes() {
		out[k] = v
	}
	return out
}

// decodedAs are the operations whose SDK method decodes the answer's
// data into another type than the one it returns: the page of system
// logs, whose entries it returns (its page and total go to the
// Response), and a purchase of touch passes, one pass or a list
// (TestCheckOnTheRepositorysSampleAnswers finds such a method by its
// sample).
var decodedAs = map[string]reflect.Type{
	"SystemLogs.List": reflect.TypeOf(struct {
		Hits  []access.SystemLog `json:"hits"`
		Page  any                `json:"page"`
		Total any                `json:"total"`
	}{}),
	"TouchPasses.Purchase": reflect.TypeOf(access.TouchPasses{}),
}

var answerTypes = sync.OnceValue(func() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	client := reflect.TypeOf(access.Client{})
	for _, o := range apifacts.Operations() {
		var t reflect.Type
		for _, sdk := range o.SDK {
			if t = dataType(client, sdk); t != nil {
				break
			}
		}
		if t != nil && decodedAs[o.SDK[0]] != nil {
			t = decodedAs[o.SDK[0]]
		}
		if t == nil {
			continue
		}
		for _, sdk := range o.SDK {
			out[sdk] = t
		}
	}
	return out
})

// dataType is T of the SDK method sdk ("Users.List") of a service of
// client when it returns (T, *access.Response, error); nil otherwise.
func dataType(client reflect.Type, sdk string) reflect.Type {
	svc, method, ok := strings.Cut(sdk, ".")
	if !ok {
		return nil
	}
	f, ok := client.FieldByName(svc)
	if !ok {
		return nil
	}
	m, ok := f.Type.MethodByName(method)
	if !ok {
		return nil
	}
	mt := m.Type
	if mt.NumOut() != 3 || mt.Out(1) != responseType {
		return nil
	}
	t := mt.Out(0)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// Documented reports whether [Check] compares the answers of the
// operation named op (an SDK name, "Doors.List") with a shape the SDK
// documents: whether its SDK methods return data ([AnswerTypes]).
func Documented(op string) bool {
	_, ok := answerTypes()[op]
	return ok
}

// answerShapes are the shapes of the answers [AnswerTypes] documents, by
// "answer OPERATION".
func answerShapes(out Shapes) {
	for op, t := range answerTypes() {
		s := map[string]string{"code": "string", "msg": "string", "pagination": "any"}
		s["data"] = kindOf(t)
		prefix := "data"
		for s["data"] != "any" && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			t = t.Elem()
			prefix += "[]"
			s[prefix] = kindOf(t)
		}
		for p, ty := range typeShape(t) {
			s[prefix+"."+p] = ty
		}
		out["answer "+op] = s
	}
}

// Missing returns the read-only operations whose answers [Check]
// compares (those a [Recorder] can capture: reads, and the reads that are
// POSTs) that c holds no successful answer of, by their first SDK name,
// in the operation table's order.
func Missing(c *Capture) []string {
	seen := map[string]bool{}
	for _, r := range c.Answers {
		if o, ok := apifacts.Lookup(r.Operation); ok && r.Status/100 == 2 {
			seen[o.SDK[0]] = true
		}
	}
	var out []string
	for _, o := range apifacts.Operations() {
		name := o.SDK[0]
		read := o.Method == http.MethodGet || readBodies[name] != ""
		if read && Documented(name) && !seen[name] && !strings.Contains(o.Path, "/notifications") {
			out = append(out, name)
		}
	}
	return out
}
