package access

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vendor-notes §3.4 test vector.
const (
	vecSecret = "6601f1243d2ff70f"
	vecT      = 1695902233
	vecBody   = `{"event":"access.door.unlock","event_object_id":"4a98adf6-dbb8-4312-9b8b-593f6eba8c8e","data":{}}`
	vecSig    = "3f298ada49fa895843e4a706139200a8ef5019bf318facc1fb499228576dc419"
)

var vecTime = time.Unix(vecT, 0)

func atVec() WebhookOption { return WithWebhookClock(func() time.Time { return vecTime }) }

func TestSignatureTestVector(t *testing.T) {
	t.Parallel()
	assert.Equal(t, vecSig, ComputeSignature([]byte(vecBody), vecSecret, vecTime))
	assert.Equal(t, "t=1695902233,v1="+vecSig, SignPayload([]byte(vecBody), vecSecret, vecTime))
	require.NoError(t, VerifySignature([]byte(vecBody), "t=1695902233,v1="+vecSig, vecSecret, atVec()))

	ev, err := ConstructEvent([]byte(vecBody), "t=1695902233,v1="+vecSig, vecSecret, atVec())
	require.NoError(t, err)
	assert.Equal(t, EventDoorUnlock, ev.Event)
	assert.Equal(t, "4a98adf6-dbb8-4312-9b8b-593f6eba8c8e", ev.EventObjectID)
	assert.Equal(t, vecBody, string(ev.Raw))
}

func TestVerifySignatureHeaderForms(t *testing.T) {
	t.Parallel()
	other := strings.Repeat("ab", 32)
	ok := map[string]string{
		"plain":                "t=1695902233,v1=" + vecSig,
		"space after comma":    "t=1695902233, v1=" + vecSig,
		"spaces everywhere":    "  t = 1695902233 ,  v1 = " + vecSig + "  ",
		"v1 first":             "v1=" + vecSig + ",t=1695902233",
		"rotated key":          "t=1695902233,v1=" + other + ",v1=" + vecSig,
		"unknown keys ignored": "t=1695902233,v2=zzz,v0=" + other + ",v1=" + vecSig + ",foo=bar",
		"empty pairs":          "t=1695902233,,v1=" + vecSig + ",",
		"malformed v1 skipped": "t=1695902233,v1=nothex,v1=" + vecSig[:10] + ",v1=" + vecSig,
	}
	for name, h := range ok {
		assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, atVec()), name)
	}
	bad := map[string]struct {
		header string
		want   error
	}{
		"empty":             {"", ErrNotSigned},
		"blank":             {"   ", ErrNotSigned},
		"no t":              {"v1=" + vecSig, ErrInvalidHeader},
		"t not a number":    {"t=abc,v1=" + vecSig, ErrInvalidHeader},
		"t negative":        {"t=-1,v1=" + vecSig, ErrInvalidHeader},
		"t twice":           {"t=1695902233,t=1695902233,v1=" + vecSig, ErrInvalidHeader},
		"pair without =":    {"t=1695902233,v1", ErrInvalidHeader},
		"no v1":             {"t=1695902233", ErrNoValidSignature},
		"wrong v1":          {"t=1695902233,v1=" + other, ErrNoValidSignature},
		"timestamp changed": {"t=1695902234,v1=" + vecSig, ErrNoValidSignature},
		"body-only HMAC":    {"t=1695902233,v1=" + bodyOnlyHMAC(), ErrNoValidSignature},
	}
	for name, tc := range bad {
		err := VerifySignature([]byte(vecBody), tc.header, vecSecret, atVec())
		assert.ErrorIs(t, err, tc.want, name)
	}
	// Upper-case hex decodes to the same bytes and verifies.
	assert.NoError(t, VerifySignature([]byte(vecBody), "t=1695902233,v1="+strings.ToUpper(vecSig), vecSecret, atVec()))
	// The body must be the exact bytes.
	assert.ErrorIs(t, VerifySignature([]byte(vecBody+"\n"), "t=1695902233,v1="+vecSig, vecSecret, atVec()), ErrNoValidSignature)
	// The secret is used as bytes, not hex-decoded.
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), "t=1695902233,v1="+vecSig, "6601F1243D2FF70F", atVec()), ErrNoValidSignature)
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), "t=1695902233,v1="+vecSig, "", atVec()), ErrValidation)
}

