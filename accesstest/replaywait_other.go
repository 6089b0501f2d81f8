//go:build !linux

package accesstest

import "time"

// shortSleep sleeps for about d. Outside Linux it is time.Sleep, which
// may oversleep by the system's timer resolution (a millisecond or
// more): a play there may send a frame that much past its due time.
func shortSleep(d time.Duration) { time.Sleep(d) }
