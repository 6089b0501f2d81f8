package accesstest_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/csv"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// subscribe connects a client to the fake's notifications WebSocket and
// returns the notifications it receives, once the fake counts it.
func subscribe(t *testing.T, srv *accesstest.Server) <-chan *access.Notification {
	t.Helper()
	sctx, cancel := context.WithCancel(context.Background())
	out := make(chan *access.Notification, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n, err := range srv.Client().Notifications.Subscribe(sctx, nil) {
			if err != nil {
				continue
			}
			select {
			case out <- n:
			case <-sctx.Done():
				return
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	require.NoError(t, srv.WaitNotificationClients(wctx, 1))
	return out
}

// next returns the next n notifications.
func next(t *testing.T, ch <-chan *access.Notification, n int) []*access.Notification {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	var out []*access.Notification
	for len(out) < n {
		select {
		case v := <-ch:
			out = append(out, v)
		case <-timeout.C:
			t.Fatalf("got %d notifications of %d", len(out), n)
		}
	}
	return out
}

func events(ns []*access.Notification) []access.NotificationEvent {
	out := []access.NotificationEvent{}
	for _, n := range ns {
		out = append(out, n.Event)
	}
	return out
}

// TestAPIUnlockReachesEveryOutput is the one-place guarantee: an API unlock
// with actor and extra becomes a signed webhook delivery, a WebSocket
// notification and a system-log entry, all telling the same story.
func TestAPIUnlockReachesEveryOutput(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	ws := subscribe(t, st.srv)
	_, err := st.c.Doors.Unlock(ctx, doorA, &access.UnlockRequest{ActorID: "actor-7", ActorName: "Front desk",
		Extra: map[string]any{"ticket": 42}})
	require.NoError(t, err)

	// The signed webhook delivery (verified by the site's receiver).
	evs := st.events(t)
	require.Equal(t, []access.EventType{access.EventDoorUnlock}, names(evs))
	assert.Equal(t, &access.EventActor{ID: "actor-7", Name: "Front desk", Type: "open_api"}, evs[0].Data.Actor)
	obj, err := evs[0].DoorUnlock()
	require.NoError(t, err)
	assert.JSONEq(t, `{"ticket":42}`, string(obj.Extra))

	// The WebSocket: the documented remote_unlock, then the log entry.
	ns := next(t, ws, 2)
	require.Equal(t, []access.NotificationEvent{access.NotificationRemoteUnlock, access.NotificationLogsAdd}, events(ns))
	loc, err := ns[0].RemoteUnlock()
	require.NoError(t, err)
	assert.Equal(t, doorA, loc.UniqueID)
	assert.Equal(t, "Main entrance", loc.Name)
	assert.Equal(t, "HQ - Ground floor - Main entrance", loc.FullName)
	assert.Equal(t, floorGF, loc.UpID)
	assert.Equal(t, "door", loc.LocationType)
	assert.Equal(t, "[]", loc.WorkTime)
	assert.Equal(t, "off", loc.Extras["uah-input_state_dps"], "the door is closed")
	assert.Equal(t, doorA, ns[0].EventObjectID)
	added, err := ns[1].LogsAdd()
	require.NoError(t, err)

	// The system log, through the API.
	logs, resp, err := st.c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, 1, resp.Pagination.Total)
	e := logs[0]
	assert.Equal(t, added.ID, e.ID, "the WebSocket's entry is the log's")
	assert.Equal(t, access.SystemLogActor{ID: "actor-7", Type: "open_api", DisplayName: "Front desk"}, e.Source.Actor)
	assert.Equal(t, "access.door.unlock", e.Source.Event.Type)
	assert.Equal(t, "ACCESS", e.Source.Event.Result)
	assert.Equal(t, "API", e.Source.Authentication.CredentialProvider)
	assert.True(t, e.Time().Equal(t0), "published on the fake's clock")
	door, ok := e.Door()
	require.True(t, ok)
	assert.Equal(t, access.SystemLogTarget{Type: "door", ID: doorA, DisplayName: "Main entrance"}, door)
	hub, ok := e.Target("UAH-Ent")
	require.True(t, ok)
	assert.Equal(t, hubID, hub.ID)
	src, ok := e.UnlockSource()
	require.True(t, ok)
	assert.Equal(t, "actor-7", src.ActorID)
	assert.Equal(t, "Front desk", src.ActorName)
	assert.JSONEq(t, `{"ticket":42}`, string(src.Extra))

	// Without actor fields the token is the actor, still open_api.
	_, err = st.c.Doors.Unlock(ctx, doorB, nil)
	require.NoError(t, err)
	require.NoError(t, st.srv.WaitDeliveries(ctx))
	all := st.srv.SystemLogs()
	require.Len(t, all, 2)
	assert.Equal(t, access.SystemLogActor{Type: "open_api", DisplayName: accesstest.APIActorName}, all[1].Source.Actor)
	assert.Equal(t, access.SystemLogTopicDoorOpenings, all[1].Topic)
	src, ok = all[1].UnlockSource()
	require.True(t, ok)
	assert.Empty(t, src.Extra)
}

// Every other kind of state change reaches the WebSocket as a console
// sends it, followed by its access.logs.add, in order.
func TestStateChangesOnTheWebSocket(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	ws := subscribe(t, st.srv)

	// Doorbell: remote_view, then remote_view.change with the ring's id.
	_, err := st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{RoomName: "Reception"})
	require.NoError(t, err)
	reqID, _ := st.srv.Ringing(icomID)
	_, err = st.c.Devices.TriggerDoorbell(ctx, icomID, &access.DoorbellRequest{Cancel: true})
	require.NoError(t, err)
	ns := next(t, ws, 4)
	require.Equal(t, []access.NotificationEvent{access.NotificationRemoteView, access.NotificationLogsAdd,
		access.NotificationRemoteViewChange, access.NotificationLogsAdd}, events(ns))
	ring, err := ns[0].RemoteView()
	require.NoError(t, err)
	assert.Equal(t, reqID, ring.RequestID)
	assert.Equal(t, icomID, ring.DeviceID)
	assert.Equal(t, "UA-Intercom", ring.DeviceType)
	assert.Equal(t, "Intercom", ring.DeviceName)
	assert.Equal(t, "Lobby", ring.DoorName)
	assert.Equal(t, "Ground floor", ring.FloorName)
	assert.Equal(t, access.UnixTimeOf(t0), ring.CreateTime)
	end, err := ns[2].RemoteViewChange()
	require.NoError(t, err)
	assert.Equal(t, access.RemoteViewChangeData{ReasonCode: access.RemoteViewCancelled, RemoteCallRequestID: reqID}, *end)

	// Emergency: setting.update with the site's settings.
	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true})
	require.NoError(t, err)
	ns = next(t, ws, 2)
	require.Equal(t, []access.NotificationEvent{access.NotificationSettingUpdate, access.NotificationLogsAdd}, events(ns))
	set, err := ns[0].SettingUpdate()
	require.NoError(t, err)
	assert.Equal(t, access.SettingUpdateData{Lockdown: true}, *set)
	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
	require.NoError(t, err)
	ns = next(t, ws, 2)
	set, err = ns[0].SettingUpdate()
	require.NoError(t, err)
	assert.Equal(t, access.SettingUpdateData{}, *set)

	// A temporary unlock: the door's state with remain_unlock, then locked
	// again when the rule ends on the fake's clock.
	_, err = st.c.Doors.SetLockRule(ctx, doorA, &access.LockRuleRequest{Type: access.LockRuleCustom, Interval: 10})
	require.NoError(t, err)
	ns = next(t, ws, 2)
	require.Equal(t, []access.NotificationEvent{access.NotificationLocationUpdateV2, access.NotificationLogsAdd}, events(ns))
	loc, err := ns[0].LocationUpdateV2()
	require.NoError(t, err)
	assert.Equal(t, doorA, loc.ID)
	require.NotNil(t, loc.State)
	assert.False(t, loc.State.Locked())
	assert.Equal(t, "close", loc.State.DPS)
	require.NotNil(t, loc.State.RemainUnlock)
	assert.Equal(t, access.LocationLockRule{Type: "custom", Until: access.UnixTimeOf(t0.Add(10 * time.Minute)), State: "unlocked"},
		*loc.State.RemainUnlock)
	assert.ElementsMatch(t, []string{hubID, readID}, loc.DeviceIDs)
	st.srv.Advance(10 * time.Minute)
	ns = next(t, ws, 2)
	loc, err = ns[0].LocationUpdateV2()
	require.NoError(t, err)
	assert.True(t, loc.State.Locked())
	assert.Nil(t, loc.State.RemainUnlock)

	// The log holds one entry per change, with its topic and actor.
	require.NoError(t, st.srv.WaitDeliveries(ctx))
	type row struct {
		topic access.SystemLogTopic
		event string
		actor string
	}
	var got []row
	for _, e := range st.srv.SystemLogs() {
		got = append(got, row{e.Topic, e.Source.Event.Type, e.Source.Actor.Type})
	}
	assert.Equal(t, []row{
		{access.SystemLogTopicDeviceEvents, "access.doorbell.incoming", "open_api"},
		{access.SystemLogTopicDeviceEvents, "access.doorbell.completed", "open_api"}, // cancelled through the API
		{access.SystemLogTopicCritical, "access.device.emergency_status", "open_api"},
		{access.SystemLogTopicCritical, "access.device.emergency_status", "open_api"},
		{access.SystemLogTopicAdminActivity, "access.temporary_unlock.start", "open_api"},
		{access.SystemLogTopicAdminActivity, "access.temporary_unlock.end", "system"},
	}, got)
	assert.Equal(t, "Lockdown started", st.srv.SystemLogs()[2].Source.Event.DisplayMessage)
	assert.Equal(t, "Lockdown ended", st.srv.SystemLogs()[3].Source.Event.DisplayMessage)
	assert.Equal(t, "108", st.srv.SystemLogs()[1].Source.Event.Reason)
}

