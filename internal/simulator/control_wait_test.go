package simulator

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/access-dev/access/accesstest"
)

// TestJournalWaitTimesOutOnlyAtItsTimeout: the deliveries and requests
// reads answer timed_out only when the wait's own timeout passed; a
// client that went away or a fake that closes ends the wait with an
// error (503 wait_ended), not an empty answer claiming a timeout.
func TestJournalWaitTimesOutOnlyAtItsTimeout(t *testing.T) {
	t.Parallel()
	reads := map[string]func(*control, *http.Request, []byte) (any, error){
		"deliveries": (*control).deliveries,
		"requests":   (*control).requests,
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fake := accesstest.New(t)
			c := &control{fake: fake}
			get := func(ctx context.Context, query string) (any, error) {
				r := httptest.NewRequestWithContext(ctx, http.MethodGet, ControlPrefix+"/"+name+"?"+query, nil)
				return read(c, r, nil)
			}

			// The wait's own timeout: an answer, timed out, no items.
			out, err := get(context.Background(), "wait=true&timeout=1ms&since=100000")
			if err != nil {
				t.Fatalf("a wait that timed out: %v", err)
			}
			if !timedOut(t, out) {
				t.Errorf("a wait that timed out: timed_out is false")
			}

			// The client went away: an error, not a timeout.
			gone, cancel := context.WithCancel(context.Background())
			cancel()
			out, err = get(gone, "wait=true&timeout=5s&since=100000")
			assertWaitEnded(t, "client gone", out, err)

			// A deadline of the client's own request is not the wait's timeout either.
			late, cancel := context.WithTimeout(context.Background(), 0)
			defer cancel()
			out, err = get(late, "wait=true&timeout=5s&since=100000")
			assertWaitEnded(t, "request's deadline", out, err)

			// The fake closing.
			fake.Close()
			out, err = get(context.Background(), "wait=true&timeout=5s&since=100000")
			assertWaitEnded(t, "fake closed", out, err)
		})
	}
}

func timedOut(t *testing.T, out any) bool {
	t.Helper()
	switch o := out.(type) {
	case journalOut[deliveryOut]:
		return o.TimedOut
	case journalOut[requestOut]:
		return o.TimedOut
	}
	t.Fatalf("answer of type %T", out)
	return false
}

func assertWaitEnded(t *testing.T, what string, out any, err error) {
	t.Helper()
	var ce *controlErr
	if !errors.As(err, &ce) {
		t.Errorf("%s: answer %+v, error %v; want a 503 wait_ended", what, out, err)
		return
	}
	if ce.status != http.StatusServiceUnavailable || ce.code != "wait_ended" {
		t.Errorf("%s: %d %s %q; want 503 wait_ended", what, ce.status, ce.code, ce.msg)
	}
}
