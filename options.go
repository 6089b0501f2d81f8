package access

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Option configures a [Client]. Options validate their input: NewClient
// returns the first option's error.
type Option func(*options) error

type options struct {
	httpClient *http.Client
	timeout    time.Duration
	hasTimeout bool
	userAgent  string
	retry      RetryPolicy
	logger     *slog.Logger
	tlsConfig  *tls.Config
	rootCAs    *x509.CertPool
	pins       [][sha256.Size]byte
	insecure   bool
	maxBody    int64
	wrap       func(http.RoundTripper) http.RoundTripper
	authHeader string
	limiter    *rateLimiter
}

func defaultOptions() *options {
	return &options{retry: DefaultRetryPolicy(), maxBody: defaultMaxResponseSize}
}

// WithHTTPClient makes the client send requests through a copy of hc, which
// keeps its Transport (proxies, custom dialers, test interceptors) and Jar.
// hc itself is never modified. The retry layer sits above it: hc performs
// single attempts. A non-zero hc.Timeout becomes the per-attempt timeout,
// with [WithTimeout]'s rule (it bounds waits, never a whole transfer);
// WithTimeout, given too, replaces it.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) error {
		if hc == nil {
			return invalidArg("WithHTTPClient", "client", "must not be nil")
		}
		o.httpClient = hc
		return nil
	}
}

// WithTimeout sets the per-attempt timeout: the longest an attempt may wait
// without progress. It bounds the wait for the answer's headers
// (connecting and sending included) and, after them, the idle time of each
// read of the body; for a streamed upload, the time between two chunks
// sent. It never bounds a transfer as a whole: a download (an export, a
// video) or an upload in which bytes keep flowing runs as long as it
// takes, and only the call's context bounds it. An attempt that exceeds
// the timeout fails with an error that matches [context.DeadlineExceeded]
// and whose Timeout method reports true, inside a [*RequestError] that
// says, once the body had begun, how many bytes arrived; [RetryPolicy] says whether
// it is tried again. The default is 30 seconds; zero means no
// per-attempt limit. The context passed to each call bounds the call as a
// whole, retries included.
func WithTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return invalidArg("WithTimeout", "timeout", "must not be negative")
		}
		o.timeout, o.hasTimeout = d, true
		return nil
	}
}

// WithUserAgent puts ua in front of the SDK's own User-Agent
// ("access-go/<version>").
func WithUserAgent(ua string) Option {
	return func(o *options) error {
		if strings.ContainsAny(ua, "\r\n") {
			return invalidArg("WithUserAgent", "userAgent", "must not contain line breaks")
		}
		o.userAgent = strings.TrimSpace(ua)
		return nil
	}
}

// WithRetryPolicy replaces the retry policy. Start from [DefaultRetryPolicy]
// and change what you need.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(o *options) error {
		if err := p.validate(); err != nil {
			return err
		}
		o.retry = p
		return nil
	}
}

// WithLogger makes the retry layer log each attempt, retry and failure at
// debug and error level. Without it nothing is logged. The token is never
// logged.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		o.logger = l // nil keeps logging off
		return nil
	}
}

// WithMaxResponseSize caps the size of a response body the client reads
// (default 32 MiB). A larger body fails with [ErrInvalidResponse].
func WithMaxResponseSize(n int64) Option {
	return func(o *options) error {
		if n < 1 {
			return invalidArg("WithMaxResponseSize", "n", "must be at least 1")
		}
		o.maxBody = n
		return nil
	}
}

// WithTransportWrapper lets the caller wrap the transport the client
// builds, to observe or record each attempt (logging, metrics, capturing
// raw answers) without giving up the SDK's TLS handling: wrap is called
// once, by NewClient, with the transport that performs single attempts
// (the [WithHTTPClient] transport, or the SDK's own, with the settings of
// [WithPinnedCertificate], [WithRootCAs], [WithTLSConfig] or
// [WithInsecureSkipVerify] applied), and the RoundTripper it returns is
// used in its place, under the retry layer: it sees every attempt,
// retries included, and must pass each request on to the transport it
// was given.
//
// The request a wrapper sees carries the token in its credential header
// (Authorization, or X-API-KEY through the proxy; see [Client.AuthHeader]):
// a wrapper must not log or keep it. It also sees the upgrade of
// the notifications WebSocket; a 101 response's Body must be returned
// untouched (it is the connection). [Client.CloseIdleConnections] still
// reaches the wrapped transport, and the wrapper too if it has a
// CloseIdleConnections method.
func WithTransportWrapper(wrap func(http.RoundTripper) http.RoundTripper) Option {
	return func(o *options) error {
		if wrap == nil {
			return invalidArg("WithTransportWrapper", "wrap", "must not be nil")
		}
		o.wrap = wrap
		return nil
	}
}

