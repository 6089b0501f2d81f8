package accesstest

import (
	"syscall"
	"time"
)

// shortSleep puts the calling thread to sleep in the kernel for about d
// (nanosleep: the kernel's timer slack, 50 µs by default, rather than
// the Go runtime's millisecond); a signal may end it sooner, which the
// caller's loop allows for. The runtime hands the goroutine's processor
// to other goroutines meanwhile, as for any system call.
func shortSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR: woken early; the caller looks at the time again
}
