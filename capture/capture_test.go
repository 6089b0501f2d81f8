package capture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/capture"
	"github.com/access-dev/access/internal/redact"
	"github.com/access-dev/access/internal/simulator"
)

// startSite starts a simulated demo console on loopback with its clock
// frozen, and returns it with a client that pins its certificate.
func startSite(t *testing.T) (*simulator.Site, *access.Client) {
	t.Helper()
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Demo: true, NoUI: true, HasSeed: true, Seed: 3,
		ClockStart: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), FrozenClock: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sim.Close() })
	st := sim.Sites[0]
	c, err := access.NewClient(st.URL, st.Token(), access.WithPinnedCertificate(st.Fingerprint),
		access.WithRetryPolicy(accesstest.RetryPolicy()))
	require.NoError(t, err)
	return st, c
}

// shippedScenario is one of the scenarios the repository ships.
func shippedScenario(t *testing.T, name string) *simulator.Scenario {
	t.Helper()
	f := filepath.Join("..", "examples", "scenarios", name)
	b, err := os.ReadFile(f)
	require.NoError(t, err)
	sc, err := simulator.ParseScenario(f, b)
	require.NoError(t, err)
	return sc
}

// endFrame is sent after a scenario: once the recorder saw it, every
// frame before it arrived.
const endFrame = `{"event":"test.end","receiver_id":"","event_object_id":"end","save_to_history":false,"data":null}`

// captured is a capture of a site during a scenario, and what a second,
// plain reader of the stream got.
type captured struct {
	file      []byte
	stats     capture.Stats
	rawFrames [][]byte // as a plain reader got them, the handshake and keepalives included
	delivered int      // deliveries the site made to the receiver with 200
}

// captureScenario captures st (through c) while sc plays --fast: the
// default operations, the stream and, with a receiver registered on the
// site for every event, the deliveries.
func captureScenario(t *testing.T, st *simulator.Site, c *access.Client, sc *simulator.Scenario) captured {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const secret = "capture-test-secret"
	var (
		mu        sync.Mutex
		seenEnd   = make(chan struct{})
		delivered = 0
		addrc     = make(chan net.Addr, 1)
	)
	rec := &capture.Recorder{Client: c, Listen: "127.0.0.1:0", Secret: secret,
		Verify:    []access.WebhookOption{access.WithTolerance(0)}, // the site's clock is frozen
		Listening: func(a net.Addr) { addrc <- a },
		Observe: func(kind capture.Kind, data []byte) {
			mu.Lock()
			defer mu.Unlock()
			if kind == capture.KindDelivery {
				delivered++
			}
			if kind == capture.KindFrame && bytes.Contains(data, []byte(`"test.end"`)) {
				close(seenEnd)
			}
		}}
	// A plain reader of the stream, to compare with.
	var raw [][]byte
	rawEnd := make(chan struct{})
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	go func() {
		defer close(rawEnd)
		opts := &access.SubscribeOptions{Frames: func(f []byte) {
			raw = append(raw, bytes.Clone(f))
			if bytes.Contains(f, []byte(`"test.end"`)) {
				rcancel()
			}
		}}
		for range c.Notifications.Subscribe(rctx, opts) {
		}
	}()
	var file bytes.Buffer
	w, err := capture.NewWriter(&file, nil)
	require.NoError(t, err)
	recCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	var stats capture.Stats
	var recErr error
	go func() {
		defer close(done)
		stats, recErr = rec.Record(recCtx, w)
	}()
	addr := <-addrc
	st.Fake.AddWebhook(access.WebhookEndpoint{Endpoint: "http://" + addr.String() + "/hook", Name: "capture", Secret: secret, Events: access.AllEvents()})
	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 2))
	var plays bytes.Buffer
	require.NoError(t, st.Play(ctx, sc, true, &plays))
	require.NoError(t, st.Fake.WaitDeliveries(ctx))
	st.Fake.NotifyRaw([]byte(endFrame))
	select {
	case <-seenEnd:
	case <-ctx.Done():
		t.Fatal("the recorder never saw the last frame")
	}
	<-rawEnd
	stop()
	<-done
	require.NoError(t, recErr)
	return captured{file: file.Bytes(), stats: stats, rawFrames: raw, delivered: delivered}
}

