package watch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
	"github.com/access-dev/access/monitor/watch"
)

// ghosts returns notifications naming the i-th door and device that no
// poll listed: a remote unlock, the door seen closed then open (a forced
// entry), a granted and a refused card there, a doorbell, the device
// offline.
func ghosts(i int) []*access.Notification {
	door, dev := fmt.Sprintf("ghost-door-%d", i), fmt.Sprintf("ghost-device-%d", i)
	logEntry := func(result string) access.SystemLog {
		return access.SystemLog{Source: access.SystemLogSource{
			Actor:          access.SystemLogActor{ID: "user-1", Type: "user"},
			Event:          access.SystemLogEvent{Type: "access.door.unlock", Result: result},
			Authentication: access.SystemLogAuthentication{CredentialProvider: "NFC"},
			Target:         []access.SystemLogTarget{{Type: "door", ID: door}}}}
	}
	state := func(dps string) *access.Notification {
		return mustNotification(access.NotificationLocationUpdateV2, door, access.LocationUpdateV2Data{ID: door, LocationType: "door",
			Name: "Ghost " + door, State: &access.LocationState{Lock: "locked", DPS: dps, DPSConnected: true}})
	}
	return []*access.Notification{
		state("close"), state("open"),
		mustNotification(access.NotificationRemoteUnlock, door, access.NotificationLocation{UniqueID: door, LocationType: "door"}),
		mustNotification(access.NotificationLogsAdd, "", logEntry("ACCESS")),
		mustNotification(access.NotificationLogsAdd, "", logEntry("BLOCKED")),
		mustNotification(access.NotificationDoorBell, "", access.DoorBellData{DoorID: door, DeviceID: dev}),
		mustNotification(access.NotificationDeviceUpdate, dev, map[string]any{"unique_id": dev, "name": "Ghost " + dev, "online": false}),
	}
}

// series counts the series a registry gathers.
func series(t *testing.T, reg prometheus.Gatherer) int {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	n := 0
	for _, mf := range mfs {
		n += len(mf.Metric)
	}
	return n
}

// TestUnlistedIDsKeepSeriesFlat: 5,000 of each notification naming doors
// and devices the polls never listed add no series once the first has
// been counted under the label value "unlisted"; the engine keeps a
// bounded number of them, and the next poll drops those (issue 33).
func TestUnlistedIDsKeepSeriesFlat(t *testing.T) {
	t.Parallel()
	m, reg, creg := newMetrics(t)
	cl, err := access.NewClient("https://127.0.0.1:9", "test-token")
	require.NoError(t, err)
	w, err := watch.New(cl, watch.Options{Engine: monitor.Config{Console: "a"}, Metrics: m})
	require.NoError(t, err)
	require.NoError(t, creg.Register(w.Collector()))
	doors, devs := site(3, 2)
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	w.Feed(doors, devs, at)
	for _, f := range entries(doors, 3) {
		w.Handle(f, at)
	}
	listed := series(t, reg)
	doorsKept, devicesKept := w.Entries()
	require.Equal(t, 3, doorsKept)
	require.Equal(t, 2, devicesKept)

	for _, f := range ghosts(0) {
		w.Handle(f, at.Add(time.Second))
	}
	first := series(t, reg)
	for i := 1; i < 5000; i++ {
		for _, f := range ghosts(i) {
			w.Handle(f, at.Add(time.Second))
		}
	}
	require.Equal(t, first, series(t, reg), "series after 5,000 unlisted doors and devices (%d before the first)", listed)
	doorsKept, devicesKept = w.Entries()
	assert.LessOrEqual(t, doorsKept, 3+monitor.MaxUnlisted)
	assert.LessOrEqual(t, devicesKept, 2+monitor.MaxUnlisted)
	assert.Equal(t, float64(monitor.MaxUnlisted), gauge(t, reg, "access_incidents_open", "kind", string(monitor.KindForcedEntry)),
		"forced entries at the doors kept")

	// No id the polls did not list is a label value; the unlisted ones
	// count under "unlisted".
	var text strings.Builder
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		text.WriteString(mf.String())
	}
	assert.NotContains(t, text.String(), "ghost")
	assert.Equal(t, 5000.0, testutil.ToFloat64(m.RemoteUnlocks(watch.Unlisted)))
	problems, err := testutil.GatherAndLint(reg)
	require.NoError(t, err)
	assert.Empty(t, problems)

	// The next poll drops what only the stream named.
	w.Feed(doors, devs, at.Add(time.Minute))
	doorsKept, devicesKept = w.Entries()
	assert.Equal(t, 3, doorsKept)
	assert.Equal(t, 2, devicesKept)
	assert.Equal(t, 0.0, gauge(t, reg, "access_incidents_open", "kind", string(monitor.KindForcedEntry)),
		"the forced entries at doors no poll lists resolved")
	assert.Less(t, series(t, reg), first)
}

