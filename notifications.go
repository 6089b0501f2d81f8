package access

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// NotificationsService streams the controller's notifications WebSocket.
type NotificationsService service

// notificationsPath is the WebSocket's path under the API prefix.
const notificationsPath = "/devices/notifications"

// Defaults of [SubscribeOptions] and the message cap of
// [NotificationsService.Subscribe].
const (
	// DefaultSubscribeMinBackoff is the first wait before a reconnection.
	DefaultSubscribeMinBackoff = time.Second
	// DefaultSubscribeMaxBackoff caps the wait between reconnections.
	DefaultSubscribeMaxBackoff = 60 * time.Second
	// DefaultSubscribeIdleTimeout is how long the stream may stay silent
	// before it is considered dead and replaced. Consoles send "Hello" about
	// every 5 seconds and do not answer pings.
	DefaultSubscribeIdleTimeout = 20 * time.Second
	// DefaultSubscribeRestartGrace is how long a subscription that was
	// established keeps reconnecting through HTTP 401, 403 and 404 on the
	// upgrade, which a restarting console's proxy answers for a while.
	DefaultSubscribeRestartGrace = 5 * time.Minute
	// MaxNotificationSize caps one message (1 MiB). A larger one ends the
	// connection, which is then replaced (a gap: see [ErrReconnected]).
	MaxNotificationSize = 1 << 20
)

// ErrReconnected is matched by the [*ReconnectedError] that
// [NotificationsService.Subscribe] yields, without ending, after it has
// replaced a lost connection: notifications sent in between are lost.
var ErrReconnected = errors.New("access: notifications stream reconnected; notifications may have been missed")

// ErrDisconnected is matched by the [*DisconnectedError] that
// [NotificationsService.Subscribe] yields, without ending, when the stream
// is down: a lost connection could not be replaced at the first attempt
// (or the very first connection failed). It is yielded once per outage;
// [ErrReconnected] follows when the stream is back.
var ErrDisconnected = errors.New("access: notifications stream is down")

// ErrStreamIdle is the [ReconnectedError.Cause] when nothing arrived within
// the idle timeout (see [SubscribeOptions.IdleTimeout]).
var ErrStreamIdle = errors.New("access: notifications stream went silent")

// ErrNotificationTooLarge is the [ReconnectedError.Cause] when a message
// exceeded [MaxNotificationSize]; the connection is then replaced.
var ErrNotificationTooLarge = errors.New("access: notification exceeds the size limit")

// ErrInvalidNotification is matched by the [*NotificationError] that
// [NotificationsService.Subscribe] yields, without ending, for a message
// that is not a notification (not a JSON object with an event name), and
// by the errors of [ParseNotification] and the typed accessors for data
// that cannot be decoded at all.
var ErrInvalidNotification = errors.New("access: invalid notification")

// SubscribeOptions tunes [NotificationsService.Subscribe]. The zero value
// (and nil) uses the defaults.
type SubscribeOptions struct {
	// MinBackoff is the wait before the first reconnection (default
	// [DefaultSubscribeMinBackoff]). It doubles after each failed attempt,
	// up to MaxBackoff (default [DefaultSubscribeMaxBackoff]); every wait
	// is drawn at random from its upper half (jitter), so that clients of
	// a restarting console do not reconnect in step.
	MinBackoff time.Duration
	MaxBackoff time.Duration
	// IdleTimeout is how long the stream may stay silent, keepalives
	// included, before the connection is dropped and replaced (default
	// [DefaultSubscribeIdleTimeout]).
	IdleTimeout time.Duration
	// RestartGrace is how long, from the loss of a connection, a
	// subscription that was established once keeps reconnecting while the
	// upgrade is answered with HTTP 401, 403 or 404, as a restarting
	// console's proxy does while its applications come back (default
	// [DefaultSubscribeRestartGrace]). Past it, such an answer ends the
	// sequence.
	RestartGrace time.Duration
	// Frames, when set, is called with every message the socket
	// delivers, as received and before it is decoded: notifications,
	// keepalives, the handshake and messages that are no notification
	// alike (a recorder of the stream, such as the capture package's).
	// It is called on the goroutine that iterates, before the message's
	// notification is yielded; frame is valid only during the call.
	Frames func(frame []byte)
}