// wrappedTransport is the RoundTripper a WithTransportWrapper returned,
// with CloseIdleConnections forwarded to the transport it wraps.
type wrappedTransport struct {
	http.RoundTripper
	inner http.RoundTripper
}

func (w wrappedTransport) CloseIdleConnections() {
	type closeIdler interface{ CloseIdleConnections() }
	if c, ok := w.inner.(closeIdler); ok {
		c.CloseIdleConnections()
	}
	if c, ok := w.RoundTripper.(closeIdler); ok {
		c.CloseIdleConnections()
	}
}

// WithAuthHeader sends the credential in the header name instead of the
// one the base URL's [Mode] chooses ("Authorization" direct, "X-API-KEY"
// through the proxy), for setups that differ (an NVR Pro, a reverse proxy
// of one's own). The name is sent exactly as given, not canonicalised. For
// "Authorization" the value is "Bearer <token>"; for any other header it
// is the token as given.
func WithAuthHeader(name string) Option {
	return func(o *options) error {
		if !validHeaderName(name) {
			return invalidArg("WithAuthHeader", "name", "must be an HTTP header name")
		}
		o.authHeader = name
		return nil
	}
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 tchar).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}

// WithRateLimit paces the client's requests to perSecond on average, with
// bursts of up to burst requests (a token bucket). Consoles limit request
// rates; integrators report pacing to about 10 requests per second. The
// budget is shared by every goroutine using the client and by every
// attempt, retries included; a wait for it ends when the call's context
// does. A Retry-After the console sends is still honoured, on top of the
// budget. The notifications WebSocket's connection attempts take from it
// too. Without this option (the default) requests are not paced, at no
// cost.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(o *options) error {
		switch {
		case !(perSecond >= 1e-3 && perSecond <= 1e9): // NaN too
			return invalidArg("WithRateLimit", "perSecond", "must be between 0.001 and 1e9")
		case burst < 1:
			return invalidArg("WithRateLimit", "burst", "must be at least 1")
		}
		o.limiter = newRateLimiter(perSecond, burst)
		return nil
	}
}

// WithTLSConfig uses a clone of cfg as the base TLS configuration. The other
// TLS options apply on top of it.
func WithTLSConfig(cfg *tls.Config) Option {
	return func(o *options) error {
		if cfg == nil {
			return invalidArg("WithTLSConfig", "config", "must not be nil")
		}
		o.tlsConfig = cfg.Clone()
		return nil
	}
}

// WithRootCAs trusts the certificates in pool (for example the console's own
// self-signed certificate, or a private CA that signed a custom one) instead
// of the system roots. The certificate must name the host in the base URL.
func WithRootCAs(pool *x509.CertPool) Option {
	return func(o *options) error {
		if pool == nil {
			return invalidArg("WithRootCAs", "pool", "must not be nil")
		}
		o.rootCAs = pool
		return nil
	}
}

// WithRootCAPEM is [WithRootCAs] for PEM-encoded certificates.
func WithRootCAPEM(pem []byte) Option {
	return func(o *options) error {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return invalidArg("WithRootCAPEM", "pem", "holds no certificate")
		}
		o.rootCAs = pool
		return nil
	}
}

// ErrCertificateMismatch is reported (inside a [RequestError]) when the
// server's certificate does not match any fingerprint given to
// [WithPinnedCertificate]; the error is then a [*CertificateMismatchError]
// naming the certificate the server presented.
var ErrCertificateMismatch = errors.New("access: server certificate does not match the pinned fingerprint")

// CertificateMismatchError is the error of a connection refused by
// [WithPinnedCertificate]: the server presented a certificate whose
// fingerprint is none of those pinned (a console that made itself a new
// certificate, or another machine at its address). It matches
// [ErrCertificateMismatch] with [errors.Is].
type CertificateMismatchError struct {
	// Presented is the SHA-256 fingerprint (lower-case hex) of the
	// certificate the server presented, the form WithPinnedCertificate
	// takes; empty when it presented none.
	Presented string
}

// Error says which certificate was presented.
func (e *CertificateMismatchError) Error() string {
	if e.Presented == "" {
		return "access: the server presented no certificate; it does not match the pinned fingerprint"
	}
	return "access: the server's certificate (SHA-256 fingerprint " + e.Presented + ") does not match the pinned fingerprint"
}

// Is reports whether target is [ErrCertificateMismatch].
func (e *CertificateMismatchError) Is(target error) bool { return target == ErrCertificateMismatch }

