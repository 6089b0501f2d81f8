package accesstest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/testlog"
)

// Permission is a permission key of an API token, as the controller's
// token settings name them.
type Permission string

// The permission keys the ten operations need.
const (
	ViewWebhook    Permission = "view:webhook"
	EditWebhook    Permission = "edit:webhook"
	ViewVisitor    Permission = "view:visitor"
	ViewUser       Permission = "view:user"
	ViewDevice     Permission = "view:device"
	EditDevice     Permission = "edit:device"
	ViewPolicy     Permission = "view:policy"
	ViewCredential Permission = "view:credential"
	EditCredential Permission = "edit:credential"
)

// AllPermissions returns every permission key.
func AllPermissions() []Permission {
	return []Permission{ViewWebhook, EditWebhook, ViewVisitor, ViewUser, ViewDevice, EditDevice, ViewPolicy, ViewCredential, EditCredential,
		ViewSpace, EditSpace, EditUser, EditPolicy, ViewSystemLog, EditAPIServer, EditVisitor}
}

// Op names an operation of the API, for [Server.Inject] and [Request.Op].
type Op string

// The operations the server implements.
const (
	OpWebhooksCreate        Op = "Webhooks.Create"
	OpWebhooksDelete        Op = "Webhooks.Delete"
	OpWebhooksList          Op = "Webhooks.List"
	OpVisitorsList          Op = "Visitors.List"
	OpUsersGet              Op = "Users.Get"
	OpDevicesGetSettings    Op = "Devices.GetSettings"
	OpDevicesUpdateSettings Op = "Devices.UpdateSettings"
	OpWebhooksUpdate        Op = "Webhooks.Update"
	OpSchedulesGet          Op = "Schedules.Get"
	OpHolidayGroupsList     Op = "HolidayGroups.List"
	OpTouchPassesPurchase   Op = "TouchPasses.Purchase"
	OpTouchPassesSearch     Op = "TouchPasses.Search"
	opUnknown               Op = ""

	// OpAny, given to [Server.Inject], matches every operation (with
	// AfterHandling, every one but [OpNotificationsSubscribe]).
	OpAny Op = "*"
)

const (
	apiPrefix                 = "/api/v1/developer"
	defaultPageSize           = 25
	maxPurchase               = 100
	maxRequestBody            = 1 << 20
	deliveryTimeout           = 5 * time.Second
	permissionDeniedMessage   = "You are not allowed to perform this action."
	tokenInvalidMessage       = "The provided access token is invalid."
	paramsInvalidMessage      = "The provided parameters are invalid."
	redactedAuthorizationHead = "Bearer REDACTED"
)

// Option configures [NewServer].
type Option func(*Server)

// WithToken sets the token with every permission that [Server.Client]
// uses. By default a random one is made; read it with [Server.Token].
func WithToken(token string) Option {
	return func(s *Server) { s.token = token }
}

// WithDemoData loads the demo site (see [Server.LoadDemoData]).
func WithDemoData() Option {
	return func(s *Server) { s.demo = true }
}

// WithClock sets the server's base clock (see [Server.SetNow]);
// [Server.Advance] moves the time on from it.
func WithClock(now func() time.Time) Option {
	return func(s *Server) {
		if now != nil {
			s.now = now
		}
	}
}

// WithCommit makes every API request that changed state wait for
// commit before its answer is sent: the hook of a store that must keep
// what it acknowledges (access fake's state file). commit is called after
// the handler returned and released the server's lock, with the
// request's context; it returns once every change made so far is kept
// (the [Server.OnChange] functions of the request's change have run by
// then). When it returns an error the change is not acknowledged: the
// answer is a 503 in the console's error shape (CODE_SYSTEM_ERROR)
// instead of the handler's, as when a console cannot write its database.
// The change stays in the server's state. Reads (GET) and requests that
// changed nothing never wait, nor does the notifications WebSocket.
func WithCommit(commit func(ctx context.Context) error) Option {
	return func(s *Server) { s.commit = commit }
}

// WithErrorLog sets the error log of the server's HTTP server (see
// http.Server's ErrorLog): the lines of connections that failed, such as
// a TLS handshake a client ended because it rejected the certificate. By
// default ([NewServer]) TLS handshake errors are dropped, since a client
// that goes away mid-handshake (a test of certificate pinning, a probe)
// also gets an error of its own, and other lines go to the standard
// logger; [New] writes them all to its test's log.
func WithErrorLog(l *log.Logger) Option {
	return func(s *Server) { s.errorLog = l }
}

// quietHandshakes is the default error log's writer: it drops the
// "http: TLS handshake error" lines of clients that went away and passes
// every other line to the standard logger.
type quietHandshakes struct{}

func (quietHandshakes) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(p, []byte("http: TLS handshake error")) {
		log.Print(string(p))
	}
	return len(p), nil
}

// commitFailedMessage is the msg of the 503 a request gets when its
// change could not be kept (WithCommit).
const commitFailedMessage = "The change could not be saved; it is not acknowledged."

// Request is a request the server received, as [Server.Requests] reports
// it. The credential headers (Authorization, X-API-KEY) are redacted.
type Request struct {
	Op Op
	// Mode is the layout the request came in: [access.ModeDirect] under
	// /api/v1/developer, [access.ModeProxy] under
	// /proxy/access/integration/v1/developer (or the older proxy socket
	// path).
	Mode   access.Mode
	Method string
	// Path is the escaped path, e.g. /api/v1/developer/users/u%2F1.
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	Time   time.Time
}

