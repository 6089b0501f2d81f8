package simulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// ctlSite is a demo simulator driven through its control API from raw
// HTTP, with what a console's clients see: a WebSocket subscriber, a
// webhook receiver for every event, and the REST API.
type ctlSite struct {
	t     *testing.T
	st    *simulator.Site
	hc    *http.Client
	c     *access.Client
	ctx   context.Context
	ws    chan *access.Notification
	hooks chan hookGot
}

type hookGot struct {
	body []byte
	sig  string
}

func newCtlSite(t *testing.T) *ctlSite {
	t.Helper()
	t.Parallel()
	// No web console: its own subscriber would count as a client.
	st := startSim(t, simulator.Config{Demo: true, NoUI: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	s := &ctlSite{t: t, st: st, hc: insecureHTTP(), c: sdkClient(t, st), ctx: ctx,
		ws: make(chan *access.Notification, 64), hooks: make(chan hookGot, 64)}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.hooks <- hookGot{b, r.Header.Get(access.SignatureHeader)}
	}))
	t.Cleanup(recv.Close)
	_, _, err := s.c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: recv.URL, Name: "all",
		Events: []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming, access.EventDoorbellCompleted,
			access.EventDeviceDPSStatus, access.EventDeviceEmergencyStatus}})
	require.NoError(t, err)
	before := st.Fake.NotificationConnections()
	go func() {
		for n, err := range s.c.Notifications.Subscribe(ctx, nil) {
			if err != nil || n.Event == access.NotificationBaseInfo || n.Event == access.NotificationLogsAdd {
				continue
			}
			select {
			case s.ws <- n:
			case <-ctx.Done():
				return
			}
		}
	}()
	require.NoError(t, st.Fake.WaitNotificationConnections(ctx, before+1))
	require.NoError(t, st.Fake.WaitNotificationClients(ctx, 1))
	return s
}