// WithPinnedCertificate accepts exactly the server certificates whose SHA-256
// fingerprint (of the DER-encoded leaf certificate) is one of fingerprints,
// given in hex with or without ':' separators, in any case:
//
//	openssl s_client -connect console:12445 </dev/null | openssl x509 -noout -fingerprint -sha256
//
// This is the recommended way to trust a console's self-signed certificate,
// which does not name the console's LAN address: chain and host-name checks
// are replaced by the fingerprint check, made on every connection (resumed
// ones too). Several fingerprints allow a certificate rotation.
func WithPinnedCertificate(fingerprints ...string) Option {
	return func(o *options) error {
		if len(fingerprints) == 0 {
			return invalidArg("WithPinnedCertificate", "fingerprint", "at least one is required")
		}
		for _, fp := range fingerprints {
			clean := strings.NewReplacer(":", "", " ", "").Replace(strings.TrimSpace(fp))
			b, err := hex.DecodeString(clean)
			if err != nil || len(b) != sha256.Size {
				return invalidArg("WithPinnedCertificate", "fingerprint", "must be 32 bytes of hex (a SHA-256 fingerprint)")
			}
			o.pins = append(o.pins, [sha256.Size]byte(b))
		}
		return nil
	}
}

// WithInsecureSkipVerify turns off every check of the server's certificate.
// Anyone on the network path can then read the token. Prefer
// [WithPinnedCertificate].
func WithInsecureSkipVerify() Option {
	return func(o *options) error {
		o.insecure = true
		return nil
	}
}

func (o *options) hasTLS() bool {
	return o.tlsConfig != nil || o.rootCAs != nil || len(o.pins) > 0 || o.insecure
}

// innerClient builds the client that performs single attempts: a copy of the
// caller's client or a fresh one, with TLS settings and a redirect policy
// that never sends the token to another host.
func (o *options) innerClient() (*http.Client, error) {
	var hc http.Client
	if o.httpClient != nil {
		hc = *o.httpClient
	} else {
		hc.Timeout = defaultTimeout
	}
	if o.hasTimeout {
		hc.Timeout = o.timeout
	}
	if hc.Transport == nil {
		hc.Transport = http.DefaultTransport
	}
	if o.hasTLS() {
		base, ok := hc.Transport.(*http.Transport)
		if !ok {
			return nil, invalidArg("NewClient", "options", fmt.Sprintf("TLS options need an *http.Transport, the HTTP client has a %T", hc.Transport))
		}
		t := base.Clone()
		t.TLSClientConfig = o.tlsClientConfig(t.TLSClientConfig)
		hc.Transport = t
	} else if hc.Transport == http.DefaultTransport {
		// A transport of our own: connections are not shared with, nor
		// closed by, other users of the default transport.
		hc.Transport = http.DefaultTransport.(*http.Transport).Clone()
	}
	if o.wrap != nil {
		inner := hc.Transport
		rt := o.wrap(inner)
		if rt == nil {
			return nil, invalidArg("WithTransportWrapper", "wrap", "returned a nil RoundTripper")
		}
		hc.Transport = wrappedTransport{RoundTripper: rt, inner: inner}
	}
	hc.CheckRedirect = sameHostRedirects(hc.CheckRedirect)
	return &hc, nil
}

func (o *options) tlsClientConfig(existing *tls.Config) *tls.Config {
	var cfg *tls.Config
	switch {
	case o.tlsConfig != nil:
		cfg = o.tlsConfig.Clone()
	case existing != nil:
		cfg = existing.Clone()
	default:
		cfg = &tls.Config{}
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if o.rootCAs != nil {
		cfg.RootCAs = o.rootCAs
	}
	if o.insecure {
		cfg.InsecureSkipVerify = true
	}
	if len(o.pins) > 0 {
		pins := o.pins
		cfg.InsecureSkipVerify = true // replaced by the fingerprint check below
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return &CertificateMismatchError{}
			}
			sum := sha256.Sum256(cs.PeerCertificates[0].Raw)
			for _, p := range pins {
				if sum == p {
					return nil
				}
			}
			return &CertificateMismatchError{Presented: hex.EncodeToString(sum[:])}
		}
	}
	return cfg
}

// ErrRedirectRefused is reported (inside a [RequestError]) when the server
// redirects to another scheme, host or port: following it would send the
// token there.
var ErrRedirectRefused = errors.New("access: redirect to another host refused")

func sameHostRedirects(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("access: stopped after 10 redirects")
		}
		first := via[0].URL
		if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return ErrRedirectRefused
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
}

// CertificateFingerprint returns the SHA-256 fingerprint of a DER-encoded
// certificate (x509.Certificate.Raw) in the hex form that
// [WithPinnedCertificate] accepts.
func CertificateFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}
