package simulator_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// TestTapAtSundayThreeAM: on a simulator whose clock stands at 03:00 on
// a Sunday (--clock-start), the demo cards open the main entrance through
// the control API, while a card of a user whose only policy is Staff
// (office hours) is refused with the reason (issue 37).
func TestTapAtSundayThreeAM(t *testing.T) {
	t.Parallel()
	sunday := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	require.Equal(t, time.Sunday, sunday.Weekday())
	st := startSim(t, simulator.Config{Demo: true, NoUI: true, ClockStart: sunday, FrozenClock: true})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s := &ctlSite{t: t, st: st, hc: insecureHTTP(), c: sdkClient(t, st), ctx: ctx}

	for _, card := range accesstest.DemoCardNumbers() {
		res, _ := s.act("/card/tap", map[string]string{"device": "UA Reader Main", "card": card})
		assert.Equal(t, true, res["granted"], "demo card %s at 03:00 on a Sunday: %v", card, res)
	}

	// A Staff-only user's card: outside office hours.
	var staff string
	for _, p := range st.Fake.AccessPolicies() {
		if p.Name == "Staff" {
			staff = p.ID
		}
	}
	d, err := st.Fake.Decide(accesstest.DemoDeviceID, "SUNDAY-1", sunday)
	require.NoError(t, err)
	st.Fake.AddUser(access.User{FirstName: "Sam", LastName: "Staff", Status: access.UserStatusActive, AccessPolicyIDs: []string{staff},
		NFCCards: []access.NFCCard{{ID: "SUNDAY-1", Token: d.Token}}})
	res, caused := s.act("/card/tap", map[string]string{"device": "UA Reader Main", "card": "SUNDAY-1"})
	assert.Equal(t, false, res["granted"])
	assert.Equal(t, "outside Office hours", res["reason"])
	assert.Empty(t, caused.Events)
}