// do sends a control request with the site's token and decodes the
// JSON answer.
func (s *ctlSite) do(method, path string, body any) (int, map[string]any) {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(s.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(s.ctx, method, s.st.URL+simulator.ControlPrefix+path, rd)
	require.NoError(s.t, err)
	req.Header.Set("Authorization", "Bearer "+s.st.Token())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.hc.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	assert.Equal(s.t, "application/json", resp.Header.Get("Content-Type"))
	var out map[string]any
	require.NoError(s.t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// act posts an act that must succeed and returns its result and what it
// caused.
func (s *ctlSite) act(path string, body any) (result map[string]any, caused accesstest.Effects) {
	s.t.Helper()
	code, out := s.do("POST", path, body)
	require.Equal(s.t, http.StatusOK, code, "%v", out)
	b, _ := json.Marshal(out["caused"])
	require.NoError(s.t, json.Unmarshal(b, &caused))
	result, _ = out["result"].(map[string]any)
	return result, caused
}

func (s *ctlSite) frame() *access.Notification {
	s.t.Helper()
	select {
	case n := <-s.ws:
		return n
	case <-s.ctx.Done():
		s.t.Fatal("no WebSocket frame")
		return nil
	}
}

// hook returns the next webhook delivery and checks its signature
// against the delivery the control API lists.
func (s *ctlSite) hook(caused accesstest.Effects) map[string]any {
	s.t.Helper()
	var got hookGot
	select {
	case got = <-s.hooks:
	case <-s.ctx.Done():
		s.t.Fatal("no webhook")
	}
	var ev map[string]any
	require.NoError(s.t, json.Unmarshal(got.body, &ev))
	// The journal of deliveries lists it after the act's cursor.
	var d map[string]any
	for since := caused.DeliveriesSince; d == nil; {
		code, out := s.do("GET", "/deliveries?wait=true&timeout=10s&since="+itoa(since), nil)
		require.Equal(s.t, http.StatusOK, code)
		require.Equal(s.t, false, out["timed_out"], "the delivery is in the journal")
		for _, it := range out["items"].([]any) {
			if m := it.(map[string]any); m["body"] == string(got.body) {
				d = m
			}
		}
		since = int(out["next"].(float64))
	}
	require.NotNil(s.t, d, "the delivery is in the journal")
	assert.Equal(s.t, got.sig, d["signature"])
	assert.EqualValues(s.t, 1, d["attempt"])
	assert.EqualValues(s.t, 200, d["status"])
	return ev
}

// logged checks that the system-log entries the act caused are in the
// system log the REST API answers.
func (s *ctlSite) logged(caused accesstest.Effects) []access.SystemLog {
	s.t.Helper()
	require.NotEmpty(s.t, caused.SystemLogs)
	var out []access.SystemLog
	for e, err := range s.c.SystemLogs.All(s.ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll}) {
		require.NoError(s.t, err)
		for _, id := range caused.SystemLogs {
			if e.ID == id {
				out = append(out, e)
			}
		}
	}
	require.Len(s.t, out, len(caused.SystemLogs), "every entry caused is in the system log")
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestControlRingAndCancelDoorbell(t *testing.T) {
	s := newCtlSite(t)
	res, caused := s.act("/doorbell/ring", map[string]string{"device": "UA Intercom Main"})
	reqID, _ := res["request_id"].(string)
	require.NotEmpty(t, reqID)
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.EventDoorbellIncoming, caused.Events[0].Event)
	n := s.frame()
	assert.Equal(t, access.NotificationRemoteView, n.Event)
	assert.Equal(t, reqID, n.EventObjectID)
	ev := s.hook(caused)
	assert.Equal(t, string(access.EventDoorbellIncoming), ev["event"])
	assert.Equal(t, caused.Events[0].ID, ev["event_object_id"])
	s.logged(caused)
	got, ringing := s.st.Fake.Ringing(accesstest.DemoIntercomID)
	assert.True(t, ringing)
	assert.Equal(t, reqID, got)
	// A second ring while it rings: 409.
	code, out := s.do("POST", "/doorbell/ring", map[string]string{"device": accesstest.DemoIntercomID})
	assert.Equal(t, http.StatusConflict, code, "%v", out)

	_, caused = s.act("/doorbell/cancel", map[string]string{"device": accesstest.DemoIntercomID})
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.EventDoorbellCompleted, caused.Events[0].Event)
	assert.Equal(t, access.NotificationRemoteViewChange, s.frame().Event)
	assert.Equal(t, string(access.EventDoorbellCompleted), s.hook(caused)["event"])
	s.logged(caused)
	_, ringing = s.st.Fake.Ringing(accesstest.DemoIntercomID)
	assert.False(t, ringing)
}

func TestControlTapCard(t *testing.T) {
	s := newCtlSite(t)
	// An unknown card: denied, logged, no event.
	res, caused := s.act("/card/tap", map[string]string{"device": "UA Reader Main", "card": "0A1B2C"})
	assert.Equal(t, false, res["granted"])
	assert.Equal(t, "unknown card", res["reason"])
	assert.Empty(t, caused.Events)
	s.logged(caused)

	// With an enrollment session open the tap enrolls the card.
	sess, _, err := s.c.NFCCards.StartEnrollment(s.ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	require.NoError(t, err)
	res, _ = s.act("/card/tap", map[string]string{"device": accesstest.DemoDeviceID, "card": "0A1B2C"})
	assert.Equal(t, true, res["enrolled"])
	card, _, err := s.c.NFCCards.EnrollmentStatus(s.ctx, sess.SessionID)
	require.NoError(t, err)
	_, err = s.c.NFCCards.EndEnrollment(s.ctx, sess.SessionID)
	require.NoError(t, err)

	// Held by a user whose policy names the door: granted.
	_, err = s.c.Users.AssignNFCCard(s.ctx, accesstest.DemoUserID, &access.NFCCardAssignment{Token: card.Token})
	require.NoError(t, err)
	res, caused = s.act("/card/tap", map[string]string{"device": "UA Reader Main", "card": "0A1B2C"})
	require.Equal(t, true, res["granted"], "%v", res)
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.EventDoorUnlock, caused.Events[0].Event)
	assert.Equal(t, access.NotificationRemoteUnlock, s.frame().Event)
	assert.Equal(t, string(access.EventDoorUnlock), s.hook(caused)["event"])
	logs := s.logged(caused)
	assert.Equal(t, accesstest.DemoUserID, logs[0].Source.Actor.ID)
	door, _, err := s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorUnlocked, door.LockRelayStatus)

	code, out := s.do("POST", "/card/tap", map[string]string{"device": "no such reader", "card": "1"})
	assert.Equal(t, http.StatusNotFound, code, "%v", out)
}