// Fault makes the server misbehave for an operation; see [Server.Inject].
type Fault struct {
	// Status is the HTTP status to answer with. Zero means 200 when Code
	// is set (an error code on HTTP 200, as controllers do), else 500.
	Status int
	// Code and Message fill the error envelope. Code defaults by status:
	// none for 429 (the vendor documents none), CODE_ACCESS_TOKEN_INVALID
	// for 401, CODE_UNAUTHORIZED for 403, CODE_RESOURCE_NOT_FOUND for 404,
	// CODE_PARAMS_INVALID for other 4xx, CODE_SYSTEM_ERROR otherwise.
	// Message defaults to the status text.
	Code    access.ErrorCode
	Message string
	// RetryAfter, when positive, is sent as a Retry-After header in whole
	// seconds (at least 1).
	RetryAfter time.Duration
	// Delay holds the answer back; the wait ends early if the client goes
	// away or the server closes. With nothing else set, the request is then
	// served normally.
	Delay time.Duration
	// DropConnection closes the connection without an answer.
	DropConnection bool
	// Body, when set, is written verbatim instead of an envelope (e.g. an
	// HTML error page from a proxy), with ContentType (default
	// application/json).
	Body        string
	ContentType string
	// Times is how many requests the fault affects; zero means all of them.
	Times int
	// AfterHandling lets the request take effect first: it is
	// authenticated and handled as usual (state changes, webhook
	// deliveries, WebSocket notifications and system-log entries happen),
	// and then Delay, DropConnection, Status, Code, Message, RetryAfter
	// and Body apply to the answer instead of the handler's own, as when
	// a console acted on a request but its answer was lost. With none of
	// those set the handler's answer is sent after Delay. The
	// notifications WebSocket has no answer to replace once its upgrade is
	// handled: [Server.Inject] refuses AfterHandling for
	// [OpNotificationsSubscribe].
	AfterHandling bool
}

type activeFault struct {
	op   Op
	f    Fault
	left int // -1: unlimited
}

// Server is a fake controller. Its methods are safe for concurrent use.
type Server struct {
	srv  *httptest.Server
	tb   testing.TB
	demo bool

	// Cross-cutting: the lock, the clock, tokens, requests, faults and
	// the lifecycle.
	mu        stateLock // state.go: Unlock calls the OnChange functions after a change
	now       func() time.Time
	clock     clockState // clock.go: Advance's offset and the timers
	token     string
	tokens    map[string][]Permission
	journal   reqJournal // the requests received, under their own lock; retention.go bounds them
	retention Retention  // retention.go: WithRetention
	faults    []*activeFault
	closing   chan struct{}
	closeOnce sync.Once
	life      lifecycle // the goroutines Close waits for
	delivery  *http.Client
	retry     retryPolicy                 // webhooks.go: set by WithWebhookRetries only
	notify    notifyHub                   // notifications.go: the notifications WebSocket's subscribers
	console   consoleState                // console.go: the proxy's firmware, restarts, Access missing
	own       ownConns                    // unjournaled.go: the connections of UnjournaledClient
	commit    func(context.Context) error // WithCommit
	errorLog  *log.Logger                 // WithErrorLog; nil: quietHandshakes

	// One store per area, each with its handlers in its files.
	hub    hubState     // hub.go, webhooks.go: webhook endpoints, queued deliveries
	space  spaceState   // doors.go, devicesettings.go: floors, doors, door groups, devices, device settings
	people peopleState  // users.go, usergroups.go, policies.go, schedules.go, visitors.go, identity.go
	logs   logState     // systemlogs.go: system log, static files; apiserver.go: certificate
	creds  credState    // credentials.go, nfc.go, qrcodes.go: cards, sessions, PINs, touch passes, visitor timers
	acts   actState     // control.go: what the act running now caused
	seeded *seededIDs   // WithSeed: the ids' generator; nil: crypto/rand
	replay *replayState // replay.go: WithCapture's answers, frames and deliveries
}

// NewServer starts a fake controller on an HTTPS loopback address. Close it
// when done, or use [New] in tests.
func NewServer(opts ...Option) *Server {
	s := &Server{
		now:     time.Now,
		tokens:  map[string][]Permission{},
		closing: make(chan struct{}),
		people:  peopleState{policies: map[string]*access.AccessPolicy{}, schedules: map[string]*access.Schedule{}},
		space:   spaceState{settings: map[string]*access.DeviceSettings{}},
	}
	s.life.ctx, s.life.cancel = context.WithCancel(context.Background())
	if checkStateCache {
		s.mu.check = s.checkEncodings
	}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.token == "" {
		s.token = s.randomToken()
	}
	s.tokens[s.token] = AllPermissions()
	s.logs.log.setBounds(s.retention, s.now())
	if s.demo {
		s.LoadDemoData()
	}
	s.srv = httptest.NewUnstartedServer(s.handler())
	s.srv.Config.ErrorLog = s.errorLog
	if s.errorLog == nil {
		s.srv.Config.ErrorLog = log.New(quietHandshakes{}, "", 0)
	}
	s.srv.StartTLS()
	s.delivery = &http.Client{Timeout: deliveryTimeout, Transport: deliveryTransport()}
	if s.clock.wake != nil {
		s.life.spawn(s.runLiveTimers)
	}
	return s
}

// New starts a fake controller for a test or benchmark and closes it when
// that ends. Seeding mistakes (a duplicate id) then fail tb instead of
// panicking, and the server's error log (a client that rejected its
// certificate, for one) goes to tb.Log: shown when the test fails or runs
// with -v, never as a stray line of the suite's output.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := NewServer(append([]Option{WithErrorLog(testlog.New(tb))}, opts...)...)
	s.tb = tb
	tb.Cleanup(s.Close)
	return s
}

// Close shuts the server down, ending any injected delays, and returns
// once every request handler, WebSocket connection, webhook delivery and
// the live-timer goroutine ([WithLiveTimers]) of the server has ended. Deliveries still queued are dropped (their Err is
// set).
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.life.cancel()
	})
	s.srv.Close()
	s.life.close()
	s.delivery.CloseIdleConnections()
}

