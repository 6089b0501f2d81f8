package simulator

import (
	"bytes"
	"context"
	"crypto/subtle"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The control API: the acts of the physical site, the clock, faults,
// resets, snapshots and the journals, as JSON under ControlPrefix on the
// site's own listener, for tests in any language. Each endpoint wraps one
// accesstest.Server method, the one Go tests call (one path); the web
// console's buttons and `access fake trigger` call these endpoints.

// ControlPrefix is where the control API is served: a versioned prefix no
// console path uses.
const ControlPrefix = "/_fake/v1"

// PageCookie is the name of the page credential: a random value per
// process, set (HttpOnly, SameSite=Strict) when the web console's page
// is served, that the control API accepts instead of the API token, so
// the page never holds the token.
const PageCookie = "access_fake_page"

const (
	maxControlBody  = 1 << 20  // an act's JSON
	maxSnapshotBody = 64 << 20 // a state to restore
	maxWait         = 60 * time.Second
)

//go:embed openapi.json
var controlSpec []byte

// controlRoute is one endpoint: method, path under ControlPrefix, and
// what it does. An act (POST) answers with what it caused.
type controlRoute struct {
	method, path string
	do           func(c *control, r *http.Request, body []byte) (any, error)
}

// controlRoutes is the control API; openapi.json describes exactly these
// (TestControlRoutesMatchOpenAPI).
var controlRoutes = []controlRoute{
	{"GET", "/openapi.json", nil},
	{"POST", "/doorbell/ring", (*control).ring},
	{"POST", "/doorbell/cancel", (*control).cancelRing},
	{"POST", "/card/tap", (*control).tap},
	{"POST", "/card/fail", (*control).failTap},
	{"POST", "/door/open", (*control).openDoor},
	{"POST", "/door/close", (*control).closeDoor},
	{"POST", "/door/exit", (*control).exit},
	{"POST", "/device/online", (*control).online},
	{"POST", "/emergency", (*control).emergency},
	{"POST", "/clock/advance", (*control).advance},
	{"GET", "/clock", (*control).clock},
	{"POST", "/console/restart", (*control).restart},
	{"POST", "/faults", (*control).inject},
	{"POST", "/faults/clear", (*control).clearFaults},
	{"POST", "/touch-pass/wallet", (*control).wallet},
	{"POST", "/reset", (*control).reset},
	{"POST", "/snapshot", (*control).snapshot},
	{"POST", "/snapshot/restore", (*control).restore},
	{"GET", "/deliveries", (*control).deliveries},
	{"GET", "/requests", (*control).requests},
}

// control serves the control API of one site.
type control struct {
	fake    *accesstest.Server
	tokens  [][]byte   // the API tokens accepted (the clients', the fake's own)
	page    []byte     // the page credential
	allowed bool       // served on loopback, or enabled off it
	hosts   *hostNames // on loopback, the names it answers to (nil: any)
	mux     *http.ServeMux
}

func newControl(fake *accesstest.Server, page string, allowed bool, hosts *hostNames, tokens ...string) *control {
	c := &control{fake: fake, page: []byte(page), allowed: allowed, hosts: hosts, mux: http.NewServeMux()}
	for _, t := range tokens {
		c.tokens = append(c.tokens, []byte(t))
	}
	for _, rt := range controlRoutes {
		rt := rt
		h := func(w http.ResponseWriter, r *http.Request) { c.serve(w, r, rt) }
		c.mux.HandleFunc(rt.method+" "+ControlPrefix+rt.path, h)
	}
	c.mux.HandleFunc(ControlPrefix+"/", func(w http.ResponseWriter, r *http.Request) {
		controlError(w, http.StatusNotFound, "not_found", "no such control endpoint: "+r.Method+" "+r.URL.Path)
	})
	return c
}

func (c *control) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !c.allowed {
		controlError(w, http.StatusForbidden, "remote_refused", "the control API is served off loopback only with --control-remote")
		return
	}
	if !c.hosts.allow(r.Host) {
		w.Header().Set("Connection", "close")
		controlError(w, http.StatusMisdirectedRequest, "wrong_host", "the fake answers to its own names only (DNS rebinding refused)")
		return
	}
	c.mux.ServeHTTP(w, r)
}