func TestControlFailTap(t *testing.T) {
	s := newCtlSite(t)
	sess, _, err := s.c.NFCCards.StartEnrollment(s.ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID})
	require.NoError(t, err)
	res, caused := s.act("/card/fail", map[string]string{"device": "UA Reader Main", "code": string(access.CodeCredsNFCCardInvalid)})
	assert.Equal(t, accesstest.DemoDeviceID, res["device"])
	assert.Empty(t, caused.Events)
	_, _, err = s.c.NFCCards.EnrollmentStatus(s.ctx, sess.SessionID)
	assert.ErrorIs(t, err, access.ErrCardInvalid)
	code, _ := s.do("POST", "/card/fail", map[string]string{"device": "UA Reader Main", "code": "CODE_OTHER"})
	assert.Equal(t, http.StatusBadRequest, code)
}

func TestControlOpenCloseAndHoldDoor(t *testing.T) {
	s := newCtlSite(t)
	_, caused := s.act("/door/open", map[string]string{"door": "Main entrance"})
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.EventDeviceDPSStatus, caused.Events[0].Event)
	n := s.frame()
	assert.Equal(t, access.NotificationLocationUpdateV2, n.Event)
	assert.Equal(t, accesstest.DemoDoorID, n.EventObjectID)
	assert.Equal(t, string(access.EventDeviceDPSStatus), s.hook(caused)["event"])
	s.logged(caused)
	door, _, err := s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorOpen, door.PositionStatus)

	_, caused = s.act("/door/close", map[string]string{"door": accesstest.DemoDoorID})
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.NotificationLocationUpdateV2, s.frame().Event)
	s.hook(caused)
	door, _, err = s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorClosed, door.PositionStatus)

	// Held open for 90 s on the fake's clock: it closes by itself.
	res, caused := s.act("/door/open", map[string]string{"door": "Main entrance", "hold": "90s"})
	assert.NotEmpty(t, res["closes_at"])
	assert.Equal(t, access.NotificationLocationUpdateV2, s.frame().Event)
	s.hook(caused)
	_, caused = s.act("/clock/advance", map[string]string{"by": "89s"})
	assert.Empty(t, doorEvents(caused))
	_, caused = s.act("/clock/advance", map[string]string{"by": "1s"})
	require.Len(t, doorEvents(caused), 1, "the held door closes")
	assert.Equal(t, access.NotificationLocationUpdateV2, s.frame().Event)
	s.hook(caused)
	door, _, err = s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorClosed, door.PositionStatus)

	code, _ := s.do("POST", "/door/open", map[string]string{"door": "Roof hatch"})
	assert.Equal(t, http.StatusConflict, code, "no position sensor")
	code, _ = s.do("POST", "/door/open", map[string]string{"door": "Main entrance", "hold": "soon"})
	assert.Equal(t, http.StatusBadRequest, code)
}

// doorEvents are the events an act caused other than visitors' visits
// beginning or ending on the demo's timers while the clock moved.
func doorEvents(c accesstest.Effects) []accesstest.CausedEvent {
	var out []accesstest.CausedEvent
	for _, e := range c.Events {
		if e.Event != access.EventVisitorStatusChanged {
			out = append(out, e)
		}
	}
	return out
}

