package access

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// attemptTransport performs the single attempts of the retry layer and
// enforces the per-attempt timeout ([WithTimeout]) as an idle bound: the
// wait for the answer's headers, the time between two reads of a streamed
// upload, and the time a read of the answer's body waits for bytes. A
// transfer in which bytes keep flowing is never cut, however long it
// takes; only the call's context bounds it as a whole.
//
// The inner http.Client has no Timeout, so net/http takes its direct path
// (no timer goroutine, no request copy, no body wrapper of its own): an
// attempt costs one context, one timer and one wrapper, which end when
// the body has been read or closed. The timer is armed once per attempt
// and stopped once (an [idleWatch]): a read marks when its wait began and
// ended, and never touches the timer, since each timer operation may wake
// another thread to re-arm the runtime's poller.
//
// It also hides every method of the inner RoundTripper but RoundTrip.
// go-retryablehttp calls HTTPClient.CloseIdleConnections after each call
// that fails; through this wrapper that reaches nothing, so a failing call
// neither empties the pool nor, through net/http's closeIdle flag, closes
// the connections that become idle after it.
type attemptTransport struct {
	rt      http.RoundTripper
	timeout time.Duration // 0: no per-attempt bound
	limit   *rateLimiter  // nil: no request budget (WithRateLimit)
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.limit != nil {
		if err := t.limit.wait(req.Context()); err != nil {
			return nil, err
		}
	}
	upload := req.Body != nil && req.Body != http.NoBody
	if upload {
		st := stateOf(req.Context())
		upload = st != nil && st.upload
	}
	if t.timeout <= 0 {
		if !upload {
			return t.rt.RoundTrip(req)
		}
		// net/http waits for the request body's Read to return before it
		// reports a cancelled request: a file that blocks would hold the
		// call forever. Closing the body ends that Read.
		stop := context.AfterFunc(req.Context(), func() { req.Body.Close() })
		defer stop()
		return t.rt.RoundTrip(req)
	}
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{timeout: t.timeout, parent: req.Context(), ctx: ctx, cancel: cancel}
	w.idle.start(t.timeout, cancel)
	w.idle.waiting() // for the answer's headers
	r := req.WithContext(ctx)
	if upload {
		// Sending a large upload may take longer than the timeout: each
		// chunk the transport takes starts the wait again. A cancelled
		// attempt closes the body (see above).
		ub := &uploadBody{ReadCloser: req.Body, w: w}
		r.Body = ub
		body := req.Body
		w.stopClose = context.AfterFunc(ctx, func() { body.Close() })
	}
	resp, err := t.rt.RoundTrip(r)
	if err != nil {
		fired := w.fired()
		w.stop()
		if fired {
			return nil, &timeoutError{timeout: t.timeout, what: "before the answer's headers arrived"}
		}
		return nil, err
	}
	if ub, ok := r.Body.(*uploadBody); ok {
		ub.answered.Store(true) // the rest of the upload no longer restarts it
	}
	w.idle.arrived()                          // each read of the body waits anew
	w.body = watchedBody{rc: resp.Body, w: w} // one allocation for both
	resp.Body = &w.body
	return resp, nil
}

// watchdog bounds one attempt: its idle watch cancels the attempt's
// context when a wait lasts the timeout.
type watchdog struct {
	timeout time.Duration
	idle    idleWatch
	parent  context.Context // the call's
	ctx     context.Context // the attempt's, cancelled when the watch acts
	cancel  context.CancelFunc
	body    watchedBody // the answer's body, once the headers arrived
	// stopClose unregisters the close of a streamed upload's body when
	// the attempt's context ends; nil without an upload.
	stopClose func() bool
}

// fired reports whether the watch ended the attempt, and the call's
// context had not ended it first.
func (w *watchdog) fired() bool {
	return w.idle.fired.Load() && w.parent.Err() == nil
}

// stop ends the attempt's bound and releases its context.
func (w *watchdog) stop() {
	w.idle.stop()
	if w.stopClose != nil {
		w.stopClose()
	}
	w.cancel()
}

// uploadBody starts the watchdog's wait again each time the transport
// reads a chunk of a streamed upload.
type uploadBody struct {
	io.ReadCloser
	w        *watchdog
	answered atomic.Bool // the headers arrived: the body's reads own the watch
}

