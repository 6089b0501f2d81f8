package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileContentAndMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	// A file that others could read is replaced by one they cannot.
	if err := os.WriteFile(path, []byte("old and longer content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("token: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "token: x\n" {
		t.Errorf("content %q, want %q", got, "token: x\n")
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		// The mode asked for, not the temporary file's 0600.
		other := filepath.Join(dir, "public.txt")
		if err := WriteFile(other, []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("mode %v (%v), want 0644", fi.Mode().Perm(), err)
		}
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("directory holds %q, want the two files only", names)
	}
}

// TestWriteFileFailureLeavesNoTemporary: a write that fails after the
// temporary file was made (here the rename: the path is a directory
// that is not empty) removes it and leaves what was at path.
func TestWriteFileFailureLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("secret"), 0o600); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "taken" {
		t.Errorf("directory holds %q after the failed write, want only %q", names, "taken")
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Errorf("the directory at path is gone: %v", err)
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(filepath.Join(dir, "no", "such"), []byte("x"), 0o600)
	var ce *CreateError
	if !errors.As(err, &ce) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("writing into a missing directory: %v (%T), want a *CreateError of fs.ErrNotExist", err, err)
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q, want nothing", names)
	}
}

// syncs records the directories Write syncs (through the hook) until the
// test ends, and answers each with err.
func syncs(t *testing.T, err error) *[]string {
	t.Helper()
	var dirs []string
	t.Cleanup(SetSyncDirHook(func(dir string) error {
		dirs = append(dirs, dir)
		return err
	}))
	return &dirs
}

// TestWriteFailingWriteLeavesTheFile: when the write func fails (after
// writing part of its content), Write returns its error, the file keeps
// its old content and mode, no temporary file is left and nothing is
// synced.
func TestWriteFailingWriteLeavesTheFile(t *testing.T) {
	dirs := syncs(t, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	errBroken := errors.New("broken stream")
	err := Write(path, 0o600, func(w io.Writer) error {
		if _, err := io.WriteString(w, "new and partial"); err != nil {
			return err
		}
		return errBroken
	})
	if !errors.Is(err, errBroken) {
		t.Fatalf("Write: %v, want the write func's error", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "old" {
		t.Errorf("file holds %q (%v), want the old content", got, err)
	}
	if fi, err := os.Stat(path); runtime.GOOS != "windows" && (err != nil || fi.Mode().Perm() != 0o644) {
		t.Errorf("mode %v (%v), want the old 0644", fi.Mode().Perm(), err)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "state.json" {
		t.Errorf("directory holds %q, want only state.json", names)
	}
	if len(*dirs) != 0 {
		t.Errorf("synced %q after a failed write", *dirs)
	}
}

// TestWriteModeFromCreation: the temporary file has the mode asked for
// (not the umask's, not 0600) before any content is written to it.
func TestWriteModeFromCreation(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	syncs(t, nil)
	for _, perm := range []os.FileMode{0o600, 0o640, 0o604} {
		path := filepath.Join(t.TempDir(), "f")
		err := Write(path, perm, func(w io.Writer) error {
			f := w.(*os.File)
			// The name the simulator's start looks for to clean up.
			if name := filepath.Base(f.Name()); !strings.HasPrefix(name, ".f.tmp-") {
				t.Errorf("temporary file %q, want .f.tmp-DIGITS", name)
			}
			fi, err := f.Stat()
			if err != nil {
				return err
			}
			if fi.Mode().Perm() != perm {
				t.Errorf("temporary file's mode before writing %v, want %v", fi.Mode().Perm(), perm)
			}
			_, err = io.WriteString(w, "content")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("file's mode %v (%v), want %v", fi.Mode().Perm(), err, perm)
		}
	}
}

// TestWriteSyncsTheDirectory: once the file is renamed into place, its
// directory is synced, once; a bare name's directory is ".".
func TestWriteSyncsTheDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cert.pem")
	var dirs []string
	t.Cleanup(SetSyncDirHook(func(d string) error {
		// The sync comes after the rename.
		if got, err := os.ReadFile(filepath.Join(d, "cert.pem")); err != nil || string(got) != "new" {
			t.Errorf("at the directory's sync the file holds %q (%v), want the new content", got, err)
		}
		dirs = append(dirs, d)
		return nil
	}))
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 || dirs[0] != dir {
		t.Errorf("synced %q, want [%q]", dirs, dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd) //nolint:errcheck // back to the package directory
	dirs = nil
	if err := WriteFile("cert.pem", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 1 || dirs[0] != "." {
		t.Errorf("synced %q for a bare name, want [\".\"]", dirs)
	}
}

// TestWriteDirectorySyncFails: the directory's sync is the one error
// after which the file is replaced; it is returned, and no temporary
// file is left.
func TestWriteDirectorySyncFails(t *testing.T) {
	errSync := errors.New("sync failed")
	syncs(t, errSync)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); !errors.Is(err, errSync) {
		t.Fatalf("WriteFile: %v, want the sync's error", err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "new" {
		t.Errorf("file holds %q (%v), want the new content", got, err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %q, want only the file", names)
	}
}

// TestSyncDirHookRestored: the function SetSyncDirHook returns puts
// SyncDir back.
func TestSyncDirHookRestored(t *testing.T) {
	called := 0
	restore := SetSyncDirHook(func(string) error { called++; return nil })
	path := filepath.Join(t.TempDir(), "f")
	if err := WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	restore()
	if err := WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if called != 1 {
		t.Errorf("hook called %d times, want once (before restore)", called)
	}
}

// TestConcurrentWritersLeaveOneWholeFile: writers racing on one file (two
// fakes given the same --cert-out, two commands downloading to one path)
// each leave it whole: a reader running alongside only ever reads one
// writer's complete content, and at the end the file is one writer's and
// no temporary file is left.
func TestConcurrentWritersLeaveOneWholeFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.pem")
	const writers, rounds, size = 6, 15, 64 << 10
	content := func(i int) []byte { return []byte(strings.Repeat(string(rune('a'+i)), size)) }
	whole := func(b []byte) bool {
		return len(b) == size && strings.Count(string(b), string(b[:1])) == size
	}
	done := make(chan struct{})
	var torn []int
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err == nil && !whole(b) {
				torn = append(torn, len(b))
			}
		}
	}()
	errs := make(chan error, writers)
	for i := range writers {
		go func() {
			var err error
			for range rounds {
				if err = Write(path, 0o644, func(w io.Writer) error {
					c := content(i)
					for off := 0; off < len(c); off += size / 4 { // in pieces, as a stream
						if _, err := w.Write(c[off : off+size/4]); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	for range writers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(done)
	<-read
	if len(torn) > 0 {
		t.Errorf("a reader saw %d partial or mixed files (sizes %v)", len(torn), torn[:min(len(torn), 5)])
	}
	b, err := os.ReadFile(path)
	if err != nil || !whole(b) {
		t.Errorf("the file is not one writer's whole content (%d bytes, %v)", len(b), err)
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "ca.pem" {
		t.Errorf("directory holds %q, want only ca.pem", names)
	}
}