func (o *SubscribeOptions) withDefaults(op string) (SubscribeOptions, error) {
	var v SubscribeOptions
	if o != nil {
		v = *o
	}
	switch {
	case v.MinBackoff < 0:
		return v, invalidArg(op, "MinBackoff", "must not be negative")
	case v.MaxBackoff < 0:
		return v, invalidArg(op, "MaxBackoff", "must not be negative")
	case v.IdleTimeout < 0:
		return v, invalidArg(op, "IdleTimeout", "must not be negative")
	case v.RestartGrace < 0:
		return v, invalidArg(op, "RestartGrace", "must not be negative")
	}
	if v.RestartGrace == 0 {
		v.RestartGrace = DefaultSubscribeRestartGrace
	}
	if v.MinBackoff == 0 {
		v.MinBackoff = DefaultSubscribeMinBackoff
	}
	if v.MaxBackoff == 0 {
		v.MaxBackoff = max(DefaultSubscribeMaxBackoff, v.MinBackoff)
	}
	if v.MaxBackoff < v.MinBackoff {
		return v, invalidArg(op, "MaxBackoff", "must not be below MinBackoff")
	}
	if v.IdleTimeout == 0 {
		v.IdleTimeout = DefaultSubscribeIdleTimeout
	}
	return v, nil
}

// ReconnectedError is yielded by [NotificationsService.Subscribe] after a
// lost connection has been replaced, and after the first connection when a
// [*DisconnectedError] came before it. It does not end the loop. Notifications
// sent while the stream was down are lost: catch up through the REST
// operations (or the system logs) if that matters. errors.Is(err,
// ErrReconnected) is true; errors.Is also sees through to Cause.
type ReconnectedError struct {
	// Cause is why the previous connection ended: [ErrStreamIdle],
	// [ErrNotificationTooLarge], or the read error (a closed or reset
	// connection, a close frame). It is nil when the subscription's first
	// connection is made after a [*DisconnectedError] (the console was
	// down when Subscribe began).
	Cause error
	// Disconnected is when the previous connection was found lost (or the
	// first attempt failed); Reconnected when the new one was established.
	Disconnected, Reconnected time.Time
	// Attempts is the number of connection attempts it took (at least 1).
	Attempts int
	// LastAttemptErr is the error of the last failed attempt, if any.
	LastAttemptErr error
}

// Error implements error.
func (e *ReconnectedError) Error() string {
	s := fmt.Sprintf("access: notifications stream reconnected after %s (%d attempts)",
		e.Reconnected.Sub(e.Disconnected).Round(time.Millisecond), e.Attempts)
	if e.Cause != nil {
		s += ": lost: " + unprefixed(e.Cause)
	}
	if e.LastAttemptErr != nil {
		s += "; last failed attempt: " + unprefixed(e.LastAttemptErr)
	}
	return s + "; notifications may have been missed"
}

// Is makes errors.Is(err, ErrReconnected) true.
func (e *ReconnectedError) Is(target error) bool { return target == ErrReconnected }

// Unwrap returns Cause.
func (e *ReconnectedError) Unwrap() error { return e.Cause }

// DisconnectedError is yielded by [NotificationsService.Subscribe] when the
// stream is down: the first attempt to replace a lost connection failed, or
// the first connection of the subscription failed, or a replacement was
// accepted and lost again before anything arrived. It does not end the loop:
// the subscription keeps reconnecting with backoff, and yields a
// [*ReconnectedError] when the stream is back. It is yielded once per
// outage, however many attempts fail, so a consumer can raise an alert or
// start polling (for example the system logs) when it sees one and stop when
// it sees [ErrReconnected]. errors.Is(err, ErrDisconnected) is true; errors.Is
// and errors.As also see through to Cause and Lost.
type DisconnectedError struct {
	// Cause is why the stream is down now: the error of the failed attempt
	// (an [*APIError] for a refused upgrade such as HTTP 503, a
	// [*RequestError] for an unreachable console), or, for a connection
	// that was accepted and lost before anything arrived, why it ended.
	Cause error
	// Lost is why the previous working connection ended ([ErrStreamIdle],
	// [ErrNotificationTooLarge], the read error); nil when the stream had
	// not connected yet.
	Lost error
	// Disconnected is when the previous connection was found lost, or when
	// the first attempt failed if there was none.
	Disconnected time.Time
	// LastMessage is when the last message arrived, keepalives included;
	// zero when none has arrived since Subscribe began.
	LastMessage time.Time
	// SinceLastMessage is the time from LastMessage to when this error was
	// yielded; zero when LastMessage is zero.
	SinceLastMessage time.Duration
	// Attempts is the number of failed attempts so far (at least 1).
	Attempts int
}

