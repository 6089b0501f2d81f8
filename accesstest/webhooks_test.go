package accesstest_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// flaky is a webhook receiver that answers the given statuses in turn,
// then 200, and keeps what it received.
type flaky struct {
	*httptest.Server
	mu      sync.Mutex
	answers []int
	bodies  [][]byte
	sigs    []string
}

func newFlaky(t *testing.T, answers ...int) *flaky {
	f := &flaky{answers: answers}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := readAll(t, r)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.sigs = append(f.sigs, r.Header.Get(access.SignatureHeader))
		status := http.StatusOK
		if len(f.answers) > 0 {
			status, f.answers = f.answers[0], f.answers[1:]
		}
		f.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *flaky) received() ([][]byte, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies, f.sigs
}

func attempts(ds []accesstest.Delivery) (out []int) {
	for _, d := range ds {
		out = append(out, d.Attempt)
	}
	return out
}

func statuses(ds []accesstest.Delivery) (out []int) {
	for _, d := range ds {
		out = append(out, d.StatusCode)
	}
	return out
}

// With two retries, a receiver that fails twice (500, 503) and then
// answers 200 gets three deliveries of the same body, each with a valid
// Signature header; Deliveries records attempts 1, 2 and 3.
func TestWebhookRetriesUntilSuccess(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithWebhookRetries(2, time.Millisecond))
	recv := newFlaky(t, http.StatusInternalServerError, http.StatusServiceUnavailable)
	ep := srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "flaky", Events: []access.EventType{access.EventDoorUnlock}})

	_, err := srv.Client().Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.NoError(t, srv.WaitDeliveries(ctx))

	bodies, sigs := recv.received()
	require.Len(t, bodies, 3)
	for i := range bodies {
		assert.Equal(t, bodies[0], bodies[i], "attempt %d: the same body", i+1)
		assert.Regexp(t, `^t=\d+,v1=[0-9a-f]{64}$`, sigs[i], "attempt %d", i+1)
		ev, err := access.ConstructEvent(bodies[i], sigs[i], ep.Secret.Value())
		require.NoError(t, err, "attempt %d verifies", i+1)
		assert.Equal(t, access.EventDoorUnlock, ev.Event)
	}
	ds := srv.Deliveries()
	assert.Equal(t, []int{1, 2, 3}, attempts(ds))
	assert.Equal(t, []int{500, 503, 200}, statuses(ds))
	for _, d := range ds {
		assert.Equal(t, bodies[0], d.Payload)
		assert.Equal(t, ep.ID, d.EndpointID)
	}

	// Emit retries the same way and returns every attempt.
	recv.mu.Lock()
	recv.answers = []int{http.StatusBadGateway}
	recv.mu.Unlock()
	out, err := srv.Emit(ctx, bodies[0])
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2}, attempts(out))
	assert.Equal(t, []int{502, 200}, statuses(out))
}

// Retries stop after the number allowed; without WithWebhookRetries a
// failed delivery is made once.
func TestWebhookRetriesAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		opts []accesstest.Option
		want []int
	}{
		{"default: one attempt", nil, []int{1}},
		{"one retry", []accesstest.Option{accesstest.WithWebhookRetries(1, time.Millisecond)}, []int{1, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := accesstest.New(t, append(c.opts, accesstest.WithDemoData())...)
			recv := newFlaky(t, 500, 500, 500, 500)
			srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "down", Events: []access.EventType{access.EventDoorUnlock}})
			_, err := srv.Client().Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
			require.NoError(t, err)
			require.NoError(t, srv.WaitDeliveries(ctx))
			ds := srv.Deliveries()
			assert.Equal(t, c.want, attempts(ds))
			for _, d := range ds {
				assert.Equal(t, 500, d.StatusCode)
			}
			bodies, _ := recv.received()
			assert.Len(t, bodies, len(c.want))
		})
	}
}

