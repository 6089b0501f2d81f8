package accesstest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/access-dev/access"
)

// OpNotificationsSubscribe is the notifications WebSocket's upgrade, for
// [Server.Inject] and [Request.Op].
const OpNotificationsSubscribe Op = "Notifications.Subscribe"

// DefaultKeepalive is the interval of the "Hello" keepalives the server
// sends on the notifications WebSocket, as a console does.
const DefaultKeepalive = 5 * time.Second

const (
	// notifyQueue is how many messages wait for one subscriber before
	// broadcast blocks (back-pressure rather than loss).
	notifyQueue = 1024
	notifyWrite = 5 * time.Second
	// notifyBatch is how many bytes of queued messages a subscriber's
	// socket gathers into one network write.
	notifyBatch  = 32 << 10
	keepaliveMsg = "Hello"
)

// WithKeepalive sets the interval of the "Hello" keepalives on the
// notifications WebSocket (default [DefaultKeepalive]); zero or less sends
// none. Tests of a client's idle watchdog use milliseconds.
func WithKeepalive(d time.Duration) Option {
	return func(s *Server) {
		s.notify.keepalive, s.notify.keepaliveSet = d, true
	}
}

// notifyHub holds the live notification subscribers.
type notifyHub struct {
	keepalive    time.Duration
	keepaliveSet bool

	mu       sync.Mutex
	subs     map[*wsSub]struct{}
	accepted int           // upgrades accepted since the start
	changed  chan struct{} // closed and replaced whenever subs changes
}

// wsSub is one connected subscriber.
type wsSub struct {
	out    chan []byte
	kill   chan struct{} // closed to drop the socket
	done   chan struct{} // closed when its handler has returned
	once   sync.Once
	silent atomic.Bool
}

func (sub *wsSub) drop() { sub.once.Do(func() { close(sub.kill) }) }

func (h *notifyHub) interval() time.Duration {
	if !h.keepaliveSet {
		return DefaultKeepalive
	}
	return h.keepalive
}

// notifyLocked signals a change of the subscriber set; h.mu is held.
func (h *notifyHub) notifyLocked() {
	if h.changed != nil {
		close(h.changed)
	}
	h.changed = make(chan struct{})
}

func (h *notifyHub) add(sub *wsSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[*wsSub]struct{}{}
	}
	h.subs[sub] = struct{}{}
	h.accepted++
	h.notifyLocked()
}

func (h *notifyHub) remove(sub *wsSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[sub]; ok {
		delete(h.subs, sub)
		h.notifyLocked()
	}
}

func (h *notifyHub) snapshot() []*wsSub {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*wsSub, 0, len(h.subs))
	for sub := range h.subs {
		out = append(out, sub)
	}
	return out
}

// serveNotifications serves the WebSocket after authentication: the
// access.base.info handshake, then the broadcast notifications and the
// keepalives, until the client leaves, the socket is dropped or the server
// closes.
func (s *Server) serveNotifications(w http.ResponseWriter, r *http.Request) {
	if !s.life.enter() {
		writeError(w, http.StatusServiceUnavailable, access.CodeSystemError, "The server is closing.")
		return
	}
	defer s.life.leave()
	// No browser clients: the Origin check is moot. The socket writes
	// through a corkConn, so that a burst of queued notifications leaves
	// in one network write.
	cw := &corkWriter{ResponseWriter: w}
	conn, err := websocket.Accept(cw, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return // Accept has answered
	}
	defer conn.CloseNow()
	// Close does not wait for a client that does not read: closing the
	// connection ends any write in progress.
	defer context.AfterFunc(s.life.ctx, func() { _ = conn.CloseNow() })()
	sub := &wsSub{out: make(chan []byte, notifyQueue), kill: make(chan struct{}), done: make(chan struct{})}
	defer close(sub.done)
	// The client sends nothing; CloseRead answers its pings and close frame
	// and ends ctx when it goes away.
	ctx := conn.CloseRead(context.Background())
	s.notify.add(sub)
	defer s.notify.remove(sub)

	write := func(msg []byte) bool {
		wctx, cancel := context.WithTimeout(ctx, notifyWrite)
		defer cancel()
		return conn.Write(wctx, websocket.MessageText, msg) == nil
	}
	// writeQueued writes msg and the messages queued behind it (up to a
	// batch) as one network write, bounded by notifyWrite. The messages are
	// written to memory first, so the library's writes need no deadline of
	// their own; the network write has one.
	writeQueued := func(msg []byte) bool {
		cw.conn.cork()
		err := conn.Write(context.Background(), websocket.MessageText, msg)
		for size := len(msg); err == nil && size < notifyBatch; {
			select {
			case next := <-sub.out:
				err = conn.Write(context.Background(), websocket.MessageText, next)
				size += len(next)
				continue
			default:
			}
			break
		}
		if ferr := cw.conn.uncork(notifyWrite); err == nil {
			err = ferr
		}
		return err == nil
	}
	if !write(s.handshake()) {
		return
	}
	var tick <-chan time.Time
	if d := s.notify.interval(); d > 0 {
		t := time.NewTicker(d)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case msg := <-sub.out:
			if !sub.silent.Load() && !writeQueued(msg) {
				return
			}
		case <-tick:
			if !sub.silent.Load() && !write([]byte(keepaliveMsg)) {
				return
			}
		case <-sub.kill:
			return
		case <-ctx.Done():
			return
		case <-s.closing:
			return
		}
	}
}

