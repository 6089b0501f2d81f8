package accesstest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"slices"
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
	// notifyQueue is how many messages may wait for one subscriber before
	// [Server.Notify] waits for room (the test's own back-pressure); the
	// fan-out of state changes never waits.
	notifyQueue = 1024
	// notifyBacklog is how many bytes of messages may wait for one
	// subscriber: past it the subscriber does not read, and it is dropped
	// (its socket closed abruptly, as a console does with a client that
	// lags), without holding up the others.
	notifyBacklog = 8 << 20
	notifyWrite   = 5 * time.Second
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

	mu sync.Mutex
	// subs are the live subscribers, in the order they came. The slice is
	// never modified: a change stores a new one (h.mu held), so the
	// fan-out reads it with one atomic load and no copy.
	subs     atomic.Pointer[[]*wsSub]
	accepted int           // upgrades accepted since the start
	lagged   int           // subscribers dropped because their queue was full
	changed  chan struct{} // closed and replaced whenever subs changes
	backlog  int           // notifyBacklog, or less in tests
}

// wsSub is one connected subscriber: its own queue of messages, filled by
// the fan-out ([Server.fanOut]) without waiting and emptied by the
// socket's goroutine.
type wsSub struct {
	wake   chan struct{} // a message was queued (capacity 1)
	kill   chan struct{} // closed to drop the socket
	done   chan struct{} // closed when its handler has returned
	once   sync.Once
	silent atomic.Bool

	mu     sync.Mutex
	queue  []qmsg // queue[head:] wait, oldest first
	head   int
	queued int           // bytes in queue[head:]
	room   chan struct{} // closed when the queue is back to notifyQueue messages
	lagged bool
}

func newSub() *wsSub {
	return &wsSub{wake: make(chan struct{}, 1), kill: make(chan struct{}), done: make(chan struct{})}
}

func (sub *wsSub) drop() { sub.once.Do(func() { close(sub.kill) }) }

// push queues msg without waiting. A subscriber whose queue would pass
// limit bytes is dropped instead, and push reports false.
func (sub *wsSub) push(msg qmsg, limit int) bool {
	sub.mu.Lock()
	if sub.lagged {
		sub.mu.Unlock()
		return false
	}
	if sub.queued+len(msg.b) > limit && sub.queued > 0 {
		sub.lagged = true
		clear(sub.queue)
		sub.queue, sub.head, sub.queued = nil, 0, 0
		if sub.room != nil {
			close(sub.room)
			sub.room = nil
		}
		sub.mu.Unlock()
		sub.drop()
		return false
	}
	sub.queue = append(sub.queue, msg)
	sub.queued += len(msg.b)
	sub.mu.Unlock()
	select {
	case sub.wake <- struct{}{}:
	default:
	}
	return true
}

// pop moves the oldest queued messages, up to max bytes (at least one
// message), to batch and returns it.
func (sub *wsSub) pop(batch []qmsg, max int) []qmsg {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	size := 0
	for sub.head < len(sub.queue) && (size == 0 || size+len(sub.queue[sub.head].b) <= max) {
		m := sub.queue[sub.head]
		sub.queue[sub.head] = qmsg{}
		sub.head++
		size += len(m.b)
		batch = append(batch, m)
	}
	sub.queued -= size
	switch n := len(sub.queue) - sub.head; {
	case n == 0:
		sub.queue, sub.head = sub.queue[:0], 0
		if cap(sub.queue) > 4*notifyQueue {
			sub.queue = nil // a burst is over: do not keep its array
		}
	case sub.head > n:
		sub.queue, sub.head = append(sub.queue[:0], sub.queue[sub.head:]...), 0
		clear(sub.queue[len(sub.queue):cap(sub.queue)])
	}
	if sub.room != nil && len(sub.queue)-sub.head <= notifyQueue {
		close(sub.room)
		sub.room = nil
	}
	return batch
}