// Error implements error.
func (e *DisconnectedError) Error() string {
	s := "access: notifications stream is down: " + unprefixed(e.Cause)
	if e.Lost != nil && e.Lost != e.Cause {
		s += " (connection lost: " + unprefixed(e.Lost) + ")"
	}
	if e.LastMessage.IsZero() {
		return s + "; no message received yet"
	}
	return s + fmt.Sprintf("; last message %s ago", e.SinceLastMessage.Round(time.Millisecond))
}

// Is makes errors.Is(err, ErrDisconnected) true.
func (e *DisconnectedError) Is(target error) bool { return target == ErrDisconnected }

// Unwrap returns Cause and Lost (when set).
func (e *DisconnectedError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.Lost != nil && e.Lost != e.Cause {
		errs = append(errs, e.Lost)
	}
	return errs
}

// NotificationError is yielded by [NotificationsService.Subscribe], without
// ending the loop, for a message that is not a notification; it matches
// [ErrInvalidNotification].
type NotificationError struct {
	// Message is the message as received, at most its first 1 KiB.
	Message []byte
	// Err says what is wrong with it.
	Err error
}

// Error implements error.
func (e *NotificationError) Error() string {
	return fmt.Sprintf("access: invalid notification %.64q: %v", e.Message, e.Err)
}

// Is makes errors.Is(err, ErrInvalidNotification) true.
func (e *NotificationError) Is(target error) bool { return target == ErrInvalidNotification }

// Unwrap returns Err.
func (e *NotificationError) Unwrap() error { return e.Err }

// Subscribe streams the controller's notifications: doorbell rings and
// their outcome, remote unlocks, door and device state, settings changes
// and access logs (see [Notification]). Range over the sequence:
//
//	for n, err := range client.Notifications.Subscribe(ctx, nil) {
//		switch {
//		case errors.Is(err, access.ErrDisconnected):
//			// the stream is down (it keeps reconnecting): alert, poll
//		case errors.Is(err, access.ErrReconnected):
//			// back after a gap: refresh state through the REST operations
//		case errors.Is(err, access.ErrInvalidNotification):
//			// one unreadable message; the stream goes on
//		case err != nil:
//			return err // the sequence has ended
//		case n.Event == access.NotificationRemoteView:
//			v, _ := n.RemoteView()
//			fmt.Println("doorbell at", v.DoorName)
//		}
//	}
//
// The connection is made with the client's own HTTP client, so
// [WithPinnedCertificate], [WithRootCAs] and the other TLS options protect
// the stream as they protect every call; the token travels only in the
// upgrade request's credential header (see [Client.AuthHeader]), and the
// client's request budget ([WithRateLimit]) paces the connection attempts.
//
// Through a UniFi OS console's proxy ([ModeProxy]) the socket is tried
// under the REST base (<base>/devices/notifications, current firmware)
// and, on HTTP 404, at the older
// /proxy/access/api/v1/developer/devices/notifications; the client
// remembers the one that answered ([NotificationsService.SocketPath]). When
// neither does, the error names both paths. The keepalives ("Hello", bare or
// as a JSON string) and the access.base.info handshake are not yielded.
//
// The sequence reconnects by itself. Network errors, HTTP 5xx and 429 on
// the upgrade, a closed or reset connection, a message over
// [MaxNotificationSize] and a silence longer than the idle timeout are all
// retried, with exponential backoff and jitter between
// [SubscribeOptions.MinBackoff] and MaxBackoff, forever (ctx bounds it).
// When the first attempt to replace a lost connection fails (or the
// subscription's first connection fails, or a replacement is lost before
// anything arrived), a [*DisconnectedError] is yielded at once, with the
// cause and the time since the last message, once per outage however long
// it lasts. After each reconnection a [*ReconnectedError] is yielded. Both
// are not fatal: they tell that the stream is down, and that it is back
// and notifications may have been missed. A message that is not a
// notification yields a [*NotificationError], not fatal either.
//
// Once the subscription has been established, HTTP 401, 403 and 404 on a
// reconnection are what a restarting console's proxy answers while its
// applications come back: they are retried like a 5xx (a
// [*DisconnectedError] carries them as its Cause) for
// [SubscribeOptions.RestartGrace] from the loss of the connection, and end
// the sequence only after that (a token revoked while streaming thus ends
// it after the grace).
//
// Every other error ends the sequence, which yields it last:
//   - HTTP 401 and 403 on the subscription's first connection (or past
//     the restart grace): an [*APIError] matching [ErrUnauthorized] or
//     [ErrForbidden];
//   - a console without the WebSocket (HTTP 404 on the first connection,
//     on every path tried, or CODE_DEVICE_API_NOT_SUPPORTED): an error
//     matching [ErrUnsupported] that wraps the [*APIError];
//   - an HTML page where the API was expected (a UniFi OS console
//     without Access): an [*APIError] matching [ErrInvalidResponse];
//   - another 4xx: an [*APIError];
//   - a certificate that fails verification or pinning, a refused
//     redirect: a [*RequestError];
//   - an accepted upgrade (HTTP 101) that the HTTP client's transport
//     handed back in a form the WebSocket cannot use (a transport given
//     to [WithHTTPClient] that wraps response bodies): a [*RequestError]
//     wrapping an [*UnusableUpgradeError] that says so;
//   - ctx ending: ctx.Err();
//   - invalid options or a nil ctx: a [*ValidationError].
//
// Why an iterator of (notification, error) rather than a channel or a
// callback: the loop runs in the caller's goroutine, so breaking out of it
// or cancelling ctx closes the connection before the loop statement
// returns, with no goroutine left behind and no channel to drain; and a
// reconnection is reported in order, between the last notification before
// the gap and the first after it. It is reported as an error value rather
// than as a synthetic notification so that a consumer that ignores it has
// to do so explicitly (err != nil is the first thing a loop checks), while
// one that handles it need not end the loop.
//
// Notifications arrive as the console sends them: no replay, no ordering
// guarantee across reconnections. Use one subscription per consumer; each
// holds one connection.
//
// Permission: view:device. Minimum controller version: 1.20.11.
//
// API: GET /api/v1/developer/devices/notifications  (WebSocket upgrade; permission view:device)
func (s *NotificationsService) Subscribe(ctx context.Context, opts *SubscribeOptions) iter.Seq2[*Notification, error] {
	const op = "Notifications.Subscribe"
	return func(yield func(*Notification, error) bool) {
		if ctx == nil {
			yield(nil, invalidArg(op, "ctx", "must not be nil"))
			return
		}
		o, err := opts.withDefaults(op)
		if err != nil {
			yield(nil, err)
			return
		}
		st := &stream{cfg: s.client.cfg, o: o, urls: socketURLs(s.client.cfg)}
		st.run(ctx, yield)
	}
}