// lifecycle counts the server's own goroutines (the delivery goroutines,
// the WebSocket connections and the live-timer goroutine of
// [WithLiveTimers]), so that Close can wait for them.
type lifecycle struct {
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
	live   atomic.Int32 // for tests
}

// enter counts a goroutine in, unless the server is closed.
func (l *lifecycle) enter() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	l.live.Add(1)
	return true
}

// leave counts a goroutine out.
func (l *lifecycle) leave() {
	l.live.Add(-1)
	l.wg.Done()
}

// spawn runs f in a counted goroutine, unless the server is closed.
func (l *lifecycle) spawn(f func()) bool {
	if !l.enter() {
		return false
	}
	go func() {
		defer l.leave()
		f()
	}()
	return true
}

// close stops new goroutines and waits for the running ones.
func (l *lifecycle) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.wg.Wait()
}

// URL returns the base URL to give [access.NewClient], e.g.
// https://127.0.0.1:41235.
func (s *Server) URL() string { return s.srv.URL }

// ProxyURL returns the base URL of the same server as a UniFi OS
// console's proxy, e.g.
// https://127.0.0.1:41235/proxy/access/integration/v1/developer: clients
// given it send their token as an X-API-KEY ([access.ModeProxy]).
func (s *Server) ProxyURL() string { return s.srv.URL + access.ProxyPrefix }

// URLFor returns [Server.URL] or [Server.ProxyURL], as mode says.
func (s *Server) URLFor(mode access.Mode) string {
	if mode == access.ModeProxy {
		return s.ProxyURL()
	}
	return s.URL()
}

// Token returns the token with every permission.
func (s *Server) Token() string { return s.token }

// String describes the server without its tokens.
func (s *Server) String() string { return "accesstest.Server(" + s.srv.URL + ")" }

// HTTPClient returns an http.Client that trusts the server's certificate.
func (s *Server) HTTPClient() *http.Client { return s.srv.Client() }

// Certificate returns the server's certificate in DER form.
func (s *Server) Certificate() []byte { return s.srv.Certificate().Raw }

// Fingerprint returns the SHA-256 fingerprint of the server's certificate
// in hex, for [access.WithPinnedCertificate].
func (s *Server) Fingerprint() string {
	sum := sha256.Sum256(s.Certificate())
	return hex.EncodeToString(sum[:])
}

// Client returns an [access.Client] for the server that authenticates with
// [Server.Token] and trusts the server's certificate. It retries like
// [access.DefaultRetryPolicy] but waits only milliseconds between
// attempts ([RetryPolicy]), so that a test injecting a 429 or a 503 does
// not sleep for real. opts are applied after those (e.g.
// [access.WithRetryPolicy]). It panics if an option is invalid.
func (s *Server) Client(opts ...access.Option) *access.Client {
	return s.ClientWithToken(s.token, opts...)
}

// RetryPolicy is the retry policy of [Server.Client]: the default number of
// retries, with waits of 1 to 10 milliseconds. A Retry-After longer than
// 10 ms therefore ends a call at once, with [access.APIError.RetryAfter]
// set.
func RetryPolicy() access.RetryPolicy {
	p := access.DefaultRetryPolicy()
	p.WaitMin, p.WaitMax = time.Millisecond, 10*time.Millisecond
	return p
}

// ClientWithToken is [Server.Client] with another token (see
// [Server.AddToken]).
func (s *Server) ClientWithToken(token string, opts ...access.Option) *access.Client {
	return s.clientAt(s.URL(), token, opts)
}

// ProxyClient is [Server.Client] in [access.ModeProxy]: through
// [Server.ProxyURL], with the token sent as an X-API-KEY.
func (s *Server) ProxyClient(opts ...access.Option) *access.Client {
	return s.clientAt(s.ProxyURL(), s.token, opts)
}

// ClientFor is [Server.Client] or [Server.ProxyClient], as mode says, for
// tests that run in both.
func (s *Server) ClientFor(mode access.Mode, opts ...access.Option) *access.Client {
	return s.clientAt(s.URLFor(mode), s.token, opts)
}

func (s *Server) clientAt(base, token string, opts []access.Option) *access.Client {
	return s.clientWith(base, token, s.HTTPClient(), opts)
}

// clientWith is clientAt over the HTTP client hc.
func (s *Server) clientWith(base, token string, hc *http.Client, opts []access.Option) *access.Client {
	all := append([]access.Option{access.WithHTTPClient(hc), access.WithRetryPolicy(RetryPolicy())}, opts...)
	c, err := access.NewClient(base, token, all...)
	if err != nil {
		panic("accesstest: " + err.Error())
	}
	return c
}

// AddToken creates a token that has only the given permissions (none: a
// token that authenticates but may do nothing).
func (s *Server) AddToken(token string, perms ...Permission) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	s.tokens[token] = slices.Clone(perms)
}

// RevokeToken removes a token; requests with it then get 401.
func (s *Server) RevokeToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	delete(s.tokens, token)
}

// SetNow replaces the server's base clock, used for request times,
// touch-pass activity times, webhook signature timestamps and door timers.
// nil restores time.Now. It also resets the offset that [Server.Advance]
// added, so that Now then reads the new clock; pending timers keep their
// due times and run once the time reaches them.
func (s *Server) SetNow(now func() time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	if now == nil {
		now = time.Now
	}
	s.now = now
	s.clock.offset = 0
	s.wakeTimers()
	s.clockMoved()
}

// Now returns the server's current time: its base clock plus what
// [Server.Advance] added.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clockNow()
}

