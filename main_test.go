package access

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain raises the number of parallel tests from GOMAXPROCS to 4 per
// core, unless -parallel is given or the race detector is on. Most of this
// package's parallel tests wait (for a per-attempt timeout, a trickling
// body, a retry's backoff) rather than compute, so with go test's default
// of 2 on a 2-core machine the waits ran one pair after another and the
// package took 21 s, most of it idle. Under the race detector the CPU is
// the limit, and more tests at once would only stretch the timeouts the
// tests measure.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && !raceEnabled {
		_ = flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	os.Exit(m.Run())
}