// authorized accepts the API token as a Bearer token (the direct
// layout's header) or as an X-API-KEY (a UniFi OS console's proxy
// layout's), or the page credential cookie.
func (c *control) authorized(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		tok = r.Header.Get("X-API-KEY")
		ok = tok != ""
	}
	if ok {
		for _, t := range c.tokens {
			if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), t) == 1 {
				return true
			}
		}
		return false
	}
	if ck, err := r.Cookie(PageCookie); err == nil && len(c.page) > 0 {
		return subtle.ConstantTimeCompare([]byte(ck.Value), c.page) == 1
	}
	return false
}

func (c *control) serve(w http.ResponseWriter, r *http.Request, rt controlRoute) {
	if rt.do == nil { // the document describes the API: no credential needed
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(controlSpec)
		return
	}
	if !c.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="access fake control"`)
		controlError(w, http.StatusUnauthorized, "unauthorized", "send the API token (Authorization: Bearer, or X-API-KEY) or the page's credential")
		return
	}
	var body []byte
	if r.Method == http.MethodPost {
		if !sameOrigin(r) {
			controlError(w, http.StatusForbidden, "cross_origin", "a cross-site request cannot change the fake")
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			controlError(w, http.StatusUnsupportedMediaType, "content_type", "send Content-Type: application/json")
			return
		}
		limit := int64(maxControlBody)
		if rt.path == "/snapshot/restore" {
			limit = maxSnapshotBody
		}
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			controlError(w, http.StatusRequestEntityTooLarge, "too_large", "the body is too large")
			return
		}
	}
	out, err := rt.do(c, r, body)
	if err != nil {
		var ce *controlErr
		switch {
		case errors.As(err, &ce):
			controlError(w, ce.status, ce.code, ce.msg)
		case errors.Is(err, accesstest.ErrNoDevice), errors.Is(err, accesstest.ErrNoDoor):
			controlError(w, http.StatusNotFound, "not_found", err.Error())
		case errors.Is(err, accesstest.ErrNotSupported), errors.Is(err, accesstest.ErrBusy):
			controlError(w, http.StatusConflict, "conflict", err.Error())
		default:
			controlError(w, http.StatusBadRequest, "bad_request", err.Error())
		}
		return
	}
	if raw, ok := out.(json.RawMessage); ok {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(raw)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// controlErr is a refusal with its status and code.
type controlErr struct {
	status    int
	code, msg string
}

func (e *controlErr) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &controlErr{status: http.StatusBadRequest, code: "bad_request", msg: fmt.Sprintf(format, args...)}
}

func controlError(w http.ResponseWriter, status int, code, msg string) {
	type e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	writeJSON(w, status, struct {
		Error e `json:"error"`
	}{e{code, msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"internal","message":"encoding the answer failed"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// decode reads an act's JSON body into v, refusing unknown members.
func decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the body: %v", err)
	}
	if dec.More() {
		return badRequest("the body: one JSON object only")
	}
	return nil
}

// duration is a Go duration in JSON: "90s", "5m".
type duration time.Duration

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New(`a duration is a string such as "90s" or "5m"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("duration %q: give one such as 90s or 5m", s)
	}
	*d = duration(v)
	return nil
}

// actResult is an act's answer: its own result and what it caused.
type actResult struct {
	Result any                `json:"result"`
	Caused accesstest.Effects `json:"caused"`
}

// act runs f through accesstest.Server.Caused.
func (c *control) act(f func() (any, error)) (any, error) {
	var res any
	eff, err := c.fake.Caused(func() error {
		var err error
		res, err = f()
		return err
	})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = struct{}{}
	}
	return actResult{Result: res, Caused: eff}, nil
}

// device finds a device by id or name (or alias).
func (c *control) device(ref string) (access.Device, error) {
	if ref = strings.TrimSpace(ref); ref == "" {
		return access.Device{}, badRequest("give the device (its id or name)")
	}
	devs := c.fake.DeviceList().Devices()
	for _, d := range devs {
		if d.ID == ref {
			return d, nil
		}
	}
	var found []access.Device
	for _, d := range devs {
		if strings.EqualFold(d.Name, ref) || (d.Alias != "" && strings.EqualFold(d.Alias, ref)) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return access.Device{}, fmt.Errorf("%w %q", accesstest.ErrNoDevice, ref)
	case 1:
		return found[0], nil
	}
	return access.Device{}, badRequest("%d devices are named %q: give the id", len(found), ref)
}