func TestControlExitButton(t *testing.T) {
	s := newCtlSite(t)
	_, caused := s.act("/door/exit", map[string]string{"door": "Main entrance"})
	require.Len(t, caused.Events, 1)
	assert.Equal(t, access.EventDoorUnlock, caused.Events[0].Event)
	assert.Equal(t, access.NotificationRemoteUnlock, s.frame().Event)
	ev := s.hook(caused)
	assert.Equal(t, string(access.EventDoorUnlock), ev["event"])
	assert.Contains(t, mustJSON(t, ev), `"REX"`)
	logs := s.logged(caused)
	assert.Equal(t, "Access Granted (REX)", logs[0].Source.Event.DisplayMessage)
	door, _, err := s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorUnlocked, door.LockRelayStatus)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestControlDeviceOnline(t *testing.T) {
	s := newCtlSite(t)
	res, caused := s.act("/device/online", map[string]any{"device": "UA Intercom Main", "online": false})
	assert.Equal(t, false, res["online"])
	assert.Empty(t, caused.Events)
	groups, _, err := s.c.Devices.List(s.ctx, nil)
	require.NoError(t, err)
	found := false
	for _, d := range groups.Devices() {
		if d.ID == accesstest.DemoIntercomID {
			found = true
			assert.False(t, d.IsOnline)
		}
	}
	assert.True(t, found)
	_, err = s.c.Devices.TriggerDoorbell(s.ctx, accesstest.DemoIntercomID, nil)
	assert.Error(t, err, "an offline device rings no doorbell")
	code, _ := s.do("POST", "/doorbell/ring", map[string]string{"device": "UA Intercom Main"})
	assert.Equal(t, http.StatusConflict, code)
	s.act("/device/online", map[string]any{"device": "UA Intercom Main", "online": true})
	_, caused = s.act("/doorbell/ring", map[string]string{"device": "UA Intercom Main"})
	assert.Len(t, caused.Events, 1)
	code, _ = s.do("POST", "/device/online", map[string]any{"device": "UA Intercom Main"})
	assert.Equal(t, http.StatusBadRequest, code, "online is required")
}

func TestControlEmergency(t *testing.T) {
	s := newCtlSite(t)
	for _, mode := range []string{"lockdown", "evacuation", "none"} {
		res, caused := s.act("/emergency", map[string]string{"mode": mode})
		assert.Equal(t, mode == "lockdown", res["lockdown"])
		require.NotEmpty(t, caused.Events)
		for range caused.Events { // one per hub, as a console sends
			ev := caused.Events[0]
			assert.Equal(t, access.EventDeviceEmergencyStatus, ev.Event)
			n := s.frame()
			assert.Equal(t, access.NotificationSettingUpdate, n.Event)
			var set access.SettingUpdateData
			require.NoError(t, json.Unmarshal(n.Data, &set))
			assert.Equal(t, mode == "evacuation", set.Evacuation)
			assert.Equal(t, string(access.EventDeviceEmergencyStatus), s.hook(caused)["event"])
		}
		s.logged(caused)
		st, _, err := s.c.Doors.GetEmergency(s.ctx)
		require.NoError(t, err)
		assert.Equal(t, mode == "lockdown", st.Lockdown)
	}
	code, _ := s.do("POST", "/emergency", map[string]string{"mode": "panic"})
	assert.Equal(t, http.StatusBadRequest, code)
}

func TestControlAdvanceClock(t *testing.T) {
	s := newCtlSite(t)
	before := s.st.Fake.Now()
	_, err := s.c.Doors.Unlock(s.ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	s.frame()
	res, caused := s.act("/clock/advance", map[string]string{"by": "2h"})
	now, err := time.Parse(time.RFC3339Nano, res["now"].(string))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, now.Sub(before), 2*time.Hour)
	for _, ev := range caused.Events { // visitors' visits may begin or end on the way
		assert.Equal(t, access.EventVisitorStatusChanged, ev.Event, "a relock publishes no event")
	}
	door, _, err := s.c.Doors.Get(s.ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, access.DoorLocked, door.LockRelayStatus, "the relock ran")
	code, out := s.do("GET", "/clock", nil)
	require.Equal(t, http.StatusOK, code)
	later, err := time.Parse(time.RFC3339Nano, out["now"].(string))
	require.NoError(t, err)
	assert.False(t, later.Before(now), "GET /clock reads the advanced clock")
	for _, bad := range []string{"0s", "-1m", "9000h", "soon"} {
		code, _ := s.do("POST", "/clock/advance", map[string]string{"by": bad})
		assert.Equal(t, http.StatusBadRequest, code, bad)
	}
}