// gauge returns the value of the series of a gauge whose label has that
// value (-1 when there is none).
func gauge(t *testing.T, reg prometheus.Gatherer, name, label, value string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return -1
}

// TestUnlistedDoorPolledEarlier: a door added to the console after the
// monitor's first polls is listed at the next poll once the stream names
// it (the doors are otherwise polled only after a gap), and its series
// then carry its id.
func TestUnlistedDoorPolledEarlier(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	_, reg := watched(t, srv, watch.Options{PollEvery: 20 * time.Millisecond})
	d := srv.AddDoor(access.Door{Name: "New wing", FloorID: srv.Doors()[0].FloorID, LockRelayStatus: access.DoorLocked})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := srv.RequestsSince(ctx, 0, false)
	require.NoError(t, err)
	cursor := j.Next
	require.NoError(t, srv.Notify(mustNotification(access.NotificationRemoteUnlock, d.ID, access.NotificationLocation{UniqueID: d.ID, LocationType: "door"})))
	// Wait for a doors poll, then for the request after it: the watcher
	// polls in turn, so the doors it read were fed to the engine by then.
	polled := false
	for after := false; !after; {
		j, err := srv.RequestsSince(ctx, cursor, true)
		require.NoError(t, err, "no doors poll after the stream named the new door")
		for _, r := range j.Items {
			after = after || polled
			polled = polled || r.Op == accesstest.OpDoorsList
		}
		cursor = j.Next
	}
	assert.True(t, hasSeries(t, reg, "access_door_info", map[string]string{"door": d.ID, "floor": d.FloorID, "name": "New wing"}),
		"the new door is listed")
}

// hasSeries reports whether the registry has a series of that name with
// those label values (among others).
func hasSeries(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) bool {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.Metric {
			n := 0
			for _, l := range m.Label {
				if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
					n++
				}
			}
			if n == len(labels) {
				return true
			}
		}
	}
	return false
}

// TestIncidentsCountedByDoor: access_incidents_total carries the door of
// a door's incident (its id when listed, "unlisted" when not), so the
// alerts can name the door from access_door_info; the kinds that concern
// no door keep door="" (leftover of issue 33's alerts).
func TestIncidentsCountedByDoor(t *testing.T) {
	t.Parallel()
	m, reg, creg := newMetrics(t)
	cl, err := access.NewClient("https://127.0.0.1:9", "test-token")
	require.NoError(t, err)
	w, err := watch.New(cl, watch.Options{Engine: monitor.Config{Console: "a"}, Metrics: m})
	require.NoError(t, err)
	require.NoError(t, creg.Register(w.Collector()))
	doors, devs := site(3, 2)
	at := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	w.Feed(doors, devs, at)
	// door-0001 opens without an unlock: a forced entry; so does a door
	// no poll listed.
	w.Handle(mustNotification(access.NotificationLocationUpdateV2, doors[1].ID, access.LocationUpdateV2Data{ID: doors[1].ID, LocationType: "door",
		State: &access.LocationState{Lock: "locked", DPS: "open", DPSConnected: true}}), at.Add(time.Second))
	for _, f := range ghosts(0)[:2] {
		w.Handle(f, at.Add(time.Second))
	}
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP access_incidents_total Incidents opened, by kind and door id ("unlisted": a door the last poll did not list; empty when the incident concerns no door).
# TYPE access_incidents_total counter
access_incidents_total{console="a",door="",kind="device_offline"} 0
access_incidents_total{console="a",door="",kind="emergency"} 0
access_incidents_total{console="a",door="",kind="forced_entry"} 0
access_incidents_total{console="a",door="",kind="held_open"} 0
access_incidents_total{console="a",door="",kind="inactive_credential"} 0
access_incidents_total{console="a",door="",kind="stream_mute"} 0
access_incidents_total{console="a",door="",kind="stream_silent"} 0
access_incidents_total{console="a",door="door-0001",kind="forced_entry"} 1
access_incidents_total{console="a",door="unlisted",kind="forced_entry"} 1
`), "access_incidents_total"))

	// A door removed from the console loses its series at the next poll.
	w.Feed(doors[:1], devs[:1], at.Add(time.Minute))
	assert.NotContains(t, gathered(t, reg), "door-0001")
}

// gathered returns what a registry gathers, as text.
func gathered(t *testing.T, reg prometheus.Gatherer) string {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	var text strings.Builder
	for _, mf := range mfs {
		text.WriteString(mf.String())
	}
	return text.String()
}
