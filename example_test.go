package access_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The examples run against accesstest, the in-memory fake controller. With a
// real console, create the client with NewClient, the console's URL, an API
// token and the fingerprint of its certificate instead.

// Connect to a controller whose self-signed certificate is pinned by its
// SHA-256 fingerprint.
func ExampleNewClient() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddHolidayGroup(access.HolidayGroup{ID: "hg-1", Name: "Public Holidays"})
	srv.AddHolidayGroup(access.HolidayGroup{ID: "hg-2", Name: "Company Days"})

	// For a console: access.NewClient("https://192.168.1.1:12445", token,
	// access.WithPinnedCertificate("9f86d081…")).
	client, err := access.NewClient(srv.URL(), srv.Token(),
		access.WithPinnedCertificate(srv.Fingerprint()))
	if err != nil {
		log.Fatal(err)
	}

	groups, _, err := client.HolidayGroups.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range groups {
		fmt.Println(g.Name)
	}
	// Output:
	// Public Holidays
	// Company Days
}

// Fetch one page of visitors with a status filter; the response carries the
// pagination.
func ExampleVisitorsService_List() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddVisitor(access.Visitor{ID: "v1", FirstName: "Ada", LastName: "Lovelace", Status: "VISITED"})
	srv.AddVisitor(access.Visitor{ID: "v2", FirstName: "Alan", LastName: "Turing", Status: "UPCOMING"})
	srv.AddVisitor(access.Visitor{ID: "v3", FirstName: "Grace", LastName: "Hopper", Status: "VISITED"})
	srv.AddVisitor(access.Visitor{ID: "v4", FirstName: "Edsger", LastName: "Dijkstra", Status: "VISITED"})
	client := srv.Client()

	visitors, resp, err := client.Visitors.List(context.Background(), &access.VisitorListOptions{
		Status:   access.VisitorStatusVisited,
		PageSize: 2,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("total:", resp.Pagination.Total)
	for _, v := range visitors {
		fmt.Println(v.FirstName, v.LastName, v.Status)
	}
	// Output:
	// total: 3
	// Ada Lovelace VISITED
	// Grace Hopper VISITED
}

// Iterate over every visitor; pages are fetched as the loop advances, and
// breaking out of the loop fetches no more.
func ExampleVisitorsService_All() {
	srv := accesstest.NewServer()
	defer srv.Close()
	for i := 1; i <= 7; i++ {
		srv.AddVisitor(access.Visitor{ID: fmt.Sprint("v", i), FirstName: fmt.Sprint("Visitor ", i)})
	}
	client := srv.Client()
	ctx := context.Background()

	n := 0
	for _, err := range client.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 3}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("visitors:", n)
	fmt.Println("pages fetched:", len(srv.RequestsFor(accesstest.OpVisitorsList)))

	srv.ResetRequests()
	for v, err := range client.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 3}) {
		if err != nil {
			log.Fatal(err)
		}
		if v.ID == "v2" {
			fmt.Println("found", v.FirstName)
			break
		}
	}
	fmt.Println("pages fetched:", len(srv.RequestsFor(accesstest.OpVisitorsList)))
	// Output:
	// visitors: 7
	// pages fetched: 3
	// found Visitor 2
	// pages fetched: 1
}

// Fetch a user with its access policies embedded, and tell a missing user
// apart from other failures.
func ExampleUsersService_Get() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p1", Name: "Staff"})
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p2", Name: "Server Room"})
	srv.AddUser(access.User{ID: "u1", FirstName: "Ada", LastName: "Lovelace", AccessPolicyIDs: []string{"p1", "p2"}})
	client := srv.Client()
	ctx := context.Background()

	user, _, err := client.Users.Get(ctx, "u1", &access.UserGetOptions{
		Expand: []access.UserExpand{access.UserExpandAccessPolicy},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(user.FirstName, user.LastName, user.Status)
	for _, p := range user.AccessPolicies {
		fmt.Println("policy:", p.Name)
	}

	_, _, err = client.Users.Get(ctx, "no-such-user", nil)
	fmt.Println("not found:", errors.Is(err, access.ErrNotFound))
	// Output:
	// Ada Lovelace ACTIVE
	// policy: Staff
	// policy: Server Room
	// not found: true
}

// Read which access methods a device accepts. A nil member is a method the
// device does not report.
func ExampleDevicesService_GetSettings() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddDevice(access.DeviceSettings{DeviceID: "942a6f4247b2", AccessMethods: access.AccessMethods{
		NFC:     &access.AccessMethod{Enabled: access.Yes},
		PINCode: &access.PINCodeMethod{Enabled: access.No},
	}})
	client := srv.Client()

	s, _, err := client.Devices.GetSettings(context.Background(), "942a6f4247b2")
	if err != nil {
		log.Fatal(err)
	}
	m := s.AccessMethods
	fmt.Println("nfc:", m.NFC.Enabled.Bool())
	fmt.Println("pin code:", m.PINCode.Enabled.Bool())
	fmt.Println("face reported:", m.Face != nil)
	// Output:
	// nfc: true
	// pin code: false
	// face reported: false
}