func (b *uploadBody) Read(p []byte) (int, error) {
	if !b.answered.Load() {
		b.w.idle.waiting()
	}
	return b.ReadCloser.Read(p)
}

// watchedBody bounds each read of the answer's body by the timeout: the
// watchdog counts only while a read waits for bytes, never while the
// caller handles what it got (a slow writer is not a silent server).
// Reaching the end of the body or closing it ends the attempt's context.
type watchedBody struct {
	rc   io.ReadCloser
	w    *watchdog
	n    int64 // bytes read so far
	done bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.rc.Read(p)
	}
	b.w.idle.waiting()
	n, err := b.rc.Read(p)
	b.w.idle.arrived()
	b.n += int64(n)
	if err != nil {
		// A cancelled attempt may also end in a clean EOF: the server saw
		// the client leave and closed its chunked answer. The body is cut
		// all the same.
		switch {
		case b.w.fired():
			err = &timeoutError{timeout: b.w.timeout, what: fmt.Sprintf("waiting for more of the body after %d bytes", b.n)}
		case err == io.EOF && b.w.ctx.Err() != nil:
			err = b.w.ctx.Err()
		}
		b.done = true
		b.w.stop()
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.rc.Close()
	if !b.done {
		b.done = true
		b.w.stop()
	}
	return err
}

// idleEpoch is the origin of idleWatch's monotonic clock readings.
var idleEpoch = time.Now()

// idleWatch acts (closes a connection, cancels an attempt) when a wait
// has lasted longer than its limit. It needs no work per wait beyond two
// atomic stores and a reading of the monotonic clock: its one timer fires
// at most once per limit, and then re-arms itself for what remains of
// the current wait, or for a whole limit while no wait is on (the time a
// consumer spends on what it got is not silence).
type idleWatch struct {
	limit  time.Duration
	onIdle func()
	// since is when the current wait began, as nanoseconds after
	// idleEpoch; -1 while nothing waits.
	since atomic.Int64
	fired atomic.Bool // onIdle was called

	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

// newIdleWatch starts a watch with no wait on.
func newIdleWatch(limit time.Duration, onIdle func()) *idleWatch {
	w := new(idleWatch)
	w.start(limit, onIdle)
	return w
}

// start arms w (its zero value) with no wait on.
func (w *idleWatch) start(limit time.Duration, onIdle func()) {
	w.limit, w.onIdle = limit, onIdle
	w.since.Store(-1)
	w.mu.Lock()
	w.t = time.AfterFunc(limit, w.check)
	w.mu.Unlock()
}

// waiting marks the start of a wait.
func (w *idleWatch) waiting() { w.since.Store(int64(time.Since(idleEpoch))) }

// arrived marks the end of a wait.
func (w *idleWatch) arrived() { w.since.Store(-1) }

// check runs when the timer fires: it acts if the current wait has
// lasted the whole limit, else re-arms the timer.
func (w *idleWatch) check() {
	w.mu.Lock()
	if w.stopped {
		w.mu.Unlock()
		return
	}
	next := w.limit
	if since := w.since.Load(); since >= 0 {
		waited := time.Since(idleEpoch) - time.Duration(since)
		if waited >= w.limit {
			w.fired.Store(true)
			w.stopped = true
			w.mu.Unlock()
			w.onIdle()
			return
		}
		next = w.limit - waited
	}
	w.t.Reset(next)
	w.mu.Unlock()
}

// stop ends the watch.
func (w *idleWatch) stop() {
	w.mu.Lock()
	w.stopped = true
	w.t.Stop()
	w.mu.Unlock()
}

// timeoutError is an attempt that exceeded the per-attempt timeout. Like
// net/http's own timeout error it reports Timeout() and matches
// [context.DeadlineExceeded] with errors.Is.
type timeoutError struct {
	timeout time.Duration
	what    string
}

func (e *timeoutError) Error() string {
	return fmt.Sprintf("access: per-attempt timeout (%s) exceeded %s", e.timeout, e.what)
}

// Timeout reports true: the error is a timeout.
func (e *timeoutError) Timeout() bool { return true }

// Temporary reports true: another attempt may succeed.
func (e *timeoutError) Temporary() bool { return true }

// Is matches context.DeadlineExceeded.
func (e *timeoutError) Is(target error) bool { return target == context.DeadlineExceeded }
