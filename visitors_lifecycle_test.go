package access_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// visitorSite is the demo site at a fixed time, with a webhook endpoint
// for every event.
func visitorSite(t *testing.T) (*accesstest.Server, *access.Client, time.Time) {
	t.Helper()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return now }))
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(recv.Close)
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: recv.URL, Name: "all", Events: access.AllEvents()})
	return srv, srv.Client(), now
}

// statusChanges returns the access.visitor.status.changed deliveries'
// objects, as "<visitor id> <previous> -> <status>", of the visitors ids
// (the demo site's visitors change status too as the clock moves).
func statusChanges(t *testing.T, srv *accesstest.Server, ids ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, srv.WaitDeliveries(ctx))
	var out []string
	for _, d := range srv.Deliveries() {
		if d.Event != access.EventVisitorStatusChanged {
			continue
		}
		var ev struct {
			Data struct {
				Object struct {
					VisitorID      string `json:"visitor_id"`
					Status         string `json:"status"`
					PreviousStatus string `json:"previous_status"`
				} `json:"object"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(d.Payload, &ev))
		o := ev.Data.Object
		if !slices.Contains(ids, o.VisitorID) {
			continue
		}
		out = append(out, o.VisitorID+" "+o.PreviousStatus+" -> "+o.Status)
	}
	return out
}

func TestVisitorLifecycleOnTheFakesClock(t *testing.T) {
	t.Parallel()
	srv, c, now := visitorSite(t)
	ctx := context.Background()
	week := &access.WeekSchedule{Monday: []access.TimeRange{{StartTime: "13:00:00", EndTime: "17:00:59"}}}
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Grace", LastName: "Hopper", VisitorCompany: "Navy",
		MobilePhone: "+41791234567", StartTime: now.Add(4 * time.Hour), EndTime: now.Add(8 * time.Hour),
		VisitReason: access.VisitReasonInterview, WeekSchedule: week,
		Resources: []access.Resource{access.VisitDoor(accesstest.DemoDoorID), access.VisitDoorGroup(accesstest.DemoDoorGroupID)}})
	require.NoError(t, err)
	assert.Equal(t, "UPCOMING", v.Status)
	assert.Equal(t, access.UnixTimeOf(now.Add(4*time.Hour)), v.StartTime)
	assert.Equal(t, access.VisitReasonInterview, v.VisitReason)
	assert.Equal(t, []access.Resource{{ID: accesstest.DemoDoorID, Name: "Main entrance", Type: "door"},
		{ID: accesstest.DemoDoorGroupID, Name: "Office floors", Type: "door_group"}}, v.Resources)
	require.NotNil(t, v.Schedule)
	assert.Equal(t, week.Monday, v.Schedule.WeekSchedule.Monday, "written as week_schedule, read back as weekly")
	req := srv.RequestsFor(accesstest.OpVisitorsCreate)[0]
	assert.Contains(t, string(req.Body), `"week_schedule":{"sunday":[],"monday":[{"start_time":"13:00:00","end_time":"17:00:59"}],"tuesday":[],`)
	assert.Contains(t, string(req.Body), `"start_time":`+strconv.FormatInt(now.Add(4*time.Hour).Unix(), 10)+`,`)

	srv.Advance(4 * time.Hour)
	got, _, err := c.Visitors.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, "VISITING", got.Status)
	srv.Advance(4 * time.Hour)
	got, _, err = c.Visitors.Get(ctx, v.ID)
	require.NoError(t, err)
	assert.Equal(t, "VISITED", got.Status)
	assert.Equal(t, []string{v.ID + " UPCOMING -> VISITING", v.ID + " VISITING -> VISITED"}, statusChanges(t, srv, v.ID))
}

func TestVisitorCancelAndForceDelete(t *testing.T) {
	t.Parallel()
	srv, c, now := visitorSite(t)
	ctx := context.Background()
	mk := func(name string) *access.Visitor {
		v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: name, LastName: "X", StartTime: now.Add(time.Hour),
			EndTime: now.Add(2 * time.Hour), VisitReason: access.VisitReasonBusiness})
		require.NoError(t, err)
		return v
	}
	a, b := mk("Ann"), mk("Ben")
	pin, _, err := c.PINCodes.Generate(ctx)
	require.NoError(t, err)
	require.NoError(t, ignoreResp(c.Visitors.AssignPINCode(ctx, b.ID, pin)))

	require.NoError(t, ignoreResp(c.Visitors.Delete(ctx, a.ID, nil)))
	got, _, err := c.Visitors.Get(ctx, a.ID)
	require.NoError(t, err, "cancelled, not removed")
	assert.Equal(t, "CANCELLED", got.Status)
	srv.Advance(3 * time.Hour)
	got, _, err = c.Visitors.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "CANCELLED", got.Status, "a cancelled visit does not start")

	require.NoError(t, ignoreResp(c.Visitors.Delete(ctx, b.ID, &access.VisitorDeleteOptions{Force: true})))
	_, _, err = c.Visitors.Get(ctx, b.ID)
	assert.ErrorIs(t, err, access.ErrNotFound)
	assert.Empty(t, srv.PINHolder(pin), "the removed visitor's PIN is free again")
	assert.Equal(t, "is_force=true", srv.RequestsFor(accesstest.OpVisitorsDelete)[1].Query.Encode())
	assert.Empty(t, srv.RequestsFor(accesstest.OpVisitorsDelete)[0].Query)

	changes := statusChanges(t, srv, a.ID, b.ID)
	assert.Contains(t, changes, a.ID+" UPCOMING -> CANCELLED")
	assert.Contains(t, changes, b.ID+" UPCOMING -> VISITING")
	assert.Contains(t, changes, b.ID+" VISITING -> VISITED")
	assert.NotContains(t, strings.Join(changes, ","), a.ID+" CANCELLED ->")
}

func TestVisitorUpdate(t *testing.T) {
	t.Parallel()
	srv, c, now := visitorSite(t)
	ctx := context.Background()
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Ann", LastName: "X", Remarks: "r", StartTime: now.Add(time.Hour),
		EndTime: now.Add(2 * time.Hour), VisitReason: access.VisitReasonBusiness})
	require.NoError(t, err)
	got, _, err := c.Visitors.Update(ctx, v.ID, &access.VisitorUpdate{LastName: access.Ptr("Young"), Remarks: access.Ptr(""),
		StartTime: access.Ptr(now.Add(-time.Hour)), VisitReason: access.Ptr(access.VisitReasonCooperation)})
	require.NoError(t, err)
	assert.Equal(t, "Ann", got.FirstName, "unset fields stay")
	assert.Equal(t, "Young", got.LastName)
	assert.Empty(t, got.Remarks)
	assert.Equal(t, access.VisitReasonCooperation, got.VisitReason)
	assert.Equal(t, "VISITING", got.Status, "moving the start time into the past starts the visit")

	// The vendor forbids status changes; the fake refuses a raw body that tries.
	hc := srv.HTTPClient()
	r, _ := http.NewRequest("PUT", srv.URL()+"/api/v1/developer/visitors/"+v.ID, strings.NewReader(`{"status":"VISITED"}`))
	r.Header.Set("Authorization", "Bearer "+srv.Token())
	resp, err := hc.Do(r)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 400, resp.StatusCode)

	_, _, err = c.Visitors.Update(ctx, v.ID, &access.VisitorUpdate{EndTime: access.Ptr(now.Add(-2 * time.Hour))})
	assert.ErrorIs(t, err, access.ErrInvalidParams, "end before start")
	_, _, err = c.Visitors.Update(ctx, "nope", &access.VisitorUpdate{})
	assert.ErrorIs(t, err, access.ErrNotFound)
	_, _, err = c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "A", LastName: "B", StartTime: now, EndTime: now.Add(time.Hour),
		VisitReason: access.VisitReasonOthers, Resources: []access.Resource{access.VisitDoor("no-such-door")}})
	assert.ErrorIs(t, err, access.ErrNotFound, "an unknown door, as for access policies and door groups")
}

func TestVisitorValidation(t *testing.T) {
	t.Parallel()
	c, _ := mockConsole(t) // any request would get a 404
	ctx := context.Background()
	now := time.Now()
	ok := access.VisitorRequest{FirstName: "A", LastName: "B", StartTime: now, EndTime: now.Add(time.Hour), VisitReason: access.VisitReasonOthers}
	bad := map[string]func(r *access.VisitorRequest){
		"first name":    func(r *access.VisitorRequest) { r.FirstName = " " },
		"last name":     func(r *access.VisitorRequest) { r.LastName = "" },
		"no start":      func(r *access.VisitorRequest) { r.StartTime = time.Time{} },
		"no end":        func(r *access.VisitorRequest) { r.EndTime = time.Time{} },
		"end <= start":  func(r *access.VisitorRequest) { r.EndTime = r.StartTime },
		"reason":        func(r *access.VisitorRequest) { r.VisitReason = "Other" },
		"resource type": func(r *access.VisitorRequest) { r.Resources = []access.Resource{{ID: "d", Type: "floor"}} },
		"resource id":   func(r *access.VisitorRequest) { r.Resources = []access.Resource{access.VisitDoor("")} },
	}
	for name, f := range bad {
		r := ok
		f(&r)
		_, _, err := c.Visitors.Create(ctx, &r)
		assert.ErrorIs(t, err, access.ErrValidation, name)
	}
	_, _, err := c.Visitors.Create(ctx, nil)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "A", LastName: "B", VisitReason: access.VisitReasonOthers,
		StartTime: time.Unix(-60, 0), EndTime: time.Unix(60, 0)})
	assert.ErrorIs(t, err, access.ErrValidation, "a start before 1970")
	_, _, err = c.Visitors.Update(ctx, "v", nil)
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Update(ctx, "", &access.VisitorUpdate{})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Update(ctx, "v", &access.VisitorUpdate{FirstName: access.Ptr("")})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Update(ctx, "v", &access.VisitorUpdate{VisitReason: access.Ptr(access.VisitReason("Party"))})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Update(ctx, "v", &access.VisitorUpdate{StartTime: access.Ptr(time.Time{})})
	assert.ErrorIs(t, err, access.ErrValidation, "a visit cannot lose its start")
	_, _, err = c.Visitors.Update(ctx, "v", &access.VisitorUpdate{EndTime: access.Ptr(time.Unix(-5, 0))})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Update(ctx, "v", &access.VisitorUpdate{StartTime: access.Ptr(time.Unix(200, 0)), EndTime: access.Ptr(time.Unix(100, 0))})
	assert.ErrorIs(t, err, access.ErrValidation)
	_, _, err = c.Visitors.Get(ctx, "")
	assert.ErrorIs(t, err, access.ErrValidation)
	for name, err := range map[string]error{
		"delete":         ignoreResp(c.Visitors.Delete(ctx, "..", nil)),
		"assign nfc":     ignoreResp(c.Visitors.AssignNFCCard(ctx, "v", &access.NFCCardAssignment{})),
		"assign nfc nil": ignoreResp(c.Visitors.AssignNFCCard(ctx, "v", nil)),
		"unassign nfc":   ignoreResp(c.Visitors.UnassignNFCCard(ctx, "v", "")),
		"assign pin":     ignoreResp(c.Visitors.AssignPINCode(ctx, "v", "12a4")),
		"empty pin":      ignoreResp(c.Visitors.AssignPINCode(ctx, "v", "")),
		"unassign pin":   ignoreResp(c.Visitors.UnassignPINCode(ctx, "")),
		"assign qr":      ignoreResp(c.Visitors.AssignQRCode(ctx, "")),
		"unassign qr":    ignoreResp(c.Visitors.UnassignQRCode(ctx, " ")),
		"no plates":      ignoreResp(c.Visitors.AssignLicensePlates(ctx, "v", nil)),
		"blank plate":    ignoreResp(c.Visitors.AssignLicensePlates(ctx, "v", []string{"A1", " "})),
		"unassign plate": ignoreResp(c.Visitors.UnassignLicensePlate(ctx, "v", "")),
	} {
		assert.ErrorIs(t, err, access.ErrValidation, name)
	}
}

func TestVisitorPlatesAndQRCodeOnTheFake(t *testing.T) {
	t.Parallel()
	srv, c, now := visitorSite(t)
	ctx := context.Background()
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Ann", LastName: "X", StartTime: now, EndTime: now.Add(time.Hour), VisitReason: access.VisitReasonOthers})
	require.NoError(t, err)
	require.NoError(t, ignoreResp(c.Visitors.AssignLicensePlates(ctx, v.ID, []string{"JQ178", "BS279"})))
	assert.Equal(t, `["JQ178","BS279"]`, string(srv.RequestsFor(accesstest.OpVisitorsAssignLicensePlates)[0].Body), "a bare array")
	got, _, err := c.Visitors.Get(ctx, v.ID)
	require.NoError(t, err)
	require.Len(t, got.LicensePlates, 2)
	require.NoError(t, ignoreResp(c.Visitors.UnassignLicensePlate(ctx, v.ID, got.LicensePlates[0].ID)))
	err = ignoreResp(c.Visitors.UnassignLicensePlate(ctx, v.ID, got.LicensePlates[0].ID))
	assert.ErrorIs(t, err, access.ErrNotFound)
	got, _, _ = c.Visitors.Get(ctx, v.ID)
	assert.Equal(t, "BS279", got.LicensePlates[0].Credential)

	var img strings.Builder
	_, err = c.QRCodes.Download(ctx, v.ID, &img)
	assert.ErrorIs(t, err, access.ErrNotFound, "no QR code yet")
	assert.Zero(t, img.Len())
	require.NoError(t, ignoreResp(c.Visitors.AssignQRCode(ctx, v.ID)))
	resp, err := c.QRCodes.Download(ctx, v.ID, &img)
	require.NoError(t, err)
	assert.Equal(t, "image/png", resp.Header.Get("Content-Type"))
	assert.True(t, strings.HasPrefix(img.String(), "\x89PNG"))
	require.NoError(t, ignoreResp(c.Visitors.UnassignQRCode(ctx, v.ID)))
	_, err = c.QRCodes.Download(ctx, v.ID, &img)
	assert.ErrorIs(t, err, access.ErrNotFound)
	err = ignoreResp(c.Visitors.AssignQRCode(ctx, "nope"))
	assert.ErrorIs(t, err, access.ErrNotFound)
}

func TestVisitorPermissions(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	srv.AddToken("viewer", accesstest.ViewVisitor)
	c := srv.ClientWithToken("viewer")
	ctx := context.Background()
	vs, _, err := c.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 1})
	require.NoError(t, err)
	_, _, err = c.Visitors.Get(ctx, vs[0].ID)
	require.NoError(t, err)
	_, err = c.Visitors.Delete(ctx, vs[0].ID, nil)
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, err = c.Visitors.AssignQRCode(ctx, vs[0].ID)
	assert.ErrorIs(t, err, access.ErrForbidden)
	now := time.Now()
	_, _, err = c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "A", LastName: "B", StartTime: now, EndTime: now.Add(time.Hour), VisitReason: access.VisitReasonOthers})
	assert.ErrorIs(t, err, access.ErrForbidden)
	got, _ := srv.Visitor(vs[0].ID)
	assert.Equal(t, vs[0].Status, got.Status, "nothing changed")
}

// With a base clock that moves by itself, a visit whose start time has
// passed is VISITING at the next read, list included, without Advance.
func TestVisitorStatusFollowsAMovingClock(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := accesstest.New(t, accesstest.WithClock(clock))
	c := srv.Client()
	ctx := context.Background()
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "A", LastName: "B", StartTime: now.Add(time.Minute),
		EndTime: now.Add(time.Hour), VisitReason: access.VisitReasonOthers})
	require.NoError(t, err)
	mu.Lock()
	now = now.Add(2 * time.Minute) // the base clock moves on its own
	mu.Unlock()
	list, _, err := c.Visitors.List(ctx, &access.VisitorListOptions{Status: access.VisitorStatusVisiting})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, v.ID, list[0].ID)
	assert.Equal(t, "VISITING", srv.Visitors()[0].Status)
}
