package simulator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memStore is a small stand-in for accesstest.Server's state API: a
// counter, saved as versioned JSON.
type memStore struct {
	mu        sync.Mutex
	n         int
	listeners map[int]func()
	next      int
	failWrite bool
}

const memVersion = 1

func (m *memStore) set(n int) {
	m.mu.Lock()
	m.n = n
	fs := make([]func(), 0, len(m.listeners))
	for _, f := range m.listeners {
		fs = append(fs, f)
	}
	m.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// add increments the counter and returns its new value, then calls the
// change functions, as the fake does after a change.
func (m *memStore) add() int {
	m.mu.Lock()
	m.n++
	n := m.n
	fs := make([]func(), 0, len(m.listeners))
	for _, f := range m.listeners {
		fs = append(fs, f)
	}
	m.mu.Unlock()
	for _, f := range fs {
		f()
	}
	return n
}

func (m *memStore) WriteState(w io.Writer) error {
	m.mu.Lock()
	n, fail := m.n, m.failWrite
	m.mu.Unlock()
	if _, err := fmt.Fprintf(w, `{"version":%d,"n":%d,`, memVersion, n); err != nil {
		return err
	}
	if fail {
		return errors.New("disk on fire")
	}
	_, err := io.WriteString(w, `"end":true}`)
	return err
}

func (m *memStore) ReadState(r io.Reader) error {
	var st struct {
		Version int  `json:"version"`
		N       int  `json:"n"`
		End     bool `json:"end"`
	}
	if err := json.NewDecoder(r).Decode(&st); err != nil {
		return fmt.Errorf("corrupt: %w", err)
	}
	if st.Version > memVersion {
		return fmt.Errorf("state version %d is newer than this build's %d", st.Version, memVersion)
	}
	m.mu.Lock()
	m.n = st.N
	m.mu.Unlock()
	return nil
}

func (m *memStore) OnChange(f func()) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.listeners == nil {
		m.listeners = map[int]func(){}
	}
	id := m.next
	m.next++
	m.listeners[id] = f
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.listeners, id)
	}
}

func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".tmp-", "temporary file left behind")
	}
}

// TestSaverBatchesABurst: a burst of changes costs about one save per
// interval, and the last change is in the file after close.
func TestSaverBatchesABurst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	store := &memStore{}
	const interval = 20 * time.Millisecond
	start := time.Now()
	sv, err := newSaver(store, path, interval, false, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, sv.Saves(), "saved at once, creating the file")
	// A burst of changes lasting several intervals.
	changes := 0
	for changes < 1000 || time.Since(start) < 5*interval {
		changes++
		store.set(changes)
	}
	require.NoError(t, sv.close())
	elapsed := time.Since(start)
	// One at start, at most one per interval during the burst, and the
	// final one at close.
	maxSaves := 2 + int(elapsed/interval) + 1
	assert.LessOrEqual(t, sv.Saves(), maxSaves, "%d changes in %s", changes, elapsed)
	assert.Less(t, sv.Saves(), changes/10, "batched, not one save per change")

	loaded := &memStore{}
	ok, err := loadState(loaded, path)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, changes, loaded.n)
	noTempFiles(t, dir)
}

// TestSaverFailedSaveKeepsTheOldFile: a save that fails half way leaves
// the previous file whole and no temporary file.
func TestSaverFailedSaveKeepsTheOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	store := &memStore{n: 7}
	sv, err := newSaver(store, path, time.Millisecond, false, nil, nil)
	require.NoError(t, err)
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	store.mu.Lock()
	store.failWrite = true
	store.mu.Unlock()
	assert.ErrorContains(t, sv.close(), "disk on fire")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	noTempFiles(t, dir)
}

// TestLoadStateRefuses: a corrupt or newer file, or a directory, is a
// usage error naming the file; a missing file is a fresh start.
func TestLoadStateRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	for _, c := range []struct {
		path, want string
	}{
		{write("corrupt.json", `{"version":1,"n":`), "corrupt"},
		{write("newer.json", `{"version":2,"n":1}`), "newer"},
		{dir, "is a directory"},
	} {
		store := &memStore{n: 3}
		ok, err := loadState(store, c.path)
		assert.False(t, ok)
		var ue *UsageError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, 2, ue.ExitCode())
		assert.Contains(t, err.Error(), c.path)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), "\n")
		assert.Equal(t, 3, store.n, "nothing loaded")
	}
	ok, err := loadState(&memStore{}, filepath.Join(dir, "missing.json"))
	assert.NoError(t, err)
	assert.False(t, ok)
}