// TestCaptureOfTheDemoSiteKeepsNoOriginalValue: a capture of the demo site
// while a scenario plays (answers, frames, deliveries) holds none of the
// values of the demo site the allow-list redacts — every string of its
// state that is no id, time or enumeration — and loses no frame.
func TestCaptureOfTheDemoSiteKeepsNoOriginalValue(t *testing.T) {
	t.Parallel()
	st, c := startSite(t)
	var state bytes.Buffer
	require.NoError(t, st.Fake.WriteState(&state))
	got := captureScenario(t, st, c, shippedScenario(t, "visitor-day.yaml"))

	// The values of the demo state the allow-list replaces.
	var v any
	require.NoError(t, json.Unmarshal(state.Bytes(), &v))
	secretValues := map[string]string{}
	kept := map[string]bool{}
	var keep func(v any, member string)
	keep = func(v any, member string) { // the values it keeps, to tell coincidences
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				keep(e, k)
			}
		case []any:
			for _, e := range x {
				keep(e, member)
			}
		case string:
			if redact.Kept(member) {
				kept[x] = true
			}
		}
	}
	keep(v, "")
	redact.Walk(v, func(member, s string) string {
		if len(s) >= 3 && !kept[s] {
			secretValues[s] = member
		}
		return s
	})
	require.Greater(t, len(secretValues), 50, "the demo site's names, emails, cards, PINs")

	c2, err := capture.Read(bytes.NewReader(got.file))
	require.NoError(t, err)
	assert.Equal(t, capture.FormatVersion, c2.Header.FormatVersion)
	assert.GreaterOrEqual(t, len(c2.Answers), 30, "the default operations' answers")
	assert.Positive(t, got.delivered)
	assert.Len(t, c2.Deliveries, got.delivered, "every delivery made is captured")
	assert.Equal(t, got.stats.Deliveries, got.delivered)
	// As JSON strings, and inside longer text (a log message).
	text := string(got.file)
	for s, member := range secretValues {
		q, _ := json.Marshal(s)
		if strings.Contains(text, string(q)) || len(s) >= 6 && strings.Contains(text, s) {
			t.Errorf("%s %q of the demo site is in the capture", member, s)
		}
	}
	t.Logf("%d values of the demo site checked; %d answers, %d frames, %d deliveries", len(secretValues), len(c2.Answers), len(c2.Frames), len(c2.Deliveries))

	// Frames lose nothing: the recorder has every frame a plain reader
	// got, in order, each with the same members (redacted values).
	require.Len(t, c2.Frames, len(got.rawFrames))
	for i, f := range c2.Frames {
		assert.Equal(t, shapeOf(t, got.rawFrames[i]), shapeOf(t, f.Data()), "frame %d", i)
		if i > 0 {
			assert.GreaterOrEqual(t, f.Offset, c2.Frames[i-1].Offset, "arrival order")
		}
	}
	assert.Greater(t, len(c2.Frames), 20)
}

// shapeOf is the members of a frame and their JSON types, in order (or
// the text of a frame that is no JSON).
func shapeOf(t *testing.T, b []byte) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	var out []string
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		switch x := tok.(type) {
		case json.Delim:
			out = append(out, x.String())
		case string:
			out = append(out, "s")
		case float64:
			out = append(out, "n")
		case bool:
			out = append(out, "b")
		case nil:
			out = append(out, "null")
		}
	}
	if len(out) == 0 {
		return string(b)
	}
	return strings.Join(out, " ")
}