// Check connects to the notifications WebSocket once, as Subscribe does
// (through the proxy, the older path is tried on HTTP 404), closes the
// connection at once and returns the path that answered, which the client
// then remembers ([NotificationsService.SocketPath]). It makes one
// attempt per path and never reconnects; its errors are Subscribe's
// first-connection errors. Diagnostics (access doctor) use it.
// Permission: view:device.
func (s *NotificationsService) Check(ctx context.Context) (string, error) {
	if ctx == nil {
		return "", invalidArg("Notifications.Check", "ctx", "must not be nil")
	}
	st := &stream{cfg: s.client.cfg, urls: socketURLs(s.client.cfg)}
	conn, _, err := st.dial(ctx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", err
	}
	_ = conn.CloseNow()
	return urlPath(st.url), nil
}

// SocketPath returns the path of the notifications socket that a
// subscription (or [NotificationsService.Check]) of this client last
// connected to (for example
// /proxy/access/api/v1/developer/devices/notifications on older console
// firmware behind the proxy), or "" when none has connected yet.
func (s *NotificationsService) SocketPath() string {
	if u := s.client.cfg.socket.load(); u != "" {
		return urlPath(u)
	}
	return ""
}

// socketMemo remembers, per client, the notifications socket URL that
// answered, so that later subscriptions try it first.
type socketMemo struct{ v atomic.Pointer[string] }

func (m *socketMemo) load() string {
	if p := m.v.Load(); p != nil {
		return *p
	}
	return ""
}

func (m *socketMemo) store(u string) { m.v.Store(&u) }

