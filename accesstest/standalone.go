package accesstest

import "net/http"

// Handler returns the server's developer API (under /api/v1/developer and
// the proxy's /proxy/access/integration/v1/developer, with the
// notifications WebSocket) as an http.Handler, to serve on a
// listener of one's own, as the `access fake` command does: the same
// state, faults and events as the server's own TLS address ([Server.URL]),
// which keeps serving too. Serve it over TLS with HTTP/1.1 (the WebSocket
// upgrade needs it).
func (s *Server) Handler() http.Handler { return s.handler() }