// WaitDeliveries also waits for the WebSocket messages, and a change made
// with nobody subscribed still lands in the log.
func TestNoSubscriberStillLogs(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	doors, _, err := c.Doors.List(ctx)
	require.NoError(t, err)
	var id string
	for _, d := range doors {
		if d.IsBindHub {
			id = d.ID
			break
		}
	}
	require.NotEmpty(t, id)
	before := len(srv.SystemLogs()) // the demo's history of door openings
	_, err = c.Doors.Unlock(ctx, id, nil)
	require.NoError(t, err)
	require.NoError(t, srv.WaitDeliveries(ctx))
	logs := srv.SystemLogs()
	require.Len(t, logs, before+1)
	door, ok := logs[len(logs)-1].Door()
	require.True(t, ok)
	assert.Equal(t, id, door.ID)
}

func TestSystemLogsListFiltersAndPages(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	c := srv.Client(noRetry())
	var seeded []accesstest.SystemLogEntry
	for i := range 7 {
		topic, actor := access.SystemLogTopicDoorOpenings, "ada"
		if i%2 == 1 {
			topic, actor = access.SystemLogTopicVisitor, "bob"
		}
		e := accesstest.SystemLogEntry{Topic: topic}
		e.ID = "log-" + string(rune('a'+i))
		e.Source.Actor = access.SystemLogActor{ID: actor, Type: "user", DisplayName: actor}
		e.Source.Event = access.SystemLogEvent{Type: "access.door.unlock", Published: access.UnixMilliOf(t0.Add(time.Duration(i) * time.Hour))}
		seeded = append(seeded, e)
	}
	srv.AddSystemLog(seeded...)

	ids := func(q *access.SystemLogQuery) []string {
		t.Helper()
		var out []string
		for e, err := range c.SystemLogs.All(ctx, q) {
			require.NoError(t, err)
			out = append(out, e.ID)
		}
		return out
	}
	assert.Equal(t, []string{"log-g", "log-f", "log-e", "log-d", "log-c", "log-b", "log-a"},
		ids(&access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageSize: 2}), "newest first, over four pages")
	assert.Equal(t, []string{"log-g", "log-e", "log-c", "log-a"}, ids(&access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings}))
	assert.Equal(t, []string{"log-f", "log-d", "log-b"}, ids(&access.SystemLogQuery{Topic: access.SystemLogTopicAll, ActorID: "bob"}))
	assert.Equal(t, []string{"log-e", "log-d", "log-c"}, ids(&access.SystemLogQuery{Topic: access.SystemLogTopicAll,
		Since: t0.Add(2 * time.Hour), Until: t0.Add(4 * time.Hour)}))
	assert.Empty(t, ids(&access.SystemLogQuery{Topic: access.SystemLogTopicCritical}))

	logs, resp, err := c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll, PageNum: 2, PageSize: 3})
	require.NoError(t, err)
	assert.Equal(t, []string{"log-d", "log-c", "log-b"}, []string{logs[0].ID, logs[1].ID, logs[2].ID})
	assert.Equal(t, &access.Pagination{PageNum: 2, PageSize: 3, Total: 7}, resp.Pagination)
	r := srv.RequestsFor(accesstest.OpSystemLogsList)
	last := r[len(r)-1]
	assert.Equal(t, "POST", last.Method)
	assert.Equal(t, "2", last.Query.Get("page_num"))
	assert.Equal(t, "3", last.Query.Get("page_size"))
	assert.JSONEq(t, `{"topic":"all"}`, string(last.Body))

	for name, body := range map[string]string{
		"no topic":      `{}`,
		"unknown topic": `{"topic":"everything"}`,
		"until<since":   `{"topic":"all","since":200,"until":100}`,
		"since a word":  `{"topic":"all","since":"yesterday"}`,
	} {
		status, out := raw(t, srv, "POST", "/api/v1/developer/system/logs", srv.Token(), body)
		assert.Equal(t, 400, status, name)
		assert.Contains(t, out, "CODE_PARAMS_INVALID", name)
	}
	status, _ := raw(t, srv, "POST", "/api/v1/developer/system/logs?page_size=0", srv.Token(), `{"topic":"all"}`)
	assert.Equal(t, 400, status)
}

