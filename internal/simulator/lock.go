package simulator

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/access-dev/access/internal/filelock"
)

// stateLock is the exclusive lock a running simulator holds on a state
// file for its whole life, so that two processes never save over each
// other's changes. It is an OS lock on path + ".lock" (the state file
// itself is replaced by every save, and a lock on it would go with the
// old file); see package filelock.
type stateLock = filelock.Lock

// lockState takes the lock of the state file path (already resolved) or
// returns a usage error: "in use by another access fake (pid N)" when
// another process holds it.
func lockState(path string) (*stateLock, error) {
	l, err := filelock.TryLock(path + ".lock")
	var held *filelock.LockedError
	var open *fs.PathError
	switch {
	case errors.As(err, &held):
		return nil, usageErrorf("state file %s is in use by another access fake (pid %s)", path, held.Pid)
	case errors.As(err, &open):
		return nil, usageErrorf("state file %s: cannot create its lock file: %v", path, errors.Unwrap(err))
	case err != nil:
		return nil, usageErrorf("state file %s: cannot lock it: %v", path, err)
	}
	return l, nil
}

// resolveStatePath follows the symbolic links of a state path once, at
// start: the link's target is the file loaded, saved (a save renames a
// new file over it, which would otherwise replace the link) and locked,
// also when it does not exist yet. The result is absolute.
func resolveStatePath(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", usageErrorf("state file %s: %v", path, err)
	}
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", usageErrorf("state file %s: %v", path, errors.Unwrap(err))
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return "", usageErrorf("state file %s: its directory: %v", path, errors.Unwrap(err))
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}
