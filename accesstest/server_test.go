package accesstest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

var ctx = context.Background()

func noRetry() access.Option { return access.WithRetryPolicy(access.RetryPolicy{}) }

func apiErr(t *testing.T, err error) *access.APIError {
	t.Helper()
	var e *access.APIError
	require.ErrorAs(t, err, &e)
	return e
}

// raw sends a request the SDK would refuse to build.
func raw(t *testing.T, srv *accesstest.Server, method, path, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL()+path, strings.NewReader(body))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithToken("tok-all"))
	srv.AddUser(access.User{ID: "u1"})
	assert.Equal(t, "tok-all", srv.Token())

	_, _, err := srv.ClientWithToken("wrong", noRetry()).Users.Get(ctx, "u1", nil)
	e := apiErr(t, err)
	assert.Equal(t, 401, e.StatusCode)
	assert.Equal(t, access.CodeAccessTokenInvalid, e.Code)
	assert.ErrorIs(t, err, access.ErrUnauthorized)

	status, body := raw(t, srv, "GET", "/api/v1/developer/users/u1", "", "")
	assert.Equal(t, 401, status)
	assert.JSONEq(t, `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`, body)

	srv.AddToken("viewer", accesstest.ViewUser, accesstest.ViewVisitor)
	viewer := srv.ClientWithToken("viewer", noRetry())
	_, _, err = viewer.Users.Get(ctx, "u1", nil)
	require.NoError(t, err)
	_, err = viewer.Devices.UpdateSettings(ctx, "d", &access.DeviceSettingsUpdate{})
	e = apiErr(t, err)
	assert.Equal(t, 403, e.StatusCode)
	assert.Equal(t, access.CodeUnauthorized, e.Code)
	assert.ErrorIs(t, err, access.ErrForbidden)

	srv.AddToken("nothing")
	_, _, err = srv.ClientWithToken("nothing", noRetry()).Visitors.List(ctx, nil)
	assert.Equal(t, 403, apiErr(t, err).StatusCode)

	srv.RevokeToken("viewer")
	_, _, err = viewer.Users.Get(ctx, "u1", nil)
	assert.Equal(t, 401, apiErr(t, err).StatusCode)

	// Every operation needs its own permission: a token with all the others
	// gets 403, the full token gets past authorisation.
	calls := map[accesstest.Permission]func(*access.Client) error{
		accesstest.ViewWebhook: func(c *access.Client) error { _, _, err := c.Webhooks.List(ctx); return err },
		accesstest.EditWebhook: func(c *access.Client) error { _, err := c.Webhooks.Delete(ctx, "w"); return err },
		accesstest.ViewVisitor: func(c *access.Client) error { _, _, err := c.Visitors.List(ctx, nil); return err },
		accesstest.ViewUser:    func(c *access.Client) error { _, _, err := c.Users.Get(ctx, "u1", nil); return err },
		accesstest.ViewDevice:  func(c *access.Client) error { _, _, err := c.Devices.GetSettings(ctx, "d"); return err },
		accesstest.EditDevice: func(c *access.Client) error {
			_, err := c.Devices.UpdateSettings(ctx, "d", &access.DeviceSettingsUpdate{})
			return err
		},
		accesstest.ViewPolicy:     func(c *access.Client) error { _, _, err := c.HolidayGroups.List(ctx); return err },
		accesstest.ViewCredential: func(c *access.Client) error { _, _, err := c.TouchPasses.Search(ctx, "x"); return err },
		accesstest.EditCredential: func(c *access.Client) error { _, _, err := c.TouchPasses.Purchase(ctx, 1); return err },
		accesstest.ViewSpace:      func(c *access.Client) error { _, _, err := c.Doors.List(ctx); return err },
		accesstest.EditSpace: func(c *access.Client) error {
			_, err := c.Doors.SetEmergency(ctx, &access.EmergencyStatus{})
			return err
		},
		accesstest.EditUser: func(c *access.Client) error {
			_, err := c.Users.Update(ctx, "u1", &access.UserUpdate{Status: access.Ptr(access.UserStatusActive)})
			return err
		},
		accesstest.EditPolicy: func(c *access.Client) error { _, err := c.AccessPolicies.Delete(ctx, "p"); return err },
		accesstest.ViewSystemLog: func(c *access.Client) error {
			_, _, err := c.SystemLogs.List(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicAll})
			return err
		},
		accesstest.EditAPIServer: func(c *access.Client) error { _, err := c.APIServer.DeleteCertificate(ctx); return err },
		accesstest.EditVisitor:   func(c *access.Client) error { _, err := c.Visitors.AssignQRCode(ctx, "v"); return err },
	}
	require.Len(t, calls, len(accesstest.AllPermissions()))
	for perm, call := range calls {
		var others []accesstest.Permission
		for _, p := range accesstest.AllPermissions() {
			if p != perm {
				others = append(others, p)
			}
		}
		srv.AddToken("all-but-"+string(perm), others...)
		err := call(srv.ClientWithToken("all-but-"+string(perm), noRetry()))
		assert.ErrorIs(t, err, access.ErrForbidden, perm)
		if err := call(srv.Client(noRetry())); err != nil {
			assert.NotErrorIs(t, err, access.ErrForbidden, perm)
		}
	}
}