func TestSystemLogsExportOnTheFake(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	_, err := st.c.Doors.Unlock(ctx, doorA, &access.UnlockRequest{ActorID: "a1", ActorName: "Ada, \"the\" admin"})
	require.NoError(t, err)
	_, err = st.c.Doors.SetEmergency(ctx, &access.EmergencyStatus{Evacuation: true})
	require.NoError(t, err)
	var out bytes.Buffer
	resp, err := st.c.SystemLogs.Export(ctx, &access.SystemLogExportRequest{Topic: access.SystemLogTopicAll, Since: t0.Add(-time.Hour),
		Until: t0.Add(time.Hour), Timezone: "Europe/Zurich"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "text/csv; charset=utf-8", resp.Header.Get("Content-Type"))
	rows, err := csv.NewReader(&out).ReadAll()
	require.NoError(t, err, "a real CSV")
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"Time", "Topic", "Event", "Message", "Result", "Actor", "Actor Type", "Authentication", "Door", "Device"}, rows[0])
	assert.Equal(t, []string{"2026-11-02 10:00:00", "door_openings", "access.door.unlock", "Access Granted (Remote)", "ACCESS",
		`Ada, "the" admin`, "open_api", "API", "Main entrance", "UA-HUB-3855"}, rows[2], "in the export's time zone, quoted")
	assert.Equal(t, "critical", rows[1][1])

	out.Reset()
	_, err = st.c.SystemLogs.Export(ctx, &access.SystemLogExportRequest{Topic: access.SystemLogTopicVisitor, Since: t0.Add(-time.Hour),
		Until: t0.Add(time.Hour), Timezone: "UTC"}, &out)
	require.NoError(t, err)
	assert.Equal(t, "Time,Topic,Event,Message,Result,Actor,Actor Type,Authentication,Door,Device\n", out.String(), "only the header")

	// The fake enforces the console's limits itself.
	for name, body := range map[string]string{
		"over a month":  `{"topic":"all","since":1700000000,"until":1703000000,"timezone":"UTC"}`,
		"no time zone":  `{"topic":"all","since":1700000000,"until":1700003600}`,
		"bad time zone": `{"topic":"all","since":1700000000,"until":1700003600,"timezone":"Mars/Base"}`,
		"no since":      `{"topic":"all","until":1700003600,"timezone":"UTC"}`,
		"no topic":      `{"since":1700000000,"until":1700003600,"timezone":"UTC"}`,
	} {
		status, out := raw(t, st.srv, "POST", "/api/v1/developer/system/logs/export", st.srv.Token(), body)
		assert.Equal(t, 400, status, name)
		assert.Contains(t, out, "CODE_PARAMS_INVALID", name)
	}
}

