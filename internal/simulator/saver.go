package simulator

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
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
	if err := store.ReadState(bufio.NewReader(f)); err != nil {
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

// saver writes the state file after changes: at most once per interval,
// atomically (a temporary file in the same directory, fsync, rename,
// fsync of the directory), so that a crash at any moment leaves either
// the previous file or the new one.
type saver struct {
	store    stateStore
	path     string
	interval time.Duration
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	remove   func()

	mu      sync.Mutex
	saves   int
	err     error // the last save's error
	errOut  io.Writer
	logOut  io.Writer // with --log-saves: a line per save
	longest time.Duration
}

// newSaver saves once at once (creating the file, and proving it can be
// written), then after every change of the store. log, when not nil,
// gets a line per save.
func newSaver(fake any, path string, interval time.Duration, log io.Writer) (*saver, error) {
	store, err := storeOf(fake)
	if err != nil {
		return nil, err
	}
	removeTempFiles(path)
	sv := &saver{store: store, path: path, interval: interval, kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), errOut: os.Stderr, logOut: log}
	if err := sv.save(); err != nil {
		return nil, usageErrorf("state file %s: cannot write it: %v", path, err)
	}
	sv.remove = store.OnChange(sv.changed)
	go sv.run()
	return sv, nil
}

// changed is the store's change callback: it must not block.
func (sv *saver) changed() {
	select {
	case sv.kick <- struct{}{}:
	default:
	}
}

func (sv *saver) run() {
	defer close(sv.done)
	for {
		select {
		case <-sv.stop:
			return
		case <-sv.kick:
		}
		began := time.Now()
		if err := sv.save(); err != nil {
			fmt.Fprintf(sv.errOut, "access fake: saving %s: %v\n", sv.path, err)
		}
		// At most one save per interval: changes meanwhile wait for the
		// next one, which starts one interval after this one did.
		t := time.NewTimer(sv.interval - time.Since(began))
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
	return sv.save()
}

// Saves reports how many times the file was written.
func (sv *saver) Saves() int {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.saves
}

// save writes the state to a temporary file beside the state file,
// syncs it, renames it over the state file and syncs the directory.
func (sv *saver) save() (err error) {
	began := time.Now()
	sv.mu.Lock()
	defer sv.mu.Unlock()
	defer func() { sv.err = err }()
	dir, base := filepath.Split(sv.path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 256<<10)
	if err = sv.store.WriteState(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), sv.path); err != nil {
		return err
	}
	sv.saves++
	took := time.Since(began)
	sv.longest = max(sv.longest, took)
	if sv.logOut != nil {
		fmt.Fprintf(sv.logOut, "access fake: saved %s in %s (longest %s, began %s)\n", sv.path, took.Round(time.Microsecond), sv.longest.Round(time.Microsecond), began.Format(time.RFC3339Nano))
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // the rename itself, on file systems that need it
		_ = d.Close()
	}
	return nil
}