// bodyOnlyHMAC is the signature a known-buggy client computed: the body
// alone, without the "t." prefix.
func bodyOnlyHMAC() string {
	mac := hmac.New(sha256.New, []byte(vecSecret))
	mac.Write([]byte(vecBody))
	return hex.EncodeToString(mac.Sum(nil))
}

func TestVerifySignatureTolerance(t *testing.T) {
	t.Parallel()
	h := "t=1695902233,v1=" + vecSig
	at := func(d time.Duration) WebhookOption {
		return WithWebhookClock(func() time.Time { return vecTime.Add(d) })
	}
	assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, at(DefaultTolerance)))
	assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, at(-DefaultTolerance)))
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), h, vecSecret, at(DefaultTolerance+time.Second)), ErrTooOld)
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), h, vecSecret, at(-DefaultTolerance-time.Second)), ErrTooOld, "future timestamps too")
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), h, vecSecret), ErrTooOld, "2023 is stale by the real clock")
	assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, WithTolerance(0)), "zero disables the check")
	assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, WithTolerance(time.Hour), at(59*time.Minute)))
	assert.NoError(t, VerifySignature([]byte(vecBody), h, vecSecret, nil, atVec()), "a nil option is ignored")
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), h, vecSecret, WithWebhookClock(nil), atVec()), ErrValidation, "a nil clock is not")
	// A stale but forged header reports the forgery, not the age.
	assert.ErrorIs(t, VerifySignature([]byte(vecBody), "t=1,v1="+vecSig, vecSecret), ErrNoValidSignature)
}

func readEventSample(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "events", name+".json"))
	require.NoError(t, err)
	return b
}

