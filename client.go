package access

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"

// apiPrefix is the path under which the controller serves the developer API.
const apiPrefix = "/api/v1/developer"

// ProxyPrefix is the path under which UniFi OS consoles serve the developer
// API through their own reverse proxy on port 443, authenticated with an
// X-API-KEY header (integrators' reports; see [Mode]). A base URL whose
// path ends in it selects [ModeProxy].
const ProxyPrefix = "/proxy/access/integration/v1/developer"

// proxyLegacyPrefix is where older console firmware serves the
// notifications WebSocket behind the proxy.
const proxyLegacyPrefix = "/proxy/access/api/v1/developer"

// Mode is how a [Client] reaches the developer API; the base URL given to
// [NewClient] decides it.
type Mode int

const (
	// ModeDirect is the API port of the console (https://<console>:12445):
	// requests go under <base>/api/v1/developer with
	// "Authorization: Bearer <token>", as the vendor's reference describes.
	// A base with a reverse-proxy path prefix (for example
	// https://<console>/proxy/access, as NVR Pro consoles are reported to
	// serve it) is direct too.
	ModeDirect Mode = iota
	// ModeProxy is the UniFi OS console's reverse proxy
	// (https://<console>/proxy/access/integration/v1/developer): requests
	// go under that base with "X-API-KEY: <key>", the header sent in that
	// exact case.
	ModeProxy
)

// String returns "direct" or "proxy".
func (m Mode) String() string {
	if m == ModeProxy {
		return "proxy"
	}
	return "direct"
}

const (
	defaultUserAgent       = "access-go/" + Version
	defaultTimeout         = 30 * time.Second
	defaultMaxResponseSize = 32 << 20
)

// Client talks to one controller with one API token. Create it with
// [NewClient]. A Client is safe for concurrent use by multiple goroutines;
// create one per controller and token, never share one across tenants.
type Client struct {
	// Webhooks registers and removes webhook endpoints.
	Webhooks *WebhooksService
	// Visitors lists visitors.
	Visitors *VisitorsService
	// Users creates, lists, searches, updates and deletes users.
	Users *UsersService
	// Devices reads and updates devices' access-method settings.
	Devices *DevicesService
	// Schedules manages access schedules.
	Schedules *SchedulesService
	// HolidayGroups manages holiday groups.
	HolidayGroups *HolidayGroupsService
	// TouchPasses purchases and searches touch passes.
	TouchPasses *TouchPassesService
	// Notifications streams the notifications WebSocket.
	Notifications *NotificationsService
	// Doors reads and unlocks doors, sets lock rules and emergency modes.
	Doors *DoorsService
	// DoorGroups reads the site's topology and manages door groups.
	DoorGroups *DoorGroupsService
	// UserGroups manages user groups, their members and policies.
	UserGroups *UserGroupsService
	// AccessPolicies manages access policies.
	AccessPolicies *AccessPoliciesService
	// Identity sends UniFi Identity invitations and assigns resources.
	Identity *IdentityService
	// SystemLogs fetches and exports the system logs and their media.
	SystemLogs *SystemLogsService
	// APIServer installs the API server's HTTPS certificate.
	APIServer *APIServerService
	// NFCCards enrolls, lists, renames, deletes and imports NFC cards.
	NFCCards *NFCCardsService
	// PINCodes generates PIN codes.
	PINCodes *PINCodesService
	// QRCodes downloads visitors' QR code images.
	QRCodes *QRCodesService

	cfg *config
}

// service is the common base of every resource service.
type service struct{ client *Client }

