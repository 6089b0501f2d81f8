package simulator

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
)

// TestJournalReplaysEveryChange: a snapshot followed by the journal
// lines of random changes (appends, the front dropped as by a bounded
// log, elements changed and removed in the middle, whole members
// changed, a list becoming null and back) loads as the last state; a
// torn last line is left out (it was never acknowledged) and a journal
// of another snapshot is ignored.
func TestJournalReplaysEveryChange(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	next := 0
	elem := func() []byte { next++; return []byte(fmt.Sprintf(`{"n":%d}`, next)) }
	parts := []accesstest.StatePart{{Key: "version", Value: []byte("1")}, {Key: "users", List: true},
		{Key: "logs", List: true}, {Key: "clock", Value: []byte(`{"seq":0}`)}}
	snap := snapshotOf(parts)
	require.NoError(t, os.WriteFile(path, snap, 0o600))
	journal := []byte(snapshotDigest(snap) + "\n")
	var states [][]byte // the state after each line
	for step := range 300 {
		cur := slices.Clone(parts)
		for i := range cur {
			cur[i].Elems = slices.Clone(cur[i].Elems)
		}
		switch rng.IntN(7) {
		case 0, 1:
			cur[1].Elems = append(cur[1].Elems, elem())
		case 2:
			cur[2].Elems = append(cur[2].Elems, elem(), elem())
			if len(cur[2].Elems) > 5 {
				cur[2].Elems = cur[2].Elems[len(cur[2].Elems)-5:]
			}
		case 3:
			if n := len(cur[1].Elems); n > 0 {
				cur[1].Elems[rng.IntN(n)] = elem()
			}
		case 4:
			if n := len(cur[1].Elems); n > 0 {
				i := rng.IntN(n)
				cur[1].Elems = slices.Delete(cur[1].Elems, i, i+1)
			}
		case 5:
			cur[3].Value = []byte(fmt.Sprintf(`{"seq":%d}`, step))
		case 6:
			if cur[2].List {
				cur[2] = accesstest.StatePart{Key: "logs", Value: []byte("null")}
			} else {
				cur[2] = accesstest.StatePart{Key: "logs", List: true, Elems: [][]byte{elem()}}
			}
		}
		ops := diffParts(parts, cur)
		if len(ops) == 0 {
			continue
		}
		line, err := journalLine(ops)
		require.NoError(t, err)
		journal = append(journal, line...)
		parts = cur
		states = append(states, snapshotOf(cur))
	}
	require.NotEmpty(t, states)
	jpath := journalPath(path)
	same := func(want []byte, msg string) {
		t.Helper()
		got, err := replayJournal(snap, jpath)
		require.NoError(t, err, "seed %d", seed)
		var a, b any
		require.NoError(t, json.Unmarshal(want, &a))
		require.NoError(t, json.Unmarshal(got, &b))
		assert.Equal(t, a, b, "%s (seed %d)", msg, seed)
	}
	require.NoError(t, os.WriteFile(jpath, journal, 0o600))
	same(states[len(states)-1], "every line replayed")
	require.NoError(t, os.WriteFile(jpath, journal[:len(journal)-3], 0o600))
	if len(states) > 1 {
		same(states[len(states)-2], "a torn last line is left out")
	}
	stale := append([]byte(snapshotDigest([]byte("another"))+"\n"), journal[len(snapshotDigest(snap))+1:]...)
	require.NoError(t, os.WriteFile(jpath, stale, 0o600))
	same(snap, "a journal of another snapshot is ignored")
}