func TestConstructEventVendorSamples(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	construct := func(t *testing.T, name string) *WebhookEvent {
		body := readEventSample(t, name)
		ev, err := ConstructEvent(body, SignPayload(body, vecSecret, now), vecSecret, WithWebhookClock(func() time.Time { return now }))
		require.NoError(t, err)
		assert.Equal(t, string(body), string(ev.Raw))
		return ev
	}
	t.Run("door unlock", func(t *testing.T) {
		ev := construct(t, "door_unlock")
		assert.Equal(t, EventDoorUnlock, ev.Event)
		require.NotNil(t, ev.Data.Location)
		assert.Equal(t, "Door 3855", ev.Data.Location.Name)
		assert.Nil(t, ev.Data.Location.DeviceIDs)
		assert.Equal(t, "on", ev.Data.Location.Extras["uah-input_state_dps"])
		assert.Equal(t, float64(1722913291), ev.Data.Location.Extras["door_thumbnail_last_update"])
		require.NotNil(t, ev.Data.Device)
		assert.Equal(t, UnixTime(1721988528), ev.Data.Device.StartTime)
		assert.Equal(t, "1722912520784126005", ev.Data.Device.Revision)
		assert.Nil(t, ev.Data.Device.Cap, "cap null")
		require.NotNil(t, ev.Data.Actor)
		assert.Equal(t, EventActor{ID: "d62e92fd-91aa-44c2-9b36-6d674a4b74d0", Name: "Hon***", Type: "user"}, *ev.Data.Actor)
		o, err := ev.DoorUnlock()
		require.NoError(t, err)
		assert.Equal(t, DoorUnlockObject{AuthenticationType: "CALL", Result: "Access Granted"}, *o)
		_, err = ev.Doorbell()
		assert.ErrorIs(t, err, ErrEventMismatch)
	})
	t.Run("doorbell incoming", func(t *testing.T) {
		ev := construct(t, "doorbell_incoming")
		assert.Nil(t, ev.Data.Actor)
		o, err := ev.Doorbell()
		require.NoError(t, err)
		assert.Equal(t, "Ed8XSsi4fLm6St7JOLLa26UcmzAZlGzn", o.RequestID)
	})
	t.Run("doorbell completed", func(t *testing.T) {
		ev := construct(t, "doorbell_completed")
		o, err := ev.Doorbell()
		require.NoError(t, err)
		assert.Equal(t, 400, o.ReasonCode)
	})
	t.Run("REN", func(t *testing.T) {
		ev := construct(t, "doorbell_incoming_ren")
		assert.Equal(t, EventDoorbellIncomingREN, ev.Event)
		assert.Nil(t, ev.Data.Device, "device null")
		assert.Nil(t, ev.Data.Actor)
		o, err := ev.Doorbell()
		require.NoError(t, err)
		assert.Equal(t, DoorbellObject{RequestID: "65d22fd2-29d7-43a8-b0f5-30a6722fcf1e", HostDeviceMAC: "74ACB95E28D5"}, *o)
	})
	t.Run("dps", func(t *testing.T) {
		ev := construct(t, "dps_status")
		o, err := ev.DPSStatus()
		require.NoError(t, err)
		assert.Equal(t, DPSStatusObject{EventType: "dps_change", Status: "close"}, *o)
		_, err = ev.EmergencyStatus()
		assert.ErrorIs(t, err, ErrEventMismatch)
	})
	t.Run("emergency", func(t *testing.T) {
		ev := construct(t, "emergency_status")
		assert.Nil(t, ev.Data.Location, "no location key")
		assert.Nil(t, ev.Data.Actor, "no actor key")
		require.NotNil(t, ev.Data.Device)
		assert.False(t, ev.Data.Device.Adopting)
		o, err := ev.EmergencyStatus()
		require.NoError(t, err)
		assert.Equal(t, EmergencyStatusObject{Mode: "lockdown", Value: true}, *o)
	})
}

func TestParseEventLenient(t *testing.T) {
	t.Parallel()
	// An undocumented payload keeps its object raw.
	ev, err := ParseEvent([]byte(`{"event":"access.visitor.status.changed","event_object_id":"x","data":{"object":{"visitor_id":"v","status":"VISITING"},"actor":null,"location":null,"device":null}}`))
	require.NoError(t, err)
	assert.Equal(t, EventVisitorStatusChanged, ev.Event)
	assert.Nil(t, ev.Data.Location)
	var obj struct {
		VisitorID string `json:"visitor_id"`
		Status    string `json:"status"`
	}
	require.NoError(t, ev.DecodeObject(&obj))
	assert.Equal(t, "v", obj.VisitorID)
	assert.Equal(t, "VISITING", obj.Status)
	_, err = ev.DoorUnlock()
	assert.ErrorIs(t, err, ErrEventMismatch)

	// Null and absent objects, unknown event names, and extra keys.
	ev, err = ParseEvent([]byte(`{"event":"access.future.thing","data":{"object":null},"receiver_id":"r"}`))
	require.NoError(t, err)
	assert.Nil(t, ev.Data.Object)
	assert.False(t, ev.Event.Known())
	ev, err = ParseEvent([]byte(`{"event":"access.door.unlock"}`))
	require.NoError(t, err)
	o, err := ev.DoorUnlock()
	require.NoError(t, err)
	assert.Equal(t, DoorUnlockObject{}, *o)

	// Bad objects for a typed accessor fail there, not at parse time.
	ev, err = ParseEvent([]byte(`{"event":"access.device.dps_status","data":{"object":{"status":1}}}`))
	require.NoError(t, err)
	_, err = ev.DPSStatus()
	assert.ErrorContains(t, err, "access.device.dps_status")

	for _, bad := range []string{``, `null`, `[]`, `{}`, `{"event":""}`, `{"event":1}`, `<html>`, `{"event":"a","data":[]}`, `{"event":"a","data":{"device":{"online":"yes"}}}`} {
		_, err := ParseEvent([]byte(bad))
		assert.ErrorIs(t, err, ErrInvalidPayload, bad)
	}
}

