package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/internal/apifacts"
)

// DefaultOperations are the read-only operations a [Recorder] captures
// the answers of unless told otherwise: those access doctor probes that
// answer JSON, by their SDK names. An operation on one record (Users.Get)
// is read for the first record its listing returned.
func DefaultOperations() []string {
	return []string{
		"Doors.List", "Doors.GetEmergency", "DoorGroups.List", "DoorGroups.Topology", "Devices.List",
		"Users.List", "Users.Search", "UserGroups.List", "Identity.ListResources", "Visitors.List",
		"AccessPolicies.List", "Schedules.List", "HolidayGroups.List", "NFCCards.List", "TouchPasses.List",
		"TouchPasses.ListAssignable", "SystemLogs.List", "Webhooks.List",
		"Doors.Get", "Doors.GetLockRule", "DoorGroups.Get", "Devices.GetSettings", "Users.Get",
		"Users.ListAccessPolicies", "Identity.ListForUser", "UserGroups.Get", "UserGroups.ListUsers",
		"UserGroups.ListAllUsers", "UserGroups.ListAccessPolicies", "Identity.ListForUserGroup", "Visitors.Get",
		"AccessPolicies.Get", "Schedules.Get", "HolidayGroups.Get", "NFCCards.Get", "TouchPasses.Get",
	}
}

// readBodies are the bodies of the read-only operations that are POSTs.
var readBodies = map[string]string{
	"SystemLogs.List": `{"topic":"all"}`,
}

// Recorder captures a console through an [access.Client]: the answers of
// read-only operations, the notifications stream's frames with their
// arrival times and, with Listen, the webhook deliveries the console
// posts. Its zero value but Client records the default operations and
// the stream until the context ends.
type Recorder struct {
	// Client is the console's client (required).
	Client *access.Client
	// Operations are the SDK names of the read-only operations to
	// capture the answers of (nil: DefaultOperations; empty: none).
	// A write is refused.
	Operations []string
	// NoStream leaves the notifications stream out.
	NoStream bool
	// Duration ends the capture this long after the answers were read;
	// 0 runs until the context ends.
	Duration time.Duration
	// Listen is the address (host:port) of a webhook receiver to serve
	// during the capture: the deliveries posted to it whose Signature
	// verifies with Secret are captured, the others refused with 401.
	Listen string
	// Secret is the webhook endpoint's signing secret, required with
	// Listen.
	Secret string
	// Listening, when set, is called with the receiver's address once it
	// listens.
	Listening func(addr net.Addr)
	// Observe, when set, is called with each frame and each delivery
	// once it is written, as received (not redacted): a progress report,
	// or a test's way to know what arrived. data is valid only during the
	// call.
	Observe func(kind Kind, data []byte)
	// Verify are the options of the deliveries' signature check, e.g.
	// access.WithTolerance(0) for a console whose clock is far from this
	// machine's (a fake started with --clock-start).
	Verify []access.WebhookOption
}

// Stats tells what a capture holds.
type Stats struct {
	Answers    int
	Frames     int
	Deliveries int
	// Refused counts the deliveries refused (a bad signature, no JSON).
	Refused int
	// StreamErr is why the stream ended before the capture did, if it
	// did.
	StreamErr error
}

// ErrNotReadOnly is matched by the error of a Recorder given an operation
// that is no read.
var ErrNotReadOnly = errors.New("capture: not a read-only operation")

// Record captures into w until ctx ends or Duration has passed, then
// flushes w: first the answers of the operations, one after another, then
// the stream and the deliveries, whose offsets count from then. Bad
// settings are an error before any request.
func (r *Recorder) Record(ctx context.Context, w *Writer) (Stats, error) {
	var st Stats
	if r.Client == nil {
		return st, errors.New("capture: Recorder.Client is nil")
	}
	if r.Listen != "" && r.Secret == "" {
		return st, errors.New("capture: a webhook receiver needs the endpoint's signing secret")
	}
	ops := r.Operations
	if ops == nil {
		ops = DefaultOperations()
	}
	for _, op := range ops {
		o, ok := apifacts.Lookup(op)
		if !ok {
			return st, fmt.Errorf("capture: %q is no operation of the API", op)
		}
		if o.Method != http.MethodGet && readBodies[op] == "" || strings.Contains(o.Path, "/notifications") {
			return st, fmt.Errorf("%w: %s (%s %s)", ErrNotReadOnly, op, o.Method, o.Path)
		}
	}
	if r.Duration < 0 {
		return st, errors.New("capture: Recorder.Duration is negative")
	}
	n, aerr := r.answers(ctx, w, ops)
	st.Answers = n
	if aerr != nil && ctx.Err() == nil {
		_ = w.Flush()
		return st, aerr
	}
	if r.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Duration)
		defer cancel()
	}
	start := time.Now()
	var (
		mu  sync.Mutex
		wg  sync.WaitGroup
		err error
	)
	fail := func(e error) {
		mu.Lock()
		if err == nil {
			err = e
		}
		mu.Unlock()
	}
	stopReceiver := func() {}
	if r.Listen != "" {
		ln, lerr := net.Listen("tcp", r.Listen)
		if lerr != nil {
			return st, fmt.Errorf("capture: webhook receiver: %w", lerr)
		}
		srv := &http.Server{Handler: r.receiver(start, w, &st, &mu), ReadHeaderTimeout: 10 * time.Second}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e := srv.Serve(ln); e != nil && !errors.Is(e, http.ErrServerClosed) {
				fail(e)
			}
		}()
		stopReceiver = func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}
		if r.Listening != nil {
			r.Listening(ln.Addr())
		}
	}
	if !r.NoStream {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames := 0
			opts := &access.SubscribeOptions{Frames: func(f []byte) {
				if e := w.Frame(time.Since(start), f); e != nil {
					fail(e)
				}
				frames++
				if r.Observe != nil {
					r.Observe(KindFrame, f)
				}
			}}
			for _, e := range r.Client.Notifications.Subscribe(ctx, opts) {
				var rec *access.ReconnectedError
				var bad *access.NotificationError
				if e == nil || errors.As(e, &rec) || errors.As(e, &bad) {
					continue
				}
				if ctx.Err() == nil {
					mu.Lock()
					st.StreamErr = e
					mu.Unlock()
				}
			}
			mu.Lock()
			st.Frames = frames
			mu.Unlock()
		}()
	}
	<-ctx.Done()
	stopReceiver()
	wg.Wait()
	if ferr := w.Flush(); ferr != nil {
		fail(ferr)
	}
	mu.Lock()
	defer mu.Unlock()
	return st, err
}

