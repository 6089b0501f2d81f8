package monitor_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
)

// The engine's tests play a site on accesstest and its clock: the acts of
// accesstest (a card, a door opened, a device cut off…) reach the engine
// through the notifications WebSocket, as they would a monitor, and every
// frame is fed to the engine with the fake's time when it arrives. The
// fake's base clock stands still, so only Advance moves time.

// item is one value of the subscription.
type item struct {
	n   *access.Notification
	err error
}

// syncEvent marks the end of what an act published (see site.sync).
const syncEvent access.NotificationEvent = "test.sync"

type site struct {
	t   *testing.T
	ctx context.Context
	srv *accesstest.Server
	eng *monitor.Engine
	in  chan item
	seq int
	// log is every incident line, in order.
	log []monitor.Incident
}

var base = time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)

// siteOptions are the rarer settings of a site: the SDK's idle timeout
// (0: its default) and a limit to the whole test (0: a minute).
type siteOptions struct {
	idle, limit time.Duration
}

// newSite starts the site's fake (the demo data, its clock standing still
// at base), an engine of cfg for console "site-a", and a subscription
// that feeds it, and feeds the engine the first polls.
func newSite(t *testing.T, cfg monitor.Config) *site { return newSiteWith(t, cfg, siteOptions{}) }

// newSiteWith is newSite with the options o.
func newSiteWith(t *testing.T, cfg monitor.Config, o siteOptions) *site {
	t.Helper()
	if o.limit == 0 {
		o.limit = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.limit)
	t.Cleanup(cancel)
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return base }))
	cfg.Console = "site-a"
	s := &site{t: t, ctx: ctx, srv: srv, eng: newEngine(t, cfg, srv.Now()), in: make(chan item, 1024)}
	opts := &access.SubscribeOptions{MinBackoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, IdleTimeout: o.idle}
	go func() {
		for n, err := range srv.Client().Notifications.Subscribe(ctx, opts) {
			select {
			case s.in <- item{n, err}:
			case <-ctx.Done():
				return
			}
		}
	}()
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	s.take(s.eng.StreamUp(srv.Now()))
	s.poll()
	return s
}

// newEngine is an engine of cfg started at now; cfg must be valid.
func newEngine(t *testing.T, cfg monitor.Config, now time.Time) *monitor.Engine {
	t.Helper()
	eng, err := monitor.New(cfg, now)
	require.NoError(t, err)
	return eng
}

func (s *site) take(in []monitor.Incident) { s.log = append(s.log, in...) }

// poll feeds the engine what the command polls: doors, devices, the
// emergency status and the users' statuses.
func (s *site) poll() {
	now := s.srv.Now()
	s.take(s.eng.Doors(s.srv.Doors(), now))
	s.take(s.eng.Devices(s.srv.DeviceList().Devices(), now))
	s.take(s.eng.Emergency(s.srv.Emergency(), now))
	st := map[string]string{}
	for _, u := range s.srv.Users() {
		st[u.ID] = string(u.Status)
	}
	s.eng.Users(st)
}

// feed hands one value of the subscription to the engine; it reports a
// sync marker's sequence number (0 for anything else).
func (s *site) feed(it item) int {
	now := s.srv.Now()
	switch {
	case it.err != nil:
		s.take(s.eng.StreamError(it.err, now))
	case it.n.Event == syncEvent:
		n, _ := strconv.Atoi(it.n.EventObjectID)
		return n
	default:
		_, in := s.eng.Notification(it.n, now)
		s.take(in)
	}
	return 0
}

// sync waits until everything the fake published so far has reached the
// engine: it sends a marker after it, in order, and feeds the engine until
// the marker arrives.
func (s *site) sync() {
	s.t.Helper()
	s.seq++
	require.NoError(s.t, s.srv.Notify(&access.Notification{Event: syncEvent, EventObjectID: strconv.Itoa(s.seq)}))
	for {
		select {
		case it := <-s.in:
			if s.feed(it) == s.seq {
				return
			}
		case <-s.ctx.Done():
			s.t.Fatalf("sync %d: %v", s.seq, s.ctx.Err())
		}
	}
}

// until feeds the engine until an error matching target arrives.
func (s *site) until(target error) {
	s.t.Helper()
	for {
		select {
		case it := <-s.in:
			s.feed(it)
			if it.err != nil && errors.Is(it.err, target) {
				return
			}
		case <-s.ctx.Done():
			s.t.Fatalf("waiting for %v: %v", target, s.ctx.Err())
		}
	}
}

