package accesstest

import (
	"cmp"
	"encoding/json"
	"slices"
	"sort"
	"time"

	"github.com/access-dev/access"
)

// Retention bounds the history the fake keeps, as a console bounds its
// own: the system log, the webhook deliveries it reports
// ([Server.Deliveries]) and its request journal ([Server.Requests]). A
// zero field keeps everything of its kind: the zero Retention, the
// default of [NewServer], keeps everything, as tests want. `access fake`
// keeps [DefaultRetention].
type Retention struct {
	// SystemLogs is how many system-log entries are kept, the newest.
	SystemLogs int
	// SystemLogAge drops the entries published longer ago than this, by
	// the fake's clock.
	SystemLogAge time.Duration
	// Deliveries is how many webhook deliveries are kept, the newest.
	Deliveries int
	// Requests is how many requests are kept, the newest.
	Requests int
}

// DefaultRetention is what `access fake` keeps unless told otherwise:
// the newest 4,000 system-log entries of the last 30 days, the newest
// 1,000 webhook deliveries and the newest 1,000 requests. With it, the
// simulator's memory and state file stay within tens of megabytes
// however long it runs.
func DefaultRetention() Retention {
	return Retention{SystemLogs: 4000, SystemLogAge: 30 * 24 * time.Hour, Deliveries: 1000, Requests: 1000}
}

// WithRetention bounds the history the server keeps (see [Retention]);
// negative values count as zero.
func WithRetention(r Retention) Option {
	return func(s *Server) {
		s.retention = Retention{SystemLogs: max(r.SystemLogs, 0), SystemLogAge: max(r.SystemLogAge, 0),
			Deliveries: max(r.Deliveries, 0), Requests: max(r.Requests, 0)}
		s.hub.done.max, s.journal.requests.max = s.retention.Deliveries, s.retention.Requests
	}
}

// ring keeps the newest max items (every item when max is 0), oldest
// first.
type ring[T any] struct {
	list  []T
	max   int
	total int           // items ever added: the cursor of the newest (control.go)
	wake  chan struct{} // closed at the next add, for readers waiting
}

// add appends v, dropping the oldest item when the ring is full.
func (r *ring[T]) add(v T) {
	r.list = append(r.list, v)
	r.total++
	if r.wake != nil {
		close(r.wake)
		r.wake = nil
	}
	if r.max > 0 && len(r.list) > r.max {
		var zero T
		r.list[0] = zero // let go of what the dropped item holds
		r.list = r.list[1:]
	}
}

// items returns a copy of the items, oldest first.
func (r *ring[T]) items() []T { return slices.Clone(r.list) }

// reset forgets every item.
func (r *ring[T]) reset() { r.list = nil }

// logStore is the system log: its entries in time order (by Published;
// at the same time, in the order they were added), bounded by a count
// and an age, with an index of positions by topic and by actor, so that
// a page of a filtered listing, newest first, costs O(page + log N).
//
// An entry's position counts the entries kept before it since the store
// was made: dropping the oldest entries keeps every position, and the
// indexes drop the same entries from their fronts. An entry that arrives
// out of time order (a seeded one, a clock set back) is put in its place
// and the indexes are rebuilt.
type logStore struct {
	ents    []SystemLogEntry // ents[i] is at position first+i
	enc     [][]byte         // enc[i] is ents[i] as the state file holds it, once encoded (Server.StateParts); entries never change once added
	first   int
	byTopic map[access.SystemLogTopic][]int
	byActor map[string][]int // entries with an actor id
	max     int              // entries kept; 0: all
	maxAge  time.Duration    // 0: any age
}

// len is the number of entries.
func (l *logStore) len() int { return len(l.ents) }

// all returns the entries, oldest first; they are shared.
func (l *logStore) all() []SystemLogEntry { return l.ents }

// encoded returns the entries as the state file holds them, encoding
// only those not encoded before.
func (l *logStore) encoded() ([][]byte, error) {
	for i := range l.ents {
		if l.enc[i] == nil {
			b, err := json.Marshal(logEntryFile{Topic: l.ents[i].Topic, Entry: l.ents[i].SystemLog})
			if err != nil {
				return nil, err
			}
			l.enc[i] = b
		}
	}
	return slices.Clone(l.enc), nil
}

// published is an entry's time in Unix milliseconds.
func published(e *SystemLogEntry) int64 { return int64(e.Source.Event.Published) }

// add stores entries and drops what the bounds no longer keep at now.
func (l *logStore) add(now time.Time, entries ...SystemLogEntry) {
	inOrder := true
	for i := range entries {
		e := &entries[i]
		if n := len(l.ents); n > 0 && published(e) < published(&l.ents[n-1]) {
			inOrder = false
		}
		l.ents = append(l.ents, *e)
		l.enc = append(l.enc, nil)
		if inOrder {
			l.index(l.first+len(l.ents)-1, e)
		}
	}
	if !inOrder {
		slices.SortStableFunc(l.ents, func(a, b SystemLogEntry) int { return cmp.Compare(published(&a), published(&b)) })
		l.enc = make([][]byte, len(l.ents)) // moved: encoded again
		l.reindex()
	}
	l.trim(now)
}

