package access_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A console that unlocks the door and then loses the answer (the
// connection drops, a gateway answers 502 or 504): Doors.Unlock, retried
// with the most generous policy, reaches the fake once, the door is
// unlocked once (one system-log entry) and the caller gets the error. The
// fake's Fault.AfterHandling is what makes this testable without a console.
func TestDoorUnlockedOnceWhenTheAnswerIsLost(t *testing.T) {
	t.Parallel()
	for _, fc := range []struct {
		name  string
		fault accesstest.Fault
		check func(t *testing.T, err error)
	}{
		{"connection dropped", accesstest.Fault{DropConnection: true, AfterHandling: true}, func(t *testing.T, err error) {
			var re *access.RequestError
			require.ErrorAs(t, err, &re)
		}},
		{"502 from a gateway", accesstest.Fault{Status: http.StatusBadGateway, AfterHandling: true}, func(t *testing.T, err error) {
			var ae *access.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusBadGateway, ae.StatusCode)
		}},
		{"504 from a gateway", accesstest.Fault{Status: http.StatusGatewayTimeout, AfterHandling: true}, func(t *testing.T, err error) {
			var ae *access.APIError
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, http.StatusGatewayTimeout, ae.StatusCode)
		}},
	} {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			srv := accesstest.New(t)
			door := srv.AddDoor(access.Door{Name: "Front door", FloorID: srv.AddFloor("", "Ground floor"), IsBindHub: true})
			srv.Inject(accesstest.OpDoorsUnlock, fc.fault)
			policy := accesstest.RetryPolicy()
			policy.RetryWrites, policy.RetryInternalServerError = true, true
			c := srv.Client(access.WithRetryPolicy(policy))

			_, err := c.Doors.Unlock(context.Background(), door.ID, nil)
			require.Error(t, err)
			fc.check(t, err)

			assert.Len(t, srv.RequestsFor(accesstest.OpDoorsUnlock), 1, "sent once")
			got, ok := srv.Door(door.ID)
			require.True(t, ok)
			assert.Equal(t, access.DoorUnlocked, got.LockRelayStatus, "the fake acted")
			unlocks := 0
			for _, e := range srv.SystemLogs() {
				if e.Source.Event.Type == "access.door.unlock" {
					unlocks++
				}
			}
			assert.Equal(t, 1, unlocks, "one remote unlock in the system log")
		})
	}
}

// The same fault before handling (the console refused with 503): nothing
// happened, so the unlock is retried and succeeds, and the door is
// unlocked once.
func TestDoorUnlockRetriedAfterAProvenRefusal(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	door := srv.AddDoor(access.Door{Name: "Front door", FloorID: srv.AddFloor("", "Ground floor"), IsBindHub: true})
	srv.Inject(accesstest.OpDoorsUnlock, accesstest.Fault{Status: http.StatusServiceUnavailable, Times: 1})
	_, err := srv.Client().Doors.Unlock(context.Background(), door.ID, nil)
	require.NoError(t, err)
	assert.Len(t, srv.RequestsFor(accesstest.OpDoorsUnlock), 2)
	n := 0
	for _, e := range srv.SystemLogs() {
		if e.Source.Event.Type == "access.door.unlock" {
			n++
		}
	}
	assert.Equal(t, 1, n)
}
