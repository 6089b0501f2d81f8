package accesstest

import (
	"context"
	"net"
	"net/http"
	"sync"

	"github.com/access-dev/access"
)

// ownConns are the connections of [Server.UnjournaledClient], by their
// two addresses (client's, then server's): an address pair is held by
// one open TCP connection at a time, so no request from outside the
// process can carry a pair registered here.
type ownConns struct{ m sync.Map }

// UnjournaledClient is [Server.Client] for a view of the fake in the same
// process (the simulator's web page following the notifications): its
// requests are served as any client's, but they are neither in the
// journal ([Server.Requests], [Server.RequestsSince]) nor counted in
// [Server.RequestsByMode], as they are nobody's use of the API, and no
// injected [Fault] is spent on them (a fault is for the clients under
// test). Its
// connections are told apart by their addresses, registered when this
// client dials them and forgotten when they close; no header or
// credential marks them, so nothing outside the process can pass for
// one. It panics if an option is invalid.
func (s *Server) UnjournaledClient(opts ...access.Option) *access.Client {
	tr := s.srv.Client().Transport.(*http.Transport).Clone()
	dial := tr.DialContext
	if dial == nil { // go1.23's httptest client dials with the defaults
		dial = (&net.Dialer{}).DialContext
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		key := c.LocalAddr().String() + " " + c.RemoteAddr().String()
		s.own.m.Store(key, struct{}{})
		return &ownConn{Conn: c, forget: func() { s.own.m.Delete(key) }}, nil
	}
	return s.clientWith(s.URL(), s.token, &http.Client{Transport: tr}, opts)
}

// ownRequest reports whether r came on a connection of
// [Server.UnjournaledClient].
func (s *Server) ownRequest(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	_, own := s.own.m.Load(r.RemoteAddr + " " + local.String())
	return own
}

// ownConn forgets its address pair when it closes.
type ownConn struct {
	net.Conn
	once   sync.Once
	forget func()
}

func (c *ownConn) Close() error {
	c.once.Do(c.forget)
	return c.Conn.Close()
}
