//go:build unix

package synccmd

import (
	"os"
	"os/signal"
	"syscall"
)

// claimHangup makes SIGHUP the long-running sync's reload signal. The
// command line ends a run at SIGHUP, as at SIGINT (a closed terminal);
// signal.Ignore takes SIGHUP from every channel notified of it before
// Notify gives it to this one, so that a reload does not end the run.
// release stops the notifications and leaves SIGHUP ignored until the
// process ends.
func claimHangup() (hup <-chan struct{}, release func()) {
	signal.Ignore(syscall.SIGHUP)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP)
	out := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sigs:
				select {
				case out <- struct{}{}:
				default: // a reload is pending already
				}
			case <-done:
				return
			}
		}
	}()
	return out, func() {
		signal.Stop(sigs)
		signal.Ignore(syscall.SIGHUP)
		close(done)
	}
}