// config is everything a Client needs per request. It sits behind a pointer
// so that printing a Client never reaches the token.
type config struct {
	base      string // scheme://host[:port][/prefix] + apiPrefix (or the proxy base), no trailing slash
	baseURL   string // as given, normalised, for BaseURL()
	mode      Mode
	authName  string // the credential header's name, set in the header map as it is
	authValue string // "Bearer <token>" or the bare key
	userAgent string
	limiter   *rateLimiter // nil: no request budget
	socket    socketMemo   // the notifications socket that answered
	maxBody   int64
	retry     RetryPolicy
	rc        *retryablehttp.Client
	hc        *http.Client // the inner client, under the retry layer

	// base, parsed once: every request's URL is made from these parts and
	// its path, without parsing a URL per request.
	scheme, host, basePath string // host without an empty port, as net/http sets it

	// headers are the values of the headers every request carries.
	headers struct{ auth, json, userAgent []string }
}

// NewClient returns a client for the controller at baseURL (for example
// "https://192.168.1.1:12445") that authenticates with token. It performs no
// I/O. The base URL may carry a path prefix for a reverse proxy; a trailing
// "/" or "/api/v1/developer" is removed.
//
// The base URL decides the [Mode]. A base whose path ends in
// [ProxyPrefix] ("https://192.168.1.1/proxy/access/integration/v1/developer")
// is a UniFi OS console's proxy: requests go under that base and token
// (an API key there) is sent as "X-API-KEY: <token>". Any other base is
// direct: "Authorization: Bearer <token>". [WithAuthHeader] overrides the
// header for setups that differ.
//
// Consoles serve a self-signed certificate: pass [WithPinnedCertificate],
// [WithRootCAs] or, knowingly, [WithInsecureSkipVerify].
func NewClient(baseURL, token string, opts ...Option) (*Client, error) {
	base, mode, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if err := checkToken(token); err != nil {
		return nil, err
	}
	o := defaultOptions()
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(o); err != nil {
			return nil, err
		}
	}
	hc, err := o.innerClient()
	if err != nil {
		return nil, err
	}
	cfg := &config{
		base:      base,
		baseURL:   base,
		mode:      mode,
		userAgent: defaultUserAgent,
		maxBody:   o.maxBody,
		retry:     o.retry,
		hc:        hc,
		limiter:   o.limiter,
	}
	if mode == ModeDirect {
		cfg.base = base + apiPrefix
	}
	bu, err := url.Parse(cfg.base)
	if err != nil { // parseBaseURL parsed its parts already
		return nil, invalidArg("NewClient", "baseURL", "cannot be parsed")
	}
	cfg.scheme, cfg.host, cfg.basePath = bu.Scheme, strings.TrimSuffix(bu.Host, ":"), bu.EscapedPath()
	cfg.authName = o.authHeader
	if cfg.authName == "" {
		cfg.authName = "Authorization"
		if mode == ModeProxy {
			cfg.authName = "X-API-KEY"
		}
	}
	cfg.authValue = token
	if strings.EqualFold(cfg.authName, "Authorization") {
		cfg.authName, cfg.authValue = "Authorization", "Bearer "+token
	}
	if o.userAgent != "" {
		cfg.userAgent = o.userAgent + " " + defaultUserAgent
	}
	cfg.headers.auth = []string{cfg.authValue}
	cfg.headers.json = []string{"application/json"}
	cfg.headers.userAgent = []string{cfg.userAgent}
	cfg.rc = newRetryClient(hc, o.retry, o.logger, o.limiter)

	c := &Client{cfg: cfg}
	common := &service{client: c}
	c.Webhooks = (*WebhooksService)(common)
	c.Visitors = (*VisitorsService)(common)
	c.Users = (*UsersService)(common)
	c.Devices = (*DevicesService)(common)
	c.Schedules = (*SchedulesService)(common)
	c.HolidayGroups = (*HolidayGroupsService)(common)
	c.TouchPasses = (*TouchPassesService)(common)
	c.Notifications = (*NotificationsService)(common)
	c.Doors = (*DoorsService)(common)
	c.DoorGroups = (*DoorGroupsService)(common)
	c.UserGroups = (*UserGroupsService)(common)
	c.AccessPolicies = (*AccessPoliciesService)(common)
	c.Identity = (*IdentityService)(common)
	c.SystemLogs = (*SystemLogsService)(common)
	c.APIServer = (*APIServerService)(common)
	c.NFCCards = (*NFCCardsService)(common)
	c.PINCodes = (*PINCodesService)(common)
	c.QRCodes = (*QRCodesService)(common)
	return c, nil
}