// Change some access methods and leave the others as they are: only the
// non-nil members, and their non-empty fields, are sent.
func ExampleDevicesService_UpdateSettings() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddDevice(access.DeviceSettings{DeviceID: "942a6f4247b2", AccessMethods: access.AccessMethods{
		NFC:  &access.AccessMethod{Enabled: access.Yes},
		Face: &access.FaceMethod{Enabled: access.No, AntiSpoofingLevel: access.AntiSpoofingHigh, DetectDistance: access.DetectNear},
	}})
	client := srv.Client()
	ctx := context.Background()

	_, err := client.Devices.UpdateSettings(ctx, "942a6f4247b2", &access.DeviceSettingsUpdate{
		Face: &access.FaceMethod{Enabled: access.Yes},
	})
	if err != nil {
		log.Fatal(err)
	}

	s, _, err := client.Devices.GetSettings(ctx, "942a6f4247b2")
	if err != nil {
		log.Fatal(err)
	}
	face := s.AccessMethods.Face
	fmt.Println("face:", face.Enabled, face.AntiSpoofingLevel, face.DetectDistance)
	fmt.Println("nfc:", s.AccessMethods.NFC.Enabled)
	// Output:
	// face: yes high near
	// nfc: yes
}

// Fetch a schedule with its weekly ranges and its holiday group.
func ExampleSchedulesService_Get() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddHolidayGroup(access.HolidayGroup{ID: "hg-1", Name: "Public Holidays", Holidays: []access.Holiday{
		{ID: "h1", Name: "New Year", StartTime: "2026-01-01 00:00:00Z", EndTime: "2026-01-02 00:00:00Z"},
		{ID: "h2", Name: "Christmas", StartTime: "2026-12-25 00:00:00Z", EndTime: "2026-12-26 00:00:00Z"},
	}})
	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "12:00:59"}, {StartTime: "13:00:00", EndTime: "17:00:59"}}
	srv.AddSchedule(access.Schedule{ID: "s1", Name: "Office Hours", HolidayGroupID: "hg-1",
		WeekSchedule: &access.WeekSchedule{Monday: office, Friday: office[:1]}})
	client := srv.Client()

	sc, _, err := client.Schedules.Get(context.Background(), "s1")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sc.Name)
	for _, day := range []time.Weekday{time.Monday, time.Friday, time.Sunday} {
		fmt.Printf("%s: %d range(s)\n", day, len(sc.WeekSchedule.Day(day)))
		for _, r := range sc.WeekSchedule.Day(day) {
			fmt.Printf("  %s-%s\n", r.StartTime, r.EndTime)
		}
	}
	for _, h := range sc.HolidayGroup.Holidays {
		start, err := h.StartTime.Time()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("holiday:", h.Name, start.Format(time.DateOnly))
	}
	// Output:
	// Office Hours
	// Monday: 2 range(s)
	//   08:00:00-12:00:59
	//   13:00:00-17:00:59
	// Friday: 1 range(s)
	//   08:00:00-12:00:59
	// Sunday: 0 range(s)
	// holiday: New Year 2026-01-01
	// holiday: Christmas 2026-12-25
}

