// Package browsertest starts the headless Chromium that the project's
// browser tests drive with chromedp: the simulator's page, the access
// review's and the directory sync's HTML reports. It is for tests only.
//
// A test skips where no Chromium is installed, except in CI (CI=true),
// whose .ci/run installs Debian's chromium: there a missing browser fails
// the test rather than letting it pass unseen.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium returns the path of a Chromium to drive, or skips t (fails it
// under CI=true) when none is installed.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium in CI: .ci/run installs Debian's chromium")
	}
	t.Skip("no Chromium installed (apt-get install chromium)")
	return ""
}

// Timeout bounds everything a tab does.
const Timeout = 60 * time.Second

// Tab opens a headless Chromium tab of the given size (0, 0: Chromium's
// default), with extra options (a flag such as ignore-certificate-errors
// for a self-signed loopback server); it is closed when t ends, and its
// context ends after Timeout.
func Tab(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-dev-shm-usage", true),
		// A first start on a loaded machine (a new profile, both cores
		// busy) can take longer than chromedp's 20 s for Chromium to
		// print its DevTools address: give it the tab's bound.
		chromedp.WSURLReadTimeout(Timeout),
	)
	if width > 0 && height > 0 {
		opts = append(opts, chromedp.WindowSize(width, height))
	}
	opts = append(opts, extra...)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	// Debian's Chromium is newer than chromedp's protocol tables: events
	// with values it does not know are logged and skipped, harmlessly.
	ctx, cancelB := chromedp.NewContext(actx, chromedp.WithErrorf(func(string, ...any) {}))
	ctx, cancelC := context.WithTimeout(ctx, Timeout)
	t.Cleanup(func() { cancelC(); cancelB(); cancelA() })
	return ctx
}