// corkWriter hands the WebSocket library a corkConn in place of the
// hijacked connection.
type corkWriter struct {
	http.ResponseWriter
	conn *corkConn
}

// Hijack implements [http.Hijacker].
func (w *corkWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	nc, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if err := brw.Flush(); err != nil {
		_ = nc.Close()
		return nil, nil, err
	}
	w.conn = &corkConn{Conn: nc}
	// The library writes its frames through the writer it is given.
	return w.conn, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.conn, brw.Writer.Size())), nil
}

// Unwrap returns the wrapped writer, for [http.ResponseController].
func (w *corkWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// corkConn is a notifications WebSocket's network connection. While it is
// corked, writes (the library's frames, from any goroutine) gather in
// memory, in order; uncork sends them with one write, which costs one TLS
// record and one system call for a whole burst of notifications instead
// of one for each. Writes while it is not corked go straight through.
type corkConn struct {
	net.Conn
	mu     sync.Mutex // held while writing to Conn, so that writes keep their order
	corked bool
	buf    []byte
}

// Write implements [net.Conn].
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.corked {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork writes what gathered since cork, giving up after timeout, and
// lets later writes go straight through again.
func (c *corkConn) uncork(timeout time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.buf) == 0 {
		return nil
	}
	var err error
	if err = c.Conn.SetWriteDeadline(time.Now().Add(timeout)); err == nil {
		_, err = c.Conn.Write(c.buf)
		if derr := c.Conn.SetWriteDeadline(time.Time{}); err == nil {
			err = derr
		}
	}
	if cap(c.buf) > 4*notifyBatch {
		c.buf = nil // a burst of large messages: do not keep its buffer
	} else {
		c.buf = c.buf[:0]
	}
	return err
}

// handshake is the first message of every connection.
func (s *Server) handshake() []byte {
	b, _ := json.Marshal(&access.Notification{
		Event:         access.NotificationBaseInfo,
		EventObjectID: s.newID(),
		Data:          json.RawMessage(`{"top_log_count":0}`),
	})
	return b
}

// broadcast sends msg, one WebSocket text message, to every connected
// subscriber, in order after what was sent before. It is the hook through
// which the server's state changes reach the WebSocket. msg must not be
// modified afterwards. When a subscriber's queue is full it waits for room
// (the client is reading) or for that subscriber to go away; it never
// waits while holding the server's lock, and must not be called with s.mu
// held.
func (s *Server) broadcast(msg []byte) {
	for _, sub := range s.notify.snapshot() {
		select {
		case sub.out <- msg:
		case <-sub.kill:
		case <-sub.done:
		case <-s.closing:
		}
	}
}

// Notify sends notifications to every client connected to the
// notifications WebSocket, in order, as a console would: tests use it to
// emit any notification, documented or not. They go after the
// notifications that state changes queued before, and Notify returns once
// they have been handed to every subscriber. It returns an error, before
// sending anything, for a nil notification or one that cannot be encoded
// (invalid JSON in Data or Meta). Clients that connect later do not
// receive them: wait for the subscriber first with
// [Server.WaitNotificationClients].
func (s *Server) Notify(ns ...*access.Notification) error {
	msgs := make([][]byte, 0, len(ns))
	for _, n := range ns {
		if n == nil {
			return errors.New("accesstest: Notify: nil notification")
		}
		b, err := json.Marshal(n)
		if err != nil {
			return errors.New("accesstest: Notify: " + err.Error())
		}
		msgs = append(msgs, b)
	}
	s.notifyQueued(msgs)
	return nil
}

// notifyQueued sends msgs through the queue that the state changes'
// notifications take, so that they keep their order with those queued
// before, and waits until they have been handed to every subscriber.
func (s *Server) notifyQueued(msgs [][]byte) {
	if len(msgs) == 0 {
		return
	}
	sent := make(chan struct{})
	s.mu.Lock()
	for i, m := range msgs {
		j := hubJob{ws: m}
		if i == len(msgs)-1 {
			j.sent = sent
		}
		s.queueDelivery(j)
	}
	s.mu.Unlock()
	<-sent
}

// NotifyRaw sends msg verbatim, as one text message, to every connected
// client: a malformed message, an oversized one, a bare "Hello".
func (s *Server) NotifyRaw(msg []byte) {
	s.notifyQueued([][]byte{append([]byte(nil), msg...)})
}

// NotificationClients returns how many clients are connected to the
// notifications WebSocket.
func (s *Server) NotificationClients() int {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	return len(s.notify.subs)
}

// WaitNotificationClients waits until exactly n clients are connected to
// the notifications WebSocket, or ctx ends (its error is returned). A
// client counts from the moment its upgrade is accepted: a notification
// sent after the wait reaches it, after the handshake.
func (s *Server) WaitNotificationClients(ctx context.Context, n int) error {
	return s.waitNotify(ctx, func(h *notifyHub) bool { return len(h.subs) == n })
}

// NotificationConnections returns how many upgrades of the notifications
// WebSocket the server has accepted since it started, reconnections
// included.
func (s *Server) NotificationConnections() int {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	return s.notify.accepted
}

// WaitNotificationConnections waits until the server has accepted at least
// total upgrades of the notifications WebSocket since it started, or ctx
// ends (its error is returned). After a drop or a silence, waiting for one
// more connection than before is how a test knows that the client has
// reconnected, however quickly the old socket goes away.
func (s *Server) WaitNotificationConnections(ctx context.Context, total int) error {
	return s.waitNotify(ctx, func(h *notifyHub) bool { return h.accepted >= total })
}

func (s *Server) waitNotify(ctx context.Context, done func(*notifyHub) bool) error {
	for {
		s.notify.mu.Lock()
		if done(&s.notify) {
			s.notify.mu.Unlock()
			return nil
		}
		if s.notify.changed == nil {
			s.notify.changed = make(chan struct{})
		}
		ch := s.notify.changed
		s.notify.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// DropNotificationClients closes every notifications WebSocket abruptly,
// without a close handshake, as a console that restarts or a network that
// fails, and returns how many it closed. They stop counting at once in
// [Server.NotificationClients]; clients may connect again.
func (s *Server) DropNotificationClients() int {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	n := len(s.notify.subs)
	for sub := range s.notify.subs {
		sub.drop()
		delete(s.notify.subs, sub)
	}
	if n > 0 {
		s.notify.notifyLocked()
	}
	return n
}

// SilenceNotificationClients makes every currently connected notifications
// WebSocket go silent without closing, as a dead console's socket does: no
// keepalive and no notification is sent on it any more. Clients that
// connect afterwards are served normally. It returns how many sockets it
// silenced.
func (s *Server) SilenceNotificationClients() int {
	subs := s.notify.snapshot()
	for _, sub := range subs {
		sub.silent.Store(true)
	}
	return len(subs)
}