// socketURLs returns the notifications socket's URLs to try, in order:
// the one that answered last, then the mode's candidates.
func socketURLs(cfg *config) []string {
	urls := []string{wsURL(cfg.base + notificationsPath)}
	if cfg.mode == ModeProxy {
		older := strings.TrimSuffix(cfg.base, ProxyPrefix) + proxyLegacyPrefix + notificationsPath
		urls = append(urls, wsURL(older))
	}
	if known := cfg.socket.load(); known != "" && known != urls[0] {
		for i, u := range urls {
			if u == known {
				urls = append(urls[:i:i], urls[i+1:]...)
				return append([]string{known}, urls...)
			}
		}
	}
	return urls
}

// wsURL turns an http(s) URL into its ws(s) form.
func wsURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		return "ws://" + rest
	}
	return u
}

// stream is one run of Subscribe.
type stream struct {
	cfg     *config
	o       SubscribeOptions
	urls    []string  // the socket's candidate URLs, tried in order on HTTP 404
	url     string    // the one that answered; "" before the first connection
	lastMsg time.Time // when the last message arrived, keepalives included
	buf     []byte    // the read buffer, reused from message to message
}

// errStopped reports that the consumer broke out of the loop.
var errStopped = errors.New("stopped")

func (st *stream) run(ctx context.Context, yield func(*Notification, error) bool) {
	var (
		cause    error // why the last connection ended; nil before the first
		down     time.Time
		failures int // failed attempts since the last working connection
		lastErr  error
		lost     error // why the last working connection ended
		reported bool  // a DisconnectedError was yielded for this outage
	)
	// disconnected yields the outage's DisconnectedError, once.
	disconnected := func(err error) bool {
		if reported {
			return true
		}
		reported = true
		if down.IsZero() {
			down = time.Now()
		}
		e := &DisconnectedError{Cause: err, Lost: lost, Disconnected: down, LastMessage: st.lastMsg, Attempts: failures}
		if !e.LastMessage.IsZero() {
			e.SinceLastMessage = time.Since(e.LastMessage)
		}
		return yield(nil, e)
	}
	for {
		if cause != nil || failures > 0 {
			if err := sleepCtx(ctx, st.backoff(failures)); err != nil {
				yield(nil, err)
				return
			}
		}
		conn, fatal, err := st.dial(ctx)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				yield(nil, ctxErr)
				return
			}
			if fatal && st.url != "" && restarting(err) {
				// Established once: the console's proxy answers this while
				// it restarts, for a while.
				if down.IsZero() {
					down = time.Now()
				}
				if time.Since(down) > st.o.RestartGrace {
					yield(nil, fmt.Errorf("access: notifications: still refused %s after the connection was lost: %w",
						time.Since(down).Round(time.Second), err))
					return
				}
				fatal = false
			}
			if fatal {
				yield(nil, err)
				return
			}
			failures++
			lastErr = err
			if !disconnected(err) {
				return
			}
			continue
		}
		if cause != nil || reported {
			gap := &ReconnectedError{Cause: cause, Disconnected: down, Reconnected: time.Now(), Attempts: failures + 1}
			if failures > 0 {
				gap.LastAttemptErr = lastErr
			}
			reported = false
			if !yield(nil, gap) {
				_ = conn.CloseNow()
				return
			}
		}
		var healthy bool
		cause, healthy = st.read(ctx, conn, yield)
		_ = conn.CloseNow()
		if cause == errStopped {
			return
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			yield(nil, ctxErr)
			return
		}
		down = time.Now()
		if healthy {
			failures, lastErr, lost = 0, nil, cause
			continue
		}
		// Accepted, then lost before anything arrived: keep backing off,
		// and the stream is down.
		failures++
		lastErr = cause
		if !disconnected(cause) {
			return
		}
	}
}

// backoff returns the wait before the next attempt after n failed ones:
// MinBackoff doubled n times, capped at MaxBackoff, drawn from its upper
// half.
func (st *stream) backoff(n int) time.Duration {
	d := st.o.MinBackoff
	for i := 0; i < n && d < st.o.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, st.o.MaxBackoff)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// restarting reports an upgrade refused with HTTP 401, 403 or 404, which a
// console's proxy answers while the console restarts.
func restarting(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return true
	}
	return false
}