// door finds a door by id or name.
func (c *control) door(ref string) (access.Door, error) {
	if ref = strings.TrimSpace(ref); ref == "" {
		return access.Door{}, badRequest("give the door (its id or name)")
	}
	doors := c.fake.Doors()
	for _, d := range doors {
		if d.ID == ref {
			return d, nil
		}
	}
	var found []access.Door
	for _, d := range doors {
		if strings.EqualFold(d.Name, ref) {
			found = append(found, d)
		}
	}
	switch len(found) {
	case 0:
		return access.Door{}, fmt.Errorf("%w %q", accesstest.ErrNoDoor, ref)
	case 1:
		return found[0], nil
	}
	return access.Door{}, badRequest("%d doors are named %q: give the id", len(found), ref)
}

type deviceBody struct {
	Device string `json:"device"`
}

func (c *control) ring(_ *http.Request, body []byte) (any, error) {
	d, err := c.bodyDevice(body)
	if err != nil {
		return nil, err
	}
	return c.act(func() (any, error) {
		id, err := c.fake.RingDoorbell(d.ID)
		return map[string]string{"device": d.ID, "request_id": id}, err
	})
}

func (c *control) cancelRing(_ *http.Request, body []byte) (any, error) {
	d, err := c.bodyDevice(body)
	if err != nil {
		return nil, err
	}
	return c.act(func() (any, error) { return map[string]string{"device": d.ID}, c.fake.CancelDoorbell(d.ID) })
}

// bodyDevice decodes a {"device": id or name} body and finds the device.
func (c *control) bodyDevice(body []byte) (access.Device, error) {
	var in deviceBody
	if err := decode(body, &in); err != nil {
		return access.Device{}, err
	}
	return c.device(in.Device)
}

func (c *control) tap(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Device string `json:"device"`
		Card   string `json:"card"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Card = strings.TrimSpace(in.Card); in.Card == "" {
		return nil, badRequest("give the card number to tap")
	}
	d, err := c.device(in.Device)
	if err != nil {
		return nil, err
	}
	return c.act(func() (any, error) {
		res, err := c.fake.PresentCard(d.ID, in.Card)
		return struct {
			Device   string `json:"device"`
			Granted  bool   `json:"granted"`
			Enrolled bool   `json:"enrolled"`
			Reason   string `json:"reason,omitempty"`
		}{d.ID, res.Granted, res.Enrolled, res.Reason}, err
	})
}

func (c *control) failTap(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Device string `json:"device"`
		Code   string `json:"code"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	d, err := c.device(in.Device)
	if err != nil {
		return nil, err
	}
	code := access.ErrorCode(in.Code)
	switch code {
	case access.CodeCredsNFCCardIsProvision, access.CodeCredsNFCCardProvisionFailed, access.CodeCredsNFCCardInvalid:
	default:
		return nil, badRequest("code %q: give %s, %s or %s", in.Code, access.CodeCredsNFCCardIsProvision,
			access.CodeCredsNFCCardProvisionFailed, access.CodeCredsNFCCardInvalid)
	}
	return c.act(func() (any, error) { return map[string]string{"device": d.ID}, c.fake.FailTap(d.ID, code) })
}

func (c *control) openDoor(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Door string    `json:"door"`
		Hold *duration `json:"hold"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	d, err := c.door(in.Door)
	if err != nil {
		return nil, err
	}
	if in.Hold != nil && (*in.Hold <= 0 || time.Duration(*in.Hold) > 366*24*time.Hour) {
		return nil, badRequest("hold: give a positive duration up to a year")
	}
	return c.act(func() (any, error) {
		out := map[string]string{"door": d.ID}
		if in.Hold != nil {
			out["closes_at"] = c.fake.Now().Add(time.Duration(*in.Hold)).UTC().Format(time.RFC3339)
			return out, c.fake.HoldDoorOpen(d.ID, time.Duration(*in.Hold))
		}
		return out, c.fake.SetDoorPosition(d.ID, true)
	})
}

type doorBody struct {
	Door string `json:"door"`
}

func (c *control) closeDoor(_ *http.Request, body []byte) (any, error) {
	return c.onDoor(body, func(id string) error { return c.fake.SetDoorPosition(id, false) })
}

func (c *control) exit(_ *http.Request, body []byte) (any, error) {
	return c.onDoor(body, c.fake.PressExitButton)
}

// onDoor decodes a {"door": id or name} body, finds the door and does
// act to it, answering {"door": id} with what the act caused.
func (c *control) onDoor(body []byte, act func(id string) error) (any, error) {
	var in doorBody
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	d, err := c.door(in.Door)
	if err != nil {
		return nil, err
	}
	return c.act(func() (any, error) { return map[string]string{"door": d.ID}, act(d.ID) })
}

func (c *control) online(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Device string `json:"device"`
		Online *bool  `json:"online"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Online == nil {
		return nil, badRequest("give online: true or false")
	}
	d, err := c.device(in.Device)
	if err != nil {
		return nil, err
	}
	return c.act(func() (any, error) {
		return map[string]any{"device": d.ID, "online": *in.Online}, c.fake.SetDeviceOnline(d.ID, *in.Online)
	})
}