func TestNotFoundAndValidationCodes(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client(noRetry())
	type result struct {
		err  error
		code access.ErrorCode
	}
	cases := map[string]result{}
	_, _, err := c.Users.Get(ctx, "nobody", nil)
	cases["user"] = result{err, access.CodeUserWorkerNotExists}
	_, _, err = c.Devices.GetSettings(ctx, "000000000000")
	cases["device get"] = result{err, access.CodeDeviceDeviceNotFound}
	_, err = c.Devices.UpdateSettings(ctx, "000000000000", &access.DeviceSettingsUpdate{NFC: &access.AccessMethod{Enabled: access.No}})
	cases["device put"] = result{err, access.CodeDeviceDeviceNotFound}
	_, _, err = c.Schedules.Get(ctx, "nope")
	cases["schedule"] = result{err, access.CodeAccessPolicyScheduleNotFound}
	_, err = c.Webhooks.Delete(ctx, "nope")
	cases["webhook"] = result{err, access.CodeResourceNotFound}
	for name, tc := range cases {
		e := apiErr(t, tc.err)
		assert.Equal(t, 400, e.StatusCode, name)
		assert.Equal(t, tc.code, e.Code, name)
		assert.ErrorIs(t, tc.err, access.ErrNotFound, name)
	}

	// Requests the SDK validates away reach the fake only raw.
	bad := map[string][3]string{
		"status 7":       {"GET", "/api/v1/developer/visitors?status=7", ""},
		"status x":       {"GET", "/api/v1/developer/visitors?status=x", ""},
		"page 0":         {"GET", "/api/v1/developer/visitors?page_num=0", ""},
		"size x":         {"GET", "/api/v1/developer/visitors?page_size=x", ""},
		"expand":         {"GET", "/api/v1/developer/visitors?expand%5B%5D=friends", ""},
		"user expand":    {"GET", "/api/v1/developer/users/u?expand%5B%5D=resource", ""},
		"no condition":   {"GET", "/api/v1/developer/credentials/touch_passes/search", ""},
		"count 0":        {"POST", "/api/v1/developer/credentials/touch_passes", `{"count":0}`},
		"count 101":      {"POST", "/api/v1/developer/credentials/touch_passes", `{"count":101}`},
		"count string":   {"POST", "/api/v1/developer/credentials/touch_passes", `{"count":"2"}`},
		"count float":    {"POST", "/api/v1/developer/credentials/touch_passes", `{"count":1.5}`},
		"not JSON":       {"POST", "/api/v1/developer/webhooks/endpoints", `{`},
		"no endpoint":    {"POST", "/api/v1/developer/webhooks/endpoints", `{"name":"n","events":["access.door.unlock"]}`},
		"relative URL":   {"POST", "/api/v1/developer/webhooks/endpoints", `{"endpoint":"/hook","name":"n","events":["access.door.unlock"]}`},
		"no name":        {"POST", "/api/v1/developer/webhooks/endpoints", `{"endpoint":"http://h/","events":["access.door.unlock"]}`},
		"no events":      {"POST", "/api/v1/developer/webhooks/endpoints", `{"endpoint":"http://h/","name":"n","events":[]}`},
		"unknown event":  {"POST", "/api/v1/developer/webhooks/endpoints", `{"endpoint":"http://h/","name":"n","events":["access.door.unlocked"]}`},
		"no methods":     {"PUT", "/api/v1/developer/devices/d/settings", `{}`},
		"bool flag":      {"PUT", "/api/v1/developer/devices/d/settings", `{"access_methods":{"nfc":{"enabled":true}}}`},
		"unknown method": {"PUT", "/api/v1/developer/devices/d/settings", `{"access_methods":{"iris":{"enabled":"yes"}}}`},
		"unknown field":  {"PUT", "/api/v1/developer/devices/d/settings", `{"access_methods":{"nfc":{"speed":"yes"}}}`},
		"bad distance":   {"PUT", "/api/v1/developer/devices/d/settings", `{"access_methods":{"face":{"detect_distance":"close"}}}`},
	}
	for name, r := range bad {
		status, body := raw(t, srv, r[0], r[1], srv.Token(), r[2])
		assert.Equal(t, 400, status, name)
		assert.Contains(t, body, `"code":"CODE_PARAMS_INVALID"`, name)
	}
	status, body := raw(t, srv, "GET", "/api/v1/developer/no_such/operation", srv.Token(), "")
	assert.Equal(t, 404, status)
	assert.Contains(t, body, "CODE_RESOURCE_NOT_FOUND")
	status, _ = raw(t, srv, "PATCH", "/api/v1/developer/visitors", srv.Token(), "")
	assert.Equal(t, 405, status)
	status, _ = raw(t, srv, "POST", "/api/v1/developer/webhooks/endpoints", srv.Token(), `{"endpoint":"http://h/"}`+strings.Repeat(" ", 1<<20))
	assert.Equal(t, 413, status)
}