// List the holiday groups; the holidays themselves come with a schedule
// (see SchedulesService.Get).
func ExampleHolidayGroupsService_List() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddHolidayGroup(access.HolidayGroup{ID: "none", Name: "No Holidays", IsDefault: true})
	srv.AddHolidayGroup(access.HolidayGroup{ID: "hg-1", Name: "Public Holidays", Holidays: []access.Holiday{
		{Name: "New Year", StartTime: "2026-01-01 00:00:00Z", EndTime: "2026-01-02 00:00:00Z"},
		{Name: "Christmas", StartTime: "2026-12-25 00:00:00Z", EndTime: "2026-12-26 00:00:00Z"},
	}})
	client := srv.Client()

	groups, _, err := client.HolidayGroups.List(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, g := range groups {
		fmt.Printf("%s: %d holidays, default %t\n", g.Name, g.Count, g.IsDefault)
	}
	// Output:
	// No Holidays: 0 holidays, default true
	// Public Holidays: 2 holidays, default false
}

// Buy touch passes. New passes are INACTIVE until assigned to a user; a
// purchase is sent once and never retried.
func ExampleTouchPassesService_Purchase() {
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithClock(func() time.Time { return now }))
	defer srv.Close()
	client := srv.Client()

	passes, _, err := client.TouchPasses.Purchase(context.Background(), 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bought:", len(passes))
	for _, tp := range passes {
		fmt.Println(tp.Status, tp.LastActivity, tp.UserID == "")
	}
	// Output:
	// bought: 3
	// INACTIVE 2026-11-22T09:30:00Z true
	// INACTIVE 2026-11-22T09:30:00Z true
	// INACTIVE 2026-11-22T09:30:00Z true
}

// Search touch passes by a fragment of the card id or by user name (case
// does not matter).
func ExampleTouchPassesService_Search() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddTouchPass(access.TouchPass{ID: "tp1", CardID: "057B-D703-0C6D-4AC9", UserName: "Ada Lovelace"})
	srv.AddTouchPass(access.TouchPass{ID: "tp2", CardID: "1A2B-3C4D-5E6F-7A8B", UserName: "Alan Turing"})
	client := srv.Client()
	ctx := context.Background()

	for _, condition := range []string{"057B", "alan", "nobody"} {
		found, _, err := client.TouchPasses.Search(ctx, condition)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q: %d found\n", condition, len(found))
		for _, tp := range found {
			fmt.Println(" ", tp.CardID, tp.UserName, tp.Status)
		}
	}
	// Output:
	// "057B": 1 found
	//   057B-D703-0C6D-4AC9 Ada Lovelace ACTIVE
	// "alan": 1 found
	//   1A2B-3C4D-5E6F-7A8B Alan Turing ACTIVE
	// "nobody": 0 found
}

// Register a webhook endpoint. Keep the returned secret to verify deliveries;
// it prints as REDACTED, Value returns it.
func ExampleWebhooksService_Create() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	req := &access.WebhookEndpointRequest{
		Endpoint: "https://receiver.example/hooks/access",
		Name:     "door events",
		Events:   []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming},
	}
	ep, _, err := client.Webhooks.Create(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ep.Name, ep.Endpoint, ep.Events)
	fmt.Println("secret:", ep.Secret, len(ep.Secret.Value()))

	// The same URL cannot be registered twice (see Ensure).
	_, _, err = client.Webhooks.Create(ctx, req)
	fmt.Println("conflict:", errors.Is(err, access.ErrConflict))
	// Output:
	// door events https://receiver.example/hooks/access [access.door.unlock access.doorbell.incoming]
	// secret: REDACTED 16
	// conflict: true
}

