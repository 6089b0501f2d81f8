// Package atomicfile replaces a file whole: the new content goes to a
// temporary file in the same directory, which is synced to the disk,
// renamed over the file and followed by a sync of the directory. A reader
// sees the old content or all of the new, never part of it, and a crash
// leaves one or the other behind. [Write] streams the content, [WriteFile]
// takes it whole. The command's config and -O downloads (cmd/access), and
// the simulator's env file, state saves (the snapshot and the journal's
// compaction), kept certificate and seed folder (internal/simulator) are
// written through them.
//
// The temporary file is named "." + the file's name + ".tmp-" and
// digits, in the file's directory: what a killed process leaves behind
// can be found by that name (the simulator removes them at its start).
package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"syscall"
)

// CreateError is the error of [Write] and [WriteFile] when the temporary
// file cannot be made (the directory is missing or takes no new file):
// nothing was written. Err is the error of os.CreateTemp, an
// *fs.PathError naming the temporary file, which callers that show the
// error may want to leave out: errors.Unwrap(e.Err) is the cause alone.
type CreateError struct{ Err error }

func (e *CreateError) Error() string { return e.Err.Error() }

// Unwrap returns e.Err.
func (e *CreateError) Unwrap() error { return e.Err }

// WriteFile replaces path with data, with mode perm; it is [Write] of
// data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces path with what write writes, with mode perm (exactly
// perm: the umask does not apply). write gets the temporary file itself,
// unbuffered; its error, or any other, leaves path as it was. The mode is
// the temporary file's from its creation on, so content written with
// 0600 is never readable by others, even for a moment, and a file that
// was readable by others no longer is. On error no temporary file is left
// behind, and the file at path is unchanged unless the error is the
// directory's sync (after the rename). An error making the temporary
// file is a *[CreateError].
func Write(path string, perm os.FileMode, write func(io.Writer) error) (err error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*") // mode 0600
	if err != nil {
		return &CreateError{Err: err}
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = write(tmp); err != nil {
		return err
	}
	// The content reaches the disk before the rename makes it the file.
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename is durable only once the directory is synced. From here
	// on the file is replaced: the deferred removal finds nothing.
	if h := syncDirHook.Load(); h != nil {
		return (*h)(dir)
	}
	return SyncDir(dir)
}

// syncDirHook, when set, is called instead of SyncDir by Write.
var syncDirHook atomic.Pointer[func(dir string) error]

// SetSyncDirHook makes [Write] and [WriteFile] call hook, instead of
// [SyncDir], with the directory of each file they have renamed into
// place, and returns a function that undoes it. It is for tests (here
// and in the packages that write through this one), to see that a write
// is made durable or to fail the sync; a test that sets it must not run
// in parallel with others that write files through this package.
func SetSyncDirHook(hook func(dir string) error) (restore func()) {
	prev := syncDirHook.Swap(&hook)
	return func() { syncDirHook.Store(prev) }
}

// SyncDir makes a rename in dir durable. It returns nil where the system
// cannot sync a directory (Windows; file systems that answer EINVAL).
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	_ = d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}