func TestVisitorPagingFiltersAndExpand(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	names := []string{"Hanna", "Hugo", "Ida", "hector", "Zed"}
	for i, n := range names {
		srv.AddVisitor(access.Visitor{ID: fmt.Sprint("v", i), FirstName: n, LastName: "Lee", Status: access.VisitorStatus(1 + i%2).String(),
			NFCCards: []access.NFCCard{{ID: "1"}}, PINCode: &access.PINCode{Token: "p"}, Resources: []access.Resource{{ID: "r"}},
			Schedule: &access.Schedule{ID: "s", WeekSchedule: &access.WeekSchedule{Monday: []access.TimeRange{{StartTime: "09:00:00", EndTime: "10:00:00"}}}}})
	}

	page, resp, err := c.Visitors.List(ctx, &access.VisitorListOptions{PageNum: 2, PageSize: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"v2", "v3"}, ids(page))
	assert.Equal(t, &access.Pagination{PageNum: 2, PageSize: 2, Total: 5}, resp.Pagination)
	page, resp, err = c.Visitors.List(ctx, &access.VisitorListOptions{PageNum: 9, PageSize: 2})
	require.NoError(t, err)
	assert.Empty(t, page)
	assert.Equal(t, 5, resp.Pagination.Total)
	status, _ := raw(t, srv, "GET", "/api/v1/developer/visitors?page_num=9223372036854775807&page_size=9223372036854775807", srv.Token(), "")
	assert.Equal(t, 200, status, "huge numbers do not overflow")

	page, resp, err = c.Visitors.List(ctx, &access.VisitorListOptions{Keyword: "h"})
	require.NoError(t, err)
	assert.Equal(t, []string{"v0", "v1", "v3"}, ids(page), "prefix, any case")
	assert.Equal(t, 3, resp.Pagination.Total)
	page, _, err = c.Visitors.List(ctx, &access.VisitorListOptions{Keyword: "Hugo L"})
	require.NoError(t, err)
	assert.Equal(t, []string{"v1"}, ids(page))
	page, _, err = c.Visitors.List(ctx, &access.VisitorListOptions{Status: access.VisitorStatusVisited})
	require.NoError(t, err)
	assert.Equal(t, []string{"v1", "v3"}, ids(page))
	page, _, err = c.Visitors.List(ctx, &access.VisitorListOptions{Status: access.VisitorStatusVisited, Keyword: "Ida"})
	require.NoError(t, err)
	assert.Equal(t, []string{"v2"}, ids(page), "keyword turns the status filter off")

	page, _, err = c.Visitors.List(ctx, nil)
	require.NoError(t, err)
	v := page[0]
	assert.NotEmpty(t, v.NFCCards)
	assert.NotNil(t, v.PINCode)
	assert.NotEmpty(t, v.Resources)
	require.NotNil(t, v.Schedule)
	require.NotNil(t, v.Schedule.WeekSchedule, "weekly decodes")
	assert.Equal(t, "09:00:00", v.Schedule.WeekSchedule.Monday[0].StartTime)

	page, _, err = c.Visitors.List(ctx, &access.VisitorListOptions{Expand: []access.VisitorExpand{access.VisitorExpandSchedule, access.VisitorExpandPINCode}})
	require.NoError(t, err)
	v = page[0]
	assert.Empty(t, v.NFCCards)
	assert.NotNil(t, v.PINCode)
	assert.Empty(t, v.Resources)
	assert.NotNil(t, v.Schedule)
	page, _, err = c.Visitors.List(ctx, &access.VisitorListOptions{Expand: []access.VisitorExpand{access.VisitorExpandNone}})
	require.NoError(t, err)
	v = page[0]
	assert.Nil(t, v.Schedule)
	assert.Nil(t, v.PINCode)
	assert.Equal(t, "s", srv.Visitors()[0].Schedule.ID, "the stored record is untouched")

	var all []string
	for v, err := range c.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 2}) {
		require.NoError(t, err)
		all = append(all, v.ID)
	}
	assert.Equal(t, []string{"v0", "v1", "v2", "v3", "v4"}, all)
	assert.Len(t, srv.RequestsFor(accesstest.OpVisitorsList), 13, "10 lists, then 3 pages for All")
}

func ids(vs []access.Visitor) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