// dial opens one connection. fatal reports an error that retrying cannot
// cure. Before the first connection it tries each candidate URL in turn
// while they answer HTTP 404, and keeps the one that answered.
func (st *stream) dial(ctx context.Context) (conn *websocket.Conn, fatal bool, err error) {
	if st.url != "" {
		conn, _, fatal, err = st.dialURL(ctx, st.url)
		return conn, fatal, err
	}
	var tried []string
	for _, u := range st.urls {
		var status int
		conn, status, fatal, err = st.dialURL(ctx, u)
		if err == nil {
			st.url = u
			st.cfg.socket.store(u)
			return conn, false, nil
		}
		tried = append(tried, u)
		if status != http.StatusNotFound {
			return nil, fatal, err
		}
	}
	if len(tried) > 1 {
		paths := make([]string, len(tried))
		for i, u := range tried {
			paths[i] = urlPath(u)
		}
		err = fmt.Errorf("no notifications socket at %s: %w", strings.Join(paths, " nor at "), err)
	}
	return nil, fatal, err
}

// urlPath returns the path of a URL without query.
func urlPath(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return "/"
}

// dialURL opens one connection to u; status is the HTTP status of a
// refused upgrade.
func (st *stream) dialURL(ctx context.Context, u string) (conn *websocket.Conn, status int, fatal bool, err error) {
	if l := st.cfg.limiter; l != nil {
		if err := l.wait(ctx); err != nil {
			return nil, 0, true, err
		}
	}
	h := http.Header{}
	h[st.cfg.authName] = []string{st.cfg.authValue} // as named: X-API-KEY, not X-Api-Key
	h.Set("User-Agent", st.cfg.userAgent)
	hc := *st.cfg.hc
	guard := &upgradeGuard{next: hc.Transport, ctx: ctx}
	if guard.next == nil {
		guard.next = http.DefaultTransport
	}
	hc.Transport = guard
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: &hc, HTTPHeader: h})
	guard.done()
	if err == nil {
		conn.SetReadLimit(MaxNotificationSize)
		return conn, 0, false, nil
	}
	if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		err, fatal := st.upgradeRefused(u, resp)
		return nil, resp.StatusCode, fatal, err
	}
	var unusable *UnusableUpgradeError
	if errors.As(err, &unusable) {
		return nil, 0, true, &RequestError{Method: http.MethodGet, URL: u, Attempts: 1, Err: unusable}
	}
	err = &RequestError{Method: http.MethodGet, URL: u, Attempts: 1, Err: unwrapURLError(err)}
	return nil, 0, permanentTransportError(err), err
}

// UnusableUpgradeError reports an upgrade that the console accepted (HTTP
// 101) but that the HTTP client's transport returned with a body that is
// not the connection itself (an io.ReadWriteCloser), typically because a
// transport given to [WithHTTPClient] wraps every response body (for
// logging, metrics or tracing). The WebSocket cannot write to such a body,
// and reconnecting cannot cure it, so [NotificationsService.Subscribe] ends
// with this error (inside a [*RequestError]).
type UnusableUpgradeError struct {
	// BodyType is the Go type of the body the transport returned.
	BodyType string
}

// Error implements error.
func (e *UnusableUpgradeError) Error() string {
	return fmt.Sprintf("the WebSocket upgrade was accepted, but the HTTP client's transport returned its body as %s, "+
		"which is not an io.ReadWriteCloser, so the connection cannot be used: a transport given to WithHTTPClient "+
		"must return the body of a 101 Switching Protocols response unwrapped", e.BodyType)
}

// upgradeGuard sits above the client's transport for one WebSocket dial.
// It rejects, at once and for good, a 101 whose body cannot serve as the
// connection, and closes an accepted connection when ctx ends before the
// dial has returned: the WebSocket library reads up to 3 seconds from the
// connection of an upgrade it rejects, and that read would otherwise not
// honour ctx.
type upgradeGuard struct {
	next http.RoundTripper
	// ctx is the subscription's: the request's own context may end when
	// the dial returns (the library derives one from the client's Timeout).
	ctx  context.Context
	stop func() bool // stops the close on ctx end; nil before a 101
}

// RoundTrip implements http.RoundTripper.
func (g *upgradeGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := g.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		return resp, err
	}
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		if resp.Body != nil {
			resp.Body.Close()
		}
		return nil, &UnusableUpgradeError{BodyType: fmt.Sprintf("%T", resp.Body)}
	}
	g.stop = context.AfterFunc(g.ctx, func() { rwc.Close() })
	return resp, nil
}

// done ends the guard's watch once the dial has returned: from then on the
// stream closes the connection itself.
func (g *upgradeGuard) done() {
	if g.stop != nil {
		g.stop()
	}
}

