package accesstest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// A fault after handling: the user is created and the change reaches the
// system log and the WebSocket once, but the client sees a 503.
func TestFaultAfterHandlingKeepsTheChange(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	ws := subscribe(t, srv)
	c := srv.Client()
	srv.Inject(accesstest.OpUsersCreate, accesstest.Fault{Status: http.StatusServiceUnavailable, RetryAfter: 1, AfterHandling: true, Times: 1})

	_, resp, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace"})
	assert.ErrorIs(t, err, access.ErrServer)
	e := apiErr(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, e.StatusCode)
	assert.Equal(t, access.CodeSystemError, e.Code)
	require.NotNil(t, resp)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Len(t, srv.RequestsFor(accesstest.OpUsersCreate), 1, "a create is sent once")

	users := srv.Users()
	require.Len(t, users, 1, "the user exists although the answer was lost")
	assert.Equal(t, "Ada", users[0].FirstName)

	// A second create, answered normally, is the next change everywhere:
	// the first one was published exactly once.
	_, _, err = c.Users.Create(ctx, &access.UserRequest{FirstName: "Grace", LastName: "Hopper"})
	require.NoError(t, err)
	require.NoError(t, srv.WaitDeliveries(ctx))
	ns := next(t, ws, 2)
	require.Equal(t, []access.NotificationEvent{access.NotificationLogsAdd, access.NotificationLogsAdd}, events(ns))
	logs := srv.SystemLogs()
	require.Len(t, logs, 2)
	for i, n := range ns {
		added, err := n.LogsAdd()
		require.NoError(t, err)
		assert.Equal(t, logs[i].ID, added.ID)
	}
	assert.Equal(t, "user created: "+users[0].ID, logs[0].Source.Event.DisplayMessage)
}

// A dropped connection after handling: the door unlocks and the webhook
// is delivered once, but the client gets no answer.
func TestFaultAfterHandlingDropsTheAnswer(t *testing.T) {
	t.Parallel()
	st := newSite(t)
	st.srv.Inject(accesstest.OpDoorsUnlock, accesstest.Fault{DropConnection: true, AfterHandling: true})

	req, err := http.NewRequest(http.MethodPut, st.srv.URL()+"/api/v1/developer/doors/"+doorA+"/unlock", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+st.srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := st.srv.HTTPClient().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "no answer")

	assert.Equal(t, []access.EventType{access.EventDoorUnlock}, names(st.events(t)))
	assert.Equal(t, access.DoorUnlocked, st.relay(t, doorA))
	assert.Len(t, st.srv.SystemLogs(), 1)
}

// AfterHandling on the notifications WebSocket cannot apply (the upgrade
// has no answer to replace): Inject refuses it as a seeding mistake, and
// nothing is injected, so a subscription still connects.
func TestFaultAfterHandlingRefusedOnTheWebSocket(t *testing.T) {
	t.Parallel()
	srv := accesstest.NewServer()
	defer srv.Close()
	assert.PanicsWithValue(t,
		"accesstest: Inject: AfterHandling cannot apply to Notifications.Subscribe (the WebSocket upgrade has no answer to replace)",
		func() {
			srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: http.StatusServiceUnavailable, AfterHandling: true})
		})
	subscribe(t, srv) // connects: no fault was left behind
	assert.NotPanics(t, func() {
		srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: http.StatusServiceUnavailable, Times: 1})
		srv.Inject(accesstest.OpUsersCreate, accesstest.Fault{Status: http.StatusServiceUnavailable, AfterHandling: true, Times: 1})
	}, "a fault before handling, or after handling on another operation, is fine")
}