// Inject makes the next f.Times requests for op (all of them when Times is
// 0) fail as f describes. Faults for the same op apply in the order they
// were injected; a request matches at most one. Injected faults apply
// before authentication, like a proxy or an overloaded controller, except
// with [Fault.AfterHandling].
//
// A fault that cannot apply (AfterHandling for [OpNotificationsSubscribe])
// is refused as a seeding mistake is: it fails the test of a server made
// with [New], and panics otherwise; nothing is injected.
func (s *Server) Inject(op Op, f Fault) {
	if f.AfterHandling && op == OpNotificationsSubscribe {
		s.fail("accesstest: Inject: AfterHandling cannot apply to %s (the WebSocket upgrade has no answer to replace)", op)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.faults = append(s.faults, &activeFault{op: op, f: f, left: left})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// Requests returns the requests received so far, oldest first: the
// newest [Retention.Requests] of them when that is set.
func (s *Server) Requests() []Request {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	return s.journal.requests.items()
}

// RequestsFor returns the requests received for one operation.
func (s *Server) RequestsFor(op Op) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Op == op {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	s.journal.requests.reset()
}

func (s *Server) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if s.tb != nil {
		s.tb.Helper()
		s.tb.Fatal(msg)
	}
	panic(msg)
}

// route is one operation: its mux pattern, name, permission and handler.
type route struct {
	pattern string
	op      Op
	perm    Permission
	h       func(*Server, http.ResponseWriter, *http.Request)
}

var routes = []route{
	{"POST " + apiPrefix + "/webhooks/endpoints", OpWebhooksCreate, EditWebhook, (*Server).createWebhook},
	{"GET " + apiPrefix + "/webhooks/endpoints", OpWebhooksList, ViewWebhook, (*Server).listWebhooks},
	{"PUT " + apiPrefix + "/webhooks/endpoints/{id}", OpWebhooksUpdate, EditWebhook, (*Server).updateWebhook},
	{"DELETE " + apiPrefix + "/webhooks/endpoints/{id}", OpWebhooksDelete, EditWebhook, (*Server).deleteWebhook},
	{"GET " + apiPrefix + "/visitors", OpVisitorsList, ViewVisitor, (*Server).listVisitors},
	{"GET " + apiPrefix + "/users/{id}", OpUsersGet, ViewUser, (*Server).getUser},
	{"GET " + apiPrefix + "/devices/{id}/settings", OpDevicesGetSettings, ViewDevice, (*Server).getDeviceSettings},
	{"PUT " + apiPrefix + "/devices/{id}/settings", OpDevicesUpdateSettings, EditDevice, (*Server).updateDeviceSettings},
	{"GET " + apiPrefix + "/devices/notifications", OpNotificationsSubscribe, ViewDevice, (*Server).serveNotifications},
	{"GET " + apiPrefix + "/access_policies/schedules/{id}", OpSchedulesGet, ViewPolicy, (*Server).getSchedule},
	{"GET " + apiPrefix + "/access_policies/holiday_groups", OpHolidayGroupsList, ViewPolicy, (*Server).listHolidayGroups},
	{"POST " + apiPrefix + "/credentials/touch_passes", OpTouchPassesPurchase, EditCredential, (*Server).purchaseTouchPasses},
	{"GET " + apiPrefix + "/credentials/touch_passes/search", OpTouchPassesSearch, ViewCredential, (*Server).searchTouchPasses},
	// Doors, door groups and the devices list (doors.go).
	{"GET " + apiPrefix + "/doors/{id}", OpDoorsGet, ViewSpace, (*Server).getDoor},
	{"GET " + apiPrefix + "/doors", OpDoorsList, ViewSpace, (*Server).listDoors},
	{"PUT " + apiPrefix + "/doors/{id}/unlock", OpDoorsUnlock, EditSpace, (*Server).unlockDoor},
	{"PUT " + apiPrefix + "/doors/{id}/lock_rule", OpDoorsSetLockRule, EditSpace, (*Server).setLockRule},
	{"GET " + apiPrefix + "/doors/{id}/lock_rule", OpDoorsGetLockRule, ViewSpace, (*Server).getLockRule},
	{"PUT " + apiPrefix + "/doors/settings/emergency", OpDoorsSetEmergency, EditSpace, (*Server).setEmergency},
	{"GET " + apiPrefix + "/doors/settings/emergency", OpDoorsGetEmergency, ViewSpace, (*Server).getEmergency},
	{"GET " + apiPrefix + "/door_groups/topology", OpDoorGroupsTopology, ViewSpace, (*Server).doorGroupTopology},
	{"POST " + apiPrefix + "/door_groups", OpDoorGroupsCreate, EditSpace, (*Server).createDoorGroup},
	{"GET " + apiPrefix + "/door_groups/{id}", OpDoorGroupsGet, ViewSpace, (*Server).getDoorGroup},
	{"PUT " + apiPrefix + "/door_groups/{id}", OpDoorGroupsUpdate, EditSpace, (*Server).updateDoorGroup},
	{"GET " + apiPrefix + "/door_groups", OpDoorGroupsList, ViewSpace, (*Server).listDoorGroups},
	{"DELETE " + apiPrefix + "/door_groups/{id}", OpDoorGroupsDelete, EditSpace, (*Server).deleteDoorGroup},
	{"GET " + apiPrefix + "/devices", OpDevicesList, ViewDevice, (*Server).listDevices},
	{"POST " + apiPrefix + "/devices/{id}/doorbell", OpDevicesTriggerDoorbell, EditDevice, (*Server).triggerDoorbell},
	// Users (users.go).
	{"POST " + apiPrefix + "/users", OpUsersCreate, EditUser, (*Server).createUser},
	{"PUT " + apiPrefix + "/users/{id}", OpUsersUpdate, EditUser, (*Server).updateUser},
	{"GET " + apiPrefix + "/users", OpUsersList, ViewUser, (*Server).listUsers},
	{"DELETE " + apiPrefix + "/users/{id}", OpUsersDelete, EditUser, (*Server).deleteUser},
	{"GET " + apiPrefix + "/users/search", OpUsersSearch, ViewUser, (*Server).searchUsers},
	{"PUT " + apiPrefix + "/users/{id}/access_policies", OpUsersSetAccessPolicies, EditUser, (*Server).setUserPolicies},
	{"GET " + apiPrefix + "/users/{id}/access_policies", OpUsersListAccessPolicies, ViewUser, (*Server).listUserPolicies},
	{"PUT " + apiPrefix + "/users/{id}/license_plates", OpUsersAssignLicensePlates, EditUser, (*Server).assignPlates},
	{"DELETE " + apiPrefix + "/users/{id}/license_plates/{plate}", OpUsersUnassignLicensePlate, EditUser, (*Server).unassignPlate},
	{"POST " + apiPrefix + "/users/{id}/avatar", OpUsersUploadAvatar, EditUser, (*Server).uploadAvatar},
	// User groups (usergroups.go).
	{"POST " + apiPrefix + "/user_groups", OpUserGroupsCreate, EditUser, (*Server).createUserGroup},
	{"GET " + apiPrefix + "/user_groups", OpUserGroupsList, ViewUser, (*Server).listUserGroups},
	{"GET " + apiPrefix + "/user_groups/{id}", OpUserGroupsGet, ViewUser, (*Server).getUserGroup},
	{"PUT " + apiPrefix + "/user_groups/{id}", OpUserGroupsUpdate, EditUser, (*Server).updateUserGroup},
	{"DELETE " + apiPrefix + "/user_groups/{id}", OpUserGroupsDelete, EditUser, (*Server).deleteUserGroup},
	{"POST " + apiPrefix + "/user_groups/{id}/users", OpUserGroupsAddUsers, EditUser, (*Server).addGroupUsers},
	{"POST " + apiPrefix + "/user_groups/{id}/users/delete", OpUserGroupsRemoveUsers, EditUser, (*Server).removeGroupUsers},
	{"GET " + apiPrefix + "/user_groups/{id}/users", OpUserGroupsListUsers, ViewUser, (*Server).listGroupUsers},
	{"GET " + apiPrefix + "/user_groups/{id}/users/all", OpUserGroupsListAllUsers, ViewUser, (*Server).listAllGroupUsers},
	{"PUT " + apiPrefix + "/user_groups/{id}/access_policies", OpUserGroupsSetAccessPolicies, EditUser, (*Server).setGroupPolicies},
	{"GET " + apiPrefix + "/user_groups/{id}/access_policies", OpUserGroupsListAccessPolicies, ViewUser, (*Server).listGroupPolicies},
	// Access policies (policies.go).
	{"POST " + apiPrefix + "/access_policies", OpAccessPoliciesCreate, EditPolicy, (*Server).createPolicy},
	{"PUT " + apiPrefix + "/access_policies/{id}", OpAccessPoliciesUpdate, EditPolicy, (*Server).updatePolicy},
	{"DELETE " + apiPrefix + "/access_policies/{id}", OpAccessPoliciesDelete, EditPolicy, (*Server).deletePolicy},
	{"GET " + apiPrefix + "/access_policies/{id}", OpAccessPoliciesGet, ViewPolicy, (*Server).getPolicy},
	{"GET " + apiPrefix + "/access_policies", OpAccessPoliciesList, ViewPolicy, (*Server).listPolicies},
	// Schedules and holiday groups (schedules.go).
	{"POST " + apiPrefix + "/access_policies/schedules", OpSchedulesCreate, EditPolicy, (*Server).createSchedule},
	{"PUT " + apiPrefix + "/access_policies/schedules/{id}", OpSchedulesUpdate, EditPolicy, (*Server).updateSchedule},
	{"GET " + apiPrefix + "/access_policies/schedules", OpSchedulesList, ViewPolicy, (*Server).listSchedules},
	{"DELETE " + apiPrefix + "/access_policies/schedules/{id}", OpSchedulesDelete, EditPolicy, (*Server).deleteSchedule},
	{"POST " + apiPrefix + "/access_policies/holiday_groups", OpHolidayGroupsCreate, EditPolicy, (*Server).createHolidayGroup},
	{"PUT " + apiPrefix + "/access_policies/holiday_groups/{id}", OpHolidayGroupsUpdate, EditPolicy, (*Server).updateHolidayGroup},
	{"DELETE " + apiPrefix + "/access_policies/holiday_groups/{id}", OpHolidayGroupsDelete, EditPolicy, (*Server).deleteHolidayGroup},
	{"GET " + apiPrefix + "/access_policies/holiday_groups/{id}", OpHolidayGroupsGet, ViewPolicy, (*Server).getHolidayGroup},
	// UniFi Identity (identity.go).
	{"POST " + apiPrefix + "/users/identity/invitations", OpIdentitySendInvitations, EditUser, (*Server).sendInvitations},
	{"GET " + apiPrefix + "/users/identity/assignments", OpIdentityListResources, ViewUser, (*Server).listIdentityResources},
	{"POST " + apiPrefix + "/users/{id}/identity/assignments", OpIdentityAssignToUser, EditUser, (*Server).assignIdentityToUser},
	{"GET " + apiPrefix + "/users/{id}/identity/assignments", OpIdentityListForUser, ViewUser, (*Server).listIdentityForUser},
	{"POST " + apiPrefix + "/user_groups/{id}/identity/assignments", OpIdentityAssignToUserGroup, EditUser, (*Server).assignIdentityToGroup},
	{"GET " + apiPrefix + "/user_groups/{id}/identity/assignments", OpIdentityListForUserGroup, ViewUser, (*Server).listIdentityForGroup},
	// System logs and static files (systemlogs.go), the API server (apiserver.go).
	{"POST " + apiPrefix + "/system/logs", OpSystemLogsList, ViewSystemLog, (*Server).listSystemLogs},
	{"POST " + apiPrefix + "/system/logs/export", OpSystemLogsExport, ViewSystemLog, (*Server).exportSystemLogs},
	{"GET " + apiPrefix + "/system/logs/resource/{id}", OpSystemLogsGetResource, ViewSystemLog, (*Server).getSystemLogResource},
	{"GET " + apiPrefix + "/system/static/{path...}", OpSystemLogsDownloadStatic, ViewSystemLog, (*Server).downloadStatic},
	{"POST " + apiPrefix + "/api_server/certificates", OpAPIServerUploadCertificate, EditAPIServer, (*Server).uploadCertificate},
	{"DELETE " + apiPrefix + "/api_server/certificates", OpAPIServerDeleteCertificate, EditAPIServer, (*Server).deleteCertificate},
	// Visitors and credentials (visitors.go, credentials.go, nfc.go, qrcodes.go).
	{"POST " + apiPrefix + "/visitors", OpVisitorsCreate, EditVisitor, (*Server).createVisitor},
	{"GET " + apiPrefix + "/visitors/{id}", OpVisitorsGet, ViewVisitor, (*Server).getVisitor},
	{"PUT " + apiPrefix + "/visitors/{id}", OpVisitorsUpdate, EditVisitor, (*Server).updateVisitor},
	{"DELETE " + apiPrefix + "/visitors/{id}", OpVisitorsDelete, EditVisitor, (*Server).deleteVisitor},
	{"PUT " + apiPrefix + "/visitors/{id}/nfc_cards", OpVisitorsAssignNFCCard, EditVisitor, (*Server).assignVisitorNFC},
	{"PUT " + apiPrefix + "/visitors/{id}/nfc_cards/delete", OpVisitorsUnassignNFCCard, EditVisitor, (*Server).unassignVisitorNFC},
	{"PUT " + apiPrefix + "/visitors/{id}/pin_codes", OpVisitorsAssignPINCode, EditVisitor, (*Server).assignVisitorPIN},
	{"DELETE " + apiPrefix + "/visitors/{id}/pin_codes", OpVisitorsUnassignPINCode, EditVisitor, (*Server).unassignVisitorPIN},
	{"PUT " + apiPrefix + "/visitors/{id}/qr_codes", OpVisitorsAssignQRCode, EditVisitor, (*Server).assignVisitorQRCode},
	{"DELETE " + apiPrefix + "/visitors/{id}/qr_codes", OpVisitorsUnassignQRCode, EditVisitor, (*Server).unassignVisitorQRCode},
	{"PUT " + apiPrefix + "/visitors/{id}/license_plates", OpVisitorsAssignLicensePlates, EditVisitor, (*Server).assignVisitorPlates},
	{"DELETE " + apiPrefix + "/visitors/{id}/license_plates/{plate}", OpVisitorsUnassignLicensePlate, EditVisitor, (*Server).unassignPlate},
	{"POST " + apiPrefix + "/credentials/pin_codes", OpPINCodesGenerate, ViewCredential, (*Server).generatePIN},
	{"POST " + apiPrefix + "/credentials/nfc_cards/sessions", OpNFCCardsStartEnrollment, EditCredential, (*Server).startEnrollment},
	{"GET " + apiPrefix + "/credentials/nfc_cards/sessions/{id}", OpNFCCardsEnrollmentStatus, EditCredential, (*Server).enrollmentStatus},
	{"DELETE " + apiPrefix + "/credentials/nfc_cards/sessions/{id}", OpNFCCardsEndEnrollment, EditCredential, (*Server).endEnrollment},
	{"GET " + apiPrefix + "/credentials/nfc_cards/tokens/{token}", OpNFCCardsGet, ViewCredential, (*Server).getNFCCard},
	{"GET " + apiPrefix + "/credentials/nfc_cards/tokens", OpNFCCardsList, ViewCredential, (*Server).listNFCCards},
	{"DELETE " + apiPrefix + "/credentials/nfc_cards/tokens/{token}", OpNFCCardsDelete, EditCredential, (*Server).deleteNFCCard},
	{"PUT " + apiPrefix + "/credentials/nfc_cards/tokens/{token}", OpNFCCardsUpdate, EditCredential, (*Server).updateNFCCard},
	{"POST " + apiPrefix + "/credentials/nfc_cards/import", OpNFCCardsImport, EditCredential, (*Server).importNFCCards},
	{"GET " + apiPrefix + "/credentials/touch_passes", OpTouchPassesList, ViewCredential, (*Server).listTouchPasses},
	{"GET " + apiPrefix + "/credentials/touch_passes/assignable", OpTouchPassesListAssignable, ViewCredential, (*Server).listAssignableTouchPasses},
	{"GET " + apiPrefix + "/credentials/touch_passes/{id}", OpTouchPassesGet, ViewCredential, (*Server).getTouchPass},
	{"PUT " + apiPrefix + "/credentials/touch_passes/{id}", OpTouchPassesUpdate, EditCredential, (*Server).updateTouchPass},
	{"GET " + apiPrefix + "/credentials/qr_codes/download/{id}", OpQRCodesDownload, ViewCredential, (*Server).downloadQRCode},
	{"PUT " + apiPrefix + "/users/{id}/nfc_cards", OpUsersAssignNFCCard, EditUser, (*Server).assignUserNFC},
	{"PUT " + apiPrefix + "/users/{id}/nfc_cards/delete", OpUsersUnassignNFCCard, EditUser, (*Server).unassignUserNFC},
	{"PUT " + apiPrefix + "/users/{id}/pin_codes", OpUsersAssignPINCode, EditUser, (*Server).assignUserPIN},
	{"DELETE " + apiPrefix + "/users/{id}/pin_codes", OpUsersUnassignPINCode, EditUser, (*Server).unassignUserPIN},
	{"PUT " + apiPrefix + "/users/{id}/touch_passes/{tp}", OpUsersAssignTouchPass, EditUser, (*Server).assignUserTouchPass},
	{"DELETE " + apiPrefix + "/users/{id}/touch_passes/{tp}", OpUsersUnassignTouchPass, EditUser, (*Server).unassignUserTouchPass},
	{"PUT " + apiPrefix + "/users/touch_passes/assign", OpUsersBatchAssignTouchPasses, EditUser, (*Server).batchAssignTouchPasses},
}

// handler serves every route in both layouts (see [Server.ProxyURL]) and
// the notifications WebSocket also at the older proxy path.
func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	// Unmatched requests: 405 when the path exists for another method,
	// else 404.
	paths := http.NewServeMux()
	seen := map[string]bool{}
	handle := func(method, path string, mode access.Mode, op Op, perm Permission, h func(*Server, http.ResponseWriter, *http.Request)) {
		mux.HandleFunc(method+" "+path, func(w http.ResponseWriter, r *http.Request) {
			// The console around Access first: a proxy restarting, a
			// console without Access, older firmware's socket path.
			if s.consoleAnswers(w, r, op, mode) {
				return
			}
			// The token next: a request without a known one is answered
			// before its body is read or the request recorded.
			perms, ok := s.authenticate(r, mode)
			if !ok {
				// Closing the connection spares reading the body even to
				// discard it (net/http does that to reuse a connection).
				w.Header().Set("Connection", "close")
				writeError(w, http.StatusUnauthorized, access.CodeAccessTokenInvalid, tokenInvalidMessage)
				return
			}
			s.serve(w, r, op, mode, func(w http.ResponseWriter) {
				if !slices.Contains(perms, perm) {
					writeError(w, http.StatusForbidden, access.CodeUnauthorized, permissionDeniedMessage)
					return
				}
				if s.replayed(w, r) {
					return
				}
				h(s, w, r)
			})
		})
		if !seen[path] {
			seen[path] = true
			paths.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
				writeError(w, http.StatusMethodNotAllowed, access.CodeParamsInvalid, "Method not allowed.")
			})
		}
	}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.pattern, " ")
		rest := strings.TrimPrefix(path, apiPrefix)
		handle(method, path, access.ModeDirect, rt.op, rt.perm, rt.h)
		handle(method, access.ProxyPrefix+rest, access.ModeProxy, rt.op, rt.perm, rt.h)
		if rt.op == OpNotificationsSubscribe {
			handle(method, olderProxySocketPath, access.ModeProxy, rt.op, rt.perm, rt.h)
		}
	}
	paths.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, access.CodeResourceNotFound, "No such operation.")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mode := modeOfPath(r.URL.Path)
		if s.consoleAnswers(w, r, opUnknown, mode) {
			return
		}
		s.serve(w, r, opUnknown, mode, func(w http.ResponseWriter) { paths.ServeHTTP(w, r) })
	})
	return mux
}

