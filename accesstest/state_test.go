package accesstest_test

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// busyDemo is a demo site with changes made through the API: pending
// timers of every kind, credentials, a webhook, a certificate, tokens.
func busyDemo(t *testing.T) *accesstest.Server {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return t0 }))
	c := srv.Client(noRetry())
	u, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace"})
	require.NoError(t, err)
	_, err = c.Users.AssignPINCode(ctx, u.ID, "482913")
	require.NoError(t, err)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil) // a relock timer
	require.NoError(t, err)
	_, err = c.Doors.SetLockRule(ctx, accesstest.DemoDoorID, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 30})
	require.NoError(t, err)
	_, err = c.Devices.TriggerDoorbell(ctx, accesstest.DemoIntercomID, &access.DoorbellRequest{RoomName: "Lobby"}) // a ring
	require.NoError(t, err)
	_, _, err = c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Vera", LastName: "Visitor",
		StartTime: t0.Add(time.Hour), EndTime: t0.Add(2 * time.Hour), VisitReason: access.VisitReasonBusiness}) // two status timers
	require.NoError(t, err)
	_, _, err = c.NFCCards.StartEnrollment(ctx, &access.EnrollmentRequest{DeviceID: accesstest.DemoDeviceID}) // a session
	require.NoError(t, err)
	_, _, err = c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: "http://127.0.0.1:1/hook", Name: "hook",
		Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	_, _, err = c.TouchPasses.Purchase(ctx, 2)
	require.NoError(t, err)
	certPEM, keyPEM := testPair(t)
	_, err = c.APIServer.UploadCertificate(ctx, &access.CertificateUpload{Key: keyPEM, Cert: certPEM})
	require.NoError(t, err)
	srv.AddToken("reader-token", accesstest.ViewUser)
	srv.AddStaticFile("avatar/a.png", "image/png", []byte{0x89, 'P', 'N', 'G'})
	srv.Advance(time.Second)
	require.NoError(t, srv.WaitDeliveries(ctx))
	return srv
}

func writeState(t *testing.T, srv *accesstest.Server) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, srv.WriteState(&buf))
	return buf.Bytes()
}

// getters is everything the Server's getters show.
func getters(srv *accesstest.Server) map[string]any {
	lock, lockOK := srv.LockRule(accesstest.DemoDoorID)
	ring, ringOK := srv.Ringing(accesstest.DemoIntercomID)
	cert, certOK := srv.APICertificate()
	dev, devOK := srv.Device(accesstest.DemoDeviceID)
	return map[string]any{
		"token": srv.Token(), "now": srv.Now(), "users": srv.Users(), "visitors": srv.Visitors(),
		"policies": srv.AccessPolicies(), "schedules": srv.Schedules(), "user groups": srv.UserGroups(),
		"doors": srv.Doors(), "door groups": srv.DoorGroups(), "devices": srv.DeviceList(), "device ids": srv.DeviceIDs(),
		"device": dev, "device ok": devOK, "webhooks": srv.Webhooks(), "touch passes": srv.TouchPasses(),
		"cards": srv.NFCCards(), "logs": srv.SystemLogs(), "emergency": srv.Emergency(), "lock rule": lock, "lock ok": lockOK,
		"ring": ring, "ring ok": ringOK, "sessions": srv.EnrollmentSessions(), "invited": srv.Invited(),
		"cert pem": string(cert.CertPEM), "cert key": string(cert.KeyPEM), "cert at": cert.UploadedAt, "cert ok": certOK,
		"pin holder": srv.PINHolder("482913"),
	}
}

