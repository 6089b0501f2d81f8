package access

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain raises the number of parallel tests from GOMAXPROCS to 8 per
// core, unless -parallel is given. Most of this package's parallel tests
// wait (for a per-attempt timeout, a trickling body, a retry's backoff)
// rather than compute, so with go test's default of 2 on a 2-core machine
// the waits ran one pair after another and the package took 21 s, most of
// it idle.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(8*runtime.GOMAXPROCS(0)))
	}
	os.Exit(m.Run())
}
