package access

import (
	"context"
	"fmt"
	"io"
	"math"
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
// attempt costs one context and one wrapper, which end when the body has
// been read or closed, and no timer: its [idleWatch] joins the client's
// [watchSet], whose one timer serves all its attempts, and a read only
// marks when its wait began and ended.
//
// It also hides every method of the inner RoundTripper but RoundTrip.
// go-retryablehttp calls HTTPClient.CloseIdleConnections after each call
// that fails; through this wrapper that reaches nothing, so a failing call
// neither empties the pool nor, through net/http's closeIdle flag, closes
// the connections that become idle after it.
type attemptTransport struct {
	rt      http.RoundTripper
	limit   *rateLimiter // nil: no request budget (WithRateLimit)
	watches *watchSet    // the attempts' idle watches; nil: no per-attempt bound
}

// timeout is the per-attempt bound, 0 for none.
func (t *attemptTransport) timeout() time.Duration {
	if t.watches == nil {
		return 0
	}
	return t.watches.limit
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
	if t.watches == nil {
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
	w := &watchdog{parent: req.Context(), ctx: ctx, cancel: cancel}
	w.idle.start(t.watches, cancel)
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
			return nil, &timeoutError{timeout: t.watches.limit, what: "before the answer's headers arrived"}
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
	idle   idleWatch       // in the client's watch set, whose limit is the timeout
	parent context.Context // the call's
	ctx    context.Context // the attempt's, cancelled when the watch acts
	cancel context.CancelFunc
	body   watchedBody // the answer's body, once the headers arrived
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
			err = &timeoutError{timeout: b.w.idle.set.limit, what: fmt.Sprintf("waiting for more of the body after %d bytes", b.n)}
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

// idleEpoch is the origin of idleWatch's monotonic clock readings.
var idleEpoch = time.Now()

// idleWatch acts (closes a connection, cancels an attempt) when one of
// its waits has lasted longer than its set's limit. A wait costs two
// atomic stores and two readings of the monotonic clock, and no timer
// operation: the watch belongs to a [watchSet], whose one timer serves
// every watch in it.
type idleWatch struct {
	// since is when the current wait began, as nanoseconds after
	// idleEpoch; noWait while nothing waits (the time a consumer spends
	// on what it got is not silence).
	since  atomic.Int64
	fired  atomic.Bool // onIdle was called
	onIdle func()
	set    *watchSet

	// Under set.mu: the set's list of watches.
	linked     bool
	prev, next *idleWatch
}

// newIdleWatch starts a watch with no wait on, in a set of its own.
func newIdleWatch(limit time.Duration, onIdle func()) *idleWatch {
	w := new(idleWatch)
	w.start(&watchSet{limit: limit}, onIdle)
	return w
}

// start puts w (its zero value) into set, with no wait on.
func (w *idleWatch) start(set *watchSet, onIdle func()) {
	w.onIdle, w.set = onIdle, set
	w.since.Store(noWait)
	set.add(w)
}

// waiting marks the start of a wait.
func (w *idleWatch) waiting() { w.since.Store(int64(time.Since(idleEpoch))) }

// arrived marks the end of a wait.
func (w *idleWatch) arrived() { w.since.Store(noWait) }

// noWait is idleWatch.since while nothing waits.
const noWait = math.MinInt64

// stop ends the watch. A check that found its wait over just before may
// still be calling onIdle.
func (w *idleWatch) stop() { w.set.remove(w) }

// watchSet bounds the waits of its watches by limit with one timer, so
// that a client's attempts start and end without a timer operation of
// their own (each may wake a thread to re-arm the runtime's poller, and
// costs more than the rest of the watch). The timer is armed when a watch
// joins an idle set; when it fires it acts on every watch whose wait has
// lasted the limit and re-arms itself for the earliest moment another
// could: what remains of the longest current wait, or a whole limit. A
// set left empty lets its timer run out.
type watchSet struct {
	limit time.Duration

	mu    sync.Mutex
	t     *time.Timer
	armed bool // t is pending
	arms  int  // how many times t was armed (tests)
	head  *idleWatch
}

func (s *watchSet) add(w *idleWatch) {
	s.mu.Lock()
	w.linked, w.prev, w.next = true, nil, s.head
	if s.head != nil {
		s.head.prev = w
	}
	s.head = w
	if !s.armed {
		s.armed = true
		s.arms++
		if s.t == nil {
			s.t = time.AfterFunc(s.limit, s.check)
		} else {
			s.t.Reset(s.limit)
		}
	}
	s.mu.Unlock()
}

func (s *watchSet) remove(w *idleWatch) {
	s.mu.Lock()
	s.unlink(w)
	s.mu.Unlock()
}

// unlink takes w out of the list; s.mu is held.
func (s *watchSet) unlink(w *idleWatch) {
	if !w.linked {
		return
	}
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		s.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	}
	w.linked, w.prev, w.next = false, nil, nil
}

// check runs when the timer fires.
func (s *watchSet) check() {
	s.mu.Lock()
	now := time.Since(idleEpoch)
	next := time.Duration(-1)
	var fire []*idleWatch // allocated only when a wait ran out
	for w := s.head; w != nil; {
		after := w.next
		remain := s.limit
		if since := w.since.Load(); since != noWait {
			waited := now - time.Duration(since)
			if waited >= s.limit {
				s.unlink(w)
				w.fired.Store(true)
				fire = append(fire, w)
				w = after
				continue
			}
			remain = s.limit - waited
		}
		if next < 0 || remain < next {
			next = remain
		}
		w = after
	}
	s.armed = next >= 0
	if s.armed {
		s.arms++
		s.t.Reset(next)
	}
	s.mu.Unlock()
	// Outside the lock: onIdle closes a connection or cancels a context.
	for _, w := range fire {
		w.onIdle()
	}
}
