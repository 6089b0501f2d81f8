// Package filelock is the exclusive lock a long-running process holds on
// a file it keeps state in (the simulator's state file, the SCIM store),
// so that two processes never write over each other's acknowledged
// changes. It imports only the standard library.
package filelock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ErrLocked is matched by the error of [TryLock] when another process
// (or another open of the same lock in this one) holds the lock.
var ErrLocked = errors.New("locked by another process")

// LockedError is the error of [TryLock] when the lock is held: it names
// the lock file and the pid its holder wrote ("unknown" when none).
type LockedError struct {
	Path string
	Pid  string
}

// Error says which lock is held and by which pid.
func (e *LockedError) Error() string {
	return fmt.Sprintf("%s is held by another process (pid %s)", e.Path, e.Pid)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// Lock is a held lock; [Lock.Unlock] lets it go, and the OS lets it go
// when the process ends, however it ends. The lock file, holding the
// owner's pid, stays.
type Lock struct {
	f *os.File
}

// TryLock takes the exclusive lock of the lock file at path (created if
// missing) without waiting, and writes this process's pid into it. When
// another holder has it the error is a [*LockedError]. On systems without
// flock(2) (Windows among them) nothing is locked.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := tryLock(f); err != nil {
		if errors.Is(err, ErrLocked) {
			pid := "unknown"
			if b, rerr := io.ReadAll(io.LimitReader(f, 32)); rerr == nil && strings.TrimSpace(string(b)) != "" {
				pid = strings.TrimSpace(string(b))
			}
			_ = f.Close()
			return nil, &LockedError{Path: path, Pid: pid}
		}
		_ = f.Close()
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock lets the lock go; a nil or released lock is left alone.
func (l *Lock) Unlock() {
	if l != nil && l.f != nil {
		_ = unlockFile(l.f)
		_ = l.f.Close()
		l.f = nil
	}
}