func TestSystemLogResourcesAndStaticFiles(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client(noRetry())
	srv.AddSystemLogResource("res-1", access.SystemLogResource{VideoRecord: "/activities_resource/video/v1.mp4",
		VideoRecordThumbnail: "/activities_resource/thumbnail/v1.jpg", CreatedAt: "2026-11-02T09:00:00Z"})
	srv.AddStaticFile("/activities_resource/video/v1.mp4", "video/mp4", []byte("MP4DATA"))
	srv.AddStaticFile("/system/static/avatar/ada lovelace.png", "image/png", []byte("PNG"))

	res, _, err := c.SystemLogs.GetResource(ctx, "res-1")
	require.NoError(t, err)
	assert.Equal(t, "/activities_resource/thumbnail/v1.jpg", res.VideoRecordThumbnail)
	var out bytes.Buffer
	resp, err := c.SystemLogs.DownloadStatic(ctx, res.VideoRecord, &out)
	require.NoError(t, err)
	assert.Equal(t, "MP4DATA", out.String())
	assert.Equal(t, "video/mp4", resp.Header.Get("Content-Type"))
	out.Reset()
	_, err = c.SystemLogs.DownloadStatic(ctx, "avatar/ada lovelace.png", &out)
	require.NoError(t, err)
	assert.Equal(t, "PNG", out.String())
	r := srv.RequestsFor(accesstest.OpSystemLogsDownloadStatic)
	assert.Equal(t, "/api/v1/developer/system/static/avatar/ada%20lovelace.png", r[len(r)-1].Path)

	_, _, err = c.SystemLogs.GetResource(ctx, "res-2")
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, err = c.SystemLogs.DownloadStatic(ctx, "preview/none.jpg", &out)
	assert.ErrorIs(t, err, access.ErrNotFound)
}