// TestControlFaults: every member of accesstest.Fault, and clearing.
func TestControlFaults(t *testing.T) {
	s := newCtlSite(t)
	// status, code, message, retry_after, times
	s.act("/faults", map[string]any{"op": "Doors.List", "status": 503, "code": "CODE_SYSTEM_ERROR", "message": "busy",
		"retry_after": "2s", "times": 1})
	get := func(path string) *http.Response {
		req, _ := http.NewRequestWithContext(s.ctx, "GET", s.st.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.st.Token())
		resp, err := s.hc.Do(req)
		require.NoError(t, err)
		return resp
	}
	resp := get("/api/v1/developer/doors")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 503, resp.StatusCode)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"))
	assert.Contains(t, string(body), `"CODE_SYSTEM_ERROR"`)
	assert.Contains(t, string(body), `"busy"`)
	resp = get("/api/v1/developer/doors")
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, "times: 1")

	// body and content_type
	s.act("/faults", map[string]any{"op": "Doors.List", "status": 502, "body": "<html>bad gateway</html>", "content_type": "text/html", "times": 1})
	resp = get("/api/v1/developer/doors")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 502, resp.StatusCode)
	assert.Equal(t, "text/html", resp.Header.Get("Content-Type"))
	assert.Equal(t, "<html>bad gateway</html>", string(body))

	// drop_connection
	s.act("/faults", map[string]any{"op": "Doors.List", "drop_connection": true, "times": 1})
	req, _ := http.NewRequestWithContext(s.ctx, "GET", s.st.URL+"/api/v1/developer/doors", nil)
	req.Header.Set("Authorization", "Bearer "+s.st.Token())
	fresh := &http.Client{Transport: &http.Transport{TLSClientConfig: s.hc.Transport.(*http.Transport).TLSClientConfig, DisableKeepAlives: true}}
	_, err := fresh.Do(req)
	assert.Error(t, err, "the connection is dropped")

	// delay: the answer comes, later than the delay.
	s.act("/faults", map[string]any{"op": "Doors.List", "delay": "50ms", "times": 1})
	start := time.Now()
	resp = get("/api/v1/developer/doors")
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)

	// after_handling: the unlock takes effect (event, frame, webhook) and
	// the answer is the fault.
	s.act("/faults", map[string]any{"op": string(accesstest.OpDoorsUnlock), "status": 500, "after_handling": true, "times": 1})
	_, caused := s.act("/clock/advance", map[string]string{"by": "1s"}) // a cursor before the unlock
	_, err = s.c.Doors.Unlock(s.ctx, accesstest.DemoDoorID, nil)
	assert.ErrorIs(t, err, access.ErrServer)
	assert.Equal(t, access.NotificationRemoteUnlock, s.frame().Event)
	assert.Equal(t, string(access.EventDoorUnlock), s.hook(caused)["event"])

	// A fault for every request until cleared.
	s.act("/faults", map[string]any{"op": "Doors.List", "status": 500})
	for range 2 {
		resp = get("/api/v1/developer/doors")
		resp.Body.Close()
		assert.Equal(t, 500, resp.StatusCode)
	}
	s.act("/faults/clear", map[string]any{})
	resp = get("/api/v1/developer/doors")
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)

	for _, bad := range []map[string]any{
		{"op": "Doors.List"},
		{"op": "doors", "status": 500},
		{"op": "Doors.List", "status": 99},
		{"op": "Notifications.Subscribe", "status": 500, "after_handling": true},
		{"op": "Doors.List", "status": 500, "surprise": 1},
	} {
		code, out := s.do("POST", "/faults", bad)
		assert.Equal(t, http.StatusBadRequest, code, "%v: %v", bad, out)
	}
}

