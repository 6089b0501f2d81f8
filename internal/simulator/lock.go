package simulator

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// stateLock is the exclusive lock a running simulator holds on a state
// file for its whole life, so that two processes never save over each
// other's changes. It is an OS lock on path + ".lock" (the state file
// itself is replaced by every save, and a lock on it would go with the
// old file), which the OS lets go when the process ends, however it
// ends; the file, holding the owner's pid, stays.
type stateLock struct {
	f *os.File
}

// errLocked is what tryLock reports when another process holds the lock.
var errLocked = errors.New("locked by another process")

// lockState takes the lock of the state file path (already resolved) or
// returns a usage error: "in use by another access fake (pid N)" when
// another process holds it.
func lockState(path string) (*stateLock, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, usageErrorf("state file %s: cannot create its lock file: %v", path, errors.Unwrap(err))
	}
	if err := tryLock(f); err != nil {
		pid := "unknown"
		if errors.Is(err, errLocked) {
			if b, rerr := io.ReadAll(io.LimitReader(f, 32)); rerr == nil && strings.TrimSpace(string(b)) != "" {
				pid = strings.TrimSpace(string(b))
			}
			_ = f.Close()
			return nil, usageErrorf("state file %s is in use by another access fake (pid %s)", path, pid)
		}
		_ = f.Close()
		return nil, usageErrorf("state file %s: cannot lock it: %v", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &stateLock{f: f}, nil
}

// unlock lets the lock go.
func (l *stateLock) unlock() {
	if l != nil && l.f != nil {
		_ = unlockFile(l.f)
		_ = l.f.Close()
		l.f = nil
	}
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
