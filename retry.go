package access

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy says which failed attempts are tried again and how long to
// wait in between. Start from [DefaultRetryPolicy].
//
// GET, PUT and DELETE are retried after a transport error (connection
// refused or reset, per-attempt timeout, a connection lost while the body
// is read), after HTTP 429, 502, 503 and 504, and after an HTTP 200 whose
// result code says the device is busy or offline ([ErrUnavailable]).
// POST is never retried unless RetryWrites is set: the API has no
// idempotency key, so a POST that failed in transit may already have
// taken effect (a touch-pass purchase spends money). Other 4xx and 501 are never
// retried; 500 only with RetryInternalServerError.
//
// The operations that act on the physical site ([DoorsService.Unlock],
// [DoorsService.SetLockRule], [DoorsService.SetEmergency],
// [DevicesService.TriggerDoorbell], [NFCCardsService.StartEnrollment]) are
// retried only after a failure that proves the console did not act: a
// connection that could not be made (the request was never written), 429,
// 503, or a busy or offline device. After a connection lost once the
// request was written, a timeout, 500, 502 or 504 the relay may already
// have opened, so the call ends with the error and the caller decides;
// RetryWrites and RetryInternalServerError do not change that.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0
	// disables retrying.
	MaxRetries int
	// WaitMin and WaitMax bound the exponential backoff (with jitter)
	// between attempts: every wait lies in [WaitMin, WaitMax], and WaitMin
	// 0 lets the first retries go out at once. A Retry-After header is
	// honoured; one that asks for more than WaitMax, or for a wait past the
	// context's deadline, ends the call at once with an [APIError] whose
	// RetryAfter says how long to wait. "Retry-After: 0" waits WaitMin, as
	// every wait is at least WaitMin.
	WaitMin, WaitMax time.Duration
	// RetryWrites also retries POST requests. Only set it when you know a
	// duplicated request is harmless.
	RetryWrites bool
	// RetryInternalServerError also retries HTTP 500.
	RetryInternalServerError bool
	// OnRetry, if set, is called before each retry, for metrics. It must not
	// block.
	OnRetry func(RetryEvent)
}

// RetryEvent describes a retry about to happen.
type RetryEvent struct {
	Method string
	URL    string // redacted
	// Attempt is the number of the attempt about to be made (2 for the
	// first retry).
	Attempt int
	// StatusCode is the previous attempt's HTTP status, 0 after a transport
	// error.
	StatusCode int
	// Err is the previous attempt's transport error, if any.
	Err error
}

// DefaultRetryPolicy returns the default policy: 2 retries, waiting between
// 500 ms and 5 s.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 2, WaitMin: 500 * time.Millisecond, WaitMax: 5 * time.Second}
}

func (p RetryPolicy) validate() error {
	const op = "WithRetryPolicy"
	switch {
	case p.MaxRetries < 0:
		return invalidArg(op, "MaxRetries", "must not be negative")
	case p.WaitMin < 0 || p.WaitMax < 0:
		return invalidArg(op, "WaitMin/WaitMax", "must not be negative")
	case p.WaitMin > p.WaitMax:
		return invalidArg(op, "WaitMin", "must not exceed WaitMax")
	}
	return nil
}

// attemptKey marks a request's context with its attemptState.
type attemptKey struct{}

// attemptState travels with one logical request through the retry layer.
// The retry layer runs its hooks on the caller's goroutine, one attempt
// after another, so it needs no lock.
type attemptState struct {
	idempotent  bool
	upload      bool // a streamed (multipart) request body
	method, url string
	maxBody     int64
	attempts    int
	lastStatus  int
	lastErr     error
	// uncertain is set once an attempt failed in a way that does not tell
	// whether the controller acted on it (a transport error, a gateway
	// timeout): a retried DELETE that then finds nothing has succeeded.
	uncertain bool

	// The body of the last attempt, read inside the retry loop by
	// readResponse so that a failure while reading is retried too.
	read    bool
	raw     []byte
	readErr error // a body over the size cap: not retried, reported as invalid

	// Downloads: a successful non-JSON answer is streamed into sink.
	sink      io.Writer
	streamed  bool
	streamErr error // the download broke off after bytes reached sink
}