// advance moves the fake's clock in steps of a second, ticking the engine
// after each, for at most limit or until an incident line of that type
// and kind appears; it returns that line.
func (s *site) advance(limit time.Duration, typ string, k monitor.Kind) (monitor.Incident, bool) {
	s.t.Helper()
	for d := time.Duration(0); d < limit; d += time.Second {
		if in, ok := s.find(typ, k); ok {
			return in, true
		}
		s.srv.Advance(time.Second)
		s.sync()
		s.take(s.eng.Tick(s.srv.Now()))
	}
	return s.find(typ, k)
}

func (s *site) find(typ string, k monitor.Kind) (monitor.Incident, bool) {
	for _, in := range s.log {
		if in.Type == typ && in.Kind == k {
			return in, true
		}
	}
	return monitor.Incident{}, false
}

// within5s asserts an opened incident fired within 5 s after its
// threshold, on the fake's clock.
func within5s(t *testing.T, in monitor.Incident) {
	t.Helper()
	firedWithin5s(t, in, time.Duration(in.Threshold))
}

// firedWithin5s asserts an opened incident fired within 5 s after delay
// from its start (0 for the incidents that open at once: a forced entry,
// an inactive credential, whose threshold is the unlock grace looked back
// over).
func firedWithin5s(t *testing.T, in monitor.Incident, delay time.Duration) {
	t.Helper()
	late := in.At.Sub(in.Start) - delay
	assert.GreaterOrEqual(t, late, time.Duration(0), "fired before its threshold: %+v", in)
	assert.LessOrEqual(t, late, 5*time.Second, "fired more than 5 s after its threshold: %+v", in)
}

// resolvedPair asserts the incident resolves with the same id.
func (s *site) resolved(opened monitor.Incident) monitor.Incident {
	s.t.Helper()
	for _, in := range s.log {
		if in.Type == monitor.TypeResolved && in.ID == opened.ID {
			assert.Equal(s.t, opened.Kind, in.Kind)
			assert.Equal(s.t, opened.Start, in.Start)
			return in
		}
	}
	s.t.Fatalf("incident %s (%s) did not resolve; log: %+v", opened.ID, opened.Kind, s.log)
	return monitor.Incident{}
}

// cardHolder adds an active user holding card with a policy for the whole
// building on the demo's "Always" schedule (so that a tap is granted at
// any hour), and returns the user.
func (s *site) cardHolder(card string, status access.UserStatus) access.User {
	s.t.Helper()
	res, err := s.srv.PresentCard(accesstest.DemoDeviceID, card)
	require.NoError(s.t, err)
	var always string
	for _, sc := range s.srv.Schedules() {
		if sc.Name == "Always" {
			always = sc.ID
		}
	}
	pol := s.srv.AddAccessPolicy(access.AccessPolicy{Name: "Everywhere " + card, ScheduleID: always,
		Resources: []access.Resource{{ID: accesstest.DemoBuildingID, Type: "door_group"}}})
	u := s.srv.AddUser(access.User{FirstName: "Card", LastName: card, Status: status, AccessPolicyIDs: []string{pol.ID},
		NFCCards: []access.NFCCard{{Token: res.Token}}})
	s.poll()
	return u
}

func (s *site) opened(k monitor.Kind) []monitor.Incident {
	var out []monitor.Incident
	for _, in := range s.log {
		if in.Type == monitor.TypeOpened && (k == "" || in.Kind == k) {
			out = append(out, in)
		}
	}
	return out
}

func TestHeldOpen(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{})
	s.cardHolder("CARD-1", access.UserStatusActive)
	res, err := s.srv.PresentCard(accesstest.DemoDeviceID, "CARD-1")
	require.NoError(t, err)
	require.True(t, res.Granted, res.Reason)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	s.sync()
	opened := s.srv.Now()
	in, ok := s.advance(2*time.Minute, monitor.TypeOpened, monitor.KindHeldOpen)
	require.True(t, ok, "no held-open incident: %+v", s.log)
	assert.Equal(t, accesstest.DemoDoorID, in.Door)
	assert.Equal(t, "site-a", in.Console)
	assert.Equal(t, opened, in.Start)
	assert.Equal(t, monitor.Duration(monitor.DefaultHeldOpen), in.Threshold)
	within5s(t, in)
	assert.Empty(t, s.opened(monitor.KindForcedEntry), "a card opened the door")

	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	s.sync()
	r := s.resolved(in)
	assert.Equal(t, s.srv.Now(), r.At)
	assert.Empty(t, s.eng.Open())
}