func TestAPIServerCertificateOnTheFake(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	c := srv.Client(noRetry())
	_, ok := srv.APICertificate()
	assert.False(t, ok)

	certPEM, keyPEM := testPair(t)
	_, err := c.APIServer.UploadCertificate(ctx, &access.CertificateUpload{Key: keyPEM, Cert: certPEM})
	require.NoError(t, err)
	got, ok := srv.APICertificate()
	require.True(t, ok)
	assert.Equal(t, certPEM, got.CertPEM)
	assert.Equal(t, keyPEM, got.KeyPEM)
	assert.Equal(t, "console.test", got.Leaf.Subject.CommonName)
	assert.Equal(t, t0, got.UploadedAt)

	// A mismatched pair that bypasses the SDK's check: "parameter error".
	otherCert, _ := testPair(t)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for field, data := range map[string][]byte{"key": keyPEM, "cert": otherCert} {
		w, err := mw.CreateFormFile(field, field+".pem")
		require.NoError(t, err)
		w.Write(data)
	}
	require.NoError(t, mw.Close())
	req, err := http.NewRequestWithContext(ctx, "POST", srv.URL()+"/api/v1/developer/api_server/certificates", &body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+srv.Token())
	req.Header.Set("Content-Type", mw.FormDataContentType())
	hresp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	var env struct{ Code, Msg string }
	require.NoError(t, json.NewDecoder(hresp.Body).Decode(&env))
	hresp.Body.Close()
	assert.Equal(t, 400, hresp.StatusCode)
	assert.Equal(t, "CODE_PARAMS_INVALID", env.Code)
	assert.Equal(t, "parameter error", env.Msg)
	status, out := raw(t, srv, "POST", "/api/v1/developer/api_server/certificates", srv.Token(), `{"key":"k"}`)
	assert.Equal(t, 400, status, "not multipart")
	assert.Contains(t, out, "CODE_PARAMS_INVALID")
	got2, _ := srv.APICertificate()
	assert.Equal(t, certPEM, got2.CertPEM, "a failed upload keeps the old one")

	_, err = c.APIServer.DeleteCertificate(ctx)
	require.NoError(t, err)
	_, ok = srv.APICertificate()
	assert.False(t, ok)
	_, err = c.APIServer.DeleteCertificate(ctx)
	require.NoError(t, err, "deleting nothing is fine")
	assert.Len(t, srv.RequestsFor(accesstest.OpAPIServerUploadCertificate), 3)
	assert.True(t, strings.HasPrefix(srv.RequestsFor(accesstest.OpAPIServerUploadCertificate)[0].Header.Get("Content-Type"), "multipart/form-data"))
}

// testPair makes a self-signed certificate for console.test and its key,
// in PEM.
func testPair(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console.test"},
		NotBefore: t0.Add(-time.Hour), NotAfter: t0.Add(365 * 24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})
}