func TestControlTouchPassWallet(t *testing.T) {
	s := newCtlSite(t)
	var pending access.TouchPass
	for _, tp := range s.st.Fake.TouchPasses() {
		if tp.Status == access.TouchPassPending && tp.UserID != "" {
			pending = tp
			break
		}
	}
	require.NotEmpty(t, pending.ID, "the demo has a pending pass")
	res, _ := s.act("/touch-pass/wallet", map[string]string{"touch_pass": pending.ID, "source": "google", "device_name": "Pixel 9"})
	assert.Equal(t, string(access.TouchPassActive), res["status"])
	got, _, err := s.c.TouchPasses.Get(s.ctx, pending.ID)
	require.NoError(t, err)
	assert.Equal(t, access.TouchPassActive, got.Status)
	require.NotEmpty(t, got.Bundles)
	assert.Equal(t, "Pixel 9", got.Bundles[len(got.Bundles)-1].DeviceName)
	code, _ := s.do("POST", "/touch-pass/wallet", map[string]string{"touch_pass": "nope", "source": "apple"})
	assert.Equal(t, http.StatusNotFound, code)
	code, _ = s.do("POST", "/touch-pass/wallet", map[string]string{"touch_pass": pending.ID, "source": "nokia"})
	assert.Equal(t, http.StatusBadRequest, code)
}

