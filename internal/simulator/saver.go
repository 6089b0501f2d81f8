package simulator

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/atomicfile"
)

// stateStore is what the saver needs of a fake: its whole state as
// versioned JSON, and a call after every change (accesstest.Server).
type stateStore interface {
	WriteState(w io.Writer) error
	ReadState(r io.Reader) error
	OnChange(f func()) (remove func())
}

// storeOf returns the state store of a fake, or a usage error when this
// build's fake cannot save its state.
func storeOf(fake any) (stateStore, error) {
	st, ok := fake.(stateStore)
	if !ok {
		return nil, usageErrorf("--state: this build's fake controller cannot save its state")
	}
	return st, nil
}

// loadState reads path into the fake. A missing file is no error (the
// site starts empty and the file is created); an unreadable, corrupt or
// newer file is a usage error naming the file, and the fake is left as
// it was.
func loadState(fake any, path string) (loaded bool, err error) {
	store, err := storeOf(fake)
	if err != nil {
		return false, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, usageErrorf("state file %s: cannot read it: %v", path, errors.Unwrap(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return false, usageErrorf("state file %s: is a directory", path)
	}
	snapshot, err := io.ReadAll(f)
	if err != nil {
		return false, usageErrorf("state file %s: cannot read it: %v", path, errors.Unwrap(err))
	}
	doc, err := replayJournal(snapshot, journalPath(path))
	if err != nil {
		return false, usageErrorf("state file %s: refused, nothing loaded or overwritten: %v", path, err)
	}
	if err := store.ReadState(bytes.NewReader(doc)); err != nil {
		return false, usageErrorf("state file %s: refused, nothing loaded or overwritten: %v", path, err)
	}
	return true, nil
}

// checkWritable makes sure the state file's directory takes a new file
// (the saver's temporary file), without touching the state file: a
// usage error when it does not. An empty path is fine.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return usageErrorf("state file %s: cannot write it: %v", path, errors.Unwrap(err))
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return nil
}

// removeTempFiles removes the temporary files a killed process left
// beside the state file: they are named only by save, which renames them
// over the file when they are whole, so one that is left is never the
// state. Only names save makes match: "." + the file's name + ".tmp-"
// and digits (os.CreateTemp's random part); the file's name is compared
// as it is, never used as a pattern. The caller holds the state file's
// lock, so no other process is writing one of them.
func removeTempFiles(path string) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if isTempName(e.Name(), base) && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// isTempName reports whether name is one of save's temporary files for
// the state file named base.
func isTempName(name, base string) bool {
	rest, ok := strings.CutPrefix(name, "."+base+".tmp-")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// saver writes the state file after changes, atomically (a temporary
// file in the same directory, fsync, rename, fsync of the directory), so
// that a crash at any moment leaves either the previous file or the new
// one.
//
// Durable (the default of --state): a change is acknowledged only once a
// save that holds it is on disk ([saver.commit], the fake's commit hook
// on the request path). Saves follow one another with no pause: the
// writes that arrive during one save all wait for the next one (group
// commit), so that one save acknowledges a whole batch. A failed save is
// retried with back-off (saveRetryFirst, doubling up to saveRetryMost);
// the writes it held are answered 503 meanwhile, and the page says the
// state is not saved.
//
// Not durable (--async-save): writes are answered at once and saved at
// most once per interval, so that a crash can lose the last interval's
// changes.
type saver struct {
	store    stateStore
	path     string
	interval time.Duration
	durable  bool
	failSave func() error // a seam for tests: an error fails the save before it writes
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	finished chan struct{} // closed after the last save, at close
	remove   func()
	changes  atomic.Uint64 // changes seen: the store's change calls

	fileMu sync.Mutex // one save at a time
	// With durable saves of a store that gives its state in parts: the
	// journal (journal.go), and what the last save held.
	parts       partsStore
	prev        []accesstest.StatePart
	journal     *os.File
	journalSize int64
	snapSize    int64

	mu      sync.Mutex
	saved   uint64        // every change up to this count is on disk
	tried   uint64        // the last save began when this many changes had been seen
	err     error         // the last save's error, nil once a save succeeds
	turn    chan struct{} // closed when a save ends, then replaced
	saves   int
	errOut  io.Writer
	logOut  io.Writer // with --log-saves: a line per save
	longest time.Duration
}

// The back-off of a failed save's retries.
const (
	saveRetryFirst = 20 * time.Millisecond
	saveRetryMost  = 2 * time.Second
)

// errSaverClosed answers the writes still waiting for a save when the
// saver closed without one that holds them.
var errSaverClosed = errors.New("the simulator stopped before the change was saved")

// newSaver saves once at once (creating the file, and proving it can be
// written), then after every change of the store. log, when not nil,
// gets a line per save. durable makes commit wait for a save; failSave,
// when not nil, is called before each save and fails it with its error.
func newSaver(fake any, path string, interval time.Duration, durable bool, log io.Writer, failSave func() error) (*saver, error) {
	store, err := storeOf(fake)
	if err != nil {
		return nil, err
	}
	removeTempFiles(path)
	removeTempFiles(journalPath(path))
	sv := &saver{store: store, path: path, interval: interval, durable: durable, failSave: failSave,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), finished: make(chan struct{}),
		turn: make(chan struct{}), errOut: os.Stderr, logOut: log}
	if ps, ok := store.(partsStore); ok && durable {
		sv.parts = ps
	}
	if err := sv.attempt(); err != nil {
		return nil, usageErrorf("state file %s: cannot write it: %v", path, err)
	}
	if sv.parts == nil {
		// Whole snapshots from now on: a journal of an earlier durable
		// run is in the file just written.
		if err := os.Remove(journalPath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, usageErrorf("state file %s: cannot remove its old journal: %v", path, err)
		}
	}
	sv.remove = store.OnChange(sv.changed)
	go sv.run()
	return sv, nil
}

// changed is the store's change callback: it must not block. It runs
// before the change's request waits in commit.
func (sv *saver) changed() {
	sv.changes.Add(1)
	select {
	case sv.kick <- struct{}{}:
	default:
	}
}

// commit returns once every change seen so far is on disk, or the error
// of the save that should have held them (then the change is not
// acknowledged), or ctx's error.
func (sv *saver) commit(ctx context.Context) error {
	target := sv.changes.Load()
	sv.mu.Lock()
	for {
		switch {
		case sv.saved >= target:
			sv.mu.Unlock()
			return nil
		case sv.err != nil && sv.tried >= target:
			err := sv.err
			sv.mu.Unlock()
			return err
		}
		turn := sv.turn
		sv.mu.Unlock()
		select {
		case <-turn:
		case <-ctx.Done():
			return ctx.Err()
		case <-sv.finished:
			sv.mu.Lock()
			ok := sv.saved >= target
			sv.mu.Unlock()
			if ok {
				return nil
			}
			return errSaverClosed
		}
		sv.mu.Lock()
	}
}

// failing returns the error of the last save while saves fail, else nil
// (the page shows it).
func (sv *saver) failing() error {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.err
}

func (sv *saver) run() {
	defer close(sv.done)
	backoff := time.Duration(0)
	for {
		select {
		case <-sv.stop:
			return
		case <-sv.kick:
		}
		began := time.Now()
		wait := time.Duration(0)
		if err := sv.attempt(); err != nil {
			if backoff == 0 {
				fmt.Fprintf(sv.errOut, "access fake: saving %s: %v (retrying; writes are answered 503 until a save succeeds)\n", sv.path, err)
				backoff = saveRetryFirst
			} else {
				backoff = min(2*backoff, saveRetryMost)
			}
			wait = backoff
			select { // the retry: the changes are still to be saved
			case sv.kick <- struct{}{}:
			default:
			}
		} else if backoff != 0 {
			backoff = 0
			fmt.Fprintf(sv.errOut, "access fake: saving %s: saved again\n", sv.path)
		}
		if !sv.durable {
			// At most one save per interval: changes meanwhile wait for
			// the next one, which starts one interval after this one did.
			wait = max(wait, sv.interval-time.Since(began))
		}
		if wait <= 0 {
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-sv.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// close stops saving after changes and saves a last time.
func (sv *saver) close() error {
	sv.remove()
	close(sv.stop)
	<-sv.done
	sv.fileMu.Lock()
	sv.prev = nil // a last compaction: the file alone holds the state
	sv.fileMu.Unlock()
	err := sv.attempt()
	close(sv.finished)
	sv.fileMu.Lock()
	if sv.journal != nil {
		_ = sv.journal.Close()
		sv.journal = nil
	}
	sv.fileMu.Unlock()
	return err
}

// Saves reports how many times the file was written.
func (sv *saver) Saves() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.saves
}

// attempt saves the state and records what the save holds: the changes
// seen before it began.
func (sv *saver) attempt() error {
	sv.fileMu.Lock()
	defer sv.fileMu.Unlock()
	n := sv.changes.Load() // before the snapshot: every change counted is in it
	took, err := sv.save()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.tried, sv.err = n, err
	if err == nil {
		sv.saved = n
		sv.saves++
		sv.longest = max(sv.longest, took)
	}
	close(sv.turn)
	sv.turn = make(chan struct{})
	return err
}

// save writes the state to the state file through atomicfile (a
// temporary file beside it, synced, renamed over it, and the directory
// synced), or appends to its journal. The caller holds fileMu.
func (sv *saver) save() (time.Duration, error) {
	began := time.Now()
	if sv.failSave != nil {
		if err := sv.failSave(); err != nil {
			return 0, err
		}
	}
	if sv.parts != nil {
		if err := sv.saveJournal(); err != nil {
			return 0, err
		}
		return sv.logSave(began), nil
	}
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		if err := sv.store.WriteState(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := atomicfile.Write(sv.path, 0o600, write); err != nil {
		return 0, err
	}
	return sv.logSave(began), nil
}

// logSave returns how long the save begun at began took, and prints it
// with --log-saves.
func (sv *saver) logSave(began time.Time) time.Duration {
	took := time.Since(began)
	if sv.logOut != nil {
		sv.mu.Lock()
		longest := max(sv.longest, took)
		sv.mu.Unlock()
		fmt.Fprintf(sv.logOut, "access fake: saved %s in %s (longest %s, began %s)\n", sv.path, took.Round(time.Microsecond), longest.Round(time.Microsecond), began.Format(time.RFC3339Nano))
	}
	return took
}