// answers reads each operation once and writes its answer; an operation
// on a record is read for the first record of its listing (skipped when
// the listing is empty).
func (r *Recorder) answers(ctx context.Context, w *Writer, ops []string) (int, error) {
	firsts := map[string]map[string]any{} // the first record of each listing, by path
	n := 0
	for _, op := range ops {
		if ctx.Err() != nil {
			return n, nil
		}
		o, _ := apifacts.Lookup(op)
		path, ok := r.resolve(ctx, o.Path, firsts)
		if !ok {
			continue
		}
		var body any
		if b := readBodies[op]; b != "" {
			body = json.RawMessage(b)
		}
		var data json.RawMessage
		resp, err := r.Client.Do(ctx, o.Method, path, body, &data)
		status, answer := 0, []byte(nil)
		var apiErr *access.APIError
		switch {
		case err == nil:
			env := map[string]any{"code": resp.Code, "msg": resp.Message, "data": data}
			if resp.Pagination != nil {
				env["pagination"] = resp.Pagination
			}
			answer, _ = json.Marshal(env)
			status = resp.StatusCode
			if !strings.Contains(o.Path, ":") {
				firsts[o.Path] = first(data)
			}
		case errors.As(err, &apiErr):
			status, answer = apiErr.StatusCode, apiErr.Body
			if !json.Valid(answer) {
				answer, _ = json.Marshal(map[string]any{"code": apiErr.Code, "msg": apiErr.Message, "data": nil})
			}
		default:
			if ctx.Err() != nil {
				return n, nil
			}
			return n, fmt.Errorf("capture: %s: %w", op, err)
		}
		if err := w.Answer(op, o.Method, path, status, answer); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// resolve fills a route's parameter with the id (or token) of the first
// record of the listing at the route's prefix, reading the listing when
// it was not read yet.
func (r *Recorder) resolve(ctx context.Context, route string, firsts map[string]map[string]any) (string, bool) {
	i := strings.Index(route, "/:")
	if i < 0 {
		return route, true
	}
	prefix := route[:i]
	rec, read := firsts[prefix]
	if !read {
		var data json.RawMessage
		if _, err := r.Client.Do(ctx, http.MethodGet, prefix, nil, &data); err == nil {
			rec = first(data)
		}
		firsts[prefix] = rec
	}
	rest := route[i+2:]
	param, tail, _ := strings.Cut(rest, "/")
	member := "id"
	if param == "token" {
		member = "token"
	}
	v, _ := rec[member].(string)
	if v == "" {
		return "", false
	}
	out := prefix + "/" + v
	if tail != "" {
		out += "/" + tail
	}
	return out, !strings.Contains(out, "/:")
}

// first is the first record of a listing's data (devices are listed in
// groups: the first of the first group).
func first(data []byte) map[string]any {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	for {
		switch x := v.(type) {
		case []any:
			if len(x) == 0 {
				return nil
			}
			v = x[0]
		case map[string]any:
			return x
		default:
			return nil
		}
	}
}

// receiver is the webhook receiver: a POST whose signature verifies is
// captured and answered 200.
func (r *Recorder) receiver(start time.Time, w *Writer, st *Stats, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		at := time.Since(start)
		refuse := func(status int, msg string) {
			mu.Lock()
			st.Refused++
			mu.Unlock()
			http.Error(rw, msg, status)
		}
		if req.Method != http.MethodPost {
			refuse(http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(rw, req.Body, 8<<20))
		if err != nil {
			refuse(http.StatusBadRequest, "cannot read body")
			return
		}
		if err := access.VerifySignature(body, req.Header.Get(access.SignatureHeader), r.Secret, r.Verify...); err != nil {
			refuse(http.StatusUnauthorized, "invalid signature")
			return
		}
		if err := w.Delivery(at, req.Header, body); err != nil {
			refuse(http.StatusBadRequest, "not JSON")
			return
		}
		mu.Lock()
		st.Deliveries++
		mu.Unlock()
		if r.Observe != nil {
			r.Observe(KindDelivery, body)
		}
		rw.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(rw, "OK")
	})
}