// upgradeRefused turns an answer other than 101 into an error and decides
// whether retrying may cure it (5xx, 429, 408).
func (st *stream) upgradeRefused(u string, resp *http.Response) (err error, fatal bool) {
	var body []byte
	if resp.Body != nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, 1024)) // the library kept at most 1 KiB
		resp.Body.Close()
	}
	ex := &exchange{method: http.MethodGet, url: u, authName: st.cfg.authName, attempts: 1, resp: &Response{Response: resp}, raw: body}
	e := ex.statusError() // as for every other call: code, message, redacted body, Retry-After
	switch {
	case e.Code == CodeDeviceAPINotSupported || resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %w", ErrUnsupported, e), true
	case errors.Is(e, ErrUnauthorized) || errors.Is(e, ErrForbidden):
		return e, true
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode >= 500:
		return e, false
	}
	return e, true
}

// permanentTransportError reports failures that retrying cannot cure: the
// certificate or a redirect.
func permanentTransportError(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
	)
	return errors.Is(err, ErrCertificateMismatch) || errors.Is(err, ErrRedirectRefused) ||
		errors.As(err, &verr) || errors.As(err, &uerr) || errors.As(err, &herr) || errors.As(err, &cerr)
}

// read yields the connection's notifications until it fails, the consumer
// stops (errStopped) or ctx ends. healthy reports whether anything arrived.
//
// Per message it costs no context, no timer operation and no new buffer:
// the connection is read without a context (a read takes none and so sets
// up no cancellation per frame); ctx ending and the idle watchdog close it
// instead, which ends a read in progress. Messages are read into one buffer
// reused from message to message; what is yielded is decoded from it into
// new values.
func (st *stream) read(ctx context.Context, conn *websocket.Conn, yield func(*Notification, error) bool) (cause error, healthy bool) {
	stop := context.AfterFunc(ctx, func() { _ = conn.CloseNow() })
	defer stop()
	w := newIdleWatch(st.o.IdleTimeout, func() { _ = conn.CloseNow() })
	defer w.stop()
	for {
		w.waiting()
		msg, err := st.readMessage(conn)
		w.arrived()
		if err != nil {
			switch {
			case ctx.Err() == nil && w.fired.Load():
				return ErrStreamIdle, healthy
			case errors.Is(err, websocket.ErrMessageTooBig):
				return fmt.Errorf("%w (%d bytes)", ErrNotificationTooLarge, MaxNotificationSize), healthy
			}
			return err, healthy
		}
		healthy = true
		st.lastMsg = time.Now()
		if st.o.Frames != nil {
			st.o.Frames(msg)
		}
		if isKeepalive(msg) {
			continue
		}
		n, err := ParseNotification(msg)
		if err != nil {
			// msg is the reused buffer: the error keeps a copy.
			msg = bytes.Clone(msg[:min(len(msg), 1024)])
			if !yield(nil, &NotificationError{Message: msg, Err: err}) {
				return errStopped, healthy
			}
			continue
		}
		if n.Event == NotificationBaseInfo {
			continue
		}
		if !yield(n, nil) {
			return errStopped, healthy
		}
	}
}

// keptReadBuffer is the largest read buffer kept from one message to the
// next: a rare large message does not hold its memory for the stream's
// life.
const keptReadBuffer = 64 << 10

// readMessage reads the next data message into the stream's buffer and
// returns it; it is valid until the next call. The connection's read limit
// (MaxNotificationSize) bounds it.
func (st *stream) readMessage(conn *websocket.Conn) ([]byte, error) {
	if cap(st.buf) > keptReadBuffer {
		st.buf = nil
	}
	_, r, err := conn.Reader(context.Background())
	if err != nil {
		return nil, err
	}
	buf := st.buf[:0]
	if buf == nil {
		buf = make([]byte, 0, 4096)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			st.buf = buf
			return buf, nil
		}
		if err != nil {
			st.buf = buf
			return nil, err
		}
	}
}

// isKeepalive reports whether msg is a console's "Hello", bare or as a JSON
// string.
func isKeepalive(msg []byte) bool {
	m := bytes.TrimSpace(msg)
	if len(m) > 16 {
		return false
	}
	if len(m) >= 2 && m[0] == '"' && m[len(m)-1] == '"' {
		m = bytes.TrimSpace(m[1 : len(m)-1])
	}
	return bytes.EqualFold(m, []byte("hello"))
}