// serve buffers the request body, records the request and acts out the
// console's state (console.go) and an injected fault; when neither
// answered, it calls next, with a buffer for the answer except for the
// WebSocket upgrade.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, op Op, mode access.Mode, next func(http.ResponseWriter)) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, access.CodeParamsInvalid, "Cannot read the request body.")
		return
	}
	if len(body) > maxRequestBody {
		writeError(w, http.StatusRequestEntityTooLarge, access.CodeParamsInvalid, "Request body too large.")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	f := s.record(r, op, mode, body)
	if f != nil && !f.AfterHandling && s.applyFault(w, r, f) {
		return
	}
	if op == OpNotificationsSubscribe {
		next(w) // the WebSocket upgrade needs the connection itself
		return
	}
	// The handler writes into a buffer, which is sent after it returned
	// and so after it released s.mu: a client that does not read its
	// answer holds up nothing but its own connection.
	a := &answer{header: http.Header{}}
	before := s.mu.seq.Load()
	next(a)
	if s.commit != nil && r.Method != http.MethodGet && s.mu.seq.Load() != before {
		if err := s.commit(r.Context()); err != nil {
			writeError(w, http.StatusServiceUnavailable, access.CodeSystemError, commitFailedMessage)
			return
		}
	}
	if f != nil && f.AfterHandling && s.applyFault(w, r, f) {
		return
	}
	a.sendTo(w)
}