// Register an endpoint on every start without failing when it is already
// registered: Ensure returns the existing one, with its secret.
func ExampleWebhooksService_Ensure() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	req := &access.WebhookEndpointRequest{
		Endpoint: "https://receiver.example/hooks/access",
		Name:     "door events",
		Events:   []access.EventType{access.EventDoorUnlock},
	}
	first, _, err := client.Webhooks.Ensure(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	again, _, err := client.Webhooks.Ensure(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("same endpoint:", again.ID == first.ID)
	fmt.Println("same secret:", again.Secret.Value() == first.Secret.Value())
	fmt.Println("registered:", len(srv.Webhooks()))
	// Output:
	// same endpoint: true
	// same secret: true
	// registered: 1
}

// Remove a webhook endpoint by id.
func ExampleWebhooksService_Delete() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddWebhook(access.WebhookEndpoint{ID: "wh-1", Name: "old receiver",
		Endpoint: "https://old.example/hook", Events: []access.EventType{access.EventDoorUnlock}})
	client := srv.Client()
	ctx := context.Background()

	if _, err := client.Webhooks.Delete(ctx, "wh-1"); err != nil {
		log.Fatal(err)
	}
	list, _, err := client.Webhooks.List(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("endpoints left:", len(list))

	_, err = client.Webhooks.Delete(ctx, "wh-1")
	fmt.Println("second delete not found:", errors.Is(err, access.ErrNotFound))
	// Output:
	// endpoints left: 0
	// second delete not found: true
}

// Inspect an API error: classify it with errors.Is and a sentinel, or read
// its status and result code through errors.As.
func ExampleAPIError() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddUser(access.User{ID: "u1", FirstName: "Ada"})
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 429, RetryAfter: time.Second})
	// No retries, so that the 429 comes back at once.
	client := srv.Client(access.WithRetryPolicy(access.RetryPolicy{}))

	_, resp, err := client.Users.Get(context.Background(), "u1", nil)
	var apiErr *access.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("status:", apiErr.StatusCode)
		fmt.Printf("code: %q\n", apiErr.Code)
		fmt.Println("message:", apiErr.Message)
		fmt.Println("attempts:", apiErr.Attempts)
	}
	fmt.Println("rate limited:", errors.Is(err, access.ErrRateLimited))
	fmt.Println("retry after:", resp.Header.Get("Retry-After"))
	// Output:
	// status: 429
	// code: ""
	// message: Too Many Requests
	// attempts: 1
	// rate limited: true
	// retry after: 1
}

// Verify and decode a webhook delivery. The payload must be the body exactly
// as received.
func ExampleConstructEvent() {
	const secret = "0123456789abcdef" // WebhookEndpoint.Secret.Value()
	payload := []byte(`{"event":"access.door.unlock","event_object_id":"obj-1","data":{` +
		`"actor":{"id":"u1","name":"Ada Lovelace","type":"user"},` +
		`"object":{"authentication_type":"NFC","result":"Access Granted"}}}`)

	// The controller signs each delivery; SignPayload does the same for tests.
	sent := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	header := access.SignPayload(payload, secret, sent)

	// The clock option is for the example only: it puts "now" 30 seconds
	// after the delivery, within the default tolerance.
	clock := access.WithWebhookClock(func() time.Time { return sent.Add(30 * time.Second) })
	ev, err := access.ConstructEvent(payload, header, secret, clock)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ev.Event, ev.Data.Actor.Name)
	unlock, err := ev.DoorUnlock()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(unlock.AuthenticationType, unlock.Result)

	_, err = access.ConstructEvent(payload, header, "another secret", clock)
	fmt.Println(errors.Is(err, access.ErrNoValidSignature))
	// Output:
	// access.door.unlock Ada Lovelace
	// NFC Access Granted
	// true
}

// Serve webhook deliveries with an http.Handler that verifies them before
// calling your function.
func ExampleWebhookHandler() {
	const secret = "0123456789abcdef" // WebhookEndpoint.Secret.Value()
	handler, err := access.WebhookHandler(secret, func(ctx context.Context, ev *access.WebhookEvent) error {
		fmt.Println("received", ev.Event, ev.EventObjectID)
		return nil
	})
	if err != nil { // an empty secret or a bad option
		fmt.Println(err)
		return
	}
	// In a program: http.Handle("/hooks/access", handler).

	payload := []byte(`{"event":"access.device.dps_status","event_object_id":"door-1","data":{"object":{"event_type":"dps_change","status":"open"}}}`)
	req := httptest.NewRequest(http.MethodPost, "/hooks/access", bytes.NewReader(payload))
	req.Header.Set(access.SignatureHeader, access.SignPayload(payload, secret, time.Now()))
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	fmt.Println("status:", rec.Code)

	// A delivery signed with another secret never reaches the function.
	req = httptest.NewRequest(http.MethodPost, "/hooks/access", bytes.NewReader(payload))
	req.Header.Set(access.SignatureHeader, access.SignPayload(payload, "forged", time.Now()))
	rec = httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	fmt.Println("status:", rec.Code)
	// Output:
	// received access.device.dps_status door-1
	// status: 200
	// status: 401
}