func TestUserExpand(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	p := srv.AddAccessPolicy(access.AccessPolicy{Name: "Staff", Resources: []access.Resource{{ID: "door", Type: "door"}}, ScheduleID: "s"})
	u := srv.AddUser(access.User{FirstName: "Ada", AccessPolicyIDs: []string{p.ID, "dangling"}})
	assert.Len(t, u.ID, 36)
	assert.Equal(t, access.UserStatusActive, u.Status)
	c := srv.Client()
	got, _, err := c.Users.Get(ctx, u.ID, nil)
	require.NoError(t, err)
	assert.Nil(t, got.AccessPolicies)
	assert.Equal(t, []string{p.ID, "dangling"}, got.AccessPolicyIDs)
	got, _, err = c.Users.Get(ctx, u.ID, &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	require.NoError(t, err)
	assert.Equal(t, []access.AccessPolicy{p}, got.AccessPolicies)
	r := srv.RequestsFor(accesstest.OpUsersGet)
	require.Len(t, r, 2)
	assert.Equal(t, []string{"access_policy"}, r[1].Query["expand[]"])
}

func TestDeviceSettingsPartialUpdate(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	srv.AddDevice(access.DeviceSettings{DeviceID: "942a6f4247b2", AccessMethods: access.AccessMethods{
		NFC:  &access.AccessMethod{Enabled: access.Yes},
		Face: &access.FaceMethod{Enabled: access.No, AntiSpoofingLevel: access.AntiSpoofingNo, DetectDistance: access.DetectFar},
	}})
	c := srv.Client()
	_, err := c.Devices.UpdateSettings(ctx, "942a6f4247b2", &access.DeviceSettingsUpdate{
		Face:    &access.FaceMethod{Enabled: access.Yes},
		PINCode: &access.PINCodeMethod{Enabled: access.Yes},
	})
	require.NoError(t, err)
	s, _, err := c.Devices.GetSettings(ctx, "942a6f4247b2")
	require.NoError(t, err)
	assert.Equal(t, access.Yes, s.AccessMethods.NFC.Enabled, "untouched member")
	assert.Equal(t, access.FaceMethod{Enabled: access.Yes, AntiSpoofingLevel: access.AntiSpoofingNo, DetectDistance: access.DetectFar}, *s.AccessMethods.Face, "untouched fields")
	assert.Equal(t, access.PINCodeMethod{Enabled: access.Yes}, *s.AccessMethods.PINCode)
	d, ok := srv.Device("942a6f4247b2")
	require.True(t, ok)
	assert.Equal(t, *s, d)
	assert.Equal(t, []string{"942a6f4247b2"}, srv.DeviceIDs())
	req := srv.RequestsFor(accesstest.OpDevicesUpdateSettings)[0]
	assert.JSONEq(t, `{"access_methods":{"face":{"enabled":"yes"},"pin_code":{"enabled":"yes"}}}`, string(req.Body))
}

func TestScheduleWithHolidayGroup(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	g := srv.AddHolidayGroup(access.HolidayGroup{Name: "Public", Holidays: []access.Holiday{{Name: "Xmas", StartTime: "2026-12-25 00:00:00Z", EndTime: "2026-12-26 00:00:00Z"}}})
	srv.AddHolidayGroup(access.HolidayGroup{ID: "none", Name: "No Holidays", IsDefault: true})
	sc := srv.AddSchedule(access.Schedule{Name: "Office", HolidayGroupID: g.ID, WeekSchedule: &access.WeekSchedule{Friday: []access.TimeRange{{StartTime: "08:00:00", EndTime: "12:00:59"}}}})
	assert.Equal(t, "access", sc.Type)
	c := srv.Client()
	got, _, err := c.Schedules.Get(ctx, sc.ID)
	require.NoError(t, err)
	require.NotNil(t, got.HolidayGroup)
	assert.Equal(t, "Xmas", got.HolidayGroup.Holidays[0].Name)
	assert.NotEmpty(t, got.HolidayGroup.Holidays[0].ID)
	assert.Equal(t, "12:00:59", got.WeekSchedule.Day(time.Friday)[0].EndTime)
	_, body := raw(t, srv, "GET", "/api/v1/developer/access_policies/schedules/"+sc.ID, srv.Token(), "")
	assert.Contains(t, body, `"weekly":{`)
	assert.NotContains(t, body, `week_schedule`)

	groups, _, err := c.HolidayGroups.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []access.HolidayGroupSummary{{ID: g.ID, Name: "Public", Count: 1}, {ID: "none", Name: "No Holidays", IsDefault: true}}, groups)
}