func stateOf(ctx context.Context) *attemptState {
	st, _ := ctx.Value(attemptKey{}).(*attemptState)
	return st
}

func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// errUnavailableCode marks an HTTP 200 answer whose result code says the
// device is busy or offline, so that the retry layer retries it like a 503.
var errUnavailableCode = errors.New("access: device busy or offline")

// readResponse reads the body of an attempt's response inside the retry
// loop (go-retryablehttp calls it for every response it does not retry by
// status). A connection that fails mid-body returns the error, which
// checkRetry then treats like any transport error.
func (st *attemptState) readResponse(resp *http.Response) error {
	if st.sink != nil && resp.StatusCode >= 200 && resp.StatusCode <= 299 && isFile(resp.Header.Get("Content-Type")) {
		return st.streamTo(resp)
	}
	raw, err := readBody(resp, st.maxBody)
	resp.Body = http.NoBody
	st.read, st.raw, st.readErr = true, raw, nil
	switch {
	case errors.Is(err, errBodyTooLarge):
		st.readErr = err
		return nil
	case err != nil:
		return err
	case resp.StatusCode == http.StatusOK && unavailableCode(raw):
		return errUnavailableCode
	}
	return nil
}

// unavailableCode reports whether a body carries one of the result codes
// of a device that is busy or offline. The byte search keeps the common
// case free of a second decode.
func unavailableCode(raw []byte) bool {
	if !bytes.Contains(raw, []byte("CODE_DEVICE_DEVICE_")) {
		return false
	}
	var e errorEnvelope
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	return codeClass[e.Code] == ErrUnavailable
}

func newRetryClient(hc *http.Client, p RetryPolicy, logger *slog.Logger, limit *rateLimiter) *retryablehttp.Client {
	// The per-attempt timeout is enforced by attemptTransport, never as
	// a whole-exchange http.Client.Timeout (see WithTimeout).
	shielded := *hc
	shielded.Timeout = 0
	at := &attemptTransport{rt: hc.Transport, limit: limit}
	if hc.Timeout > 0 {
		at.watches = &watchSet{limit: hc.Timeout}
	}
	shielded.Transport = at
	rc := &retryablehttp.Client{
		HTTPClient:   &shielded,
		RetryMax:     p.MaxRetries,
		RetryWaitMin: p.WaitMin,
		RetryWaitMax: p.WaitMax,
		CheckRetry:   p.checkRetry,
		Backoff:      backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, req *http.Request, i int) {
			st := stateOf(req.Context())
			if st == nil {
				return
			}
			st.attempts = i + 1
			st.read, st.raw, st.readErr = false, nil, nil
			st.streamed, st.streamErr = false, nil
			if i > 0 && p.OnRetry != nil {
				p.OnRetry(RetryEvent{Method: st.method, URL: st.url, Attempt: i + 1, StatusCode: st.lastStatus, Err: st.lastErr})
			}
		},
	}
	if logger != nil { // a typed nil in the interface field would panic
		rc.Logger = logger
	}
	return rc
}

// checkRetry decides per attempt. It reads the request's idempotency from
// the context, which works on transport errors too, where resp is nil.
// go-retryablehttp calls it a second time with the error of readResponse
// when the body could not be read or carried a busy/offline code.
func (p RetryPolicy) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	st := stateOf(ctx)
	if st == nil {
		return false, nil
	}
	st.lastErr = err
	st.lastStatus = 0
	if resp != nil {
		st.lastStatus = resp.StatusCode
	}
	switch {
	case err != nil && !errors.Is(err, errUnavailableCode) && !neverSent(err):
		st.uncertain = true
	case resp != nil && (resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusGatewayTimeout || resp.StatusCode == http.StatusInternalServerError):
		st.uncertain = true
	}
	if ctx.Value(physicalKey{}) != nil && ctx.Value(noRetryKey{}) == nil {
		return p.retryPhysical(ctx, resp, err), nil
	}
	if !st.idempotent {
		return false, nil
	}
	if err != nil {
		return retryableTransportError(err), nil
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return p.waitable(ctx, resp), nil
	case http.StatusInternalServerError:
		return p.RetryInternalServerError, nil
	}
	return false, nil
}

