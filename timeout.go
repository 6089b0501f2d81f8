package access

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
// the body has been read or closed.
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
	w.timer = time.AfterFunc(t.timeout, cancel) // no closure to allocate
	r := req.WithContext(ctx)
	if upload {
		// Sending a large upload may take longer than the timeout: each
		// chunk the transport takes restarts the wait. A cancelled
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
	w.timer.Stop()                            // restarted by each read of the body
	w.body = watchedBody{rc: resp.Body, w: w} // one allocation for both
	resp.Body = &w.body
	return resp, nil
}

// watchdog cancels an attempt's context when its timer fires.
type watchdog struct {
	timeout time.Duration
	timer   *time.Timer
	parent  context.Context // the call's
	ctx     context.Context // the attempt's, cancelled when the timer fires
	cancel  context.CancelFunc
	body    watchedBody // the answer's body, once the headers arrived
	// stopClose unregisters the close of a streamed upload's body when
	// the attempt's context ends; nil without an upload.
	stopClose func() bool
}

// fired reports whether the timer ended the attempt: its context is
// cancelled and the call's is not. The transport only asks before it
// cancels the attempt's context itself (stop, the end of the body).
func (w *watchdog) fired() bool {
	return w.ctx.Err() != nil && w.parent.Err() == nil
}

// stop ends the attempt's bound and releases its context.
func (w *watchdog) stop() {
	w.timer.Stop()
	if w.stopClose != nil {
		w.stopClose()
	}
	w.cancel()
}

// uploadBody restarts the watchdog each time the transport reads a chunk
// of a streamed upload.
type uploadBody struct {
	io.ReadCloser
	w        *watchdog
	answered atomic.Bool // the headers arrived: the body's reads own the timer
}

func (b *uploadBody) Read(p []byte) (int, error) {
	if !b.answered.Load() {
		b.w.timer.Reset(b.w.timeout)
	}
	return b.ReadCloser.Read(p)
}

// watchedBody bounds each read of the answer's body by the timeout: the
// watchdog runs only while a read waits for bytes, never while the caller
// handles what it got (a slow writer is not a silent server). Reaching
// the end of the body or closing it ends the attempt's context.
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
	b.w.timer.Reset(b.w.timeout)
	n, err := b.rc.Read(p)
	b.w.timer.Stop()
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
		b.w.cancel()
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