func (c *control) emergency(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Mode string `json:"mode"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	var st access.EmergencyStatus
	switch in.Mode {
	case "lockdown":
		st.Lockdown = true
	case "evacuation":
		st.Evacuation = true
	case "none":
	default:
		return nil, badRequest("mode %q: give lockdown, evacuation or none", in.Mode)
	}
	return c.act(func() (any, error) {
		return map[string]bool{"lockdown": st.Lockdown, "evacuation": st.Evacuation}, c.fake.SetEmergency(st)
	})
}

func (c *control) advance(_ *http.Request, body []byte) (any, error) {
	var in struct {
		By duration `json:"by"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.By <= 0 || time.Duration(in.By) > 366*24*time.Hour {
		return nil, badRequest("by: give a positive duration up to a year, such as 30s, 5m or 2h")
	}
	return c.act(func() (any, error) {
		c.fake.Advance(time.Duration(in.By))
		return map[string]string{"now": c.fake.Now().UTC().Format(time.RFC3339Nano)}, nil
	})
}

func (c *control) clock(*http.Request, []byte) (any, error) {
	return map[string]string{"now": c.fake.Now().UTC().Format(time.RFC3339Nano)}, nil
}

// A console restart's phases: the defaults (a console takes a minute or
// so to bring Access back, integrators report) and the longest accepted.
const (
	defaultRestartBadGateway   = 30 * time.Second
	defaultRestartUnauthorized = 30 * time.Second
	maxRestart                 = 24 * time.Hour
)

// restart acts out a console restart (accesstest.Server.Restart): the
// notifications sockets drop, and through the proxy every request is
// answered 502, then 401, for the given times on the fake's clock.
func (c *control) restart(_ *http.Request, body []byte) (any, error) {
	in := struct {
		BadGateway   *duration `json:"bad_gateway"`
		Unauthorized *duration `json:"unauthorized"`
	}{}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	bad, unauth := defaultRestartBadGateway, defaultRestartUnauthorized
	if in.BadGateway != nil {
		bad = time.Duration(*in.BadGateway)
	}
	if in.Unauthorized != nil {
		unauth = time.Duration(*in.Unauthorized)
	}
	if bad > maxRestart || unauth > maxRestart || bad+unauth <= 0 {
		return nil, badRequest("bad_gateway and unauthorized: give durations up to %s, not both zero, such as 30s", maxRestart)
	}
	return c.act(func() (any, error) {
		w := c.fake.Restart(bad, unauth)
		return map[string]any{
			"bad_gateway_until":  w.BadGatewayUntil.UTC().Format(time.RFC3339Nano),
			"unauthorized_until": w.UnauthorizedUntil.UTC().Format(time.RFC3339Nano),
			"sockets_dropped":    w.SocketsDropped,
		}, nil
	})
}

// faultBody is accesstest.Fault in JSON, member for member.
type faultBody struct {
	Op             string   `json:"op"`
	Status         int      `json:"status"`
	Code           string   `json:"code"`
	Message        string   `json:"message"`
	RetryAfter     duration `json:"retry_after"`
	Delay          duration `json:"delay"`
	DropConnection bool     `json:"drop_connection"`
	Body           string   `json:"body"`
	ContentType    string   `json:"content_type"`
	Times          int      `json:"times"`
	AfterHandling  bool     `json:"after_handling"`
}

