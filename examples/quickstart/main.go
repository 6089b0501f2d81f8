// Command quickstart walks through the SDK: it pages through visitors,
// fetches a user with access policies, reads and updates a device's access
// methods, fetches a schedule and the holiday groups, searches touch
// passes, lists the site's doors, door groups, devices, user groups,
// access policies, schedules, NFC cards and touch passes, and registers a
// webhook endpoint, receives a signed delivery and deletes the endpoint.
// The other examples go deeper: doors, events, onboarding, frontdesk.
//
//	go run ./examples/quickstart
//
// With no environment it runs against the embedded fake controller
// (package accesstest) loaded with a demo site. To talk to a console, set
//
//	ACCESS_URL=https://192.168.1.1:12445   the console (or, through a UniFi OS console's
//	                                       proxy, https://192.168.1.1/proxy/access/integration/v1/developer)
//	ACCESS_TOKEN=...                       an API token (the API key through the proxy)
//	ACCESS_FINGERPRINT=<sha256 hex>        pin the console's self-signed certificate, or
//	ACCESS_INSECURE=1                      skip certificate verification (not for production)
//
// Against a console the program only reads, unless ACCESS_WRITE=1 (then it
// rewrites a device's settings with the values it read, and registers and
// deletes ACCESS_WEBHOOK_URL). ACCESS_USER_ID, ACCESS_DEVICE_ID and
// ACCESS_SEARCH choose the records to show; by default the user is the
// inviter of the first visitor and devices are skipped.
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	if err := run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

type setup struct {
	client   *access.Client
	fake     *accesstest.Server // nil against a console
	write    bool
	userID   string
	deviceID string
	search   string
	hookURL  string
}

func configure() (*setup, error) {
	base, token := os.Getenv("ACCESS_URL"), os.Getenv("ACCESS_TOKEN")
	if base == "" || token == "" {
		srv := accesstest.NewServer(accesstest.WithDemoData())
		fmt.Printf("Using the embedded fake controller at %s (set ACCESS_URL and ACCESS_TOKEN for a console).\n\n", srv.URL())
		return &setup{client: srv.Client(), fake: srv, write: true, userID: accesstest.DemoUserID,
			deviceID: accesstest.DemoDeviceID, search: accesstest.DemoTouchPassCardID[:4]}, nil
	}
	var opts []access.Option
	switch {
	case os.Getenv("ACCESS_FINGERPRINT") != "":
		opts = append(opts, access.WithPinnedCertificate(os.Getenv("ACCESS_FINGERPRINT")))
	case os.Getenv("ACCESS_INSECURE") == "1":
		opts = append(opts, access.WithInsecureSkipVerify())
	}
	client, err := access.NewClient(base, token, opts...)
	if err != nil {
		return nil, err
	}
	fmt.Printf("Using the console at %s.\n\n", client.BaseURL())
	return &setup{client: client, write: os.Getenv("ACCESS_WRITE") == "1", userID: os.Getenv("ACCESS_USER_ID"),
		deviceID: os.Getenv("ACCESS_DEVICE_ID"), search: os.Getenv("ACCESS_SEARCH"), hookURL: os.Getenv("ACCESS_WEBHOOK_URL")}, nil
}

func run(ctx context.Context) error {
	s, err := configure()
	if err != nil {
		return err
	}
	if s.fake != nil {
		defer s.fake.Close()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	steps := []struct {
		title string
		fn    func(context.Context, *setup) error
	}{
		{"Visitors (every page)", visitors},
		{"User with access policies", user},
		{"Device access methods", device},
		{"Schedule and holiday groups", schedules},
		{"Touch passes", touchPasses},
		{"Site: doors, devices, groups, policies, credentials", site},
		{"Webhook round trip", webhook},
	}
	for _, st := range steps {
		fmt.Println("== " + st.title)
		if err := st.fn(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", st.title, err)
		}
		fmt.Println()
	}
	fmt.Println("Done.")
	return nil
}

func visitors(ctx context.Context, s *setup) error {
	byStatus := map[string]int{}
	n, pages := 0, 0
	var first *access.Visitor
	for v, err := range s.client.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 50}) {
		if err != nil {
			return err
		}
		if n%50 == 0 {
			pages++
		}
		n++
		byStatus[v.Status]++
		if first == nil {
			first = &v
		}
	}
	fmt.Printf("%d visitors in %d pages of up to 50\n", n, pages)
	for _, st := range slices.Sorted(maps.Keys(byStatus)) {
		fmt.Printf("  %-10s %4d\n", st, byStatus[st])
	}
	if first != nil {
		fmt.Printf("first: %s %s from %s, %s to %s\n", first.FirstName, first.LastName, orDash(first.VisitorCompany),
			first.StartTime.Time().Format("2006-01-02 15:04"), first.EndTime.Time().Format("15:04 MST"))
		if s.userID == "" {
			s.userID = first.InviterID
		}
	}
	return nil
}