// answer is a handler's buffered answer.
type answer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *answer) Header() http.Header { return a.header }

func (a *answer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *answer) Write(b []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(b)
}

// sendTo writes the answer to w.
func (a *answer) sendTo(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	if a.status == 0 {
		a.status = http.StatusOK
	}
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body.Bytes())
}

// record logs the request and returns the fault it triggers, if any.
// Without faults injected, it holds s.mu shared only.
func (s *Server) record(r *http.Request, op Op, mode access.Mode, body []byte) *Fault {
	s.mu.RLock()
	s.journalLocked(r, op, mode, body)
	none := len(s.faults) == 0
	s.mu.RUnlock()
	if none || s.ownRequest(r) {
		return nil // none injected; or UnjournaledClient: the faults are for the clients under test
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, af := range s.faults {
		if (af.op != op && af.op != OpAny) || op == opUnknown || (af.op == OpAny && af.f.AfterHandling && op == OpNotificationsSubscribe) {
			continue
		}
		f := af.f
		if af.left > 0 {
			af.left--
			if af.left == 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
		}
		return &f
	}
	return nil
}

// journalLocked adds the request to the journal, its credential headers
// (Authorization, X-API-KEY) redacted, and counts its layout. s.mu is
// held, shared or not (for the clock); the journal's own lock is taken
// here.
func (s *Server) journalLocked(r *http.Request, op Op, mode access.Mode, body []byte) {
	if s.ownRequest(r) {
		return // UnjournaledClient: a view of the fake, nobody's use of the API
	}
	h := r.Header.Clone()
	if h.Get("Authorization") != "" {
		h.Set("Authorization", redactedAuthorizationHead)
	}
	for k := range h {
		if strings.EqualFold(k, apiKeyHeader) {
			h[k] = []string{"REDACTED"}
		}
	}
	req := Request{Op: op, Mode: mode, Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: h, Body: body}
	j := &s.journal
	j.mu.Lock()
	req.Time = s.clockNow() // read under the journal's lock: the journal stays in time order with requests journaled at once
	j.modes[mode]++
	j.requests.add(req)
	j.mu.Unlock()
}

// applyFault acts out f; it reports whether the request has been answered.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f *Fault) bool {
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			panic(http.ErrAbortHandler) // drop the connection: no empty 200
		case <-s.closing:
			panic(http.ErrAbortHandler)
		}
	}
	if f.DropConnection {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				if tc, ok := conn.(interface{ NetConn() net.Conn }); ok {
					// Reset rather than a clean TLS close: an abrupt drop.
					if tcp, ok := tc.NetConn().(*net.TCPConn); ok {
						_ = tcp.SetLinger(0)
					}
				}
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	}
	if f.Status == 0 && f.Code == "" && f.Body == "" && f.RetryAfter == 0 {
		return false // a pure delay
	}
	if f.RetryAfter > 0 {
		secs := int64((f.RetryAfter + time.Second - 1) / time.Second)
		w.Header().Set("Retry-After", strconv.FormatInt(secs, 10))
	}
	status := f.Status
	if status == 0 {
		status = http.StatusInternalServerError
		if f.Code != "" {
			status = http.StatusOK
		}
	}
	if f.Body != "" {
		ct := f.ContentType
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		_, _ = io.WriteString(w, f.Body)
		return true
	}
	code, msg := f.Code, f.Message
	if code == "" {
		code = defaultFaultCode(status)
	}
	if msg == "" {
		msg = "Injected fault."
		if status != http.StatusOK {
			msg = http.StatusText(status)
		}
	}
	writeError(w, status, code, msg)
	return true
}