func TestForcedEntry(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{HeldOpen: time.Hour})
	s.cardHolder("CARD-2", access.UserStatusActive)

	// A card, and the door opened 40 s later (relocked, but within the
	// grace): not forced.
	_, err := s.srv.PresentCard(accesstest.DemoDeviceID, "CARD-2")
	require.NoError(t, err)
	s.sync()
	s.srv.Advance(40 * time.Second)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	s.sync()
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	s.sync()
	assert.Empty(t, s.opened(""))

	// An exit button counts as an unlock too.
	require.NoError(t, s.srv.PressExitButton(accesstest.DemoDoorID))
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	s.sync()
	assert.Empty(t, s.opened(""))

	// 50 s after the last unlock: forced, at once.
	s.srv.Advance(50 * time.Second)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	s.sync()
	in, ok := s.find(monitor.TypeOpened, monitor.KindForcedEntry)
	require.True(t, ok, "no forced entry: %+v", s.log)
	assert.Equal(t, accesstest.DemoDoorID, in.Door)
	assert.Equal(t, s.srv.Now(), in.Start)
	assert.Equal(t, s.srv.Now(), in.At)
	assert.Equal(t, monitor.Duration(monitor.DefaultUnlockGrace), in.Threshold)
	firedWithin5s(t, in, 0)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	s.sync()
	s.resolved(in)
}

func TestDeviceOffline(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{DeviceOffline: 2 * time.Minute})
	require.NoError(t, s.srv.SetDeviceOnline(accesstest.DemoDeviceID, false))
	s.sync()
	cut := s.srv.Now()
	_, early := s.advance(time.Minute, monitor.TypeOpened, monitor.KindDeviceOffline)
	assert.False(t, early, "fired before the threshold")
	in, ok := s.advance(2*time.Minute, monitor.TypeOpened, monitor.KindDeviceOffline)
	require.True(t, ok, "no device-offline incident: %+v", s.log)
	assert.Equal(t, accesstest.DemoDeviceID, in.Device)
	assert.Equal(t, accesstest.DemoDoorID, in.Door)
	assert.Equal(t, cut, in.Start)
	within5s(t, in)
	require.NoError(t, s.srv.SetDeviceOnline(accesstest.DemoDeviceID, true))
	s.sync()
	s.resolved(in)
}

func TestEmergency(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{})
	require.NoError(t, s.srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	s.sync()
	in, ok := s.find(monitor.TypeOpened, monitor.KindEmergency)
	require.True(t, ok, "no emergency incident: %+v", s.log)
	assert.Equal(t, "lockdown", in.Mode)
	within5s(t, in)
	s.srv.Advance(10 * time.Second)
	require.NoError(t, s.srv.SetEmergency(access.EmergencyStatus{Evacuation: true}))
	s.sync()
	r := s.resolved(in)
	assert.Equal(t, s.srv.Now(), r.At)
	ev := s.opened(monitor.KindEmergency)
	require.Len(t, ev, 2)
	assert.Equal(t, "evacuation", ev[1].Mode)

	// During an evacuation the doors are unlocked: an opening is not
	// forced.
	s.srv.Advance(time.Minute)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	require.NoError(t, s.srv.SetEmergency(access.EmergencyStatus{}))
	s.sync()
	assert.Empty(t, s.opened(monitor.KindForcedEntry))
	s.resolved(ev[1])
}

func TestStreamDownIsSilent(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{StreamSilent: 20 * time.Second})
	s.srv.Inject(accesstest.OpNotificationsSubscribe, accesstest.Fault{Status: http.StatusServiceUnavailable})
	s.srv.DropNotificationClients()
	s.until(access.ErrDisconnected)
	down := s.srv.Now()
	// Ticks while the stream is down (the sync markers cannot pass).
	var in monitor.Incident
	for i := 0; i < 40; i++ {
		s.srv.Advance(time.Second)
		s.take(s.eng.Tick(s.srv.Now()))
		var ok bool
		if in, ok = s.find(monitor.TypeOpened, monitor.KindStreamSilent); ok {
			break
		}
	}
	require.Equal(t, monitor.KindStreamSilent, in.Kind, "no stream-silent incident: %+v", s.log)
	assert.Equal(t, down, in.Start)
	within5s(t, in)
	s.srv.ClearFaults()
	s.until(access.ErrReconnected)
	s.resolved(in)
}

