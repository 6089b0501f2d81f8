package accesstest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestDemoCardsOpenTheirDoorsAtAnyHour: each demo card's number, typed at
// the reader of a door its holder's IT policy names, is granted at 03:00
// on a Sunday, and a policy of the holder that names the door has a
// schedule in force then (so the grant holds once schedules are weighed).
func TestDemoCardsOpenTheirDoorsAtAnyHour(t *testing.T) {
	sunday := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	require.Equal(t, time.Sunday, sunday.Weekday())
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return sunday }))
	policies := map[string]access.AccessPolicy{}
	for _, p := range srv.AccessPolicies() {
		policies[p.ID] = p
	}
	schedules := map[string]access.Schedule{}
	for _, s := range srv.Schedules() {
		schedules[s.ID] = s
	}
	readers := map[string]string{} // door name -> reader id
	doorNames := map[string]string{}
	for _, d := range srv.Doors() {
		doorNames[d.ID] = d.Name
	}
	for _, d := range srv.DeviceList().Devices() {
		if slices.Contains(d.Capabilities, "is_reader") {
			readers[doorNames[d.LocationID]] = d.ID
		}
	}
	inForce := func(sc access.Schedule) bool {
		for _, r := range sc.WeekSchedule.Day(sunday.Weekday()) {
			if r.StartTime <= "03:00:00" && "03:00:00" <= r.EndTime {
				return true
			}
		}
		return false
	}
	require.Len(t, accesstest.DemoCardNumbers(), 3)
	assert.Equal(t, accesstest.DemoCardNumber, accesstest.DemoCardNumbers()[0])
	for _, number := range accesstest.DemoCardNumbers() {
		for _, door := range []string{"Main entrance", "Office 1", "Office 2", "Server room"} {
			res, err := srv.PresentCard(readers[door], number)
			require.NoError(t, err)
			assert.True(t, res.Granted, "card %s at %s: %s", number, door, res.Reason)
			u, ok := srv.User(res.HolderID)
			require.True(t, ok, "card %s has a holder", number)
			assert.Equal(t, access.UserStatusActive, u.Status)
			assert.True(t, slices.ContainsFunc(u.AccessPolicyIDs, func(id string) bool {
				p := policies[id]
				return inForce(schedules[p.ScheduleID]) && slices.ContainsFunc(p.Resources, func(r access.Resource) bool {
					if r.Type == "door_group" {
						g, _ := srv.DoorGroup(r.ID)
						return slices.ContainsFunc(g.Resources, func(x access.Resource) bool { return doorNames[x.ID] == door })
					}
					return doorNames[r.ID] == door
				})
			}), "card %s: a policy in force at 03:00 on a Sunday names %s", number, door)
		}
	}
	ada, _ := srv.User(accesstest.DemoUserID)
	assert.Contains(t, ada.NFCCards, access.NFCCard{ID: accesstest.DemoCardNumber, Token: ada.NFCCards[0].Token, Type: "ua_card"})
}

// TestDemoReviewRecords: the demo site holds what an access review flags
// (issue 37): a stale user who can open the main entrance and last did
// more than 90 days ago (the demo card holders did within days), a
// deactivated user still holding a card, and a visitor past the end of
// the visit still holding a PIN.
func TestDemoReviewRecords(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC) // a Wednesday, in office hours
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return now }))

	lastUse := map[string]time.Time{}
	for _, e := range srv.SystemLogs() {
		if e.Topic == access.SystemLogTopicDoorOpenings && e.Source.Event.Type == string(access.EventDoorUnlock) {
			lastUse[e.Source.Actor.ID] = e.Source.Event.Published.Time()
		}
	}
	lookBack := now.AddDate(0, 0, -90)
	stale, ok := srv.User(accesstest.DemoStaleUserID)
	require.True(t, ok)
	assert.Equal(t, access.UserStatusActive, stale.Status)
	require.NotEmpty(t, stale.NFCCards)
	require.Contains(t, lastUse, stale.ID, "the stale user's old door opening is in the log")
	assert.True(t, lastUse[stale.ID].Before(lookBack), "last use %s, want before %s", lastUse[stale.ID], lookBack)
	ada, _ := srv.User(accesstest.DemoUserID)
	assert.True(t, lastUse[ada.ID].After(lookBack), "Ada's last use %s is recent", lastUse[ada.ID])
	for _, card := range stale.NFCCards {
		assert.Equal(t, stale.ID, srv.NFCHolder(card.Token))
	}

	gone, ok := srv.User(accesstest.DemoDeactivatedUserID)
	require.True(t, ok)
	assert.Equal(t, access.UserStatusDeactivated, gone.Status)
	assert.NotEmpty(t, gone.NFCCards, "the deactivated user still holds a card")

	v, ok := srv.Visitor(accesstest.DemoPastVisitorID)
	require.True(t, ok)
	assert.True(t, v.EndTime.Time().Before(now), "the visit ended at %s", v.EndTime.Time())
	assert.Equal(t, "VISITED", v.Status)
	assert.NotNil(t, v.PINCode, "the past visitor still holds a PIN")
}