func TestStateRoundTrip(t *testing.T) {
	t.Parallel()
	src := busyDemo(t)
	state := writeState(t, src)
	assert.True(t, bytes.HasPrefix(state, []byte("{\n  \"version\": 1,")), "versioned: %.40s", state)

	dst := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	require.NoError(t, dst.ReadState(bytes.NewReader(state)))
	assert.Equal(t, getters(src), getters(dst))
	assert.Equal(t, string(state), string(writeState(t, dst)), "written again, byte for byte")

	// Through the API, with the token the state carries.
	for _, srv := range []*accesstest.Server{src, dst} {
		assert.Equal(t, src.Token(), srv.Token())
	}
	us1, _, err := src.Client().Users.List(ctx, nil)
	require.NoError(t, err)
	us2, _, err := dst.Client().Users.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, us1, us2)
	d1, _, err := src.Client().Doors.Get(ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	d2, _, err := dst.Client().Doors.Get(ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	assert.Equal(t, d1, d2)
	_, _, err = dst.ClientWithToken("reader-token").Users.Get(ctx, us1[0].ID, nil)
	require.NoError(t, err, "the added token came along")
	_, _, err = dst.ClientWithToken("reader-token").Visitors.List(ctx, nil)
	assert.ErrorIs(t, err, access.ErrForbidden, "with its permissions only")

	// The pending timers came along: the same changes happen on both.
	logged := len(dst.SystemLogs())
	for _, srv := range []*accesstest.Server{src, dst} {
		srv.Advance(3 * time.Hour)
		require.NoError(t, srv.WaitDeliveries(ctx))
	}
	msgs := func(srv *accesstest.Server) []string {
		var out []string
		for _, e := range srv.SystemLogs() {
			out = append(out, e.Source.Event.Type+" "+e.Source.Event.DisplayMessage+" "+e.Time().String())
		}
		return out
	}
	assert.Equal(t, msgs(src), msgs(dst))
	assert.Greater(t, len(msgs(dst)), logged, "the timers logged")
	_, ringing := dst.Ringing(accesstest.DemoIntercomID)
	assert.False(t, ringing, "the ring timed out")
	assert.Empty(t, dst.EnrollmentSessions(), "the session expired")
	v := dst.Visitors()
	assert.Equal(t, "VISITED", v[len(v)-1].Status)
}

func TestReadStateRefusesBadInput(t *testing.T) {
	t.Parallel()
	srv := busyDemo(t)
	before := writeState(t, srv)
	truncated := before[:len(before)/2]
	for name, in := range map[string]string{
		"not JSON":       "not json",
		"truncated":      string(truncated),
		"no version":     `{"users":[]}`,
		"version 0":      `{"version":0}`,
		"wrong type":     `{"version":1,"users":"x"}`,
		"null record":    `{"version":1,"users":[null]}`,
		"unknown key":    `{"version":1,"frobs":[]}`,
		"orphan timer":   `{"version":1,"clock":{"timers":[{"kind":"relock","id":"no-door","due":"2026-01-01T00:00:00Z","seq":1}]}}`,
		"unknown timer":  `{"version":1,"clock":{"timers":[{"kind":"explode","id":"x","due":"2026-01-01T00:00:00Z","seq":1}]}}`,
		"bad cert":       `{"version":1,"certificate":{"key_pem":"","cert_pem":"","uploaded_at":"2026-01-01T00:00:00Z"}}`,
		"duplicate door": `{"version":1,"space":{"doors":[{"door":{"id":"d"}},{"door":{"id":"d"}}]}}`,
		// Every store is indexed by id: an id held twice cannot be read.
		"duplicate user":       `{"version":1,"users":[{"id":"u"},{"id":"u"}]}`,
		"duplicate visitor":    `{"version":1,"visitors":[{"id":"v"},{"id":"v"}]}`,
		"duplicate card":       `{"version":1,"credentials":{"nfc_cards":[{"token":"t"},{"token":"t"}]}}`,
		"duplicate touch pass": `{"version":1,"touch_passes":[{"id":"p"},{"id":"p"}]}`,
		"duplicate door group": `{"version":1,"space":{"door_groups":[{"id":"g"},{"id":"g"}]}}`,
		"duplicate floor":      `{"version":1,"space":{"floors":[{"id":"f"},{"id":"f"}]}}`,
		"trailing data":        `{"version":1} {}`,
	} {
		err := srv.ReadState(strings.NewReader(in))
		var se *accesstest.StateError
		require.ErrorAs(t, err, &se, name)
		assert.NotErrorIs(t, err, accesstest.ErrStateVersion, name)
		assert.NotEmpty(t, se.Reason, name)
	}
	err := srv.ReadState(strings.NewReader(`{"version":99,"users":"whatever"}`))
	var se *accesstest.StateError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 99, se.Version)
	assert.ErrorIs(t, err, accesstest.ErrStateVersion)
	assert.Contains(t, err.Error(), "version 99")
	assert.Equal(t, string(before), string(writeState(t, srv)), "nothing changed")
}

func TestOnChange(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	c := srv.Client(noRetry())
	var calls atomic.Int32
	remove := srv.OnChange(func() {
		calls.Add(1)
		var buf bytes.Buffer
		if err := srv.WriteState(&buf); err != nil { // the server's methods work from f
			panic(err)
		}
	})
	expect := func(n int32, what string) {
		t.Helper()
		assert.Equal(t, n, calls.Swap(0), what)
	}

	u := srv.AddUser(access.User{FirstName: "Seeded"})
	expect(1, "a Server method")
	_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace"})
	require.NoError(t, err)
	expect(1, "an API change, before its answer")
	_, err = c.Users.AssignPINCode(ctx, u.ID, "123456")
	require.NoError(t, err)
	expect(1, "a credential change")

	_, _, err = c.Users.List(ctx, nil)
	require.NoError(t, err)
	_, _, err = c.Users.Get(ctx, u.ID, nil)
	require.NoError(t, err)
	_ = srv.Users()
	_, _, err = c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll})
	require.NoError(t, err)
	expect(0, "reads")

	srv.Advance(time.Minute)
	expect(1, "Advance")
	state := writeState(t, srv)
	expect(0, "WriteState")
	require.NoError(t, srv.ReadState(bytes.NewReader(state)))
	expect(1, "ReadState")
	assert.Error(t, srv.ReadState(strings.NewReader("{")))
	expect(0, "a refused ReadState")

	remove()
	remove()
	srv.AddUser(access.User{FirstName: "Later"})
	expect(0, "removed")
}

func FuzzReadState(f *testing.F) {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	var buf bytes.Buffer
	if err := srv.WriteState(&buf); err != nil {
		f.Fatal(err)
	}
	srv.Close()
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":1}`))
	f.Add([]byte(`{"version":1,"clock":{"timers":[{"kind":"visit","id":"v","arg":"3","due":"2026-01-01T00:00:00Z"}]},"visitors":[{"id":"v"}]}`))
	f.Add([]byte(`{"version":2}`))
	srv = accesstest.NewServer()
	defer srv.Close()
	f.Fuzz(func(t *testing.T, in []byte) {
		before := writeState(t, srv)
		err := srv.ReadState(bytes.NewReader(in))
		if err != nil {
			var se *accesstest.StateError
			if !errors.As(err, &se) {
				t.Fatalf("not a *StateError: %v", err)
			}
			if after := writeState(t, srv); !bytes.Equal(before, after) {
				t.Fatal("a refused state changed the server")
			}
			return
		}
		_ = writeState(t, srv)
	})
}