func TestControlResetAndSnapshot(t *testing.T) {
	s := newCtlSite(t)
	_, _, err := s.c.Users.Create(s.ctx, &access.UserRequest{FirstName: "Snap", LastName: "Shot"})
	require.NoError(t, err)
	// Take a snapshot (a POST: it holds secrets), then reset to empty.
	req, _ := http.NewRequestWithContext(s.ctx, "POST", s.st.URL+simulator.ControlPrefix+"/snapshot", strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer "+s.st.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.hc.Do(req)
	require.NoError(t, err)
	snap, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", snap)

	s.act("/reset", map[string]string{"site": "empty"})
	users, _, err := s.c.Users.List(s.ctx, nil)
	require.NoError(t, err, "the token outlives a reset")
	assert.Empty(t, users)
	doors, _, err := s.c.Doors.List(s.ctx)
	require.NoError(t, err)
	assert.Empty(t, doors)

	s.act("/reset", map[string]string{"site": "demo"})
	doors, _, err = s.c.Doors.List(s.ctx)
	require.NoError(t, err)
	assert.Len(t, doors, 8)
	assert.Len(t, s.st.Fake.Users(), accesstest.DemoUserCount)

	// Restore: the user made before the snapshot is back.
	var snapObj any
	require.NoError(t, json.Unmarshal(snap, &snapObj))
	s.act("/snapshot/restore", snapObj)
	assert.Len(t, s.st.Fake.Users(), accesstest.DemoUserCount+1)
	found := false
	for u, err := range s.c.Users.All(s.ctx, nil) {
		require.NoError(t, err)
		found = found || u.FirstName == "Snap"
	}
	assert.True(t, found)
	code, _ := s.do("POST", "/snapshot/restore", map[string]any{"version": 99})
	assert.Equal(t, http.StatusBadRequest, code)
	code, _ = s.do("POST", "/reset", map[string]string{"site": "mars"})
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestControlJournals: the request journal (secrets redacted) and the
// deliveries, read with a cursor, waiting rather than sleeping.
func TestControlJournals(t *testing.T) {
	s := newCtlSite(t)
	_, caused := s.act("/clock/advance", map[string]string{"by": "1s"})
	since := caused.RequestsSince
	_, _, err := s.c.Users.Create(s.ctx, &access.UserRequest{FirstName: "Pin", LastName: "Holder"})
	require.NoError(t, err)
	code, out := s.do("GET", "/requests?wait=true&timeout=5s&since="+itoa(since), nil)
	require.Equal(t, http.StatusOK, code)
	items := out["items"].([]any)
	require.NotEmpty(t, items)
	first := items[0].(map[string]any)
	assert.Equal(t, "POST", first["method"])
	assert.Equal(t, "/api/v1/developer/users", first["path"])
	assert.Equal(t, "Pin", first["body"].(map[string]any)["first_name"])
	assert.EqualValues(t, since+1, first["cursor"])
	next := int(out["next"].(float64))

	// A PIN set through the API is redacted in the journal.
	users, _, err := s.c.Users.List(s.ctx, nil)
	require.NoError(t, err)
	_, err = s.c.Users.AssignPINCode(s.ctx, users[0].ID, "271828")
	require.NoError(t, err)
	code, out = s.do("GET", "/requests?since="+itoa(next+1), nil) // skip the list
	require.Equal(t, http.StatusOK, code)
	raw := mustJSON(t, out)
	assert.NotContains(t, raw, "271828")
	assert.Contains(t, raw, "REDACTED")
	next = int(out["next"].(float64))

	// A webhook endpoint's headers (their names and values authenticate
	// deliveries) are redacted too: the journal reads the SDK's one list
	// of secret members (access.RedactSecrets).
	_, _, err = s.c.Webhooks.Create(s.ctx, &access.WebhookEndpointRequest{Endpoint: "http://127.0.0.1:9/hook", Name: "hook",
		Events: []access.EventType{access.EventDoorUnlock}, Headers: map[string]string{"X-Hook-Auth": "hdr-5ecret-value"}})
	require.NoError(t, err)
	code, out = s.do("GET", "/requests?since="+itoa(next), nil)
	require.Equal(t, http.StatusOK, code)
	raw = mustJSON(t, out)
	assert.Contains(t, raw, "/webhooks/endpoints")
	assert.NotContains(t, raw, "hdr-5ecret-value")
	assert.NotContains(t, raw, "X-Hook-Auth")
	next = int(out["next"].(float64))

	// Nothing new: a short wait times out with no items and the same cursor.
	code, out = s.do("GET", "/deliveries?wait=true&timeout=20ms&since=100000", nil)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, true, out["timed_out"])
	assert.Empty(t, out["items"])
	for _, bad := range []string{"since=-1", "wait=maybe", "timeout=2h", "timeout=x"} {
		code, _ := s.do("GET", "/requests?"+bad, nil)
		assert.Equal(t, http.StatusBadRequest, code, bad)
	}
	_ = next
}

// TestControlAuthorization: the API token or the page's credential
// cookie; a state change is a same-origin JSON POST; GET changes nothing.
func TestControlAuthorization(t *testing.T) {
	t.Parallel()
	st := startSim(t, simulator.Config{Demo: true})
	hc := insecureHTTP()
	ctx := context.Background()
	send := func(method, path, ctype, body string, hdr map[string]string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, method, st.URL+simulator.ControlPrefix+path, strings.NewReader(body))
		require.NoError(t, err)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	open := `{"door":"Main entrance"}`
	bearer := map[string]string{"Authorization": "Bearer " + st.Token()}
	doorPos := func() access.DoorPositionStatus {
		d, _ := st.Fake.Door(accesstest.DemoDoorID)
		return d.PositionStatus
	}

	code, body := send("POST", "/door/open", "application/json", open, nil)
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, body, `"unauthorized"`)
	code, _ = send("POST", "/door/open", "application/json", open, map[string]string{"Authorization": "Bearer wrong"})
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _ = send("POST", "/door/open", "application/json", open, map[string]string{"Cookie": simulator.PageCookie + "=wrong"})
	assert.Equal(t, http.StatusUnauthorized, code)
	code, body = send("POST", "/door/open", "text/plain", open, bearer)
	assert.Equal(t, http.StatusUnsupportedMediaType, code, body)
	code, _ = send("POST", "/door/open", "application/x-www-form-urlencoded", "door=Main+entrance", bearer)
	assert.Equal(t, http.StatusUnsupportedMediaType, code)
	code, body = send("POST", "/door/open", "application/json", open,
		map[string]string{"Authorization": "Bearer " + st.Token(), "Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, code, body)
	code, _ = send("GET", "/door/open", "", "", bearer)
	assert.Equal(t, http.StatusNotFound, code, "GET changes nothing")
	assert.Equal(t, access.DoorClosed, doorPos(), "nothing refused took effect")

	// The page sets the credential; it works with a same-origin Origin.
	resp, err := hc.Get(st.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	var page *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == simulator.PageCookie {
			page = c
		}
	}
	require.NotNil(t, page, "the page sets its credential")
	assert.True(t, page.HttpOnly)
	assert.True(t, page.Secure)
	assert.Equal(t, http.SameSiteStrictMode, page.SameSite)
	assert.NotContains(t, page.Value, st.Token())
	code, body = send("POST", "/door/open", "application/json; charset=utf-8", open,
		map[string]string{"Cookie": page.Name + "=" + page.Value, "Origin": st.URL})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, access.DoorOpen, doorPos())

	// The document needs no credential.
	code, body = send("GET", "/openapi.json", "", "", nil)
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"openapi": "3.0.3"`)
	code, _ = send("POST", "/nope", "application/json", "{}", bearer)
	assert.Equal(t, http.StatusNotFound, code)
}

// TestControlOffLoopbackRefused: on an address that is not loopback the
// control API answers 403 unless ControlRemote (--control-remote).
func TestControlOffLoopbackRefused(t *testing.T) {
	t.Parallel()
	for _, remote := range []bool{false, true} {
		st := startSim(t, simulator.Config{Addr: "0.0.0.0:0", NoUI: true, Demo: true, ControlRemote: remote})
		req, err := http.NewRequest("POST", st.URL+simulator.ControlPrefix+"/door/open", strings.NewReader(`{"door":"Main entrance"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+st.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := insecureHTTP().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		d, _ := st.Fake.Door(accesstest.DemoDoorID)
		if remote {
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, access.DoorOpen, d.PositionStatus)
		} else {
			assert.Equal(t, http.StatusForbidden, resp.StatusCode)
			assert.Equal(t, access.DoorClosed, d.PositionStatus)
		}
	}
}

