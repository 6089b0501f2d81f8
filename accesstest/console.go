package accesstest

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/access-dev/access"
)

// The layouts of a UniFi OS console's proxy, as integrators report them
// (vendor-notes §7); the direct layout is apiPrefix.
const (
	// olderProxySocketPath is where older firmware serves the
	// notifications WebSocket behind the proxy.
	olderProxySocketPath = "/proxy/access/api/v1/developer/devices/notifications"
	// apiKeyHeader carries the key through the proxy.
	apiKeyHeader = "X-API-KEY"
)

// The bodies a console's proxy answers with when Access is missing or
// restarting. The vendor documents none of them: these are our guess,
// shaped after what integrators describe (CONFORMANCE.md says so).
const (
	unifiOSPage       = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>UniFi OS</title></head><body><div id=\"root\"></div></body></html>\n"
	badGatewayPage    = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n"
	proxyUnauthorized = `{"error":{"code":401,"message":"Unauthorized"}}`
)

// consoleState is how the console around Access behaves: the firmware's
// socket path, a restart in progress, Access missing. Guarded by s.mu.
type consoleState struct {
	olderSocketOnly bool
	withoutAccess   bool
	badGatewayUntil time.Time // a restart: the proxy answers 502 until then,
	unauthUntil     time.Time // then 401 until then
}

// WithOlderProxySocket makes the server act as older console firmware:
// through the proxy, the notifications WebSocket answers only at
// /proxy/access/api/v1/developer/devices/notifications, and HTTP 404
// under the REST base (/proxy/access/integration/v1/developer/devices/notifications).
// The direct path is not affected.
func WithOlderProxySocket() Option {
	return func(s *Server) { s.console.olderSocketOnly = true }
}

// WithoutAccess makes the server act as a UniFi OS console on which Access
// is not installed: the proxy layout answers every request with the
// console's own HTML page (HTTP 200), and the direct layout closes the
// connection without an answer, as a port nothing listens on would.
func WithoutAccess() Option {
	return func(s *Server) { s.console.withoutAccess = true }
}

// Restart acts out a console restart, as integrators report it: every
// notifications WebSocket is dropped, and through the proxy every request
// is answered with HTTP 502 for badGateway and then HTTP 401 for
// unauthorized, on the server's clock ([Server.Now]; [Server.Advance]
// moves it on), before the console serves again. The direct layout is not
// affected. The bodies are our guess (CONFORMANCE.md). It returns the
// window it set and how many sockets it dropped.
func (s *Server) Restart(badGateway, unauthorized time.Duration) RestartWindow {
	s.mu.Lock()
	now := s.clockNow()
	w := RestartWindow{BadGatewayUntil: now.Add(badGateway), UnauthorizedUntil: now.Add(badGateway + unauthorized)}
	s.console.badGatewayUntil = w.BadGatewayUntil
	s.console.unauthUntil = w.UnauthorizedUntil
	s.mu.Unlock()
	w.SocketsDropped = s.DropNotificationClients()
	return w
}

// RestartWindow is what [Server.Restart] set going, on the server's
// clock.
type RestartWindow struct {
	// BadGatewayUntil is when the proxy stops answering HTTP 502.
	BadGatewayUntil time.Time
	// UnauthorizedUntil is when it stops answering HTTP 401: the console
	// serves again.
	UnauthorizedUntil time.Time
	// SocketsDropped is how many notifications WebSockets were closed.
	SocketsDropped int
}

// RequestsByMode returns how many requests the server received in each
// layout: direct (/api/v1/developer) and through the proxy.
func (s *Server) RequestsByMode() (direct, proxy int) {
	j := &s.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.modes[access.ModeDirect], j.modes[access.ModeProxy]
}

// ModeUsed returns the layout every request so far came in (direct or
// through the proxy); ok is false when none came, or some came in each,
// as when a program is meant to reach a console one way only.
func (s *Server) ModeUsed() (mode access.Mode, ok bool) {
	direct, proxy := s.RequestsByMode()
	switch {
	case direct > 0 && proxy == 0:
		return access.ModeDirect, true
	case proxy > 0 && direct == 0:
		return access.ModeProxy, true
	}
	return access.ModeDirect, false
}

// CheckModeUsed marks t failed, saying how many requests came each way,
// unless every request so far came in mode: a test of a program meant to
// reach a console one way only.
func (s *Server) CheckModeUsed(t testing.TB, mode access.Mode) {
	t.Helper()
	if got, ok := s.ModeUsed(); !ok || got != mode {
		direct, proxy := s.RequestsByMode()
		t.Errorf("%d requests direct, %d through the proxy: want every one in %s mode", direct, proxy, mode)
	}
}

// ForEachMode runs f as a subtest of t, named after the mode, for each
// way a console is reached: [access.ModeDirect] and [access.ModeProxy]
// (a base URL under [access.ProxyPrefix], the credential as X-API-KEY).
// [Server.ClientFor] gives the client of each.
func ForEachMode(t *testing.T, f func(t *testing.T, mode access.Mode)) {
	t.Helper()
	for _, mode := range []access.Mode{access.ModeDirect, access.ModeProxy} {
		t.Run(mode.String(), func(t *testing.T) { f(t, mode) })
	}
}

// operationPath is the request's escaped path under its layout's prefix
// (/visitors/v1/license_plates/p1), the same in both layouts.
func operationPath(r *http.Request) string {
	p := r.URL.EscapedPath()
	if rest, ok := strings.CutPrefix(p, access.ProxyPrefix); ok {
		return rest
	}
	return strings.TrimPrefix(p, apiPrefix)
}

// modeOfPath is the layout of a request path.
func modeOfPath(p string) access.Mode {
	if strings.HasPrefix(p, "/proxy/access/") {
		return access.ModeProxy
	}
	return access.ModeDirect
}

// consoleAnswers answers for the console around Access when it is
// restarting, lacks Access, or is older firmware asked for the socket at
// the current path; it reports whether it answered.
//
// It runs before authentication, as the console's proxy answers before
// Access sees the request; a request it answers is recorded (without its
// body, which is not read).
func (s *Server) consoleAnswers(w http.ResponseWriter, r *http.Request, op Op, mode access.Mode) bool {
	s.mu.RLock()
	c := s.console
	now := s.clockNow()
	answers := c.withoutAccess || mode == access.ModeProxy && (now.Before(c.unauthUntil) ||
		c.olderSocketOnly && op == OpNotificationsSubscribe && r.URL.Path != olderProxySocketPath)
	if answers {
		s.journalLocked(r, op, mode, nil)
	}
	s.mu.RUnlock()
	if !answers {
		return false
	}
	switch {
	case c.withoutAccess && mode == access.ModeDirect:
		panic(http.ErrAbortHandler) // nothing listens on the API port
	case c.withoutAccess:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, unifiOSPage)
		return true
	case mode != access.ModeProxy:
		return false
	case now.Before(c.badGatewayUntil):
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, badGatewayPage)
		return true
	case now.Before(c.unauthUntil):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, proxyUnauthorized)
		return true
	case c.olderSocketOnly && op == OpNotificationsSubscribe && r.URL.Path != olderProxySocketPath:
		writeError(w, http.StatusNotFound, access.CodeResourceNotFound, "No such operation.")
		return true
	}
	return false
}