// TestSaverRemovesTemporaryFilesLeftByAKill: a process killed during a
// save leaves its temporary file; the next start removes it (and only
// the saver's own).
func TestSaverRemovesTemporaryFilesLeftByAKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	left := filepath.Join(dir, ".state.json.tmp-123456")
	other := filepath.Join(dir, ".other.json.tmp-1")
	require.NoError(t, os.WriteFile(left, []byte(`{"version":1,"users":[`), 0o600))
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o600))
	sv, err := newSaver(&memStore{}, path, 20*time.Millisecond, false, nil, nil)
	require.NoError(t, err)
	require.NoError(t, sv.close())
	assert.NoFileExists(t, left)
	assert.FileExists(t, other, "another file's temporary file is not the saver's")
}

// The temporary files removed are those save names for this file, by
// exact name: the state file's name is never a pattern, so a name with
// glob characters removes no other file's.
func TestSaverRemovesOnlyItsOwnTemporaryFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s*[a].json")
	left := filepath.Join(dir, ".s*[a].json.tmp-42")
	keep := []string{
		filepath.Join(dir, ".sX[a].json.tmp-1"),  // what the glob .s*[a].json.tmp-* matched
		filepath.Join(dir, ".sa.json.tmp-7"),     // and this
		filepath.Join(dir, ".s*[a].json.tmp-ab"), // not save's: no digits
		filepath.Join(dir, ".s*[a].json.tmp-"),
	}
	for _, f := range append([]string{left}, keep...) {
		require.NoError(t, os.WriteFile(f, []byte("x"), 0o600))
	}
	sv, err := newSaver(&memStore{}, path, 20*time.Millisecond, false, nil, nil)
	require.NoError(t, err)
	require.NoError(t, sv.close())
	assert.NoFileExists(t, left)
	for _, f := range keep {
		assert.FileExists(t, f)
	}
}

// TestSaverGroupCommit: with durable saves, commit returns only once the
// file holds the change, and changes made together share saves: 64
// writers making 20 changes each cost far fewer saves than changes.
func TestSaverGroupCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	store := &memStore{}
	sv, err := newSaver(store, path, time.Hour, true, nil, nil)
	require.NoError(t, err)
	const writers, each = 64, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				n := store.add()
				if err := sv.commit(context.Background()); err != nil {
					errs <- err
					return
				}
				loaded := &memStore{}
				if _, err := loadState(loaded, path); err != nil {
					errs <- err
					return
				}
				if loaded.n < n {
					errs <- fmt.Errorf("change %d acknowledged, the file holds %d", n, loaded.n)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	saves := sv.Saves()
	require.NoError(t, sv.close())
	assert.Less(t, saves, writers*each/2, "one save per batch, not per change (%d saves)", saves)
}

// TestDurableHoldsOnlyTheActsThatChangeState: while saves fail, a POST
// of the control API during which the state changed is answered 503
// state_not_saved, unless it is one that changes no saved state (faults,
// a snapshot): a change another request made meanwhile is that
// request's to acknowledge.
func TestDurableHoldsOnlyTheActsThatChangeState(t *testing.T) {
	m := &memStore{}
	var failing atomic.Bool
	sv, err := newSaver(m, filepath.Join(t.TempDir(), "state.json"), time.Hour, true, nil, func() error {
		if failing.Load() {
			return errors.New("disk full (injected)")
		}
		return nil
	})
	require.NoError(t, err)
	defer sv.close()
	st := &Site{saver: sv}
	// Every request changes the state while it is served, as another
	// request or a timer may.
	h := st.durable(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.add()
		_, _ = io.WriteString(w, "served")
	}))
	failing.Store(true)
	for path, held := range map[string]bool{"/door/open": true, "/clock/advance": true, "/faults": false, "/faults/clear": false, "/snapshot": false} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, ControlPrefix+path, strings.NewReader("{}")))
		if held {
			assert.Equal(t, http.StatusServiceUnavailable, rec.Code, path)
			assert.Contains(t, rec.Body.String(), `"state_not_saved"`, path)
		} else {
			assert.Equal(t, http.StatusOK, rec.Code, path)
			assert.Equal(t, "served", rec.Body.String(), path)
		}
	}
}
