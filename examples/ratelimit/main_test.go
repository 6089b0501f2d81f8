package main

import (
	"context"
	"strings"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestRun runs the example in both modes: direct, and through a UniFi OS
// console's proxy (the token as an X-API-KEY). Retries, refusals and the
// budget behave the same; only the URL in the purchase's error differs.
func TestRun(t *testing.T) {
	t.Parallel()
	accesstest.ForEachMode(t, func(t *testing.T, mode access.Mode) {
		t.Parallel()
		runIn(t, mode)
	})
}

func runIn(t *testing.T, mode access.Mode) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	var out strings.Builder
	if err := run(context.Background(), srv, mode, &out); err != nil {
		t.Fatal(err)
	}
	api := map[access.Mode]string{access.ModeDirect: srv.URL() + "/api/v1/developer", access.ModeProxy: srv.ProxyURL()}[mode]
	got := strings.ReplaceAll(out.String(), api, "API")
	want := `1. Two 503s, then success:
  retry: attempt 2 of GET after HTTP 503
  retry: attempt 3 of GET after HTTP 503
  got Ada Lovelace after 3 requests
2. A 429 whose Retry-After exceeds WaitMax ends the call at once:
  rate limited: HTTP 429, "Too Many Requests" after 1 attempt(s), try again in 30s
3. A busy device (an error code on HTTP 200) is retried too:
  retry: attempt 2 of GET after HTTP 200
  an offline device that stays offline matches ErrUnavailable:
  retry: attempt 2 of GET after HTTP 200
  retry: attempt 3 of GET after HTTP 200
  HTTP 200, code CODE_DEVICE_DEVICE_OFFLINE after 3 attempt(s)
4. A purchase answered 503 is not retried: it may have been carried out.
  access: POST API/credentials/touch_passes: HTTP 503 CODE_SYSTEM_ERROR: Service Unavailable
  requests the controller saw: 1
5. A request budget paces every goroutine of a client (consoles are reported to tolerate about 10 a second):
  5 calls from 5 goroutines at 20 a second took at least 200ms
`
	if got != want {
		t.Errorf("output:\n%s\nwant:\n%s", got, want)
	}
	srv.CheckModeUsed(t, mode)
}