// waitRoom waits until at most notifyQueue messages wait for sub, sub is
// gone or the server closes.
func (sub *wsSub) waitRoom(closing <-chan struct{}) {
	for {
		sub.mu.Lock()
		if sub.lagged || len(sub.queue)-sub.head <= notifyQueue {
			sub.mu.Unlock()
			return
		}
		if sub.room == nil {
			sub.room = make(chan struct{})
		}
		room := sub.room
		sub.mu.Unlock()
		select {
		case <-room:
		case <-sub.kill:
			return
		case <-sub.done:
			return
		case <-closing:
			return
		}
	}
}

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
	old := h.snapshot()
	subs := append(make([]*wsSub, 0, len(old)+1), old...)
	subs = append(subs, sub)
	h.subs.Store(&subs)
	h.accepted++
	h.notifyLocked()
}

func (h *notifyHub) remove(sub *wsSub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.removeLocked(sub)
}

// removeLocked takes sub out of the subscribers, if it is one, and reports
// whether it was; h.mu is held.
func (h *notifyHub) removeLocked(sub *wsSub) bool {
	old := h.snapshot()
	i := slices.Index(old, sub)
	if i < 0 {
		return false
	}
	subs := slices.Delete(slices.Clone(old), i, i+1)
	h.subs.Store(&subs)
	h.notifyLocked()
	return true
}

