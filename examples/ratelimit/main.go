// Command ratelimit shows how the SDK behaves when the controller throttles
// or fails: idempotent calls are retried with backoff (a Retry-After
// beyond the policy's WaitMax ends the call at once), the final error can be classified
// with errors.Is and inspected with errors.As, a touch-pass purchase,
// which spends money, is never sent twice, and a request budget
// (access.WithRateLimit) paces a client's goroutines.
//
//	go run ./examples/ratelimit
//
// It runs against the embedded fake controller with injected faults.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	if err := run(context.Background(), srv, access.ModeDirect, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run makes the site of srv fail in the ways shown, reaches it in mode
// (the API port, or a UniFi OS console's proxy) and writes what the SDK
// did to out.
func run(ctx context.Context, srv *accesstest.Server, mode access.Mode, out io.Writer) error {

	// A policy with short waits so that the example runs quickly; the
	// default waits 500 ms to 5 s. OnRetry is the hook for metrics.
	policy := access.DefaultRetryPolicy()
	policy.WaitMin, policy.WaitMax = 10*time.Millisecond, 50*time.Millisecond
	policy.OnRetry = func(ev access.RetryEvent) {
		fmt.Fprintf(out, "  retry: attempt %d of %s after HTTP %d\n", ev.Attempt, ev.Method, ev.StatusCode)
	}
	client := srv.ClientFor(mode, access.WithRetryPolicy(policy))

	fmt.Fprintln(out, "1. Two 503s, then success:")
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 503, Times: 2})
	u, _, err := client.Users.Get(ctx, accesstest.DemoUserID, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  got %s %s after %d requests\n", u.FirstName, u.LastName, len(srv.RequestsFor(accesstest.OpUsersGet)))

	fmt.Fprintln(out, "2. A 429 whose Retry-After exceeds WaitMax ends the call at once:")
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 429, RetryAfter: 30 * time.Second, Times: 1})
	_, _, err = client.Users.Get(ctx, accesstest.DemoUserID, nil)
	if !errors.Is(err, access.ErrRateLimited) {
		return fmt.Errorf("want ErrRateLimited, got %v", err)
	}
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Fprintf(out, "  rate limited: HTTP %d, %q after %d attempt(s), try again in %s\n", apiErr.StatusCode, apiErr.Message, apiErr.Attempts, apiErr.RetryAfter)
	}

	fmt.Fprintln(out, "3. A busy device (an error code on HTTP 200) is retried too:")
	srv.Inject(accesstest.OpDevicesGetSettings, accesstest.Fault{Code: access.CodeDeviceDeviceBusy, Message: "The device is busy.", Times: 1})
	if _, _, err = client.Devices.GetSettings(ctx, accesstest.DemoDeviceID); err != nil {
		return err
	}
	fmt.Fprintln(out, "  an offline device that stays offline matches ErrUnavailable:")
	srv.Inject(accesstest.OpDevicesGetSettings, accesstest.Fault{Code: access.CodeDeviceDeviceOffline, Message: "The device is currently offline."})
	_, _, err = client.Devices.GetSettings(ctx, accesstest.DemoDeviceID)
	srv.ClearFaults()
	if errors.As(err, &apiErr) && errors.Is(err, access.ErrUnavailable) {
		fmt.Fprintf(out, "  HTTP %d, code %s after %d attempt(s)\n", apiErr.StatusCode, apiErr.Code, apiErr.Attempts)
	}

	fmt.Fprintln(out, "4. A purchase answered 503 is not retried: it may have been carried out.")
	srv.Inject(accesstest.OpTouchPassesPurchase, accesstest.Fault{Status: 503, Times: 1})
	_, _, err = client.TouchPasses.Purchase(ctx, 1)
	if !errors.Is(err, access.ErrServer) {
		return fmt.Errorf("want ErrServer, got %v", err)
	}
	fmt.Fprintf(out, "  %v\n  requests the controller saw: %d\n", err, len(srv.RequestsFor(accesstest.OpTouchPassesPurchase)))

	fmt.Fprintln(out, "5. A request budget paces every goroutine of a client (consoles are reported to tolerate about 10 a second):")
	paced := srv.ClientFor(mode, access.WithRateLimit(20, 1))
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, errs[i] = paced.Doors.List(ctx)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	took := time.Since(start)
	if took < 200*time.Millisecond {
		return fmt.Errorf("5 calls at 20 a second took %s", took)
	}
	fmt.Fprintln(out, "  5 calls from 5 goroutines at 20 a second took at least 200ms")
	return nil
}