// TestControlRoutesMatchOpenAPI: every route is in openapi.json and every
// path and method of openapi.json is routed (F3), and the served
// document is the file in the repository.
func TestControlRoutesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	file, err := os.ReadFile("openapi.json")
	require.NoError(t, err)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(file, &doc))
	assert.Equal(t, "3.0.3", doc.OpenAPI)
	var inDoc []string
	for path, ops := range doc.Paths {
		for method, op := range ops {
			inDoc = append(inDoc, strings.ToUpper(method)+" "+path)
			assert.NotEmpty(t, op["summary"], "%s %s has a summary", method, path)
		}
	}
	assert.ElementsMatch(t, simulator.ControlRoutes(), inDoc)

	st := startSim(t, simulator.Config{NoUI: true})
	resp, err := insecureHTTP().Get(st.URL + simulator.ControlPrefix + "/openapi.json")
	require.NoError(t, err)
	served, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, string(file), string(served))
	// Every routed path answers something other than "no such endpoint"
	// (401 without a credential), and an unrouted one 404.
	for _, r := range simulator.ControlRoutes() {
		method, path, _ := strings.Cut(r, " ")
		req, _ := http.NewRequest(method, st.URL+simulator.ControlPrefix+path, strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := insecureHTTP().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.NotEqual(t, http.StatusNotFound, resp.StatusCode, r)
	}
}

// TestControlClientHidesTheToken: printing a ControlClient in any form
// never shows its token.
func TestControlClientHidesTheToken(t *testing.T) {
	t.Parallel()
	c, err := simulator.NewControlClient("https://127.0.0.1:1", "tok-secret-0123456789", strings.Repeat("ab", 32), "")
	require.NoError(t, err)
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(f, c), "tok-secret", f)
		assert.NotContains(t, fmt.Sprintf(f, *c), "tok-secret", f)
	}
	_, err = simulator.NewControlClient("http://127.0.0.1:1", "t", strings.Repeat("ab", 32), "")
	assert.Error(t, err, "the fake serves https")
	_, err = simulator.NewControlClient("https://127.0.0.1:1", "t", "", "")
	assert.Error(t, err, "no way to trust the certificate")
}
