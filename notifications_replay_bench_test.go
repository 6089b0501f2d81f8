package access

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// The frames of the replayed stream: the notifications in testdata that
// users published from live consoles (see testdata/notifications/README.md),
// compacted as consoles send them.
var replayFrames = []string{
	"device_update_hub_mini.json",
	"location_update_v2_guard.json",
	"location_update_v2_intercom.json",
	"device_update_eah8.json",
	"logs_add_hub_mini.json",
	"logs_add_log_category.json",
}

// replayStream returns the handshake frame (access.base.info) and one cycle
// of the published frames, each encoded as a server's unmasked text frame.
func replayStream(tb testing.TB) (hello, cycle []byte, frames int) {
	tb.Helper()
	load := func(name string) []byte {
		raw, err := os.ReadFile(filepath.Join("testdata", "notifications", name))
		require.NoError(tb, err)
		var buf bytes.Buffer
		require.NoError(tb, json.Compact(&buf, raw))
		return wsTextFrame(buf.Bytes())
	}
	hello = load("base_info.json")
	for _, name := range replayFrames {
		cycle = append(cycle, load(name)...)
	}
	return hello, cycle, len(replayFrames)
}

// wsTextFrame encodes payload as one final, unmasked text frame (RFC 6455
// §5.2), as a server sends it.
func wsTextFrame(payload []byte) []byte {
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

// replayConn is the connection of an accepted upgrade that serves the
// handshake frame, then the cycle of frames over and over, from memory;
// what the client writes is discarded. With an empty cycle it goes silent
// after the handshake: a read then blocks until the connection is closed.
type replayConn struct {
	hello, cycle []byte
	off          int
	closed       atomic.Bool
	done         chan struct{}
	closeOnce    sync.Once
	silent       chan<- struct{} // told (without blocking) when a read waits
}

func (c *replayConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	if len(c.hello) == 0 && len(c.cycle) == 0 {
		select {
		case c.silent <- struct{}{}:
		default:
		}
		<-c.done
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

func (c *replayConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	return len(p), nil
}

func (c *replayConn) Close() error {
	c.closed.Store(true)
	c.closeOnce.Do(func() { close(c.done) })
	return nil
}

// replayTransport accepts every WebSocket upgrade with a replayConn: the
// recorded stream reaches the reader without a network or a sender.
// dials, when not nil, counts the upgrades; silent, when not nil, is told
// when a read waits on a silent connection.
func replayTransport(hello, cycle []byte, dials *atomic.Int32, silent chan<- struct{}) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if dials != nil {
			dials.Add(1)
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		h := http.Header{}
		h.Set("Connection", "Upgrade")
		h.Set("Upgrade", "websocket")
		h.Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
		return &http.Response{StatusCode: http.StatusSwitchingProtocols, Header: h, Request: r,
			Body: &replayConn{hello: hello, cycle: cycle, done: make(chan struct{}), silent: silent}}, nil
	})
}

// sinkNotification and sinkEvent keep the compiler from dropping the
// decoded notifications.
var (
	sinkNotification *Notification
	sinkEvent        string
)

// BenchmarkNotificationsReplay reads a recorded stream of real frames (the
// published notifications in testdata, repeated; the access.base.info
// handshake first) from memory, b.N notifications per run: "sdk" through
// Notifications.Subscribe, "baseline" through a hand-written reader, a
// coder/websocket connection and one json.Unmarshal into a struct per
// frame. One op is one notification; events/s is the rate.
func BenchmarkNotificationsReplay(b *testing.B) {
	hello, cycle, frames := replayStream(b)
	hc := &http.Client{Transport: replayTransport(hello, cycle, nil, nil)}
	const url = "https://console.test:12445"
	b.Logf("%d frames per cycle, %d bytes (with frame headers)", frames, len(cycle))

	b.Run("sdk", func(b *testing.B) {
		c, err := NewClient(url, "bench-token", WithHTTPClient(hc))
		require.NoError(b, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		if b.N > 0 {
			for ev, err := range c.Notifications.Subscribe(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
				sinkNotification = ev
				if n++; n == b.N {
					break
				}
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	})

	b.Run("baseline", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b.ReportAllocs()
		b.ResetTimer()
		n, err := baselineReplayReader(ctx, hc, url, b.N, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	})
}

// baselineNotification is the struct the baseline reader unmarshals each
// frame into.
type baselineNotification struct {
	Event         string          `json:"event"`
	ReceiverID    string          `json:"receiver_id"`
	EventObjectID string          `json:"event_object_id"`
	SaveToHistory bool            `json:"save_to_history"`
	Data          json.RawMessage `json:"data"`
	Meta          json.RawMessage `json:"meta"`
}

// baselineReplayReader is the reader a careful user writes by hand: dial,
// then read a message and unmarshal it into a struct, until n
// notifications other than the handshake have been read. each, when not
// nil, is handed every notification read (tests compare them with the
// SDK's).
func baselineReplayReader(ctx context.Context, hc *http.Client, url string, n int, each func(*baselineNotification)) (int, error) {
	if n == 0 {
		return 0, nil
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer bench-token")
	conn, _, err := websocket.Dial(ctx, "wss://console.test:12445/api/v1/developer/devices/notifications",
		&websocket.DialOptions{HTTPClient: hc, HTTPHeader: h})
	if err != nil {
		return 0, err
	}
	defer conn.CloseNow()
	conn.SetReadLimit(MaxNotificationSize)
	read := 0
	for read < n {
		_, msg, err := conn.Read(ctx)
		if err != nil {
			return read, err
		}
		var v baselineNotification
		if err := json.Unmarshal(msg, &v); err != nil {
			return read, err
		}
		if v.Event == "access.base.info" {
			continue
		}
		sinkEvent = v.Event
		if each != nil {
			each(&v)
		}
		read++
	}
	return read, nil
}

var _ io.ReadWriteCloser = (*replayConn)(nil)

// BenchmarkParseNotification decodes the published frames of the replayed
// stream, one per op, without a connection: the reader's decoding alone.
func BenchmarkParseNotification(b *testing.B) {
	var msgs [][]byte
	for _, name := range replayFrames {
		raw, err := os.ReadFile(filepath.Join("testdata", "notifications", name))
		require.NoError(b, err)
		var buf bytes.Buffer
		require.NoError(b, json.Compact(&buf, raw))
		msgs = append(msgs, buf.Bytes())
	}
	b.ReportAllocs()
	for i := range b.N {
		n, err := ParseNotification(msgs[i%len(msgs)])
		if err != nil {
			b.Fatal(err)
		}
		sinkNotification = n
	}
}