func (c *control) inject(_ *http.Request, body []byte) (any, error) {
	var in faultBody
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	op := accesstest.Op(strings.TrimSpace(in.Op))
	if svc, m, ok := strings.Cut(string(op), "."); op != accesstest.OpAny && (!ok || svc == "" || m == "" || strings.ContainsAny(string(op), " /")) {
		return nil, badRequest("op: the operation is Service.Method, e.g. Doors.List, or * for every operation")
	}
	f := accesstest.Fault{Status: in.Status, Code: access.ErrorCode(in.Code), Message: in.Message,
		RetryAfter: time.Duration(in.RetryAfter), Delay: time.Duration(in.Delay), DropConnection: in.DropConnection,
		Body: in.Body, ContentType: in.ContentType, Times: in.Times, AfterHandling: in.AfterHandling}
	switch {
	case f.Status != 0 && (f.Status < 200 || f.Status > 599):
		return nil, badRequest("status: give 200 to 599")
	case f.Times < 0:
		return nil, badRequest("times: give 0 (every request) or more")
	case f.Delay > time.Minute:
		return nil, badRequest("delay: at most 1m")
	case f.AfterHandling && op == accesstest.OpNotificationsSubscribe:
		return nil, badRequest("after_handling cannot apply to %s (the WebSocket upgrade has no answer to replace)", op)
	case f == accesstest.Fault{Times: f.Times, AfterHandling: f.AfterHandling} && !f.AfterHandling:
		return nil, badRequest("give a status, a code, a message, a retry_after, a delay, a body or drop_connection")
	}
	return c.act(func() (any, error) {
		c.fake.Inject(op, f)
		return map[string]any{"op": op, "times": f.Times}, nil
	})
}

func (c *control) clearFaults(_ *http.Request, body []byte) (any, error) {
	if err := decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	return c.act(func() (any, error) { c.fake.ClearFaults(); return nil, nil })
}