// defaultFaultCode is the result code of an injected status without one.
// The vendor documents no code for 429, so none is sent.
func defaultFaultCode(status int) access.ErrorCode {
	switch {
	case status == http.StatusTooManyRequests:
		return ""
	case status == http.StatusUnauthorized:
		return access.CodeAccessTokenInvalid
	case status == http.StatusForbidden:
		return access.CodeUnauthorized
	case status == http.StatusNotFound:
		return access.CodeResourceNotFound
	case status >= 400 && status < 500:
		return access.CodeParamsInvalid
	}
	return access.CodeSystemError
}

// authenticate returns the permissions of the request's credential, in
// the header of its layout: "Authorization: Bearer <token>" direct,
// "X-API-KEY: <key>" through the proxy (a credential in the other
// layout's header is not looked at); false when it carries none the
// server knows. The credential is compared with every known one in
// constant time (their SHA-256 digests, so that neither a token's bytes
// nor its length shows in the time taken).
func (s *Server) authenticate(r *http.Request, mode access.Mode) ([]Permission, bool) {
	const scheme = "Bearer "
	var token string
	if mode == access.ModeProxy {
		token = r.Header.Get(apiKeyHeader)
	} else if auth := r.Header.Get("Authorization"); len(auth) > len(scheme) && strings.EqualFold(auth[:len(scheme)], scheme) {
		token = auth[len(scheme):]
	}
	if token == "" {
		return nil, false
	}
	given := sha256.Sum256([]byte(token))
	s.mu.RLock()
	defer s.mu.RUnlock()
	var perms []Permission
	found := 0
	for token, p := range s.tokens {
		known := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(given[:], known[:]) == 1 {
			perms, found = p, 1
		}
	}
	return perms, found == 1
}