// A retry waiting its backoff holds up nothing: later deliveries to the
// same endpoint and WebSocket notifications are made meanwhile. Close
// ends the wait; the attempt it would have made is recorded as dropped.
func TestWebhookRetryWaitHoldsUpNothing(t *testing.T) {
	t.Parallel()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var requests atomic.Int32
	second := make(chan struct{})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if requests.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		close(second) // the next unlock's delivery; the retry's never comes
		<-r.Context().Done()
	}))
	defer down.Close()
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithWebhookRetries(3, time.Hour))
	defer srv.Close() // before down.Close, which waits for the held request
	ws := subscribe(t, srv)
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: down.URL, Name: "down", Events: []access.EventType{access.EventDoorUnlock}})
	c := srv.Client()
	_, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	waitFor(t, ws, "the unlock's notification", func(n *access.Notification) bool { return n.Event == access.NotificationRemoteUnlock })
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	select {
	case <-second: // made after the first attempt, during its retry's wait
	case <-wctx.Done():
		t.Fatal("the second unlock's delivery waited for the first one's retry")
	}
	_, err = c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true})
	require.NoError(t, err)
	waitFor(t, ws, "the next change's notification, during the retry's wait", func(n *access.Notification) bool {
		return n.Event == access.NotificationSettingUpdate
	})
	done, stop := context.WithCancel(ctx)
	stop() // WaitDeliveries then reports at once whether anything is pending
	assert.ErrorIs(t, srv.WaitDeliveries(done), context.Canceled, "the retry is still pending")

	srv.Close()
	// The first delivery's attempt and its dropped retry; the second's
	// attempt, cut off (and a retry, dropped, when one was started before
	// the close stopped new ones).
	ds := srv.Deliveries()
	require.NotEmpty(t, ds)
	first := ds[0]
	assert.Equal(t, 500, first.StatusCode)
	assert.Equal(t, 1, first.Attempt)
	var retry, next []accesstest.Delivery
	for _, d := range ds[1:] {
		if string(d.Payload) == string(first.Payload) {
			retry = append(retry, d)
		} else {
			next = append(next, d)
		}
	}
	require.Equal(t, []int{2}, attempts(retry))
	assert.Error(t, retry[0].Err, "the retry the close cut off")
	assert.Zero(t, retry[0].StatusCode)
	require.NotEmpty(t, next)
	assert.Equal(t, 1, next[0].Attempt)
	assert.Len(t, next, next[len(next)-1].Attempt, "numbered in turn: %v", attempts(next))
	assert.LessOrEqual(t, len(next), 2)
	for _, d := range next {
		assert.Error(t, d.Err, "the second delivery, held by the receiver, cut off by the close")
	}
	assert.Equal(t, int32(2), requests.Load(), "no retry attempt was made")
}

// No stream waits on a webhook: with one endpoint that accepts every
// delivery and never answers, a WebSocket subscriber receives the
// notifications of 100 unlocks, and a second endpoint all 100 deliveries,
// while the first still hangs (the test holds it until it has checked).
func TestHungWebhookHoldsUpNobodyElse(t *testing.T) {
	t.Parallel()
	const unlocks = 100
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	release := make(chan struct{})
	inFlight := make(chan struct{}, 1)
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case inFlight <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	healthy := make(chan string, unlocks)
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		healthy <- r.Header.Get(access.SignatureHeader)
	}))
	defer ok.Close()
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: hung.URL, Name: "hangs", Events: []access.EventType{access.EventDoorUnlock}})
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: ok.URL, Name: "answers", Events: []access.EventType{access.EventDoorUnlock}})
	ws := subscribe(t, srv)

	c := srv.Client(noRetry())
	for range unlocks {
		_, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
		require.NoError(t, err)
	}
	for i := range unlocks {
		waitFor(t, ws, "unlock notification "+strconv.Itoa(i+1), func(n *access.Notification) bool {
			return n.Event == access.NotificationRemoteUnlock
		})
	}
	for i := range unlocks {
		select {
		case <-healthy:
		case <-ctx.Done():
			t.Fatalf("the answering endpoint got %d deliveries of %d", i, unlocks)
		}
	}
	select {
	case <-inFlight: // the hung endpoint holds a delivery: it was not skipped
	case <-ctx.Done():
		t.Fatal("no delivery reached the hung endpoint")
	}
	pending, stop := context.WithCancel(ctx)
	stop()
	assert.ErrorIs(t, srv.WaitDeliveries(pending), context.Canceled, "the hung endpoint's deliveries are pending")

	close(release)
	require.NoError(t, srv.WaitDeliveries(ctx))
	byEndpoint := map[string]int{}
	for _, d := range srv.Deliveries() {
		byEndpoint[d.URL]++
	}
	assert.Equal(t, map[string]int{hung.URL: unlocks, ok.URL: unlocks}, byEndpoint, "every delivery made, to both")
}