// parseBaseURL validates raw and returns the base and its mode: for the
// proxy, the whole base; else the base without "/api/v1/developer".
func parseBaseURL(raw string) (string, Mode, error) {
	const op = "NewClient"
	if strings.TrimSpace(raw) == "" {
		return "", 0, invalidArg(op, "baseURL", "must not be empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, invalidArg(op, "baseURL", "cannot be parsed")
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return "", 0, invalidArg(op, "baseURL", "scheme must be https or http")
	case u.Host == "":
		return "", 0, invalidArg(op, "baseURL", "has no host")
	case u.User != nil:
		return "", 0, invalidArg(op, "baseURL", "must not carry credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return "", 0, invalidArg(op, "baseURL", "must not have a query or fragment")
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	if strings.HasSuffix(p, ProxyPrefix) {
		return u.Scheme + "://" + u.Host + p, ModeProxy, nil
	}
	p = strings.TrimSuffix(p, apiPrefix)
	return u.Scheme + "://" + u.Host + strings.TrimRight(p, "/"), ModeDirect, nil
}

func checkToken(token string) error {
	if strings.TrimSpace(token) == "" {
		return invalidArg("NewClient", "token", "must not be empty")
	}
	for _, r := range token {
		if r < 0x21 || r > 0x7e {
			return invalidArg("NewClient", "token", "must be printable ASCII without spaces")
		}
	}
	return nil
}

// CloseIdleConnections closes the connections the client keeps open for
// reuse and that are idle now; connections in use are closed when their
// call ends. Call it when dropping a client in a program that makes them
// per request or per tenant. Prefer one long-lived Client per controller
// and token: it keeps a single connection warm and is safe for concurrent
// use. A transport given through [WithHTTPClient] is the caller's, and so
// are its other connections: this then closes that transport's idle
// connections too.
func (c *Client) CloseIdleConnections() { c.cfg.hc.CloseIdleConnections() }

// BaseURL returns the controller's base URL, without the API path prefix.
// In [ModeProxy] it is the whole proxy base, which names the mode.
func (c *Client) BaseURL() string { return c.cfg.baseURL }

// Mode returns how the client reaches the API, as its base URL decided.
func (c *Client) Mode() Mode { return c.cfg.mode }

// AuthHeader returns the name of the header that carries the credential
// ("Authorization" or "X-API-KEY"); never its value.
func (c *Client) AuthHeader() string { return c.cfg.authName }

// RateLimit returns the request budget set with [WithRateLimit]: requests
// per second and burst; 0, 0 when there is none.
func (c *Client) RateLimit() (perSecond float64, burst int) {
	if l := c.cfg.limiter; l != nil {
		return l.rate, l.burst
	}
	return 0, 0
}

// String describes the client without its token.
func (c *Client) String() string {
	return fmt.Sprintf("access.Client{baseURL: %s, mode: %s, token: REDACTED}", c.cfg.baseURL, c.cfg.mode)
}

// LogValue describes the client to log/slog without its token.
func (c *Client) LogValue() slog.Value {
	return slog.GroupValue(slog.String("base_url", c.cfg.baseURL), slog.String("mode", c.cfg.mode.String()), slog.String("token", "REDACTED"))
}

// Pagination is the paging information that list operations return next to
// their data. Controllers are known to report page_size and total loosely;
// see [VisitorsService.All].
type Pagination struct {
	PageNum  int `json:"page_num"`
	PageSize int `json:"page_size"`
	Total    int `json:"total"`
}

// total is the pagination total of a response, 0 when unknown.
func (r *Response) total() int {
	if r == nil || r.Pagination == nil {
		return 0
	}
	return r.Pagination.Total
}

// Response wraps the HTTP response of a call with the decoded envelope
// members. Its Body has already been read and closed.
type Response struct {
	*http.Response
	// Code is the envelope's result code (SUCCESS on success).
	Code ErrorCode
	// Message is the envelope's msg. It is not stable across controller
	// versions ("success", "succ"); do not compare it.
	Message string
	// Pagination is set when the controller sent one.
	Pagination *Pagination
}

// envelope is the response wrapper of every operation. Data is decoded in the
// same pass, straight into the caller's type.
type envelope[T any] struct {
	Code       ErrorCode   `json:"code"`
	Msg        string      `json:"msg"`
	Data       *T          `json:"data"`
	Pagination *Pagination `json:"pagination"`
}

// errorEnvelope reads code and msg from a body whose data is of no interest.
type errorEnvelope struct {
	Code ErrorCode `json:"code"`
	Msg  string    `json:"msg"`
}

// call sends a request and decodes the envelope's data into a new T. With
// needData, a missing or null data member is an invalid response.
func call[T any](ctx context.Context, c *Client, method, path string, q any, body any, needData bool) (*T, *Response, error) {
	ex, err := c.send(ctx, method, path, q, body)
	if err != nil {
		return nil, ex.resp, err
	}
	var env envelope[T]
	if err := decodeEnvelope(ex.raw, &env); err != nil && !lenientTypeError[T](err) {
		// A non-success code with data of another shape is still an API error.
		var e errorEnvelope
		if json.Unmarshal(ex.raw, &e) == nil && e.Code != "" && !isSuccess(e.Code) {
			ex.resp.Code, ex.resp.Message = e.Code, e.Msg
			return nil, ex.resp, ex.apiError(e.Code, e.Msg, nil)
		}
		return nil, ex.resp, ex.invalid(describeDecodeError(ex.resp, ex.raw, err))
	}
	ex.resp.Code, ex.resp.Message, ex.resp.Pagination = env.Code, env.Msg, env.Pagination
	switch {
	case env.Code == "":
		return nil, ex.resp, ex.invalid(errors.New("response has no result code"))
	case !isSuccess(env.Code):
		return nil, ex.resp, ex.apiError(env.Code, env.Msg, nil)
	case needData && env.Data == nil:
		return nil, ex.resp, ex.invalid(errors.New("response has no data"))
	}
	// The Response returned shares the exchange's allocation: it must not
	// keep the body alive.
	ex.raw, ex.st.raw = nil, nil
	return env.Data, ex.resp, nil
}

// decodeEnvelope decodes an answer into env. Touch passes, which
// controllers send as a list or as one object (TouchPasses), are decoded
// natively as a list when data looks like one (TouchPasses.UnmarshalJSON
// would scan the data twice more), else through TouchPasses. The look is
// only a shortcut: data that turns out to be an object is decoded through
// TouchPasses all the same.
func decodeEnvelope[T any](raw []byte, env *envelope[T]) error {
	tp, ok := any(env).(*envelope[TouchPasses])
	if !ok {
		return json.Unmarshal(raw, env)
	}
	i := bytes.Index(raw, []byte(`"data":`))
	if i < 0 || skipSpace(raw, i+len(`"data":`)) >= len(raw) || raw[skipSpace(raw, i+len(`"data":`))] != '[' {
		return json.Unmarshal(raw, tp)
	}
	var list envelope[[]TouchPass]
	err := json.Unmarshal(raw, &list)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "data" && te.Value == "object" {
		return json.Unmarshal(raw, tp)
	}
	tp.Code, tp.Msg, tp.Pagination = list.Code, list.Msg, list.Pagination
	if list.Data != nil {
		d := TouchPasses(*list.Data)
		tp.Data = &d
	}
	return err
}

// lenientDecoder is implemented by data types whose members may come in
// another JSON type than documented (system-log hits): such a member is
// left zero, the rest is decoded, and the call succeeds.
type lenientDecoder interface{ lenientData() }

// lenientTypeError reports whether err only says that members inside data
// had another JSON type than their fields, and T accepts that.
// encoding/json decodes everything else in the same pass, at no extra cost.
func lenientTypeError[T any](err error) bool {
	if _, ok := any((*T)(nil)).(lenientDecoder); !ok {
		return false
	}
	var te *json.UnmarshalTypeError
	return errors.As(err, &te) && strings.HasPrefix(te.Field, "data.")
}

// list fetches a list operation. A null or missing data member is an empty
// list.
func list[T any](ctx context.Context, c *Client, path string, q any) ([]T, *Response, error) {
	v, resp, err := call[[]T](ctx, c, "GET", path, q, nil, false)
	if err != nil {
		return nil, resp, err
	}
	if v == nil || *v == nil {
		return []T{}, resp, nil
	}
	return *v, resp, nil
}

// del sends a DELETE. When an earlier attempt failed in a way that leaves
// open whether the controller acted on it (its answer was lost) and the
// retry then finds nothing to delete, the first attempt did the work: the
// call has succeeded and del returns no error.
func del(ctx context.Context, c *Client, path string, q any) (*Response, error) {
	_, resp, err := delData[ignored](ctx, c, path, q, false)
	return resp, err
}

// delData is del for a DELETE whose answer carries data (an unassigned
// touch pass), decoded into a new T as call does. When a retry after a
// lost answer finds nothing to delete, the call has succeeded: delData
// returns a nil T and no error.
func delData[T any](ctx context.Context, c *Client, path string, q any, needData bool) (*T, *Response, error) {
	v, resp, err := call[T](ctx, c, "DELETE", path, q, nil, needData)
	var ae *APIError
	if err != nil && errors.As(err, &ae) && ae.uncertain && errors.Is(err, ErrNotFound) {
		return nil, resp, nil
	}
	return v, resp, err
}

// ignored decodes and discards any data member (the string "success" of a
// settings update, the null of a delete).
type ignored struct{}

// UnmarshalJSON implements json.Unmarshaler.
func (*ignored) UnmarshalJSON([]byte) error { return nil }

// noRetryKey marks a context whose request must be sent once, whatever its
// method and the retry policy (a purchase, a batch assignment).
type noRetryKey struct{}

// sendOnce marks ctx so that its request is never retried. A nil ctx is
// returned as it is, for send to reject.
func sendOnce(ctx context.Context) context.Context {
	if ctx == nil {
		return nil
	}
	return context.WithValue(ctx, noRetryKey{}, true)
}

// retrySafeKey marks a context whose POST has no side effect (generating
// a PIN code, fetching or exporting system logs) and may be retried like a
// read.
type retrySafeKey struct{}

// retrySafe marks ctx so that its request is retried like a GET. A nil
// ctx is returned as it is, for send to reject.
func retrySafe(ctx context.Context) context.Context {
	if ctx == nil {
		return nil
	}
	return context.WithValue(ctx, retrySafeKey{}, true)
}

func isSuccess(code ErrorCode) bool { return code == CodeSuccess || code == codeSucceed }

// exchange is one completed HTTP exchange: the response and its body.
type exchange struct {
	method, url string
	authName    string // the credential header's name, for a 401's message
	attempts    int
	uncertain   bool // an earlier attempt may have taken effect
	streamed    bool // the body went to the download's writer
	resp        *Response
	respVal     Response // what resp points to: one allocation with the exchange
	raw         []byte
	st          attemptState // travels with the request through the retry layer
}

func (ex *exchange) apiError(code ErrorCode, msg string, err error) *APIError {
	e := &APIError{
		StatusCode: ex.resp.StatusCode,
		Code:       code,
		Message:    msg,
		Method:     ex.method,
		URL:        ex.url,
		Attempts:   ex.attempts,
		Body:       redactBody(ex.raw),
		Err:        err,
		AuthHeader: ex.authName,
		uncertain:  ex.uncertain,
	}
	if s := ex.resp.StatusCode; s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable {
		e.RetryAfter, _ = retryAfter(ex.resp.Header.Get("Retry-After"), time.Now())
	}
	return e
}

func (ex *exchange) invalid(err error) *APIError {
	return ex.apiError("", "", fmt.Errorf("%w: %w", ErrInvalidResponse, err))
}

// errHTMLPage describes an HTML page where the API was expected.
var errHTMLPage = errors.New("this address serves a UniFi OS page: is Access installed, and is the path right?")

// errGatewayPage describes a 5xx answered with an HTML page: what a
// UniFi OS console's proxy answers while Access (re)starts behind it.
var errGatewayPage = errors.New("the console's proxy answered with an error page: Access behind it is not answering (is the console restarting?)")

// htmlPage reports whether an answer is an HTML page rather than the API's
// JSON: a UniFi OS console without Access, or a path that is not the API.
func htmlPage(resp *http.Response, raw []byte) bool {
	if ct := resp.Header.Get("Content-Type"); strings.Contains(strings.ToLower(ct), "text/html") {
		return true
	}
	b := bytes.TrimSpace(raw)
	if len(b) > 15 {
		b = b[:15]
	}
	lb := strings.ToLower(string(b))
	return strings.HasPrefix(lb, "<!doctype html") || strings.HasPrefix(lb, "<html")
}

func describeDecodeError(resp *Response, raw []byte, err error) error {
	if htmlPage(resp.Response, raw) {
		return fmt.Errorf("body is not JSON but an HTML page (Content-Type %q): %w", resp.Header.Get("Content-Type"), errHTMLPage)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		return fmt.Errorf("body is not JSON (Content-Type %q): %w", ct, err)
	}
	return fmt.Errorf("cannot decode body: %w", err)
}

// send performs one logical request (with retries) and reads the body. It
// returns an error for bad arguments, transport failures and non-2xx
// statuses; the envelope of a 2xx body is left to the caller.
func (c *Client) send(ctx context.Context, method, path string, q any, body any) (*exchange, error) {
	return c.sendTo(ctx, method, path, q, body, nil)
}

// sendTo is send with a sink for downloads: a successful answer that is
// not JSON is streamed into sink instead of being read (see download).
// body is encoded as JSON (an object, or a bare array), unless it is a
// *streamBody (a multipart upload), which is streamed and never retried.
func (c *Client) sendTo(ctx context.Context, method, path string, q any, body any, sink io.Writer) (*exchange, error) {
	ex := &exchange{method: method, authName: c.cfg.authName}
	if ctx == nil {
		return ex, invalidArg(method+" "+path, "ctx", "must not be nil")
	}
	var vals url.Values
	if q != nil && !nilPointer(q) { // a nil *Options is no query, at no cost
		var ok bool
		vals, ok = q.(url.Values) // simple queries skip the reflection
		if !ok {
			var err error
			if vals, err = query.Values(q); err != nil {
				return ex, invalidArg(method+" "+path, "options", err.Error())
			}
		}
	}
	rawQuery := encodeQuery(vals)
	// NewClient rejects userinfo, so the URL holds no credentials. One
	// concatenation, one allocation.
	if rawQuery == "" {
		ex.url = c.cfg.base + path
	} else {
		ex.url = c.cfg.base + path + "?" + rawQuery
	}

	var payload []byte
	stream, _ := body.(*streamBody)
	if body != nil && stream == nil {
		var err error
		if payload, err = encodeBody(body); err != nil {
			return ex, invalidArg(method+" "+path, "body", err.Error())
		}
	}

	// Sent once: a request marked so (whatever its method) and a streamed
	// upload (its readers are consumed). Else GET, PUT and DELETE are
	// retried, a POST when it is side-effect free or RetryWrites is set.
	retryable := ctx.Value(noRetryKey{}) == nil && stream == nil &&
		(idempotent(method) || ctx.Value(retrySafeKey{}) != nil || c.cfg.retry.RetryWrites)
	st := &ex.st // one allocation for the exchange and its attempts' state
	*st = attemptState{idempotent: retryable, upload: stream != nil && !stream.inMemory, method: method, url: ex.url, maxBody: c.cfg.maxBody, sink: sink}
	rctx := context.WithValue(ctx, attemptKey{}, st)
	var rawBody any
	switch {
	case stream != nil:
		rawBody = retryablehttp.ReaderFunc(stream.open)
	case payload != nil:
		rawBody = payload
	}
	hreq, err := c.cfg.newRequest(rctx, method, path, rawQuery)
	if err != nil {
		return ex, &RequestError{Method: method, URL: ex.url, Err: err}
	}
	req := &retryablehttp.Request{Request: hreq}
	if err := req.SetBody(rawBody); err != nil {
		return ex, &RequestError{Method: method, URL: ex.url, Err: err}
	}
	// The values are the config's, shared by every request (no slice per
	// header and request): nothing writes into a request's header values.
	h := req.Header
	h[c.cfg.authName] = c.cfg.headers.auth // as named: X-API-KEY, not X-Api-Key
	h["Accept"] = c.cfg.headers.json
	h["User-Agent"] = c.cfg.headers.userAgent
	switch {
	case stream != nil:
		h.Set("Content-Type", stream.contentType)
	case payload != nil:
		h["Content-Type"] = c.cfg.headers.json
	}
	req.SetResponseHandler(st.readResponse)

	hresp, err := c.cfg.rc.Do(req)
	ex.attempts, ex.uncertain = st.attempts, st.uncertain
	if err != nil && !errors.Is(err, errUnavailableCode) {
		if hresp != nil && hresp.Body != nil {
			hresp.Body.Close()
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return ex, &RequestError{Method: method, URL: ex.url, Attempts: ex.attempts, Err: unwrapURLError(err)}
	}
	ex.respVal.Response = hresp
	ex.resp = &ex.respVal
	if !st.read {
		// The last attempt's status would have been retried, but no retry
		// was left: the response handler did not run.
		if rerr := st.readResponse(hresp); rerr != nil && !errors.Is(rerr, errUnavailableCode) {
			if ctxErr := ctx.Err(); ctxErr != nil {
				rerr = ctxErr
			}
			return ex, &RequestError{Method: method, URL: ex.url, Attempts: ex.attempts, Err: rerr}
		}
	}
	ex.raw, ex.streamed = st.raw, st.streamed
	if st.streamErr != nil {
		return ex, &RequestError{Method: method, URL: ex.url, Attempts: ex.attempts, Err: st.streamErr}
	}
	if st.readErr != nil {
		return ex, ex.invalid(st.readErr)
	}
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		return ex, ex.statusError()
	}
	return ex, nil
}

// encodeBody encodes a request body as JSON without escaping HTML. A
// request or update type of this package that writes its own wire form
// (MarshalJSON, always compact) is sent as it writes it: encoding/json
// would only compact and copy it again.
func encodeBody(body any) ([]byte, error) {
	if m, ok := body.(json.Marshaler); ok && ownType(body) && !nilPointer(body) {
		b, err := m.MarshalJSON()
		if err != nil {
			return nil, &json.MarshalerError{Type: reflect.TypeOf(body), Err: err}
		}
		return b, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// pkgPath is this package's import path.
var pkgPath = reflect.TypeOf(config{}).PkgPath()

// ownType reports whether v is a value of, or a pointer to, a type
// declared in this package.
func ownType(v any) bool {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == pkgPath
}

// encodeQuery returns vals as url.Values.Encode encodes them (keys
// sorted, keys and values query-escaped), built in one allocation.
func encodeQuery(vals url.Values) string {
	if len(vals) == 0 {
		return ""
	}
	var arr [8]string // the keys, sorted in place
	keys := arr[:0]
	n := 0
	for k, vs := range vals {
		keys = append(keys, k)
		for _, v := range vs {
			n += len(k) + len(v) + 2
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n) // more only if something needs escaping
	for _, k := range keys {
		ke := url.QueryEscape(k)
		for _, v := range vals[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(ke)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
	return b.String()
}

// newRequest is http.NewRequestWithContext for the base, path (escaped)
// and rawQuery, without parsing the URL they make: it builds the URL
// that parsing it would give.
func (cfg *config) newRequest(ctx context.Context, method, path, rawQuery string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, "", nil) // checks the method
	if err != nil {
		return nil, err
	}
	escaped := cfg.basePath + path
	*req.URL = url.URL{Scheme: cfg.scheme, Host: cfg.host, Path: escaped, RawQuery: rawQuery}
	if strings.IndexByte(escaped, '%') >= 0 {
		// As url.Parse sets them: the raw path only when escaping the
		// path again would not give it back.
		p, err := url.PathUnescape(escaped)
		if err != nil {
			return nil, err
		}
		req.URL.Path = p
		if again := (&url.URL{Path: p}).EscapedPath(); again != escaped {
			req.URL.RawPath = escaped
		}
	}
	req.Host = cfg.host
	return req, nil
}

// nilPointer reports whether v holds a nil pointer (a nil *XOptions).
func nilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// statusError is the APIError of a non-2xx answer: the envelope's code and
// message when the body has them, else the status text.
func (ex *exchange) statusError() *APIError {
	var e errorEnvelope
	if json.Unmarshal(ex.raw, &e) == nil {
		ex.resp.Code, ex.resp.Message = e.Code, e.Msg
	}
	if e.Msg == "" {
		e.Msg = http.StatusText(ex.resp.StatusCode)
	}
	if e.Code == "" && htmlPage(ex.resp.Response, ex.raw) {
		if ex.resp.StatusCode >= 500 {
			// A gateway's error page: the proxy is up, what is behind it
			// is not (yet); an ErrServer, as any 5xx.
			return ex.apiError(e.Code, e.Msg, errGatewayPage)
		}
		return ex.apiError(e.Code, e.Msg, fmt.Errorf("%w: %w", ErrInvalidResponse, errHTMLPage))
	}
	return ex.apiError(e.Code, e.Msg, nil)
}

// errBodyTooLarge is returned when a body exceeds the client's cap.
var errBodyTooLarge = errors.New("response body exceeds the size limit")

// readBody reads at most max bytes of the body and closes it. A longer body is
// an error: the connection is then dropped rather than drained.
func readBody(resp *http.Response, max int64) ([]byte, error) {
	defer resp.Body.Close()
	size := int64(512)
	if resp.ContentLength > 0 && resp.ContentLength <= max {
		size = resp.ContentLength + 1 // +1 lets the final Read see EOF without growing
	}
	// Read straight into the slice: bytes.Buffer.ReadFrom would grow a
	// buffer of exactly the announced length before its last Read, and
	// io.LimitReader costs an allocation.
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if left := max + 1 - int64(len(buf)); int64(len(room)) > left {
			room = room[:left]
		}
		n, err := resp.Body.Read(room)
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return buf[:max], fmt.Errorf("%w (%d bytes)", errBodyTooLarge, max)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, fmt.Errorf("reading the body after %d bytes: %w", len(buf), err)
		}
	}
}

// unwrapURLError drops net/http's *url.Error wrapper, whose text repeats the
// method and URL that RequestError already carries.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// pathSeg escapes s as exactly one path segment.
func pathSeg(s string) string { return url.PathEscape(s) }
