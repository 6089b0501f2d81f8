package access

import (
	"context"
	"io"
	"net/http"
	"time"
)

// anOp is one SDK operation, for tests that must cover every operation.
type anOp struct {
	name    string
	method  string
	pattern string // Go 1.22 mux pattern of the request
	// idempotent operations may be retried; the POSTs never are by default.
	idempotent bool
	// call runs the operation; result is nil exactly when err is non-nil
	// (for operations that return a value).
	call func(ctx context.Context, c *Client) (result any, resp *Response, err error)
	// success is a body the operation decodes without error.
	success string
}

func nilIfNone[T any](v *T) any {
	if v == nil {
		return nil
	}
	return v
}

func sliceResult[T any](v []T, err error) any {
	if err != nil && v == nil {
		return nil
	}
	return v
}

// allOps lists the ten operations of the spec, Webhooks.List, the door,
// door-group and device operations of issue 10, and the system-log and
// API-server operations of issue 11 (the fetch and export are POSTs that
// only read, retried like GETs).
var allOps = []anOp{
	{"Webhooks.Create", "POST", "POST /api/v1/developer/webhooks/endpoints", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Webhooks.Create(ctx, &WebhookEndpointRequest{Endpoint: "https://receiver.example/hook", Name: "n", Events: []EventType{EventDoorUnlock}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"w1","secret":"s"}}`},
	{"Webhooks.Delete", "DELETE", "DELETE /api/v1/developer/webhooks/endpoints/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Webhooks.Delete(ctx, "w1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Webhooks.List", "GET", "GET /api/v1/developer/webhooks/endpoints", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Webhooks.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Visitors.List", "GET", "GET /api/v1/developer/visitors", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Visitors.List(ctx, &VisitorListOptions{PageNum: 1, PageSize: 25})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"v1"}],"pagination":{"page_num":1,"page_size":25,"total":1}}`},
	{"Users.Get", "GET", "GET /api/v1/developer/users/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.Get(ctx, "u1", nil)
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"u1"}}`},
	{"Devices.GetSettings", "GET", "GET /api/v1/developer/devices/{id}/settings", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Devices.GetSettings(ctx, "d1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"device_id":"d1","access_methods":{}}}`},
	{"Devices.UpdateSettings", "PUT", "PUT /api/v1/developer/devices/{id}/settings", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Devices.UpdateSettings(ctx, "d1", &AccessMethods{NFC: &AccessMethod{Enabled: Yes}})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Schedules.Get", "GET", "GET /api/v1/developer/access_policies/schedules/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Schedules.Get(ctx, "s1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"s1","weekly":null}}`},
	{"HolidayGroups.List", "GET", "GET /api/v1/developer/access_policies/holiday_groups", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.HolidayGroups.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"g1"}]}`},
	{"TouchPasses.Purchase", "POST", "POST /api/v1/developer/credentials/touch_passes", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.Purchase(ctx, 1)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"tp1","status":"INACTIVE"}}`},
	{"TouchPasses.Search", "GET", "GET /api/v1/developer/credentials/touch_passes/search", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.Search(ctx, "057B")
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Doors.Get", "GET", "GET /api/v1/developer/doors/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Doors.Get(ctx, "door-1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"door-1","door_lock_relay_status":"lock","door_position_status":null}}`},
	{"Doors.List", "GET", "GET /api/v1/developer/doors", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Doors.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Doors.Unlock", "PUT", "PUT /api/v1/developer/doors/{id}/unlock", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Doors.Unlock(ctx, "door-1", &UnlockRequest{ActorID: "a1", ActorName: "Front desk", Extra: map[string]any{"ticket": 42}})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Doors.SetLockRule", "PUT", "PUT /api/v1/developer/doors/{id}/lock_rule", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Doors.SetLockRule(ctx, "door-1", &LockRuleRequest{Type: LockRuleCustom, Interval: 10})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Doors.GetLockRule", "GET", "GET /api/v1/developer/doors/{id}/lock_rule", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Doors.GetLockRule(ctx, "door-1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"type":"custom","ended_time":1708673342}}`},
	{"Doors.SetEmergency", "PUT", "PUT /api/v1/developer/doors/settings/emergency", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Doors.SetEmergency(ctx, &EmergencyStatus{Lockdown: true})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Doors.GetEmergency", "GET", "GET /api/v1/developer/doors/settings/emergency", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Doors.GetEmergency(ctx)
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"lockdown":false,"evacuation":false}}`},
	{"DoorGroups.Topology", "GET", "GET /api/v1/developer/door_groups/topology", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.DoorGroups.Topology(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"DoorGroups.Create", "POST", "POST /api/v1/developer/door_groups", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.DoorGroups.Create(ctx, &DoorGroupRequest{GroupName: "Test", Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"g1","name":"Test","type":"access","resources":[]}}`},
	{"DoorGroups.Get", "GET", "GET /api/v1/developer/door_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.DoorGroups.Get(ctx, "g1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"g1"}}`},
	{"DoorGroups.Update", "PUT", "PUT /api/v1/developer/door_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.DoorGroups.Update(ctx, "g1", &DoorGroupUpdate{GroupName: "test", Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"g1"}}`},
	{"DoorGroups.List", "GET", "GET /api/v1/developer/door_groups", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.DoorGroups.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"g1"}]}`},
	{"DoorGroups.Delete", "DELETE", "DELETE /api/v1/developer/door_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.DoorGroups.Delete(ctx, "g1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Devices.List", "GET", "GET /api/v1/developer/devices", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Devices.List(ctx, &DeviceListOptions{Refresh: true})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[[{"id":"d1"}]]}`},
	{"Devices.TriggerDoorbell", "POST", "POST /api/v1/developer/devices/{id}/doorbell", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Devices.TriggerDoorbell(ctx, "788a20c002c7", &DoorbellRequest{RoomName: "Reception"})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"SystemLogs.List", "POST", "POST /api/v1/developer/system/logs", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.SystemLogs.List(ctx, &SystemLogQuery{Topic: SystemLogTopicDoorOpenings, Since: time.Unix(1688169600, 0),
				Until: time.Unix(1689120000, 0), PageNum: 1, PageSize: 25})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"hits":[{"_id":"l1","_source":{"event":{"published":1689077487000}}}],"page":1,"total":1}}`},
	{"SystemLogs.Export", "POST", "POST /api/v1/developer/system/logs/export", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.SystemLogs.Export(ctx, &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: time.Unix(1688169600, 0),
				Until: time.Unix(1689120000, 0), Timezone: "UTC"}, io.Discard)
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"SystemLogs.GetResource", "GET", "GET /api/v1/developer/system/logs/resource/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.SystemLogs.GetResource(ctx, "67e2d3d4-8b17-4b55-9a3e-a6e5a9f0a5b3")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"video_record":"/activities_resource/video/v.mp4"}}`},
	{"SystemLogs.DownloadStatic", "GET", "GET /api/v1/developer/system/static/", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.SystemLogs.DownloadStatic(ctx, "/activities_resource/thumbnail/t1.jpg", io.Discard)
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"APIServer.UploadCertificate", "POST", "POST /api/v1/developer/api_server/certificates", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.APIServer.UploadCertificate(ctx, &CertificateUpload{Key: opKey, Cert: opCert})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"APIServer.DeleteCertificate", "DELETE", "DELETE /api/v1/developer/api_server/certificates", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.APIServer.DeleteCertificate(ctx)
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
}

// rtClient returns a client whose transport is rt, without retries.
func rtClient(rt http.RoundTripper, opts ...Option) *Client {
	all := append([]Option{WithHTTPClient(&http.Client{Transport: rt}), WithRetryPolicy(RetryPolicy{})}, opts...)
	c, err := NewClient("https://console.test:12445", testToken, all...)
	if err != nil {
		panic(err)
	}
	return c
}
