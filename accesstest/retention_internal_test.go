package accesstest

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/access-dev/access"
)

// TestLogStoreMatchesAWalk checks the system log's indexes against a
// walk of every entry: random entries (some out of time order), random
// bounds that drop the oldest, random filters; every filter finds what
// the walk finds, in the same order, and the store keeps exactly the
// newest entries its bounds allow.
func TestLogStoreMatchesAWalk(t *testing.T) {
	topics := []access.SystemLogTopic{access.SystemLogTopicDoorOpenings, access.SystemLogTopicCritical, access.SystemLogTopicAdminActivity}
	actors := []string{"", "a1", "a2", "a3"}
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var l logStore
		keep := rng.IntN(50) // 0: all
		l.setBounds(Retention{SystemLogs: keep}, time.Time{})
		var all []SystemLogEntry // everything added, in time order, stable
		t0 := int64(1_700_000_000_000)
		now := t0
		for n := range 200 {
			now += rng.Int64N(3) * 1000 // several at the same second
			pub := now
			if rng.IntN(10) == 0 {
				pub -= rng.Int64N(20) * 1000 // seeded out of order
			}
			e := SystemLogEntry{Topic: topics[rng.IntN(len(topics))]}
			e.ID = fmt.Sprint(n)
			e.Source.Actor.ID = actors[rng.IntN(len(actors))]
			e.Source.Event.Published = access.UnixMilli(pub)
			l.add(time.UnixMilli(now), e)
			all = append(all, e)
		}
		slices.SortStableFunc(all, func(a, b SystemLogEntry) int { return cmp.Compare(published(&a), published(&b)) })
		if keep > 0 && len(all) > keep {
			all = all[len(all)-keep:]
		}
		if got := ids(l.all()); !slices.Equal(got, ids(all)) {
			t.Fatalf("seed %d: kept %v, want %v", seed, got, ids(all))
		}
		for range 50 {
			topic := access.SystemLogTopicAll
			if rng.IntN(2) == 0 {
				topic = topics[rng.IntN(len(topics))]
			}
			actor := actors[rng.IntN(len(actors))]
			since := t0 + rng.Int64N(now-t0+1)
			until := since + rng.Int64N(now-since+1)
			var want []string
			for i := len(all) - 1; i >= 0; i-- {
				e := &all[i]
				if (topic == access.SystemLogTopicAll || e.Topic == topic) && (actor == "" || e.Source.Actor.ID == actor) &&
					published(e) >= since && published(e) <= until {
					want = append(want, e.ID)
				}
			}
			sp := l.match(topic, actor, since, until)
			var got []string
			for _, e := range sp.newest(0, sp.n) {
				got = append(got, e.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d, topic %q actor %q [%d, %d]: got %v, want %v", seed, topic, actor, since, until, got, want)
			}
			// A page from the middle is the same slice of the whole.
			if from, n := rng.IntN(len(want)+1), 1+rng.IntN(5); true {
				var page []string
				for _, e := range sp.newest(from, n) {
					page = append(page, e.ID)
				}
				if w := want[from:min(from+n, len(want))]; !slices.Equal(page, w) && len(page)+len(w) > 0 {
					t.Fatalf("seed %d: page from %d: got %v, want %v", seed, from, page, w)
				}
			}
		}
	}
}

func ids(es []SystemLogEntry) []string {
	out := make([]string, len(es))
	for i := range es {
		out[i] = es[i].ID
	}
	return out
}

// TestLogStoreDropsByAge: entries older than the age at the time of the
// next addition or listing are dropped, with their index positions.
func TestLogStoreDropsByAge(t *testing.T) {
	var l logStore
	l.setBounds(Retention{SystemLogAge: time.Hour}, time.Time{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(at time.Time, topic access.SystemLogTopic, id string) {
		e := SystemLogEntry{Topic: topic}
		e.ID, e.Source.Actor.ID, e.Source.Event.Published = id, "actor", access.UnixMilliOf(at)
		l.add(at, e)
	}
	add(t0, access.SystemLogTopicCritical, "old")
	add(t0.Add(30*time.Minute), access.SystemLogTopicDoorOpenings, "mid")
	add(t0.Add(61*time.Minute), access.SystemLogTopicDoorOpenings, "new")
	if got := ids(l.all()); !slices.Equal(got, []string{"mid", "new"}) {
		t.Fatalf("kept %v", got)
	}
	if sp := l.match(access.SystemLogTopicCritical, "", 0, 1<<62); sp.n != 0 {
		t.Fatalf("the critical index still holds %d", sp.n)
	}
	l.trim(t0.Add(3 * time.Hour))
	if sp := l.match(access.SystemLogTopicAll, "actor", 0, 1<<62); sp.n != 0 || l.len() != 0 {
		t.Fatalf("after three hours: %d kept, %d by actor", l.len(), sp.n)
	}
	if len(l.byActor) != 0 || len(l.byTopic) != 0 {
		t.Fatalf("empty index lists stay: %v %v", l.byActor, l.byTopic)
	}
}
