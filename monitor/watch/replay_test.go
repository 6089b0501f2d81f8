package watch_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/access-dev/access"
)

// realFrames are the notifications in testdata that users published from
// live consoles (see testdata/notifications/README.md): the frames of the
// events benchmark.
var realFrames = []string{
	"device_update_hub_mini.json",
	"location_update_v2_guard.json",
	"location_update_v2_intercom.json",
	"device_update_eah8.json",
	"logs_add_hub_mini.json",
	"logs_add_log_category.json",
}

// loadFrames returns the published frames, compacted as consoles send
// them, and the handshake frame (access.base.info).
func loadFrames(tb testing.TB) (hello []byte, msgs [][]byte) {
	tb.Helper()
	load := func(name string) []byte {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "notifications", name))
		if err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			tb.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, name := range realFrames {
		msgs = append(msgs, load(name))
	}
	return load("base_info.json"), msgs
}

// textFrame encodes payload as one final, unmasked WebSocket text frame
// (RFC 6455 §5.2), as a server sends it.
func textFrame(payload []byte) []byte {
	f := []byte{0x81}
	switch n := len(payload); {
	case n < 126:
		f = append(f, byte(n))
	case n <= 0xffff:
		f = append(f, 126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f = append(f, 127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	return append(f, payload...)
}

// replayConn serves the handshake frame, then the cycle of frames over and
// over, from memory; what the client writes is discarded.
type replayConn struct {
	hello, cycle []byte
	off          int
	mu           sync.Mutex
	closed       bool
}

func (c *replayConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, net.ErrClosed
	}
	if len(c.hello) > 0 {
		n := copy(p, c.hello)
		c.hello = c.hello[n:]
		return n, nil
	}
	n := copy(p, c.cycle[c.off:])
	c.off = (c.off + n) % len(c.cycle)
	return n, nil
}

func (c *replayConn) Write(p []byte) (int, error) { return len(p), nil }

func (c *replayConn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// replayClient returns a client whose notifications stream is the recorded
// frames, replayed from memory: no network and no sender.
func replayClient(tb testing.TB, hello []byte, msgs [][]byte) *access.Client {
	tb.Helper()
	var cycle []byte
	for _, m := range msgs {
		cycle = append(cycle, textFrame(m)...)
	}
	hello = textFrame(hello)
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		h := http.Header{}
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		h.Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
		return &http.Response{StatusCode: http.StatusSwitchingProtocols, Header: h, Request: r,
			Body: &replayConn{hello: hello, cycle: cycle}}, nil
	})
	cl, err := access.NewClient("https://console.test:12445", "bench-token", access.WithHTTPClient(&http.Client{Transport: rt}))
	if err != nil {
		tb.Fatal(err)
	}
	return cl
}

// subscribe reads n notifications of cl's stream, handing each to each.
func subscribe(tb testing.TB, cl *access.Client, n int, each func(*access.Notification)) {
	if n == 0 {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	read := 0
	for ev, err := range cl.Notifications.Subscribe(ctx, nil) {
		if err != nil {
			tb.Fatal(err)
		}
		each(ev)
		if read++; read == n {
			return
		}
	}
}
