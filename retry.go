package access

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// RetryPolicy says which failed attempts are tried again and how long to
// wait in between. Start from [DefaultRetryPolicy].
//
// GET, PUT and DELETE are retried after a transport error (connection
// refused or reset, per-attempt timeout) and after HTTP 429, 502, 503 and
// 504. POST is never retried unless RetryWrites is set: the API has no
// idempotency key, so a POST that failed in transit may already have taken
// effect (a touch-pass purchase spends money). Other 4xx and 501 are never
// retried; 500 only with RetryInternalServerError.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0
	// disables retrying.
	MaxRetries int
	// WaitMin and WaitMax bound the exponential backoff (with jitter)
	// between attempts. A Retry-After header is honoured but never waited
	// beyond WaitMax.
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
type attemptState struct {
	idempotent  bool
	method, url string
	attempts    int
	lastStatus  int
	lastErr     error
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

func newRetryClient(hc *http.Client, p RetryPolicy, logger *slog.Logger) *retryablehttp.Client {
	rc := &retryablehttp.Client{
		HTTPClient:   hc,
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
func (p RetryPolicy) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	st := stateOf(ctx)
	if st == nil || !st.idempotent {
		return false, nil
	}
	st.lastErr = err
	if err != nil {
		st.lastStatus = 0
		return retryableTransportError(err), nil
	}
	st.lastStatus = resp.StatusCode
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, nil
	case http.StatusInternalServerError:
		return p.RetryInternalServerError, nil
	}
	return false, nil
}

// retryableTransportError is false for failures that another attempt cannot
// fix: certificate problems and refused redirects.
func retryableTransportError(err error) bool {
	var (
		verr *tls.CertificateVerificationError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
		rerr tls.RecordHeaderError
	)
	switch {
	case errors.Is(err, ErrCertificateMismatch), errors.Is(err, ErrRedirectRefused),
		errors.As(err, &verr), errors.As(err, &uerr), errors.As(err, &herr), errors.As(err, &cerr),
		errors.As(err, &rerr): // an HTTPS client talking to an HTTP server
		return false
	}
	return true
}

// backoff waits lo·2^attempt with jitter, capped at hi, or what Retry-After
// asks for, but never more than hi (an unbounded Retry-After would otherwise
// hang the caller for hours).
func backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	if resp != nil {
		if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			return min(max(d, lo), hi)
		}
	}
	d := hi
	if attempt < 30 {
		if e := lo << attempt; e > 0 && e < hi {
			d = e
		}
	}
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
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