func TestStreamSilentConnection(t *testing.T) {
	t.Parallel()
	s := newSiteWith(t, monitor.Config{StreamSilent: 20 * time.Second}, siteOptions{idle: 300 * time.Millisecond})
	s.srv.Advance(time.Minute)
	require.Equal(t, 1, s.srv.SilenceNotificationClients())
	// The SDK replaces the silent connection after its idle timeout.
	s.until(access.ErrReconnected)
	in, ok := s.find(monitor.TypeOpened, monitor.KindStreamSilent)
	require.True(t, ok, "no stream-silent incident: %+v", s.log)
	within5s(t, in)
	s.resolved(in)
}

func TestStreamMute(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{StreamMute: time.Minute})
	for i := 0; i < 70; i++ {
		s.srv.NotifyRaw([]byte(`{"event":"access.data.v9.renamed","data":{}}`))
		s.sync()
		if _, ok := s.find(monitor.TypeOpened, monitor.KindStreamMute); ok {
			break
		}
		s.srv.Advance(time.Second)
	}
	in, ok := s.find(monitor.TypeOpened, monitor.KindStreamMute)
	require.True(t, ok, "no stream-mute incident: %+v", s.log)
	within5s(t, in)
	require.NoError(t, s.srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	s.sync()
	s.resolved(in)
}

func TestInactiveCredential(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{})
	u := s.cardHolder("CARD-3", access.UserStatusDeactivated)
	res, err := s.srv.PresentCard(accesstest.DemoDeviceID, "CARD-3")
	require.NoError(t, err)
	require.False(t, res.Granted)
	s.sync()
	assert.Empty(t, s.opened(""), "a refusal is no incident")

	res, err = s.srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-3")
	require.NoError(t, err)
	require.True(t, res.Granted)
	s.sync()
	in, ok := s.find(monitor.TypeOpened, monitor.KindInactiveCredential)
	require.True(t, ok, "no inactive-credential incident: %+v", s.log)
	assert.Equal(t, accesstest.DemoDoorID, in.Door)
	assert.Equal(t, u.ID, in.User)
	assert.NotContains(t, in.Detail, "CARD-3", "the credential is never named")
	firedWithin5s(t, in, 0)
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
	s.sync()
	s.resolved(in)
	assert.Empty(t, s.opened(monitor.KindForcedEntry))
}

// TestNormalDay: 10,000 entries (a card, the door opens within the grace,
// stays open a few seconds, closes) fire no incident.
func TestNormalDay(t *testing.T) {
	t.Parallel()
	entries := 10000
	switch {
	case testing.Short():
		entries = 500
	case raceEnabled:
		entries = 2000
	}
	s := newSiteWith(t, monitor.Config{}, siteOptions{limit: 5 * time.Minute})
	s.cardHolder("CARD-4", access.UserStatusActive)
	for i := 0; i < entries; i++ {
		res, err := s.srv.PresentCard(accesstest.DemoDeviceID, "CARD-4")
		require.NoError(t, err)
		require.True(t, res.Granted)
		s.srv.Advance(time.Duration(1+i%20) * time.Second) // within the 45 s grace
		require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
		s.sync()
		s.srv.Advance(time.Duration(2+i%30) * time.Second) // under the 60 s held-open threshold
		s.take(s.eng.Tick(s.srv.Now()))
		require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, false))
		s.sync()
		s.srv.Advance(5 * time.Second)
		s.take(s.eng.Tick(s.srv.Now()))
	}
	assert.Empty(t, s.log, "a normal day fired incidents")
	assert.True(t, s.eng.Connected())
}

