package accesstest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// tapSite is the demo site on a clock the test sets, with a card for a
// user the test builds.
type tapSite struct {
	srv *accesstest.Server
	now time.Time
}

func newTapSite(t *testing.T) *tapSite {
	ts := &tapSite{now: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)} // a Wednesday
	ts.srv = accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return ts.now }))
	return ts
}

// token is the token a tap of the card number reads.
func (ts *tapSite) token(t *testing.T, number string) string {
	t.Helper()
	d, err := ts.srv.Decide(accesstest.DemoDeviceID, number, ts.now)
	require.NoError(t, err)
	return d.Token
}

func (ts *tapSite) policy(name string) string {
	for _, p := range ts.srv.AccessPolicies() {
		if p.Name == name {
			return p.ID
		}
	}
	return ""
}

// tap presents the card at the main entrance at the clock's time.
func (ts *tapSite) tap(t *testing.T, at time.Time, number string) accesstest.TapResult {
	t.Helper()
	ts.now = at
	res, err := ts.srv.PresentCard(accesstest.DemoDeviceID, number)
	require.NoError(t, err)
	return res
}

// logged asserts that the system log holds an entry with the message (the
// log is in time order, and the test moves the clock back and forth).
func logged(t *testing.T, srv *accesstest.Server, msg string) {
	t.Helper()
	assert.True(t, slices.ContainsFunc(srv.SystemLogs(), func(e accesstest.SystemLogEntry) bool { return e.Source.Event.DisplayMessage == msg }),
		"no system-log entry %q", msg)
}

// TestPresentCardWeighsSchedules: a tap is decided by the holder's
// policies' schedules and holidays, their groups' policies, their status
// and a visitor's visit, and a refusal says why, in the result and the
// system log.
func TestPresentCardWeighsSchedules(t *testing.T) {
	t.Parallel()
	ts := newTapSite(t)
	srv := ts.srv
	at := func(s string) time.Time {
		tm, err := time.Parse(time.DateTime, s)
		require.NoError(t, err)
		return tm
	}
	staff := srv.AddUser(access.User{FirstName: "Sam", LastName: "Staff", Status: access.UserStatusActive,
		AccessPolicyIDs: []string{ts.policy("Staff")}, NFCCards: []access.NFCCard{{ID: "T-1", Token: ts.token(t, "T-1")}}})

	res := ts.tap(t, at("2026-12-02 10:00:00"), "T-1")
	assert.True(t, res.Granted, res.Reason)
	assert.Equal(t, "Staff", res.Decision.Policy)
	assert.Equal(t, "Office hours", res.Decision.Schedule)
	e := lastLog(t, srv)
	assert.Equal(t, string(access.EventDoorUnlock), e.Source.Event.Type)
	assert.Equal(t, staff.ID, e.Source.Actor.ID)

	// Outside the schedule: refused, and the log says why.
	res = ts.tap(t, at("2026-12-02 20:00:00"), "T-1")
	assert.False(t, res.Granted)
	assert.Equal(t, "outside Office hours", res.Reason)
	logged(t, srv, "Access Denied (NFC T-1 at Main entrance): outside Office hours")
	d, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus)

	// A holiday of the schedule's group: shut in the afternoon, open in
	// the schedule's holiday ranges (09:00 to 12:00:59).
	res = ts.tap(t, at("2026-04-03 15:00:00"), "T-1")
	assert.Equal(t, "Public Holidays 2026: Good Friday", res.Reason)
	logged(t, srv, "Access Denied (NFC T-1 at Main entrance): Public Holidays 2026: Good Friday")
	res = ts.tap(t, at("2026-04-03 10:00:00"), "T-1")
	assert.True(t, res.Granted, res.Reason)
	assert.Equal(t, "Public Holidays 2026: Good Friday", res.Decision.Holiday)

	// A deactivated user keeps nothing.
	srv.AddUser(access.User{FirstName: "Dee", LastName: "Activated", Status: access.UserStatusDeactivated,
		AccessPolicyIDs: []string{ts.policy("IT")}, NFCCards: []access.NFCCard{{ID: "T-2", Token: ts.token(t, "T-2")}}})
	res = ts.tap(t, at("2026-12-02 10:00:00"), "T-2")
	assert.False(t, res.Granted)
	assert.Equal(t, "status DEACTIVATED", res.Reason)
	logged(t, srv, "Access Denied (NFC T-2 at Main entrance): status DEACTIVATED")

	// A visitor past the end of the visit.
	srv.AddVisitor(access.Visitor{FirstName: "Vi", LastName: "Sitor", Status: "VISITED",
		StartTime: access.UnixTimeOf(at("2026-12-01 09:00:00")), EndTime: access.UnixTimeOf(at("2026-12-01 17:00:00")),
		Resources: []access.Resource{{ID: accesstest.DemoDoorID, Type: access.ResourceDoor}},
		NFCCards:  []access.NFCCard{{ID: "T-3", Token: ts.token(t, "T-3")}}})
	res = ts.tap(t, at("2026-12-01 16:59:59"), "T-3")
	assert.True(t, res.Granted, res.Reason)
	res = ts.tap(t, at("2026-12-01 17:00:00"), "T-3")
	assert.Equal(t, "after the visit", res.Reason)
}