type envelope struct {
	Code       access.ErrorCode `json:"code"`
	Msg        string           `json:"msg"`
	Data       any              `json:"data"`
	Pagination *pagination      `json:"pagination,omitempty"`
}

type pagination struct {
	PageNum  int `json:"page_num"`
	PageSize int `json:"page_size"`
	Total    int `json:"total"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func writeData(w http.ResponseWriter, data any) {
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "success", Data: data})
}

func writeError(w http.ResponseWriter, status int, code access.ErrorCode, msg string) {
	writeJSON(w, status, struct {
		Code access.ErrorCode `json:"code"`
		Msg  string           `json:"msg"`
	}{code, msg})
}

func badParams(w http.ResponseWriter, detail string) {
	writeError(w, http.StatusBadRequest, access.CodeParamsInvalid, paramsInvalidMessage+" "+detail)
}

func (s *Server) randomHex(n int) string {
	b := make([]byte, n)
	s.randomBytes(b)
	return hex.EncodeToString(b)
}

// randomBytes fills b from crypto/rand, or from the seeded generator of
// [WithSeed].
func (s *Server) randomBytes(b []byte) {
	if s.seeded == nil {
		_, _ = rand.Read(b)
		return
	}
	s.seeded.mu.Lock()
	defer s.seeded.mu.Unlock()
	_, _ = s.seeded.r.Read(b)
}

// seededIDs is the generator of [WithSeed].
type seededIDs struct {
	mu sync.Mutex
	r  *mrand.ChaCha8
}

// WithSeed makes every id, token, secret and request id the server
// generates come from a generator seeded with seed instead of
// crypto/rand, so that the same acts on the same clock
// ([WithClock]) give the same ids, webhook bodies and signatures: a
// scenario replays byte for byte. The secrets are then predictable: for
// tests only.
func WithSeed(seed uint64) Option {
	return func(s *Server) {
		var key [32]byte
		binary.LittleEndian.PutUint64(key[:], seed)
		s.seeded = &seededIDs{r: mrand.NewChaCha8(key)}
	}
}

func (s *Server) randomToken() string { return s.randomHex(16) }

// NewToken returns a new random API token (32 hexadecimal digits from
// crypto/rand), as a server without WithToken makes its own: for
// AddToken, or a simulator's clients.
func NewToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newID returns a random version-4 UUID.
func (s *Server) newID() string {
	b := make([]byte, 16)
	s.randomBytes(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