// physicalKey marks a context whose request acts on the physical site: it
// opens a relay, changes a door's lock rule or the site's emergency mode,
// rings a doorbell or wakes a reader. Sent twice, it acts twice.
type physicalKey struct{}

// physicalAct marks ctx so that its request is retried only after a
// failure that proves the console did not act on it (see retryPhysical),
// whatever its method and RetryPolicy.RetryWrites. A nil ctx is returned
// as it is, for send to reject.
func physicalAct(ctx context.Context) context.Context {
	if ctx == nil {
		return nil
	}
	return context.WithValue(ctx, physicalKey{}, true)
}

// retryPhysical decides for a request that acts on the physical site. It
// is retried only when the failure proves that the console did not act:
// the connection could not be made, so the request was never written; the
// console refused it with 429 or 503; or it answered that the device is
// busy or offline. After anything else (a connection lost after the
// request was written, a per-attempt timeout, 500, 502, 504, a body cut
// off) the console may have acted, and the caller gets the error and
// decides.
func (p RetryPolicy) retryPhysical(ctx context.Context, resp *http.Response, err error) bool {
	switch {
	case errors.Is(err, errUnavailableCode):
		return true
	case err != nil:
		return neverSent(err) && retryableTransportError(err)
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return p.waitable(ctx, resp)
	}
	return false
}

// neverSent reports whether a transport error happened while the
// connection was being made (refused, unreachable, no route, a failed name
// lookup, a dial timeout): no byte of the request reached the console.
func neverSent(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// waitable is false when the response asks, with Retry-After, for a wait
// longer than WaitMax or past the context's deadline: retrying early would
// only be refused again, so the call ends at once with the response (and
// [APIError.RetryAfter] tells the caller how long to wait).
func (p RetryPolicy) waitable(ctx context.Context, resp *http.Response) bool {
	d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
	if !ok {
		return true
	}
	if d > p.WaitMax {
		return false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
		return false
	}
	return true
}

// retryableTransportError is false for failures that another attempt cannot
// fix: certificate problems, refused redirects, and a host name that does
// not exist (a DNS "no such host": a mistyped console address, not a
// passing failure; a DNS timeout or server failure is retried).
func retryableTransportError(err error) bool {
	var (
		dnsErr *net.DNSError
		verr   *tls.CertificateVerificationError
		uerr   x509.UnknownAuthorityError
		herr   x509.HostnameError
		cerr   x509.CertificateInvalidError
		rerr   tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, ErrCertificateMismatch), errors.Is(err, ErrRedirectRefused),
		errors.As(err, &verr), errors.As(err, &uerr), errors.As(err, &herr), errors.As(err, &cerr),
		errors.As(err, &rerr), // an HTTPS client talking to an HTTP server
		errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	}
	return true
}

// backoff waits lo·2^attempt with jitter (between half and one and a half
// times that), then clamps the result to [lo, hi]: jitter never takes a
// wait below WaitMin nor above WaitMax, and WaitMin 0 means retrying at
// once. A Retry-After the policy accepted (see waitable) is honoured,
// clamped the same way.
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(max(d, lo), hi)
		}
	}
	d := hi
	if attempt < 62 && lo <= hi>>attempt {
		d = lo << attempt
	}
	if d > 1 {
		d = d/2 + rand.N(d+1)
	}
	return min(max(d, lo), hi)
}

// retryAfter parses a Retry-After header: delay seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(24*time.Hour/time.Second) {
			secs = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
