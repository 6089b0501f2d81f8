package accesstest

import (
	"fmt"
	"slices"

	"github.com/access-dev/access"
)

// table is one kind of record of a store: the records in the order they
// were added (the order the lists page through), indexed by id, so that
// a lookup or a duplicate check costs O(1) however many records there
// are. K says what a record's id is; a record's id never changes while
// it is in the table.
type table[T any, K keyOf[T]] struct {
	list []*T
	byID map[string]*T
}

// keyOf names a record's id.
type keyOf[T any] interface{ id(*T) string }

// get returns the record with the id, or nil.
func (t *table[T, K]) get(id string) *T { return t.byID[id] }

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
	i := slices.Index(t.list, v)
	t.list = slices.Delete(t.list, i, i+1)
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
	t.list, t.byID = list, byID
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