func (c *control) wallet(_ *http.Request, body []byte) (any, error) {
	var in struct {
		TouchPass  string `json:"touch_pass"`
		Source     string `json:"source"`
		DeviceName string `json:"device_name"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	src := access.TouchPassSource(in.Source)
	if src != access.SourceApple && src != access.SourceGoogle {
		return nil, badRequest("source %q: give apple or google", in.Source)
	}
	if in.DeviceName == "" {
		in.DeviceName = "iPhone"
	}
	return c.act(func() (any, error) {
		tp, ok := c.fake.AddToWallet(in.TouchPass, src, in.DeviceName)
		if !ok {
			return nil, &controlErr{status: http.StatusNotFound, code: "not_found", msg: fmt.Sprintf("no touch pass %q with a user", in.TouchPass)}
		}
		return tp, nil
	})
}

func (c *control) reset(_ *http.Request, body []byte) (any, error) {
	var in struct {
		Site string `json:"site"`
	}
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.Site != "demo" && in.Site != "empty" {
		return nil, badRequest("site %q: give demo or empty", in.Site)
	}
	return c.act(func() (any, error) { return map[string]string{"site": in.Site}, c.fake.Reset(in.Site == "demo") })
}

// snapshot answers the whole state (accesstest.Server.WriteState); it is
// a POST because it holds the site's secrets.
func (c *control) snapshot(_ *http.Request, body []byte) (any, error) {
	if err := decode(body, &struct{}{}); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := c.fake.WriteState(&b); err != nil {
		return nil, err
	}
	return json.RawMessage(b.Bytes()), nil
}

func (c *control) restore(_ *http.Request, body []byte) (any, error) {
	return c.act(func() (any, error) {
		if err := c.fake.ReadState(bytes.NewReader(body)); err != nil {
			return nil, badRequest("%v", err)
		}
		return nil, nil
	})
}

// cursorQuery reads since, wait and timeout.
func cursorQuery(r *http.Request) (since int, wait bool, timeout time.Duration, err error) {
	q := r.URL.Query()
	if s := q.Get("since"); s != "" {
		if since, err = strconv.Atoi(s); err != nil || since < 0 {
			return 0, false, 0, badRequest("since: give a cursor (0 or more)")
		}
	}
	switch q.Get("wait") {
	case "", "0", "false":
	case "1", "true":
		wait = true
	default:
		return 0, false, 0, badRequest("wait: give true or false")
	}
	timeout = 10 * time.Second
	if s := q.Get("timeout"); s != "" {
		if timeout, err = time.ParseDuration(s); err != nil || timeout <= 0 || timeout > maxWait {
			return 0, false, 0, badRequest("timeout: give a duration up to %s, such as 5s", maxWait)
		}
	}
	return since, wait, timeout, nil
}

type journalOut[T any] struct {
	Items    []T  `json:"items"`
	Next     int  `json:"next"`
	Dropped  int  `json:"dropped"`
	TimedOut bool `json:"timed_out"`
}

type deliveryOut struct {
	Cursor     int     `json:"cursor"`
	EndpointID string  `json:"endpoint_id"`
	URL        string  `json:"url"`
	Event      string  `json:"event"`
	Body       string  `json:"body"`
	Signature  string  `json:"signature"`
	Status     int     `json:"status"`
	Error      string  `json:"error,omitempty"`
	Attempt    int     `json:"attempt"`
	LatencyMS  float64 `json:"latency_ms"`
}

func (c *control) deliveries(r *http.Request, _ []byte) (any, error) {
	return readJournal(r, c.fake.DeliveriesSince, func(cursor int, d accesstest.Delivery) deliveryOut {
		o := deliveryOut{Cursor: cursor, EndpointID: d.EndpointID, URL: d.URL, Event: string(d.Event), Body: string(d.Payload),
			Signature: d.Signature, Status: d.StatusCode, Attempt: d.Attempt, LatencyMS: float64(d.Latency.Microseconds()) / 1000}
		if d.Err != nil {
			o.Error = d.Err.Error()
		}
		return o
	})
}

// errWaitOver is the cause of a journal wait's end at its timeout.
var errWaitOver = errors.New("the wait's timeout passed")

// readJournal answers a journal read (deliveries, requests): the items
// after the cursor since, with wait waiting up to timeout for one
// (cursorQuery), each item made into its output by out. timed_out is set
// only when the wait's own timeout passed: a wait ended by the client
// going away or the fake closing is an error, not an empty answer.
func readJournal[T, O any](r *http.Request, read func(context.Context, int, bool) (accesstest.Journal[T], error), out func(cursor int, item T) O) (any, error) {
	since, wait, timeout, err := cursorQuery(r)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), timeout, errWaitOver)
	defer cancel()
	j, err := read(ctx, since, wait)
	timedOut := false
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(context.Cause(ctx), errWaitOver) {
			return nil, &controlErr{status: http.StatusServiceUnavailable, code: "wait_ended", msg: "the wait ended before its timeout: " + err.Error()}
		}
		timedOut = true
	}
	o := journalOut[O]{Items: make([]O, 0, len(j.Items)), Next: j.Next, Dropped: j.Dropped, TimedOut: timedOut}
	for i, item := range j.Items {
		o.Items = append(o.Items, out(j.First+i, item))
	}
	return o, nil
}

type requestOut struct {
	Cursor int    `json:"cursor"`
	Op     string `json:"op"`
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	Body   any    `json:"body,omitempty"`
	Time   string `json:"time"`
}

func (c *control) requests(r *http.Request, _ []byte) (any, error) {
	return readJournal(r, c.fake.RequestsSince, func(cursor int, q accesstest.Request) requestOut {
		return requestOut{Cursor: cursor, Op: string(q.Op), Method: q.Method, Path: q.Path,
			Query: q.Query.Encode(), Body: redactBody(q.Body), Time: q.Time.UTC().Format(time.RFC3339Nano)}
	})
}

// redactBody is a request body for the journal: JSON with the values of
// the secret members (PINs, passwords, secrets, tokens, a webhook
// endpoint's headers) replaced as access.RedactSecrets replaces them (the
// SDK's one list of secret members, so the journal's cannot drift from
// it), or "REDACTED (N bytes, not JSON)" for a body that is not JSON.
func redactBody(b []byte) any {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var v any
	if !json.Valid(b) || json.Unmarshal(access.RedactSecrets(b), &v) != nil {
		return "REDACTED (" + strconv.Itoa(len(b)) + " bytes, not JSON)"
	}
	return v
}

// controlAllowed says whether the control API may be served on host:
// on loopback always, elsewhere only when enabled.
func controlAllowed(addr string, enabled bool) bool {
	host, _, _ := net.SplitHostPort(addr)
	return enabled || isLoopback(host)
}