func TestWebhookEndpoints(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	req := &access.WebhookEndpointRequest{Endpoint: "https://receiver.example/hook", Name: "door events",
		Events: []access.EventType{access.EventDoorUnlock}, Headers: map[string]string{"Authorization": "Bearer x"}}
	ep, _, err := c.Webhooks.Create(ctx, req)
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9a-f]{16}$`, ep.Secret.Value())
	assert.Equal(t, req.Headers, ep.Headers)

	_, resp, err := c.Webhooks.Create(ctx, req)
	e := apiErr(t, err)
	assert.Equal(t, 200, e.StatusCode, "duplicate on HTTP 200")
	assert.Equal(t, access.CodeDeviceWebhookEndpointDuplicated, e.Code)
	assert.ErrorIs(t, err, access.ErrConflict)
	require.NotNil(t, resp)

	again, _, err := c.Webhooks.Ensure(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, ep.ID, again.ID)
	assert.Equal(t, ep.Secret, again.Secret)

	list, _, err := c.Webhooks.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []access.WebhookEndpoint{*ep}, list)
	_, err = c.Webhooks.Delete(ctx, ep.ID)
	require.NoError(t, err)
	assert.Empty(t, srv.Webhooks())
	_, err = c.Webhooks.Delete(ctx, ep.ID)
	assert.ErrorIs(t, err, access.ErrNotFound)
}

// The fake's client waits milliseconds between retries, so that a test
// injecting 429s and 503s does not sleep for real (the default policy
// would wait 0.5 to 5 s).
func TestClientRetriesQuickly(t *testing.T) {
	t.Parallel()
	p := accesstest.RetryPolicy()
	assert.Equal(t, access.DefaultRetryPolicy().MaxRetries, p.MaxRetries)
	assert.LessOrEqual(t, p.WaitMax, 10*time.Millisecond)
	srv := accesstest.New(t)
	srv.AddUser(access.User{ID: "u1", FirstName: "Ada"})
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 503, Times: 2})
	_, _, err := srv.Client().Users.Get(ctx, "u1", nil)
	require.NoError(t, err)
	assert.Len(t, srv.RequestsFor(accesstest.OpUsersGet), 3, "both 503s retried away")

	// With the production policy (WaitMax 5 s) a Retry-After of 1 s would
	// be waited out; the fake's client ends the call at once instead.
	srv.ResetRequests()
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 503, RetryAfter: time.Second, Times: 1})
	_, _, err = srv.Client().Users.Get(ctx, "u1", nil)
	var e *access.APIError
	require.ErrorAs(t, err, &e)
	assert.Equal(t, time.Second, e.RetryAfter)
	assert.Len(t, srv.RequestsFor(accesstest.OpUsersGet), 1)
}

// TestEnsureConvergesAfterTokenRotation is the pattern of docs/events.md: a
// receiver re-registers itself on start with a rotated header credential.
// Ensure updates the endpoint in place (one PUT, same id and secret) and
// the next delivery carries the new credential.
func TestEnsureConvergesAfterTokenRotation(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client()
	got := make(chan string, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("X-Hook-Token")
	}))
	t.Cleanup(recv.Close)
	req := func(token string, events ...access.EventType) *access.WebhookEndpointRequest {
		return &access.WebhookEndpointRequest{Endpoint: recv.URL, Name: "door events", Events: events,
			Headers: map[string]string{"X-Hook-Token": token}}
	}
	first, _, err := c.Webhooks.Ensure(ctx, req("old", access.EventDoorUnlock))
	require.NoError(t, err)

	rotated, _, err := c.Webhooks.Ensure(ctx, req("new", access.EventDoorUnlock, access.EventDoorbellIncoming))
	require.NoError(t, err)
	assert.Equal(t, first.ID, rotated.ID)
	assert.Equal(t, first.Secret.Value(), rotated.Secret.Value())
	assert.Equal(t, "new", rotated.Headers["X-Hook-Token"])
	assert.ElementsMatch(t, []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncoming}, rotated.Events)
	require.Len(t, srv.RequestsFor(accesstest.OpWebhooksUpdate), 1)
	require.Len(t, srv.Webhooks(), 1)
	assert.Equal(t, "new", srv.Webhooks()[0].Headers["X-Hook-Token"])

	_, err = srv.EmitEvent(ctx, &access.WebhookEvent{Event: access.EventDoorUnlock})
	require.NoError(t, err)
	assert.Equal(t, "new", <-got, "the delivery carries the rotated credential")

	// Already converged: no further update.
	_, _, err = c.Webhooks.Ensure(ctx, req("new", access.EventDoorbellIncoming, access.EventDoorUnlock))
	require.NoError(t, err)
	assert.Len(t, srv.RequestsFor(accesstest.OpWebhooksUpdate), 1)

	// The fake's update checks ids and URLs like a console.
	_, _, err = c.Webhooks.Update(ctx, "no-such-id", (*access.WebhookEndpointUpdate)(req("x", access.EventDoorUnlock)))
	assert.ErrorIs(t, err, access.ErrNotFound)
	other, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: "https://other.example/", Name: "o", Events: []access.EventType{access.EventDoorUnlock}})
	require.NoError(t, err)
	_, _, err = c.Webhooks.Update(ctx, other.ID, (*access.WebhookEndpointUpdate)(req("x", access.EventDoorUnlock)))
	assert.ErrorIs(t, err, access.ErrConflict, "another endpoint's URL")
}

func TestTouchPassPurchaseAndSearch(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return now }))
	srv.AddTouchPass(access.TouchPass{CardID: "057B-D703-0C6D-4AC9", UserName: "Test Name"})
	c := srv.Client()
	bought, _, err := c.TouchPasses.Purchase(ctx, 3)
	require.NoError(t, err)
	require.Len(t, bought, 3)
	for _, tp := range bought {
		assert.Equal(t, access.TouchPassInactive, tp.Status)
		assert.Regexp(t, `^[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}$`, tp.CardID)
		assert.Equal(t, access.DateTime("2026-11-22T09:30:00Z"), tp.LastActivity)
		assert.Empty(t, tp.UserID)
	}
	assert.Len(t, srv.TouchPasses(), 4)

	found, _, err := c.TouchPasses.Search(ctx, bought[1].CardID[5:9])
	require.NoError(t, err)
	assert.Contains(t, found, bought[1])
	found, _, err = c.TouchPasses.Search(ctx, "test name")
	require.NoError(t, err)
	require.Len(t, found, 1)
	assert.Equal(t, "057B-D703-0C6D-4AC9", found[0].CardID)
	found, _, err = c.TouchPasses.Search(ctx, "no such pass")
	require.NoError(t, err)
	assert.Empty(t, found)
	assert.Len(t, srv.RequestsFor(accesstest.OpTouchPassesPurchase), 1)
}

func TestFaultInjection(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	srv.AddUser(access.User{ID: "u1"})
	var retries []access.RetryEvent
	var mu sync.Mutex
	policy := access.DefaultRetryPolicy()
	policy.WaitMin, policy.WaitMax = time.Millisecond, 2*time.Millisecond
	policy.OnRetry = func(ev access.RetryEvent) { mu.Lock(); retries = append(retries, ev); mu.Unlock() }
	c := srv.Client(access.WithRetryPolicy(policy))

	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 503, Times: 2})
	u, _, err := c.Users.Get(ctx, "u1", nil)
	require.NoError(t, err, "two 503s are retried away")
	assert.Equal(t, "u1", u.ID)
	assert.Len(t, retries, 2)

	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Code: access.CodeDeviceDeviceBusy, Message: "busy", Times: 1})
	_, _, err = c.Users.Get(ctx, "u1", nil)
	require.NoError(t, err, "a busy device is retried away")
	assert.Len(t, retries, 3)

	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Code: access.CodeDeviceDeviceBusy, Message: "busy"})
	_, _, err = c.Users.Get(ctx, "u1", nil)
	srv.ClearFaults()
	e := apiErr(t, err)
	assert.Equal(t, 200, e.StatusCode, "a code alone means HTTP 200")
	assert.Equal(t, access.CodeDeviceDeviceBusy, e.Code)
	assert.Equal(t, "busy", e.Message)
	assert.ErrorIs(t, err, access.ErrUnavailable)
	assert.Equal(t, 3, e.Attempts)

	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 429, RetryAfter: 1500 * time.Millisecond, Times: 1})
	_, resp, err := srv.Client(noRetry()).Users.Get(ctx, "u1", nil)
	assert.ErrorIs(t, err, access.ErrRateLimited)
	assert.Equal(t, "2", resp.Header.Get("Retry-After"), "rounded up to whole seconds")

	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Status: 502, Body: "<html>Bad Gateway</html>", ContentType: "text/html", Times: 1})
	_, _, err = srv.Client(noRetry()).Users.Get(ctx, "u1", nil)
	e = apiErr(t, err)
	assert.Equal(t, 502, e.StatusCode)
	assert.Contains(t, string(e.Body), "Bad Gateway")

	// Every time: net/http itself resends an idempotent request once when
	// a reused keep-alive connection turns out to be closed.
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{DropConnection: true})
	_, _, err = srv.Client(noRetry()).Users.Get(ctx, "u1", nil)
	srv.ClearFaults()
	var reqErr *access.RequestError
	assert.ErrorAs(t, err, &reqErr)

	srv.Inject(accesstest.OpTouchPassesPurchase, accesstest.Fault{Status: 503, Times: 1})
	_, _, err = c.TouchPasses.Purchase(ctx, 1)
	assert.ErrorIs(t, err, access.ErrServer)
	assert.Len(t, srv.RequestsFor(accesstest.OpTouchPassesPurchase), 1, "a purchase is never retried")
	assert.Empty(t, srv.TouchPasses())

	// A pure delay serves the request normally, a cancelled one stops it.
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Delay: 20 * time.Millisecond, Times: 1})
	_, _, err = c.Users.Get(ctx, "u1", nil)
	require.NoError(t, err)
	srv.Inject(accesstest.OpUsersGet, accesstest.Fault{Delay: time.Hour, Times: 1})
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, _, err = c.Users.Get(short, "u1", nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	srv.ClearFaults() // on a loaded machine the deadline may pass before the request reaches the fault

	// Faults are per operation; Times 0 is forever until cleared.
	srv.Inject(accesstest.OpHolidayGroupsList, accesstest.Fault{Status: 400})
	for range 3 {
		_, _, err = c.HolidayGroups.List(ctx)
		assert.ErrorIs(t, err, access.ErrInvalidParams)
	}
	_, _, err = c.Users.Get(ctx, "u1", nil)
	require.NoError(t, err)
	srv.ClearFaults()
	_, _, err = c.HolidayGroups.List(ctx)
	require.NoError(t, err)
}

func TestRequestsRecorded(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithToken("secret-token-value"))
	c := srv.Client()
	_, _, _ = c.TouchPasses.Search(ctx, "Example Name&x=1")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	r := reqs[0]
	assert.Equal(t, accesstest.OpTouchPassesSearch, r.Op)
	assert.Equal(t, "GET", r.Method)
	assert.Equal(t, "/api/v1/developer/credentials/touch_passes/search", r.Path)
	assert.Equal(t, "Example Name&x=1", r.Query.Get("condition"))
	assert.Equal(t, "Bearer REDACTED", r.Header.Get("Authorization"))
	assert.NotContains(t, fmt.Sprintf("%v %+v %v", reqs, srv, srv), "secret-token-value")
	srv.ResetRequests()
	assert.Empty(t, srv.Requests())
}

func TestSeedingMistakesPanicWithoutTB(t *testing.T) {
	t.Parallel()
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddUser(access.User{ID: "u"})
	assert.PanicsWithValue(t, `accesstest: AddUser: duplicate user id "u"`, func() { srv.AddUser(access.User{ID: "u"}) })
	srv.AddDevice(access.DeviceSettings{DeviceID: "d"})
	assert.Panics(t, func() { srv.AddDevice(access.DeviceSettings{DeviceID: "d"}) })
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: "http://h/"})
	assert.Panics(t, func() { srv.AddWebhook(access.WebhookEndpoint{Endpoint: "http://h/"}) })
	srv.AddVisitor(access.Visitor{ID: "v"})
	assert.Panics(t, func() { srv.AddVisitor(access.Visitor{ID: "v"}) })
	srv.AddSchedule(access.Schedule{ID: "s"})
	assert.Panics(t, func() { srv.AddSchedule(access.Schedule{ID: "s"}) })
	srv.AddHolidayGroup(access.HolidayGroup{ID: "g"})
	assert.Panics(t, func() { srv.AddHolidayGroup(access.HolidayGroup{ID: "g"}) })
	srv.AddTouchPass(access.TouchPass{ID: "t"})
	assert.Panics(t, func() { srv.AddTouchPass(access.TouchPass{ID: "t"}) })
	srv.AddAccessPolicy(access.AccessPolicy{ID: "p"})
	assert.Panics(t, func() { srv.AddAccessPolicy(access.AccessPolicy{ID: "p"}) })
	assert.Panics(t, func() { srv.Client(access.WithTimeout(-1)) })
	// The server is still usable after a seeding panic.
	_, ok := srv.User("u")
	assert.True(t, ok)
}

func TestPinnedCertificateAndClock(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	c, err := access.NewClient(srv.URL(), srv.Token(), access.WithPinnedCertificate(srv.Fingerprint()))
	require.NoError(t, err)
	_, _, err = c.HolidayGroups.List(ctx)
	require.NoError(t, err)
	plain, err := access.NewClient(srv.URL(), srv.Token(), noRetry())
	require.NoError(t, err)
	_, _, err = plain.HolidayGroups.List(ctx)
	assert.Error(t, err, "the certificate is self-signed")

	fixed := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	srv.SetNow(func() time.Time { return fixed })
	assert.Equal(t, fixed, srv.Now())
	srv.SetNow(nil)
	assert.WithinDuration(t, time.Now(), srv.Now(), time.Minute)
}

func TestDemoData(t *testing.T) {
	t.Parallel()
	// The same clock makes the same data set (visitors' times follow it).
	now := time.Date(2026, 11, 26, 16, 20, 0, 0, time.UTC)
	clock := accesstest.WithClock(func() time.Time { return now })
	a := accesstest.New(t, accesstest.WithDemoData(), clock)
	b := accesstest.New(t, accesstest.WithDemoData(), clock)
	assert.Len(t, a.Users(), accesstest.DemoUserCount)
	assert.Len(t, a.Visitors(), accesstest.DemoVisitorCount)
	assert.Equal(t, a.Visitors(), b.Visitors(), "deterministic")
	assert.Equal(t, a.Users(), b.Users())
	statuses := map[string]int{}
	for _, v := range a.Visitors() {
		statuses[v.Status]++
	}
	assert.Len(t, statuses, 6, "every visitor status occurs")

	c := a.Client()
	u, _, err := c.Users.Get(ctx, accesstest.DemoUserID, &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	require.NoError(t, err)
	assert.NotEmpty(t, u.AccessPolicies)
	require.Len(t, u.TouchPass, 1)
	assert.Equal(t, accesstest.DemoTouchPassCardID, u.TouchPass[0].CardID)
	d, _, err := c.Devices.GetSettings(ctx, accesstest.DemoDeviceID)
	require.NoError(t, err)
	assert.Equal(t, access.DetectFar, d.AccessMethods.Face.DetectDistance)
	sc, _, err := c.Schedules.Get(ctx, accesstest.DemoScheduleID)
	require.NoError(t, err)
	assert.Len(t, sc.HolidayGroup.Holidays, 8)
	found, _, err := c.TouchPasses.Search(ctx, accesstest.DemoTouchPassCardID[:4])
	require.NoError(t, err)
	assert.NotEmpty(t, found)
	n := 0
	for _, err := range c.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 100}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, accesstest.DemoVisitorCount, n)
}

func TestEmitDeliversSignedEvents(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return now }))
	c := srv.Client()

	got := make(chan *access.WebhookEvent, 4)
	var secret access.Secret
	var mu sync.Mutex
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		s := secret.Value()
		mu.Unlock()
		h, err := access.WebhookHandler(s, func(_ context.Context, ev *access.WebhookEvent) error {
			got <- ev
			return nil
		}, access.WithWebhookClock(func() time.Time { return now }), access.WithRequiredHeader("X-Hook-Token", "h1"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(receiver.Close)

	ep, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: receiver.URL + "/hook", Name: "test",
		Events: []access.EventType{access.EventDoorUnlock, access.EventDoorbellIncomingREN}, Headers: map[string]string{"X-Hook-Token": "h1"}})
	require.NoError(t, err)
	mu.Lock()
	secret = ep.Secret
	mu.Unlock()
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: "http://127.0.0.1:1/closed", Events: []access.EventType{access.EventDoorUnlock}})
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: receiver.URL + "/other", Events: []access.EventType{access.EventDeviceDPSStatus}})

	ds, err := srv.EmitEvent(ctx, &access.WebhookEvent{Event: access.EventDoorUnlock, EventObjectID: "obj-1",
		Data: access.EventData{Actor: &access.EventActor{ID: "u1", Name: "Ada", Type: "user"}, Object: []byte(`{"result":"Access Granted"}`)}})
	require.NoError(t, err)
	require.Len(t, ds, 2, "only subscribed endpoints")
	assert.Equal(t, 200, ds[0].StatusCode)
	assert.NoError(t, ds[0].Err)
	assert.Error(t, ds[1].Err, "nothing listens on port 1")
	ev := <-got
	assert.Equal(t, "obj-1", ev.EventObjectID)
	o, err := ev.DoorUnlock()
	require.NoError(t, err)
	assert.Equal(t, "Access Granted", o.Result)

	// A vendor sample, byte for byte.
	ren := []byte(`{"event":"access.doorbell.incoming.REN","event_object_id":"a","data":{"device":null,"actor":null,"object":{"request_id":"r"}}}`)
	ds, err = srv.Emit(ctx, ren)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	assert.Equal(t, 200, ds[0].StatusCode)
	assert.Equal(t, string(ren), string((<-got).Raw))

	// The receiver rejects a delivery signed for another secret.
	mu.Lock()
	secret = "different"
	mu.Unlock()
	ds, err = srv.Emit(ctx, ren)
	require.NoError(t, err)
	assert.Equal(t, 401, ds[0].StatusCode)

	_, err = srv.Emit(ctx, []byte(`{"data":{}}`))
	assert.Error(t, err)
	_, err = srv.EmitEvent(ctx, nil)
	assert.Error(t, err)
	ds, err = srv.Emit(ctx, []byte(`{"event":"access.temporary_unlock.start"}`))
	require.NoError(t, err)
	assert.Empty(t, ds)
	select {
	case ev := <-got:
		t.Fatalf("unexpected delivery %v", ev.Event)
	default:
	}
}

// The token is checked before the request body is read or the request
// recorded: a request with a wrong token is answered 401 while its body
// is still being sent (it never ends here), and Requests does not list it.
func TestTokenCheckedBeforeTheBody(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	body, more := io.Pipe()
	defer more.Close()
	go func() { _, _ = more.Write([]byte(`{"first_name":"Never`)) }() // and never the rest
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)          // a server that waits for the body fails here
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, srv.URL()+"/api/v1/developer/users", body)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer wrong-token")
	resp, err := srv.HTTPClient().Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.JSONEq(t, `{"code":"CODE_ACCESS_TOKEN_INVALID","msg":"The provided access token is invalid."}`, string(b))
	assert.Empty(t, srv.Requests(), "an unauthenticated request is not recorded")

	_, _, err = srv.Client(noRetry()).Users.Create(ctx, &access.UserRequest{FirstName: "Known", LastName: "Token"})
	require.NoError(t, err)
	require.Len(t, srv.Requests(), 1)
	assert.Contains(t, string(srv.Requests()[0].Body), `"Known"`)
}