func TestEventTypes(t *testing.T) {
	t.Parallel()
	all := AllEvents()
	require.Len(t, all, 11)
	seen := map[EventType]bool{}
	for _, e := range all {
		assert.True(t, e.Known())
		assert.False(t, seen[e], "duplicate %s", e)
		seen[e] = true
	}
	assert.Equal(t, EventType("access.doorbell.incoming.REN"), EventDoorbellIncomingREN)
	assert.False(t, EventType("access.doorbell.incoming.ren").Known(), "case-sensitive")
}

func TestWebhookHandler(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	body := readEventSample(t, "door_unlock")
	sig := SignPayload(body, vecSecret, now)
	type ctxKey struct{}

	var calls []*WebhookEvent
	fail := false
	h, err := WebhookHandler(vecSecret, func(ctx context.Context, ev *WebhookEvent) error {
		assert.Equal(t, "req", ctx.Value(ctxKey{}), "fn gets the request's context")
		calls = append(calls, ev)
		if fail {
			return errors.New("database down: secret detail")
		}
		return nil
	}, WithWebhookClock(func() time.Time { return now }), WithRequiredHeader("Authorization", "Bearer hook-token"), WithMaxPayloadSize(4096))
	require.NoError(t, err)

	do := func(method, signature, auth string, b []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/hook", strings.NewReader(string(b)))
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, "req"))
		if signature != "" {
			r.Header.Set(SignatureHeader, signature)
		}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	const auth = "Bearer hook-token"
	stale := SignPayload(body, vecSecret, now.Add(-time.Hour))
	badBody := []byte(`{"event":`)
	big := make([]byte, 5000)

	rejected := map[string]struct {
		w    *httptest.ResponseRecorder
		code int
	}{
		"GET":              {do("GET", sig, auth, body), 405},
		"PUT":              {do("PUT", sig, auth, body), 405},
		"no custom header": {do("POST", sig, "", body), 401},
		"wrong header":     {do("POST", sig, "Bearer nope", body), 401},
		"no signature":     {do("POST", "", auth, body), 401},
		"bad signature":    {do("POST", SignPayload(body, "other", now), auth, body), 401},
		"malformed header": {do("POST", "garbage", auth, body), 401},
		"stale":            {do("POST", stale, auth, body), 401},
		"tampered body":    {do("POST", sig, auth, append([]byte(" "), body...)), 401},
		"bad JSON":         {do("POST", SignPayload(badBody, vecSecret, now), auth, badBody), 400},
		"too large":        {do("POST", SignPayload(big, vecSecret, now), auth, big), 413},
	}
	for name, tc := range rejected {
		assert.Equal(t, tc.code, tc.w.Code, name)
		assert.NotContains(t, tc.w.Body.String(), vecSecret, name)
	}
	assert.Equal(t, "POST", rejected["GET"].w.Header().Get("Allow"))
	assert.Empty(t, calls, "fn never sees a rejected delivery")

	w := do("POST", sig, auth, body)
	assert.Equal(t, 200, w.Code)
	assert.Equal(t, "OK", w.Body.String())
	require.Len(t, calls, 1)
	assert.Equal(t, EventDoorUnlock, calls[0].Event)

	fail = true
	w = do("POST", sig, auth, body)
	assert.Equal(t, 500, w.Code)
	assert.NotContains(t, w.Body.String(), "secret detail")

	// A nil fn acknowledges verified deliveries.
	w = httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/", strings.NewReader(string(body)))
	r.Header.Set(SignatureHeader, sig)
	mustHandler(t, vecSecret, nil, WithWebhookClock(func() time.Time { return now })).ServeHTTP(w, r)
	assert.Equal(t, 200, w.Code)
}

