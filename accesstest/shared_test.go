package accesstest_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// A client that asks for a large list and never reads the answer holds
// up no other client: answers are written after the lock is released.
func TestUnreadAnswerStallsNoOne(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	big := strings.Repeat("x", 2000)
	for i := range 4000 { // about 8 MB of users, more than the sockets buffer
		srv.AddUser(access.User{ID: "u" + strconv.Itoa(i), FirstName: big, LastName: big})
	}
	cfg := srv.HTTPClient().Transport.(*http.Transport).TLSClientConfig.Clone()
	conn, err := tls.Dial("tcp", strings.TrimPrefix(srv.URL(), "https://"), cfg)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "GET /api/v1/developer/users?page_size=100000 HTTP/1.1\r\nHost: fake\r\nAuthorization: Bearer %s\r\n\r\n", srv.Token())
	require.NoError(t, err)
	// conn is never read from.

	bounded, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := srv.Client(noRetry())
	calls := func() {
		_, _, err := c.Users.Create(bounded, &access.UserRequest{FirstName: "Other", LastName: "Client"})
		require.NoError(t, err, "a write, which needs the lock")
		_, _, err = c.Users.List(bounded, &access.UserListOptions{PageSize: 1})
		require.NoError(t, err, "a read")
	}
	// Until the big request has reached the server, then some more.
	bigArrived := func() bool {
		for _, r := range srv.RequestsFor(accesstest.OpUsersList) {
			if r.Query.Get("page_size") == "100000" {
				return true
			}
		}
		return false
	}
	for !bigArrived() { // the calls' own small lists may reach the server first
		calls()
	}
	for range 10 {
		calls()
	}
}

// Notify goes through the queue of the state changes' notifications: the
// order of interleaved API changes and Notify calls is kept.
func TestNotifyKeepsOrderWithStateChanges(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	ws := subscribe(t, srv)
	c := srv.Client(noRetry())
	var want []access.NotificationEvent
	for i := range 20 {
		ev := access.NotificationEvent("test.custom." + strconv.Itoa(i))
		_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "U", LastName: strconv.Itoa(i)})
		require.NoError(t, err)
		require.NoError(t, srv.Notify(&access.Notification{Event: ev, Data: json.RawMessage(`{}`)}))
		srv.NotifyRaw([]byte(`{"event":"test.raw","data":{}}`))
		want = append(want, access.NotificationLogsAdd, ev, "test.raw")
	}
	assert.Equal(t, want, events(next(t, ws, len(want))))
}