// snapshot returns the live subscribers: a slice that must not be
// modified, read without a lock.
func (h *notifyHub) snapshot() []*wsSub {
	if p := h.subs.Load(); p != nil {
		return *p
	}
	return nil
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
	sub := newSub()
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
	// writeBatch writes queued messages (up to a batch) as one network
	// write, bounded by notifyWrite. The messages are written to memory
	// first, so the library's writes need no deadline of their own; the
	// network write has one.
	writeBatch := func(msgs []qmsg) bool {
		cw.conn.cork()
		var err error
		for _, m := range msgs {
			if err = conn.Write(context.Background(), websocket.MessageText, m.b); err != nil {
				break
			}
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
	var batch []qmsg
	for {
		select {
		case <-sub.wake:
			for {
				batch = sub.pop(batch[:0], notifyBatch)
				if len(batch) == 0 {
					break
				}
				ok := sub.silent.Load() || writeBatch(batch)
				// Written (copied to the connection's buffer) or not to be:
				// NotifyRaw's pooled buffers can go back.
				for _, m := range batch {
					m.raw.release()
				}
				clear(batch)
				if !ok {
					return
				}
				select {
				case <-sub.kill:
					return
				default:
				}
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

// fanOut hands msg, one WebSocket text message, to every connected
// subscriber's queue, after what was handed before, without waiting: a
// subscriber whose queue is full (it does not read) is dropped, and the
// others are not held up. It is the hook through which the server's state
// changes reach the WebSocket; the caller holds s.mu, which keeps the
// order. msg must not be modified afterwards. It takes no lock and
// allocates nothing unless a subscriber is dropped: the subscribers are
// read with one atomic load.
func (s *Server) fanOut(msg []byte) { s.fanOutMsg(qmsg{b: msg}) }

// fanOutMsg is fanOut for a queued message, which may hold a pooled
// buffer: each subscriber it is queued for holds a reference, which its
// socket lets go once the message is written.
func (s *Server) fanOutMsg(msg qmsg) {
	h := &s.notify
	limit := h.backlog
	if limit <= 0 {
		limit = notifyBacklog
	}
	for _, sub := range h.snapshot() {
		msg.raw.hold()
		if !sub.push(msg, limit) {
			msg.raw.release()
			h.mu.Lock()
			if h.removeLocked(sub) {
				h.lagged++
			}
			h.mu.Unlock()
		}
	}
}

// Notify sends notifications to every client connected to the
// notifications WebSocket, in order, as a console would: tests use it to
// emit any notification, documented or not. They go after the
// notifications that state changes queued before, and Notify returns once
// they have been handed to every subscriber and no subscriber has more
// than 1024 messages waiting (so a flood goes at the pace of the slowest
// reader; one that does not read at all is dropped once 8 MiB wait for
// it, as with the state changes' notifications). It returns an error, before
// sending anything, for a nil notification or one that cannot be encoded
// (invalid JSON in Data or Meta). Clients that connect later do not
// receive them: wait for the subscriber first with
// [Server.WaitNotificationClients].
func (s *Server) Notify(ns ...*access.Notification) error {
	msgs := make([]qmsg, 0, len(ns))
	for _, n := range ns {
		if n == nil {
			return errors.New("accesstest: Notify: nil notification")
		}
		b, err := json.Marshal(n)
		if err != nil {
			return errors.New("accesstest: Notify: " + err.Error())
		}
		msgs = append(msgs, qmsg{b: b})
	}
	s.notifyQueued(msgs)
	return nil
}

// notifyQueued hands msgs to the subscribers as the state changes'
// notifications are, so that they keep their order with those handed
// before, and then waits until no subscriber has more than notifyQueue
// messages waiting (or it is gone): a test that sends a flood goes at the
// pace of its slowest reader.
func (s *Server) notifyQueued(msgs []qmsg) {
	if len(msgs) == 0 {
		return
	}
	s.mu.Lock()
	for _, m := range msgs {
		s.fanOutMsg(m)
	}
	// Those that got msgs, and perhaps one that joined since (its queue
	// holds at most the few messages queued after its arrival).
	subs := s.notify.snapshot()
	s.mu.Unlock()
	for _, sub := range subs {
		sub.waitRoom(s.closing)
	}
}

// NotifyRaw sends msg verbatim, as one text message, to every connected
// client: a malformed message, an oversized one, a bare "Hello".
func (s *Server) NotifyRaw(msg []byte) {
	m := rawPool.Get().(*rawMsg)
	m.b = append(m.b[:0], msg...)
	m.refs.Store(1) // NotifyRaw's own, until the fan-out is done
	s.notifyQueued([]qmsg{{b: m.b, raw: m}})
	m.release()
}

// qmsg is one message queued for a subscriber: its bytes, and the pooled
// buffer that holds them when [Server.NotifyRaw] made it (nil otherwise).
type qmsg struct {
	b   []byte
	raw *rawMsg
}

// rawMsg is a copy NotifyRaw made of its caller's message, in a buffer
// taken from rawPool: it goes back once every subscriber it was queued
// for has written it (a subscriber dropped with it queued never gives it
// back: the collector takes it). A flood from NotifyRaw thus makes no
// garbage of its own, which at tens of thousands of messages a second
// is most of what the collector would stop for.
type rawMsg struct {
	b    []byte
	refs atomic.Int32
}

// rawPool holds NotifyRaw's buffers; one larger than rawPoolMax is not
// kept.
var rawPool = sync.Pool{New: func() any { return new(rawMsg) }}

const rawPoolMax = 64 << 10

func (m *rawMsg) hold() {
	if m != nil {
		m.refs.Add(1)
	}
}

func (m *rawMsg) release() {
	if m == nil || m.refs.Add(-1) != 0 {
		return
	}
	if cap(m.b) <= rawPoolMax {
		m.b = m.b[:0]
		rawPool.Put(m)
	}
}

// NotificationClients returns how many clients are connected to the
// notifications WebSocket.
func (s *Server) NotificationClients() int {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	return len(s.notify.snapshot())
}

// WaitNotificationClients waits until exactly n clients are connected to
// the notifications WebSocket, or ctx ends (its error is returned). A
// client counts from the moment its upgrade is accepted: a notification
// sent after the wait reaches it, after the handshake.
func (s *Server) WaitNotificationClients(ctx context.Context, n int) error {
	return s.waitNotify(ctx, func(h *notifyHub) bool { return len(h.snapshot()) == n })
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
	subs := s.notify.snapshot()
	n := len(subs)
	for _, sub := range subs {
		sub.drop()
	}
	if n > 0 {
		s.notify.subs.Store(nil)
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