// load replaces the entries (a state read from a file), in time order.
func (l *logStore) load(now time.Time, entries []SystemLogEntry) {
	l.ents, l.enc, l.first = nil, nil, 0
	l.byTopic, l.byActor = nil, nil
	l.add(now, entries...)
}

// setBounds sets the bounds and applies them at now.
func (l *logStore) setBounds(r Retention, now time.Time) {
	l.max, l.maxAge = r.SystemLogs, r.SystemLogAge
	l.trim(now)
}

func (l *logStore) index(pos int, e *SystemLogEntry) {
	if l.byTopic == nil {
		l.byTopic, l.byActor = map[access.SystemLogTopic][]int{}, map[string][]int{}
	}
	l.byTopic[e.Topic] = append(l.byTopic[e.Topic], pos)
	if id := e.Source.Actor.ID; id != "" {
		l.byActor[id] = append(l.byActor[id], pos)
	}
}

func (l *logStore) reindex() {
	l.byTopic, l.byActor = nil, nil
	for i := range l.ents {
		l.index(l.first+i, &l.ents[i])
	}
}

// trim drops the oldest entries beyond the count and those older than
// the age at now.
func (l *logStore) trim(now time.Time) {
	drop := 0
	if l.max > 0 && len(l.ents) > l.max {
		drop = len(l.ents) - l.max
	}
	if l.maxAge > 0 {
		oldest := now.Add(-l.maxAge).UnixMilli()
		for drop < len(l.ents) && published(&l.ents[drop]) < oldest {
			drop++
		}
	}
	if drop == 0 {
		return
	}
	for i := range drop {
		e := &l.ents[i]
		popFront(l.byTopic, e.Topic)
		if id := e.Source.Actor.ID; id != "" {
			popFront(l.byActor, id)
		}
		*e = SystemLogEntry{} // let go of what it holds
	}
	l.ents = l.ents[drop:]
	clear(l.enc[:drop])
	l.enc = l.enc[drop:]
	l.first += drop
}

// popFront drops the first position of m[k], and the key once empty.
func popFront[K comparable](m map[K][]int, k K) {
	switch list := m[k]; len(list) {
	case 0:
	case 1:
		delete(m, k)
	default:
		m[k] = list[1:]
	}
}

// logSpan is the entries a filter matches, oldest first: n of them,
// the i-th at(i).
type logSpan struct {
	l   *logStore
	pos []int // positions; nil: every entry of the store
	lo  int   // the first matching index of pos (or of the store)
	n   int
}

// at returns the i-th matching entry, oldest first.
func (sp *logSpan) at(i int) *SystemLogEntry {
	i += sp.lo
	if sp.pos != nil {
		i = sp.pos[i] - sp.l.first
	}
	return &sp.l.ents[i]
}

// newest returns the matching entries from the from-th newest, at most
// n of them, newest first.
func (sp *logSpan) newest(from, n int) []*SystemLogEntry {
	var out []*SystemLogEntry
	for i := sp.n - 1 - from; i >= 0 && len(out) < n; i-- {
		out = append(out, sp.at(i))
	}
	return out
}

// match finds the entries of a topic (or all), an actor (or any) and a
// time range in Unix milliseconds, both ends included. A topic or an
// actor alone costs O(log N); both together, a walk of the shorter of
// their indexes.
func (l *logStore) match(topic access.SystemLogTopic, actorID string, since, until int64) logSpan {
	sp := logSpan{l: l}
	count := len(l.ents)
	var pos []int
	switch {
	case topic != access.SystemLogTopicAll && actorID != "":
		byTopic, byActor := l.byTopic[topic], l.byActor[actorID]
		short, other := byTopic, func(e *SystemLogEntry) bool { return e.Source.Actor.ID == actorID }
		if len(byActor) < len(byTopic) {
			short, other = byActor, func(e *SystemLogEntry) bool { return e.Topic == topic }
		}
		pos = []int{}
		for _, p := range short {
			if other(&l.ents[p-l.first]) {
				pos = append(pos, p)
			}
		}
	case topic != access.SystemLogTopicAll:
		pos = l.byTopic[topic]
		if pos == nil {
			pos = []int{}
		}
	case actorID != "":
		pos = l.byActor[actorID]
		if pos == nil {
			pos = []int{}
		}
	}
	if pos != nil {
		count = len(pos)
	}
	sp.pos = pos
	pub := func(i int) int64 {
		if pos != nil {
			i = pos[i] - l.first
		}
		return published(&l.ents[i])
	}
	lo := sort.Search(count, func(i int) bool { return pub(i) >= since })
	hi := sort.Search(count, func(i int) bool { return pub(i) > until })
	sp.lo, sp.n = lo, max(hi-lo, 0)
	return sp
}