// TestWriterRedactsByTheAllowList: ids, times and enumerations (the event
// name included) are kept, every other string replaced, one value by one
// pseudonym across answers, frames, deliveries and paths (a person's name
// whatever member holds it); the signature
// header is dropped and a custom header's value replaced; a card token in
// a path is replaced by the token's pseudonym in the body.
func TestWriterRedactsByTheAllowList(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w, err := capture.NewWriter(&buf, &capture.WriterOptions{Key: []byte("k")})
	require.NoError(t, err)
	require.NoError(t, w.Answer("NFCCards.Get", "GET", "/credentials/nfc_cards/tokens/9f3ab2c1d4e5?x=1", 200,
		[]byte(`{"code":"SUCCESS","msg":"success","data":{"token":"9f3ab2c1d4e5","display_id":"100050","user_name":"Ada Lovelace","user_id":"u-1"}}`)))
	require.NoError(t, w.Frame(1500*time.Millisecond, []byte(`{"event":"access.remote_view","event_object_id":"e-1","data":{"display_name":"Ada Lovelace","door_name":"Main entrance","create_time":1706940900,"pin_code":"4321"}}`)))
	require.NoError(t, w.Frame(2*time.Second, []byte("Hello")))
	h := http.Header{"Signature": {"t=1,v1=ab"}, "Content-Type": {"application/json"}, "X-Api-Key": {"hunter2"}}
	require.NoError(t, w.Delivery(3*time.Second, h, []byte(`{"event":"access.door.unlock","data":{"actor":{"id":"u-1","name":"Ada Lovelace"}}}`)))
	require.NoError(t, w.Flush())
	out := buf.String()
	for _, gone := range []string{"Ada Lovelace", "9f3ab2c1d4e5", "100050", "4321", "hunter2", "t=1,v1=ab", "x=1"} {
		assert.NotContains(t, out, gone)
	}
	for _, kept := range []string{`"u-1"`, `"e-1"`, `"access.remote_view"`, `"access.door.unlock"`, `1706940900`, `"SUCCESS"`, `"text":"Hello"`, `"application/json"`} {
		assert.Contains(t, out, kept)
	}
	c, err := capture.Read(&buf)
	require.NoError(t, err)
	require.Len(t, c.Answers, 1)
	require.Len(t, c.Frames, 2)
	require.Len(t, c.Deliveries, 1)
	var ans struct {
		Data struct {
			Token    string `json:"token"`
			UserName string `json:"user_name"`
		}
	}
	require.NoError(t, json.Unmarshal(c.Answers[0].Body, &ans))
	assert.Equal(t, "/credentials/nfc_cards/tokens/"+ans.Data.Token, c.Answers[0].Path, "the token in the path is the body's pseudonym")
	assert.Len(t, ans.Data.Token, 12)
	assert.Equal(t, 1500*time.Millisecond, c.Frames[0].Offset)
	assert.NotContains(t, c.Deliveries[0].Headers, "Signature")
	assert.NotEqual(t, "hunter2", c.Deliveries[0].Headers["X-Api-Key"])
	// One pseudonym per person: the same name in an answer, a frame and a
	// delivery (an actor's name), whatever member holds it; a door's name
	// by its member and a tag.
	assert.Equal(t, 3, strings.Count(out, `"`+ans.Data.UserName+`"`), out)
	assert.Regexp(t, `"door_name":"door name [0-9a-f]{8}"`, out)
}

// TestReaderRefusesAnotherFormat: a file that is no capture, or of a
// later format_version, is refused with ErrFormat.
func TestReaderRefusesAnotherFormat(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"", `{"kind":"frame"}`, `{"kind":"header","format_version":2}`, "not json\n",
		"{\"kind\":\"header\",\"format_version\":1}\n{\"kind\":\"what\"}\n"} {
		_, err := capture.Read(strings.NewReader(f))
		assert.ErrorIs(t, err, capture.ErrFormat, f)
	}
}

