package accesstest

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/access-dev/access/capture"
)

// replayState is what [WithCapture] gave: the captured answers by
// request, and the frames and deliveries [Server.PlayCapture] plays.
type replayState struct {
	capture *capture.Capture
	answers map[string]capture.Record // by "METHOD /path" under the API's prefix
	moved   chan struct{}             // the clock was advanced or set: a play waiting recomputes its wait
}

// clockMoved wakes a play waiting for its next frame.
func (s *Server) clockMoved() {
	if s.replay == nil {
		return
	}
	select {
	case s.replay.moved <- struct{}{}:
	default:
	}
}

// WithCapture makes the server replay a console's capture (package
// capture, written by access capture or a [capture.Recorder]): a request
// for an operation and path the capture holds an answer for is answered
// with that answer (its status and body, as captured and so
// pseudonymised), after the token and its permission were checked as
// usual; every other request is answered by the model. A later page of a
// captured listing (page_num above 1) is answered with no records.
// [Server.PlayCapture] plays the capture's frames and deliveries. A Go
// test reproduces a user's report from the capture they sent:
//
//	f, _ := os.Open("testdata/user.capture")
//	c, _ := capture.Read(f)
//	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithCapture(c))
func WithCapture(c *capture.Capture) Option {
	return func(s *Server) {
		rs := &replayState{capture: c, answers: map[string]capture.Record{}, moved: make(chan struct{}, 1)}
		for _, a := range c.Answers {
			key := a.Method + " " + a.Path
			if _, dup := rs.answers[key]; !dup {
				rs.answers[key] = a
			}
		}
		s.replay = rs
	}
}

// replayed answers r with the captured answer to its request, if the
// capture has one.
func (s *Server) replayed(w http.ResponseWriter, r *http.Request) bool {
	if s.replay == nil {
		return false
	}
	a, ok := s.replay.answers[r.Method+" "+operationPath(r)]
	if !ok {
		return false
	}
	body := []byte(a.Body)
	if n, err := strconv.Atoi(r.URL.Query().Get("page_num")); err == nil && n > 1 {
		var env map[string]json.RawMessage
		if json.Unmarshal(body, &env) == nil && bytes.HasPrefix(bytes.TrimSpace(env["data"]), []byte("[")) {
			env["data"] = json.RawMessage("[]")
			body, _ = json.Marshal(env)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	status := a.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return true
}

// ReplayStats tells what [Server.PlayCapture] played.
type ReplayStats struct {
	// Frames were sent on the notifications stream.
	Frames int
	// Deliveries were made: one per captured delivery and registered
	// endpoint subscribed to its event.
	Deliveries int
	// Late is, among the frames, how far the latest was sent past its
	// due time, on the server's clock; LateP50 and LateP99 are the
	// median and the 99th percentile of how far each frame was. All
	// three are 0 at speed max, where nothing is due. A frame is never
	// sent before its due time; how long after is how soon the play's
	// goroutine got a processor back: tens of microseconds on an idle
	// Linux machine, milliseconds or more under load (see
	// docs/performance.md, "Capture and replay").
	Late, LateP50, LateP99 time.Duration
}

// PlayCapture plays the frames of the capture given with [WithCapture]
// on the notifications stream (to every client connected when each is
// sent) and its deliveries to the registered endpoints subscribed to
// their event, signed again with each endpoint's secret at the server's
// time (as [Server.Emit]), each at its recorded offset divided by speed,
// counted on the server's clock from the call: advancing the clock
// ([Server.Advance]) brings the next ones forward. It never sends one
// before its due time, and wakes for it on time rather than a Go
// timer's millisecond late: it sleeps on a timer, then in short sleeps
// (nanosleep on Linux), then yields the processor for the last 200 µs,
// which costs some CPU (about 0.1 ms a frame); [ReplayStats] tells how
// late each was. A speed of 0 or less,
// or +Inf, plays them one after another without waiting and without
// moving the clock (what access fake --replay --speed max does). It
// returns when all were played or ctx ended; the deliveries are made in
// order by one goroutine, so a slow endpoint does not hold up the
// frames, and are all made (or failed) when it returns. Without a
// capture it plays nothing.
func (s *Server) PlayCapture(ctx context.Context, speed float64) (ReplayStats, error) {
	var st ReplayStats
	if s.replay == nil {
		return st, nil
	}
	c := s.replay.capture
	type item struct {
		at    time.Duration
		frame []byte
		hook  []byte
	}
	items := make([]item, 0, len(c.Frames)+len(c.Deliveries))
	for _, f := range c.Frames {
		items = append(items, item{at: f.Offset, frame: f.Data()})
	}
	for _, d := range c.Deliveries {
		items = append(items, item{at: d.Offset, hook: d.Body})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].at < items[j].at })
	max := speed <= 0 || math.IsInf(speed, 1)
	hooks := make(chan []byte, 64)
	hooksDone := make(chan int)
	go func() {
		n := 0
		for b := range hooks {
			ds, _ := s.Emit(context.WithoutCancel(ctx), b)
			n += len(ds)
		}
		hooksDone <- n
	}()
	start := s.Now()
	var t *time.Timer
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	batch := make([]qmsg, 0, 128)
	flush := func() {
		s.notifyQueued(batch)
		for _, m := range batch {
			m.raw.release()
		}
		clear(batch)
		batch = batch[:0]
	}
	var (
		err   error
		lates lateness
	)
	if !max {
		lates = make(lateness, 0, len(c.Frames))
	}
play:
	for _, it := range items {
		if !max {
			due := start.Add(time.Duration(float64(it.at) / speed))
			if err = s.waitDue(ctx, due, &t); err != nil {
				break play
			}
			if it.frame != nil {
				lates = append(lates, s.Now().Sub(due))
			}
		} else if ctx.Err() != nil {
			err = ctx.Err()
			break
		}
		if it.frame != nil {
			st.Frames++
			if !max {
				s.NotifyRaw(it.frame)
				continue
			}
			// As fast as possible: handed over in batches, one lock
			// and one wait for the readers per batch.
			if batch = append(batch, rawQueued(it.frame)); len(batch) == cap(batch) {
				flush()
			}
			continue
		}
		flush()
		select {
		case hooks <- it.hook:
		case <-ctx.Done():
			err = ctx.Err()
			break play
		}
	}
	flush()
	close(hooks)
	st.Deliveries = <-hooksDone
	st.Late, st.LateP50, st.LateP99 = lates.summary()
	return st, err
}

// rawQueued is msg copied into a pooled buffer, as [Server.NotifyRaw]
// queues it; release it once handed over.
func rawQueued(msg []byte) qmsg {
	m := rawPool.Get().(*rawMsg)
	m.b = append(m.b[:0], msg...)
	m.refs.Store(1)
	return qmsg{b: m.b, raw: m}
}