// TestPresentCardGroupPolicies: a member of a subgroup opens by a policy
// of the group's parent.
func TestPresentCardGroupPolicies(t *testing.T) {
	t.Parallel()
	ts := newTapSite(t)
	srv := ts.srv
	u := srv.AddUser(access.User{FirstName: "Gus", LastName: "Group", Status: access.UserStatusActive,
		NFCCards: []access.NFCCard{{ID: "G-1", Token: ts.token(t, "G-1")}}})
	sunday3am := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	res := ts.tap(t, sunday3am, "G-1")
	assert.Equal(t, "no access policy covers Main entrance", res.Reason)

	company := srv.AddUserGroup("", "Company", "")
	srv.AddUserGroup("", "Night crew", company, u.ID)
	_, err := srv.Client().UserGroups.SetAccessPolicies(context.Background(), company, []string{ts.policy("IT")})
	require.NoError(t, err)
	res = ts.tap(t, sunday3am, "G-1")
	assert.True(t, res.Granted, res.Reason)
	assert.Equal(t, "IT", res.Decision.Policy)
	assert.Equal(t, "Always", res.Decision.Schedule)
	e := lastLog(t, srv)
	assert.Equal(t, u.ID, e.Source.Actor.ID)
}

// TestDecideHasNoSideEffects: Decide answers as PresentCard would, at any
// moment, without unlocking, logging or publishing.
func TestDecideHasNoSideEffects(t *testing.T) {
	t.Parallel()
	ts := newTapSite(t)
	srv := ts.srv
	logs := len(srv.SystemLogs())
	evening := time.Date(2026, 12, 2, 20, 0, 0, 0, time.UTC)
	d, err := srv.Decide(accesstest.DemoDeviceID, accesstest.DemoCardNumber, evening)
	require.NoError(t, err)
	assert.Equal(t, accesstest.TapDecision{Granted: true, Token: d.Token, HolderID: accesstest.DemoUserID, DoorID: accesstest.DemoDoorID,
		Policy: "IT", PolicyID: ts.policy("IT"), Schedule: "Always"}, d)
	d, err = srv.Decide(accesstest.DemoDeviceID, "NOBODY", evening)
	require.NoError(t, err)
	assert.Equal(t, "unknown card", d.Reason)
	assert.Len(t, srv.SystemLogs(), logs)
	door, _ := srv.Door(accesstest.DemoDoorID)
	assert.Equal(t, access.DoorLocked, door.LockRelayStatus)

	require.NoError(t, srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	d, err = srv.Decide(accesstest.DemoDeviceID, accesstest.DemoCardNumber, evening)
	require.NoError(t, err)
	assert.False(t, d.Granted)
	assert.Equal(t, "the site is in lockdown", d.Reason)

	_, err = srv.Decide("nope", accesstest.DemoCardNumber, evening)
	assert.ErrorIs(t, err, accesstest.ErrNoDevice)
	assert.True(t, slices.Contains(accesstest.DemoCardNumbers(), accesstest.DemoCardNumber))
}