func user(ctx context.Context, s *setup) error {
	if s.userID == "" {
		fmt.Println("skipped: set ACCESS_USER_ID")
		return nil
	}
	u, _, err := s.client.Users.Get(ctx, s.userID, &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	if errors.Is(err, access.ErrNotFound) {
		fmt.Printf("user %s not found\n", s.userID)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Printf("%s %s <%s>, %s, onboarded %s, %d NFC card(s)\n", u.FirstName, u.LastName, orDash(u.UserEmail), u.Status,
		u.OnboardTime.Time().Format("2006-01-02"), len(u.NFCCards))
	for _, p := range u.AccessPolicies {
		names := make([]string, len(p.Resources))
		for i, r := range p.Resources {
			names[i] = string(r.Type) + ":" + r.ID[:8]
		}
		fmt.Printf("  policy %-10s schedule %s, %s\n", p.Name, p.ScheduleID[:8], strings.Join(names, ", "))
	}
	for _, tp := range u.TouchPass {
		fmt.Printf("  touch pass %s (%s)\n", tp.CardID, tp.Status)
	}
	return nil
}

func describeMethods(m access.AccessMethods) string {
	var on []string
	add := func(name string, v access.YesNo) {
		if v != "" {
			on = append(on, name+"="+string(v))
		}
	}
	if m.NFC != nil {
		add("nfc", m.NFC.Enabled)
	}
	if m.PINCode != nil {
		add("pin", m.PINCode.Enabled)
		add("pin_shuffle", m.PINCode.PINCodeShuffle)
	}
	if m.Face != nil {
		add("face", m.Face.Enabled)
		if m.Face.AntiSpoofingLevel != "" {
			on = append(on, "face_tuning="+string(m.Face.AntiSpoofingLevel)+"/"+string(m.Face.DetectDistance))
		}
	}
	if m.QRCode != nil {
		add("qr", m.QRCode.Enabled)
	}
	if m.TouchPass != nil {
		add("touch_pass", m.TouchPass.Enabled)
	}
	return strings.Join(on, " ")
}

func device(ctx context.Context, s *setup) error {
	if s.deviceID == "" {
		fmt.Println("skipped: set ACCESS_DEVICE_ID (a hub or reader id)")
		return nil
	}
	d, _, err := s.client.Devices.GetSettings(ctx, s.deviceID)
	if err != nil {
		return err
	}
	fmt.Printf("device %s: %s\n", d.DeviceID, describeMethods(d.AccessMethods))
	if !s.write {
		fmt.Println("not updating (read-only; set ACCESS_WRITE=1)")
		return nil
	}
	update := &access.DeviceSettingsUpdate{PINCode: &access.PINCodeMethod{Enabled: access.Yes, PINCodeShuffle: access.Yes}}
	if s.fake == nil {
		update = (*access.DeviceSettingsUpdate)(&d.AccessMethods) // a console: write back what was read
	}
	if _, err := s.client.Devices.UpdateSettings(ctx, s.deviceID, update); err != nil {
		return err
	}
	d, _, err = s.client.Devices.GetSettings(ctx, s.deviceID)
	if err != nil {
		return err
	}
	fmt.Printf("after update: %s\n", describeMethods(d.AccessMethods))
	return nil
}

func schedules(ctx context.Context, s *setup) error {
	groups, _, err := s.client.HolidayGroups.List(ctx)
	if err != nil {
		return err
	}
	for _, g := range groups {
		def := ""
		if g.IsDefault {
			def = " (default)"
		}
		fmt.Printf("holiday group %-22s %d holiday(s)%s\n", g.Name, g.Count, def)
	}
	id := accesstest.DemoScheduleID
	if s.fake == nil {
		if id = os.Getenv("ACCESS_SCHEDULE_ID"); id == "" {
			fmt.Println("schedule skipped: set ACCESS_SCHEDULE_ID")
			return nil
		}
	}
	sc, _, err := s.client.Schedules.Get(ctx, id)
	if err != nil {
		return err
	}
	fmt.Printf("schedule %q:\n", sc.Name)
	for d := time.Sunday; d <= time.Saturday; d++ {
		var spans []string
		for _, r := range sc.WeekSchedule.Day(d) {
			spans = append(spans, r.StartTime+"-"+r.EndTime)
		}
		fmt.Printf("  %-9s %s\n", d, orDash(strings.Join(spans, ", ")))
	}
	if hg := sc.HolidayGroup; hg != nil {
		fmt.Printf("  holidays (%s):", hg.Name)
		for _, h := range hg.Holidays {
			if t, err := h.StartTime.Time(); err == nil {
				fmt.Printf(" %s %s;", t.Format("Jan 2"), h.Name)
			}
		}
		fmt.Println()
	}
	return nil
}

func touchPasses(ctx context.Context, s *setup) error {
	if s.search == "" {
		fmt.Println("skipped: set ACCESS_SEARCH (part of a card id or user name)")
		return nil
	}
	found, _, err := s.client.TouchPasses.Search(ctx, s.search)
	if err != nil {
		return err
	}
	fmt.Printf("search %q: %d pass(es)\n", s.search, len(found))
	for _, tp := range found {
		fmt.Printf("  %s %-9s %s\n", tp.CardID, tp.Status, orDash(tp.UserName))
	}
	if s.fake != nil {
		// Purchasing spends money on a console; the quickstart only does it
		// on the fake.
		bought, _, err := s.client.TouchPasses.Purchase(ctx, 2)
		if err != nil {
			return err
		}
		fmt.Printf("purchased %d pass(es) on the fake, status %s\n", len(bought), bought[0].Status)
	}
	return nil
}

func webhook(ctx context.Context, s *setup) error {
	if s.fake == nil {
		if !s.write || s.hookURL == "" {
			fmt.Println("skipped: set ACCESS_WRITE=1 and ACCESS_WEBHOOK_URL to register and delete an endpoint")
			return nil
		}
		ep, _, err := s.client.Webhooks.Ensure(ctx, &access.WebhookEndpointRequest{Endpoint: s.hookURL, Name: "access quickstart",
			Events: []access.EventType{access.EventDoorUnlock}})
		if err != nil {
			return err
		}
		fmt.Printf("registered %s (id %s, secret %s)\n", ep.Endpoint, ep.ID, ep.Secret)
		if _, err := s.client.Webhooks.Delete(ctx, ep.ID); err != nil {
			return err
		}
		fmt.Println("deleted")
		return nil
	}

	// A local receiver: the fake delivers signed events to it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	const hookToken = "quickstart-hook-token"
	req := &access.WebhookEndpointRequest{Endpoint: "http://" + ln.Addr().String() + "/hooks/access", Name: "quickstart",
		Events: access.AllEvents(), Headers: map[string]string{"X-Hook-Token": hookToken}}
	ep, _, err := s.client.Webhooks.Ensure(ctx, req)
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Printf("registered %s with secret %s (%d events)\n", ep.Endpoint, ep.Secret, len(ep.Events))

	received := make(chan *access.WebhookEvent, 1)
	mux := http.NewServeMux()
	h, err := access.WebhookHandler(ep.Secret.Value(), func(_ context.Context, ev *access.WebhookEvent) error {
		received <- ev
		return nil
	}, access.WithRequiredHeader("X-Hook-Token", hookToken))
	if err != nil {
		return err
	}
	mux.Handle("POST /hooks/access", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = hs.Serve(ln) }()
	defer func() { _ = hs.Shutdown(context.Background()); wg.Wait() }()

	deliveries, err := s.fake.EmitEvent(ctx, &access.WebhookEvent{Event: access.EventDoorUnlock, EventObjectID: "4a98adf6-dbb8-4312-9b8b-593f6eba8c8e",
		Data: access.EventData{
			Location: &access.EventLocation{ID: "d2b87427-7efa-43c1-aa52-b00d40d99ecf", LocationType: "door", Name: "Main entrance"},
			Actor:    &access.EventActor{ID: accesstest.DemoUserID, Name: "Ada Lovelace", Type: "user"},
			Object:   []byte(`{"authentication_type":"NFC","result":"Access Granted"}`),
		}})
	if err != nil {
		return err
	}
	for _, d := range deliveries {
		fmt.Printf("delivered to %s: HTTP %d\n", d.URL, d.StatusCode)
	}
	select {
	case ev := <-received:
		o, err := ev.DoorUnlock()
		if err != nil {
			return err
		}
		fmt.Printf("received verified %s: %s at %s by %s (%s)\n", ev.Event, o.Result, ev.Data.Location.Name, ev.Data.Actor.Name, o.AuthenticationType)
	case <-time.After(5 * time.Second):
		return errors.New("no delivery received")
	}
	if _, err := s.client.Webhooks.Delete(ctx, ep.ID); err != nil {
		return err
	}
	fmt.Printf("deleted endpoint; %d left\n", len(s.fake.Webhooks()))
	return nil
}

// site reads the rest of the site, one list per service; a token without
// one of the permissions skips that list instead of failing.
func site(ctx context.Context, s *setup) error {
	c := s.client
	count := func(what string, n int, resp *access.Response, err error) error {
		switch {
		case errors.Is(err, access.ErrForbidden), errors.Is(err, access.ErrUnsupported):
			fmt.Printf("%-16s skipped (%v)\n", what, err)
			return nil
		case err != nil:
			return err
		}
		if resp.Pagination != nil && resp.Pagination.Total > n {
			fmt.Printf("%-16s %d (first page of %d)\n", what, n, resp.Pagination.Total)
			return nil
		}
		fmt.Printf("%-16s %d\n", what, n)
		return nil
	}
	doors, resp, err := c.Doors.List(ctx)
	if err := count("doors", len(doors), resp, err); err != nil {
		return err
	}
	const shown = 3
	for _, d := range doors[:min(len(doors), shown)] {
		fmt.Printf("  %-20s %s, %s\n", d.Name, lockWord(d.LockRelayStatus), positionWord(d.PositionStatus))
	}
	if len(doors) > shown {
		fmt.Printf("  … and %d more\n", len(doors)-shown)
	}
	groups, resp, err := c.DoorGroups.List(ctx)
	if err := count("door groups", len(groups), resp, err); err != nil {
		return err
	}
	devices, resp, err := c.Devices.List(ctx, nil)
	if err := count("devices", len(devices.Devices()), resp, err); err != nil {
		return err
	}
	ugroups, resp, err := c.UserGroups.List(ctx)
	if err := count("user groups", len(ugroups), resp, err); err != nil {
		return err
	}
	policies, resp, err := c.AccessPolicies.List(ctx)
	if err := count("access policies", len(policies), resp, err); err != nil {
		return err
	}
	scheds, resp, err := c.Schedules.List(ctx)
	if err := count("schedules", len(scheds), resp, err); err != nil {
		return err
	}
	cards, resp, err := c.NFCCards.List(ctx, &access.NFCCardListOptions{PageSize: 25})
	if err := count("NFC cards", len(cards), resp, err); err != nil {
		return err
	}
	passes, resp, err := c.TouchPasses.List(ctx, &access.TouchPassListOptions{PageSize: 25})
	return count("touch passes", len(passes), resp, err)
}

// lockWord says whether a door's lock is locked.
func lockWord(s access.DoorLockRelayStatus) string {
	switch s {
	case access.DoorLocked:
		return "locked"
	case access.DoorUnlocked:
		return "unlocked"
	}
	return "lock " + orDash(string(s))
}

// positionWord says whether a door is open, from its position sensor.
func positionWord(s access.DoorPositionStatus) string {
	switch s {
	case access.DoorOpen:
		return "open"
	case access.DoorClosed:
		return "closed"
	case access.DoorPositionUnknown:
		return "no door position sensor"
	}
	return "position " + string(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