// errReader fails mid-body.
type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestWebhookHandlerBodyReadError(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("POST", "/", errReader{})
	r.Header.Set(SignatureHeader, "t=1,v1=00")
	w := httptest.NewRecorder()
	called := false
	mustHandler(t, vecSecret, func(context.Context, *WebhookEvent) error { called = true; return nil }).ServeHTTP(w, r)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.False(t, called)
}

func TestWebhookHandlerOverRealServer(t *testing.T) {
	t.Parallel()
	got := make(chan *WebhookEvent, 1)
	srv := httptest.NewServer(mustHandler(t, vecSecret, func(_ context.Context, ev *WebhookEvent) error {
		got <- ev
		return nil
	}))
	t.Cleanup(srv.Close)
	body := readEventSample(t, "doorbell_incoming_ren")
	req, err := http.NewRequest("POST", srv.URL, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set(SignatureHeader, SignPayload(body, vecSecret, time.Now()))
	req.Header.Set("Content-Type", "application/json")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	ev := <-got
	assert.Equal(t, EventDoorbellIncomingREN, ev.Event)
}

func mustHandler(t *testing.T, secret string, fn func(context.Context, *WebhookEvent) error, opts ...WebhookOption) http.Handler {
	t.Helper()
	h, err := WebhookHandler(secret, fn, opts...)
	require.NoError(t, err)
	return h
}

// TestWebhookConfigRejected: a handler that could only ever answer 401, or
// an option whose value would be ignored, is an error when it is built.
func TestWebhookConfigRejected(t *testing.T) {
	t.Parallel()
	ok := func(context.Context, *WebhookEvent) error { return nil }
	cases := map[string]struct {
		secret string
		opts   []WebhookOption
		field  string
	}{
		"empty secret":         {secret: "", field: "secret"},
		"max payload 0":        {secret: "s", opts: []WebhookOption{WithMaxPayloadSize(0)}, field: "n"},
		"max payload negative": {secret: "s", opts: []WebhookOption{WithMaxPayloadSize(-1)}, field: "n"},
		"nil clock":            {secret: "s", opts: []WebhookOption{WithWebhookClock(nil)}, field: "now"},
		"empty header name":    {secret: "s", opts: []WebhookOption{WithRequiredHeader(" ", "v")}, field: "name"},
	}
	for name, tc := range cases {
		h, err := WebhookHandler(tc.secret, ok, tc.opts...)
		assert.Nil(t, h, name)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.Equal(t, tc.field, ve.Field, name)
		}
		if tc.secret != "" {
			// The verification functions report the bad option too.
			assert.ErrorIs(t, VerifySignature([]byte(vecBody), "t=1695902233,v1="+vecSig, vecSecret, tc.opts...), ErrValidation, name)
			_, err := ConstructEvent([]byte(vecBody), "t=1695902233,v1="+vecSig, vecSecret, tc.opts...)
			assert.ErrorIs(t, err, ErrValidation, name)
		}
	}
}

// The receiver of docs/events.md prints ev.Data.Actor.GetName(): events whose actor,
// location or device is null must not panic there.
func TestEventGetNameIsNilSafe(t *testing.T) {
	t.Parallel()
	ev, err := ParseEvent([]byte(`{"event":"access.door.unlock","data":{"actor":null,"location":null,"device":null,"object":{}}}`))
	require.NoError(t, err)
	assert.Nil(t, ev.Data.Actor)
	assert.Equal(t, "", ev.Data.Actor.GetName())
	assert.Equal(t, "", ev.Data.Location.GetName())
	assert.Equal(t, "", ev.Data.Device.GetName())
	ev, err = ParseEvent([]byte(`{"event":"access.door.unlock","data":{"actor":{"name":"Ada"},"location":{"name":"Main"},"device":{"name":"Hub"}}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"Ada", "Main", "Hub"}, []string{ev.Data.Actor.GetName(), ev.Data.Location.GetName(), ev.Data.Device.GetName()})
}
