// Package atomicfile replaces a file whole: the new content goes to a
// temporary file in the same directory, which is synced to the disk,
// renamed over the file and followed by a sync of the directory. A reader
// sees the old content or all of the new, never part of it, and a crash
// leaves one or the other behind. The command's config (cmd/access) and
// the simulator's env file (internal/simulator) are written through it;
// the simulator's state saves, which stream their content or keep the
// journal open, sync their directory with [SyncDir].
package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// WriteFile replaces path with data, with mode perm (exactly perm: the
// umask does not apply). The mode is the temporary file's from its
// creation on, so content written with 0600 is never readable by others,
// even for a moment, and a file that was readable by others no longer
// is. On error no temporary file is left behind, and the file at path is
// unchanged unless the error is the directory's sync (after the rename).
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*") // mode 0600
	if err != nil {
		return err
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
	if _, err = tmp.Write(data); err != nil {
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
	// The rename is durable only once the directory is synced.
	return SyncDir(dir)
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