// TestRecorderRefusesAWrite: an operation that writes is refused before
// any request.
func TestRecorderRefusesAWrite(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	r := &capture.Recorder{Client: srv.Client(), Operations: []string{"Doors.Unlock"}}
	w, err := capture.NewWriter(&bytes.Buffer{}, nil)
	require.NoError(t, err)
	_, err = r.Record(context.Background(), w)
	require.ErrorIs(t, err, capture.ErrNotReadOnly)
	assert.Empty(t, srv.Requests())
	_, err = (&capture.Recorder{Client: srv.Client(), Listen: "127.0.0.1:0"}).Record(context.Background(), w)
	assert.ErrorContains(t, err, "secret")
}

// TestWriterTellsJSONFromText: a frame is written as JSON exactly when it
// is valid JSON (what encoding/json accepts), and every line written is
// a valid record.
func TestWriterTellsJSONFromText(t *testing.T) {
	t.Parallel()
	for _, f := range []string{`{"a":1}`, `{"a":"x\u00e9\n"}`, `[1,"two",{"b":null}]`, `"s"`, `12`, `true`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1}}`, `[1 2]`, `{"a":"x` + "\x01" + `"}`, `{"a":"\q"}`, `{"a":01}`, `{"a":tru}`,
		`{"a":1} {"b":2}`, `{`, `]`, `{"a":[}`, `{,}`, `Hello`, ``, `{"a":-}`, `{1:2}`} {
		var buf bytes.Buffer
		w, err := capture.NewWriter(&buf, nil)
		require.NoError(t, err)
		require.NoError(t, w.Frame(0, []byte(f)))
		require.NoError(t, w.Flush())
		c, err := capture.Read(&buf)
		require.NoError(t, err, f)
		require.Len(t, c.Frames, 1)
		assert.Equal(t, json.Valid([]byte(f)), c.Frames[0].Frame != nil, "%q", f)
	}
}

// TestWriterRedactsAsTheSeed: the Writer's redaction of the repository's
// published payloads (samples, frames, deliveries) is what a seed of
// access fake record gets under the same key (redact.Pseudonyms.JSON):
// the same pseudonym for every value, a person's by the value alone.
func TestWriterRedactsAsTheSeed(t *testing.T) {
	t.Parallel()
	key := []byte("one key for the seed and the capture")
	p := redact.NewPseudonyms(key)
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*", "*.json"))
	require.NoError(t, err)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		if !json.Valid(b) {
			continue
		}
		var buf bytes.Buffer
		w, err := capture.NewWriter(&buf, &capture.WriterOptions{Key: key})
		require.NoError(t, err)
		require.NoError(t, w.Delivery(0, http.Header{}, b))
		require.NoError(t, w.Flush())
		c, err := capture.Read(&buf)
		require.NoError(t, err)
		seed, err := p.JSON(b)
		require.NoError(t, err)
		assert.JSONEq(t, string(seed), string(c.Deliveries[0].Body), f)
		n++
	}
	assert.Greater(t, n, 100)
}

// TestWriterFindsStringEndsAnywhere: a quote, an escape or a control
// character at any place of a long string (the redactor skips plain bytes
// through a 256-byte table) is found: the frame is JSON exactly when it is valid.
func TestWriterFindsStringEndsAnywhere(t *testing.T) {
	t.Parallel()
	for pos := 0; pos < 20; pos++ {
		for _, special := range []string{`\"`, `\\`, `\n`, "\x01", "\x1f", `"`, "é", "\x7f"} {
			f := `{"id":"` + strings.Repeat("a", pos) + special + strings.Repeat("b", 17-pos%3) + `","n":1}`
			var buf bytes.Buffer
			w, err := capture.NewWriter(&buf, nil)
			require.NoError(t, err)
			require.NoError(t, w.Frame(0, []byte(f)))
			require.NoError(t, w.Flush())
			c, err := capture.Read(&buf)
			require.NoError(t, err)
			require.Len(t, c.Frames, 1)
			require.Equal(t, json.Valid([]byte(f)), c.Frames[0].Frame != nil, "%q", f)
			if json.Valid([]byte(f)) {
				assert.JSONEq(t, f, string(c.Frames[0].Frame), "an id is kept as it is")
			}
		}
	}
}
