//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package filelock

import "os"

// tryLock takes no lock on systems without flock(2) (Windows among
// them): there, nothing stops two processes from using one state file.
func tryLock(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