// TestRederivedAfterRestart: a new engine, fed the polls of a site with
// incidents in force, opens them again.
func TestRederivedAfterRestart(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{DeviceOffline: time.Minute})
	require.NoError(t, s.srv.SetEmergency(access.EmergencyStatus{Lockdown: true}))
	require.NoError(t, s.srv.SetDoorPosition(accesstest.DemoDoorID, true))
	require.NoError(t, s.srv.SetDeviceOnline(accesstest.DemoDeviceID, false))
	s.sync()

	eng := newEngine(t, monitor.Config{Console: "site-a", DeviceOffline: time.Minute}, s.srv.Now())
	s.eng, s.log = eng, nil
	s.take(eng.StreamUp(s.srv.Now()))
	s.poll()
	em, ok := s.find(monitor.TypeOpened, monitor.KindEmergency)
	require.True(t, ok, "emergency not re-derived: %+v", s.log)
	assert.Equal(t, "lockdown", em.Mode)
	_, ok = s.advance(2*time.Minute, monitor.TypeOpened, monitor.KindDeviceOffline)
	require.True(t, ok, "device offline not re-derived: %+v", s.log)
	held, ok := s.advance(2*time.Minute, monitor.TypeOpened, monitor.KindHeldOpen)
	require.True(t, ok, "held open not re-derived: %+v", s.log)
	assert.Empty(t, s.opened(monitor.KindForcedEntry), "an opening found by a poll is not forced")
	// The same state derived again gives the same ids.
	again := newEngine(t, monitor.Config{Console: "site-a", DeviceOffline: time.Minute}, s.srv.Now())
	in := again.Emergency(access.EmergencyStatus{Lockdown: true}, em.Start)
	require.Len(t, in, 1)
	assert.Equal(t, em.ID, in[0].ID)
	assert.Equal(t, accesstest.DemoDoorID, held.Door)
}

func TestConfigRefusesNegative(t *testing.T) {
	t.Parallel()
	_, err := monitor.New(monitor.Config{HeldOpen: -time.Second}, base)
	assert.ErrorIs(t, err, monitor.ErrInvalidConfig)
	e := newEngine(t, monitor.Config{}, base)
	assert.Equal(t, monitor.DefaultHeldOpen, e.Config().HeldOpen)
	assert.Equal(t, monitor.DefaultUnlockGrace, e.Config().UnlockGrace)
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{})
	c := s.eng.Coverage()
	assert.Equal(t, 8, c.Doors)
	assert.Equal(t, 5, c.WithSensor)
	assert.Len(t, c.WithoutSensor, 3)
	// A door without a sensor opened through the API is never forced.
	for _, d := range s.srv.Doors() {
		if d.Name == "Garage" {
			assert.Contains(t, c.WithoutSensor, d.ID)
		}
	}
}

// TestInactiveCredentialDoorNeverOpened: a grant whose door stays shut
// resolves once the grace is over.
func TestInactiveCredentialDoorNeverOpened(t *testing.T) {
	t.Parallel()
	s := newSite(t, monitor.Config{UnlockGrace: 10 * time.Second})
	s.cardHolder("CARD-5", access.UserStatusDeactivated)
	_, err := s.srv.PresentCardFromCache(accesstest.DemoDeviceID, "CARD-5")
	require.NoError(t, err)
	s.sync()
	in, ok := s.find(monitor.TypeOpened, monitor.KindInactiveCredential)
	require.True(t, ok, "no inactive-credential incident: %+v", s.log)
	r, ok := s.advance(20*time.Second, monitor.TypeResolved, monitor.KindInactiveCredential)
	require.True(t, ok, "not resolved: %+v", s.log)
	assert.Equal(t, in.ID, r.ID)
	assert.Equal(t, 10*time.Second, r.At.Sub(r.Start))
}

// TestOddUnknownEventIsNotMute: two unknown notifications an hour apart
// on a quiet site open no stream-mute incident.
func TestOddUnknownEventIsNotMute(t *testing.T) {
	t.Parallel()
	e := newEngine(t, monitor.Config{StreamMute: 5 * time.Minute}, base)
	e.StreamUp(base)
	for i := 0; i < 4; i++ {
		_, in := e.Notification(&access.Notification{Event: "access.data.device.reboot"}, base.Add(time.Duration(i)*time.Hour))
		assert.Empty(t, in)
	}
	// Every minute for six: mute.
	var opened []monitor.Incident
	for i := 0; i <= 6; i++ {
		_, in := e.Notification(&access.Notification{Event: "access.data.device.reboot"}, base.Add(4*time.Hour+time.Duration(i)*time.Minute))
		opened = append(opened, in...)
	}
	require.Len(t, opened, 1)
	assert.Equal(t, monitor.KindStreamMute, opened[0].Kind)
	assert.Equal(t, base.Add(4*time.Hour), opened[0].Start)
}