// TestDemoVisitorsAgreeWithClock: the demo's visitors have statuses that
// agree with their times on the server's clock, whatever it reads at
// start (none UPCOMING after its visit ended, none VISITING a month
// later), and they stay right as the time passes.
func TestDemoVisitorsAgreeWithClock(t *testing.T) {
	t.Parallel()
	agree := func(t *testing.T, srv *accesstest.Server) map[string]int {
		t.Helper()
		now := srv.Now()
		statuses := map[string]int{}
		for _, v := range srv.Visitors() {
			statuses[v.Status]++
			start, end := v.StartTime.Time(), v.EndTime.Time()
			switch v.Status {
			case "UPCOMING":
				assert.True(t, now.Before(start), "%s %s UPCOMING at %s, starts %s", v.FirstName, v.LastName, now, start)
			case "VISITING", "ACTIVE":
				assert.True(t, !now.Before(start) && now.Before(end), "%s %s %s at %s, visit %s to %s", v.FirstName, v.LastName, v.Status, now, start, end)
			case "VISITED", "NO_VISIT":
				assert.False(t, now.Before(end), "%s %s %s at %s, ends %s", v.FirstName, v.LastName, v.Status, now, end)
			}
		}
		return statuses
	}
	for _, at := range []time.Time{
		time.Date(2026, 11, 26, 3, 10, 0, 0, time.UTC),
		time.Date(2031, 6, 1, 23, 59, 0, 0, time.UTC),
	} {
		srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return at }))
		assert.Len(t, agree(t, srv), 6, "every visitor status occurs at %s", at)
		srv.Advance(8 * time.Hour) // the visits under way end
		after := agree(t, srv)
		assert.Zero(t, after["VISITING"], "the visits under way end within 7 hours")
		srv.Advance(40 * 24 * time.Hour) // a month later
		after = agree(t, srv)
		assert.Zero(t, after["UPCOMING"]+after["ACTIVE"], "a month later, %v", after)
		assert.Equal(t, accesstest.DemoVisitorCount, after["VISITED"]+after["NO_VISIT"]+after["CANCELLED"])
	}
}