func TestAddSystemLogDefaultsAndCopies(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	var e accesstest.SystemLogEntry
	e.Source.Target = []access.SystemLogTarget{{Type: "door", ID: "d1"}}
	srv.AddSystemLog(e)
	e.Source.Target[0].ID = "changed after adding"
	got := srv.SystemLogs()
	require.Len(t, got, 1)
	assert.NotEmpty(t, got[0].ID)
	assert.Equal(t, access.SystemLogTopicDeviceEvents, got[0].Topic)
	assert.True(t, got[0].Time().Equal(t0), "published at the fake's time")
	assert.Equal(t, access.DateTime("2026-11-02T09:00:00.000Z"), got[0].Timestamp)
	assert.Equal(t, "d1", got[0].Source.Target[0].ID, "the server keeps its own copy")
	got[0].Source.Target[0].ID = "changed in the result"
	assert.Equal(t, "d1", srv.SystemLogs()[0].Source.Target[0].ID)

	logs, _, err := srv.Client().SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicDeviceEvents})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, got[0].ID, logs[0].ID)
}

// Changes without a webhook event (people and policies) still reach the
// system log through the one place for events, as admin activity by the
// API caller, and are neither delivered nor notified.
func TestAdministrativeChangesAreLogged(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	u, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Grace", LastName: "Hopper"})
	require.NoError(t, err)
	_, err = c.Users.Update(ctx, u.ID, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
	require.NoError(t, err)
	_, err = c.Users.Delete(ctx, u.ID)
	require.NoError(t, err)

	var msgs []string
	for e, err := range c.SystemLogs.All(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAdminActivity}) {
		require.NoError(t, err)
		assert.Equal(t, "open_api", e.Source.Actor.Type)
		assert.Equal(t, "access.admin.activity", e.Source.Event.Type)
		msgs = append(msgs, e.Source.Event.DisplayMessage)
	}
	assert.Equal(t, []string{"user deleted: " + u.ID, "user updated: " + u.ID, "user created: " + u.ID}, msgs, "newest first")
	require.NoError(t, srv.WaitDeliveries(ctx))
	assert.Empty(t, srv.Deliveries(), "no webhook event for these changes")
}

// A visitor's life through the API lands in the visitor topic, by the API
// caller: created, cancelled (a status change), removed.
func TestVisitorChangesAreLogged(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	now := srv.Now()
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Ada", LastName: "Lovelace",
		StartTime: now.Add(time.Hour), EndTime: now.Add(2 * time.Hour), VisitReason: access.VisitReasonBusiness})
	require.NoError(t, err)
	_, err = c.Visitors.Delete(ctx, v.ID, nil)
	require.NoError(t, err)
	_, err = c.Visitors.Delete(ctx, v.ID, &access.VisitorDeleteOptions{Force: true})
	require.NoError(t, err)
	type row struct{ event, actor, message string }
	var got []row
	for _, e := range srv.SystemLogs() {
		if e.Topic == access.SystemLogTopicVisitor {
			got = append(got, row{e.Source.Event.Type, e.Source.Actor.Type, e.Source.Event.DisplayMessage})
		}
	}
	require.Len(t, got, 3)
	assert.Equal(t, row{"access.admin.activity", "open_api", "visitor created: " + v.ID}, got[0])
	assert.Equal(t, "access.visitor.status.changed", got[1].event)
	assert.Equal(t, "open_api", got[1].actor, "cancelled through the API")
	assert.Equal(t, row{"access.admin.activity", "open_api", "visitor deleted: " + v.ID}, got[2])
}

// Lock rules without a webhook event (keep_lock, lock_now, ...) are still
// logged, with the door as the target.
func TestLockRulesWithoutAnEventAreLogged(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c := srv.Client()
	for _, typ := range []access.LockRuleType{access.LockRuleKeepLock, access.LockRuleLockNow} {
		_, err := c.Doors.SetLockRule(ctx, accesstest.DemoDoorID, &access.LockRuleRequest{Type: typ})
		require.NoError(t, err)
	}
	var msgs []string
	for _, e := range srv.SystemLogs() {
		if e.Topic == access.SystemLogTopicAdminActivity {
			msgs = append(msgs, e.Source.Event.DisplayMessage)
			door, ok := e.Door()
			assert.True(t, ok)
			assert.Equal(t, accesstest.DemoDoorID, door.ID)
		}
	}
	assert.Equal(t, []string{"lock rule keep_lock set on Main entrance", "lock rule lock_now set on Main entrance"}, msgs)
}
