package accesstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/access-dev/access"
)

// recode converts v to a T through its JSON form.
func recode[T any](v any) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic("accesstest: recode: " + err.Error())
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic("accesstest: recode: " + err.Error())
	}
	return out
}

// clone deep-copies a record, so that callers and the server never share
// slices or pointers.
func clone[T any](v T) T { return recode[T](v) }

// weeklySchedule encodes a schedule the way controllers do: the weekly
// ranges under "weekly" rather than the spec's "week_schedule".
type weeklySchedule struct {
	access.Schedule
	Hidden *access.WeekSchedule `json:"week_schedule,omitempty"`
	Weekly *access.WeekSchedule `json:"weekly"`
}

func wireSchedule(sc *access.Schedule) *weeklySchedule {
	if sc == nil {
		return nil
	}
	return &weeklySchedule{Schedule: *sc, Weekly: sc.WeekSchedule}
}

// ---- seeding and inspection ----

// seed runs f under the lock and fails the test (or panics) on error.
func seed[T any](s *Server, f func() (T, error)) T {
	s.mu.Lock()
	v, err := f()
	if err == nil {
		s.mu.touch()
		s.mu.seeded = true // checkStateCache: a site seeded record by record is checked once, at the next change
	}
	s.mu.Unlock()
	if err != nil {
		s.fail("%v", err)
	}
	return v
}

// addRecord is the seeding the AddXxx methods of plain records share,
// under the lock: fill sets v's defaults and returns its id; a record
// whose id (or anything else) taken reports is refused as a duplicate
// ("accesstest: <what>: duplicate <noun> id ..."); otherwise store
// keeps a private copy (one deep copy: seeding 100,000 users is one pass),
// and v, with its defaults, is returned: it shares nothing with the
// store.
func addRecord[T any](s *Server, what, noun string, v T, fill func(*T) string, taken func(*T) bool, store func(*T)) T {
	return seed(s, func() (T, error) {
		id := fill(&v)
		if taken(&v) {
			var zero T
			return zero, fmt.Errorf("accesstest: %s: duplicate %s %q", what, noun, id)
		}
		c := clone(v)
		store(&c)
		return v, nil
	})
}

// appendTo is a store for addRecord that appends to a list.
func appendTo[T any](list *[]*T) func(*T) { return func(v *T) { *list = append(*list, v) } }

// ---- request helpers ----

func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// positiveParam reads an optional positive integer query parameter.
func positiveParam(q url.Values, key string, def int) (int, bool) {
	if !q.Has(key) {
		return def, true
	}
	n, err := strconv.Atoi(q.Get(key))
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}
