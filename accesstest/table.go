package accesstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/access-dev/access"
)

// table is one kind of record of a store: the records in the order they
// were added (the order the lists page through), indexed by id, so that
// a lookup or a duplicate check costs O(1) however many records there
// are. K says what a record's id is; a record's id never changes while
// it is in the table.
//
// A table whose state-file member is its list (users, visitors:
// [Server.StateParts]) also keeps each record's encoding, so that a save
// encodes only the records that changed since the last one. A record is
// dropped from that cache wherever it may change: get hands records out
// by id for reading and changing alike (every change of one record goes
// through it), mark is for the few changes made while walking list, and
// remove and set drop theirs. This package's tests check, at every change, that no
// cached encoding is stale (checkStateCache).
type table[T any, K keyOf[T]] struct {
	list []*T
	byID map[string]*T
	enc  map[*T][]byte // a record's encoding, as the state file holds it; nil until encoded is called
	pos  map[*T]int    // a record's index in list; nil until index is called, dropped by remove and set
}

// index returns v's index in list (v is one of its records), so that a
// few records found by id can be put in list order without walking the
// whole list.
func (t *table[T, K]) index(v *T) int {
	if t.pos == nil {
		t.pos = make(map[*T]int, len(t.list))
		for i, x := range t.list {
			t.pos[x] = i
		}
	}
	return t.pos[v]
}

// keyOf names a record's id.
type keyOf[T any] interface{ id(*T) string }

// get returns the record with the id, or nil. The caller may change it:
// its cached encoding is dropped.
func (t *table[T, K]) get(id string) *T {
	v := t.byID[id]
	if t.enc != nil && v != nil {
		delete(t.enc, v)
	}
	return v
}

// peek returns the record with the id, or nil, for reading only: it
// changes nothing, not even the cache, so that readers holding s.mu
// shared may call it at once.
func (t *table[T, K]) peek(id string) *T { return t.byID[id] }

// mark drops v's cached encoding: the caller changes v, which it found
// in list rather than through get.
func (t *table[T, K]) mark(v *T) {
	if t.enc != nil {
		delete(t.enc, v)
	}
}

// encoded returns each record's encoding (json.Marshal of the record),
// in list order, encoding only the records not cached. The slices are
// shared: the caller must not change them.
func (t *table[T, K]) encoded() ([][]byte, error) {
	if t.enc == nil {
		t.enc = make(map[*T][]byte, len(t.list))
	}
	out := make([][]byte, len(t.list))
	for i, v := range t.list {
		b, ok := t.enc[v]
		if !ok {
			var err error
			if b, err = json.Marshal(v); err != nil {
				return nil, err
			}
			t.enc[v] = b
		}
		out[i] = b
	}
	return out, nil
}

// has reports whether a record has the id.
func (t *table[T, K]) has(id string) bool { return t.byID[id] != nil }

// len is the number of records.
func (t *table[T, K]) len() int { return len(t.list) }

// add appends v, whose id is not taken (the callers check with has).
func (t *table[T, K]) add(v *T) {
	if t.byID == nil {
		t.byID = map[string]*T{}
	}
	var k K
	t.byID[k.id(v)] = v
	if t.pos != nil {
		t.pos[v] = len(t.list)
	}
	t.list = append(t.list, v)
}

// remove removes the record with the id and returns it, or nil. The list
// keeps its order; removing is linear in the records after it.
func (t *table[T, K]) remove(id string) *T {
	v := t.byID[id]
	if v == nil {
		return nil
	}
	delete(t.byID, id)
	delete(t.enc, v)
	i := slices.Index(t.list, v)
	t.list = slices.Delete(t.list, i, i+1)
	t.pos = nil
	return v
}

// set replaces the records with list (a state read from a file); a nil
// record or an id held twice is an error naming what.
func (t *table[T, K]) set(what string, list []*T) error {
	var k K
	byID := make(map[string]*T, len(list))
	for i, v := range list {
		if v == nil {
			return fmt.Errorf("%s[%d] is null", what, i)
		}
		id := k.id(v)
		if byID[id] != nil {
			return fmt.Errorf("duplicate %s %q", what, id)
		}
		byID[id] = v
	}
	t.list, t.byID, t.enc, t.pos = list, byID, nil, nil
	return nil
}

// The ids of the stores' records.
type (
	userID         struct{}
	visitorID      struct{}
	holidayGroupID struct{}
	userGroupID    struct{}
	touchPassID    struct{}
	doorID         struct{}
	floorID        struct{}
	doorGroupID    struct{}
	deviceID       struct{}
	cardKey        struct{}
)

func (userID) id(u *access.User) string                 { return u.ID }
func (visitorID) id(v *access.Visitor) string           { return v.ID }
func (holidayGroupID) id(g *access.HolidayGroup) string { return g.ID }
func (userGroupID) id(g *groupRec) string               { return g.id }
func (touchPassID) id(tp *access.TouchPass) string      { return tp.ID }
func (doorID) id(d *doorRec) string                     { return d.door.ID }
func (floorID) id(f *floorRec) string                   { return f.id }
func (doorGroupID) id(g *access.DoorGroup) string       { return g.ID }
func (deviceID) id(h *hwRec) string                     { return h.dev.ID }
func (cardKey) id(c *cardRec) string                    { return c.Token }

// checkStateCache, set by this package's tests, makes every server check
// at the end of every change that the encodings its tables keep for the
// state file are those of the records as they are now, then encode every
// record: a change that does not drop the encoding of a record it
// changes is found by the test that makes it, whether a save follows or
// not.
var checkStateCache bool

// staleEncodings is what checkStateCache found: a line per stale record.
var staleEncodings struct {
	sync.Mutex
	found []string
}

// checkEncodings is the check of checkStateCache. The caller holds s.mu.
func (s *Server) checkEncodings() {
	checkTable(&s.people.users, "user")
	checkTable(&s.people.visitors, "visitor")
}

// checkTable checks the cached encodings of t's records (of a kind of
// record named what), then encodes every record.
func checkTable[T any, K keyOf[T]](t *table[T, K], what string) {
	if t.len() > 300 { // seeding many records one by one: the first are checked
		return
	}
	var k K
	for _, v := range t.list {
		b, ok := t.enc[v]
		if !ok {
			continue
		}
		if now, err := json.Marshal(v); err == nil && !bytes.Equal(b, now) {
			staleEncodings.Lock()
			staleEncodings.found = append(staleEncodings.found, fmt.Sprintf("%s %s changed without dropping its encoding:\ncached: %s\nnow:    %s", what, k.id(v), b, now))
			staleEncodings.Unlock()
		}
	}
	_, _ = t.encoded()
}
