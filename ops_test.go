package access

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"
)

// anOp is one SDK operation, for tests that must cover every operation.
type anOp struct {
	name    string
	method  string
	pattern string // Go 1.22 mux pattern of the request
	// idempotent operations may be retried; the POSTs never are by default.
	// An operation in physicalOps is retried only after a failure that
	// proves the console did not act, whatever this says.
	idempotent bool
	// call runs the operation; result is nil exactly when err is non-nil
	// (for operations that return a value).
	call func(ctx context.Context, c *Client) (result any, resp *Response, err error)
	// success is a body the operation decodes without error.
	success string
}

// physicalOps are the operations that act on the physical site: they are
// retried only after a failure that proves the console did not act.
var physicalOps = map[string]bool{
	"Doors.Unlock":             true,
	"Doors.SetLockRule":        true,
	"Doors.SetEmergency":       true,
	"Devices.TriggerDoorbell":  true,
	"NFCCards.StartEnrollment": true,
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

// allOps lists the ten operations of the spec, Webhooks.List and
// Webhooks.Update, the door, door-group and device operations of issue 10,
// the system-log and API-server operations of issue 11 (the fetch and
// export are POSTs that only read, retried like GETs), and the user,
// user-group, access-policy, schedule, holiday-group and Identity
// operations of issue 12, and the visitor and credential operations of
// issue 13 with the users' credential operations (NFCCards.Enroll, made of
// three of them, is tested on its own).
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
	{"Webhooks.Update", "PUT", "PUT /api/v1/developer/webhooks/endpoints/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Webhooks.Update(ctx, "w1", &WebhookEndpointUpdate{Endpoint: "https://receiver.example/hook", Name: "n", Events: []EventType{EventDoorUnlock}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"w1","secret":"s"}}`},
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
			r, err := c.Devices.UpdateSettings(ctx, "d1", &DeviceSettingsUpdate{NFC: &AccessMethod{Enabled: Yes}})
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
			v, r, err := c.DoorGroups.Update(ctx, "g1", &DoorGroupUpdate{GroupName: Ptr("test"), Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
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
	// Issue 12: people and policies.
	{"Users.Create", "POST", "POST /api/v1/developer/users", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.Create(ctx, &UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com"})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"u1","first_name":"Ada","last_name":"Lovelace"}}`},
	{"Users.Update", "PUT", "PUT /api/v1/developer/users/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Users.Update(ctx, "u1", &UserUpdate{Status: Ptr(UserStatusDeactivated)}))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Users.List", "GET", "GET /api/v1/developer/users", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.List(ctx, &UserListOptions{PageNum: 1, PageSize: 25})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"u1"}],"pagination":{"page_num":1,"page_size":25,"total":1}}`},
	{"Users.Delete", "DELETE", "DELETE /api/v1/developer/users/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Users.Delete(ctx, "u1"))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.Search", "GET", "GET /api/v1/developer/users/search", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.Search(ctx, &UserSearchOptions{Keyword: "Ada", UserIDs: []string{"u1", "u2"}, Statuses: []UserStatus{UserStatusActive}})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"u1"}]}`},
	{"Users.SetAccessPolicies", "PUT", "PUT /api/v1/developer/users/{id}/access_policies", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Users.SetAccessPolicies(ctx, "u1", []string{"p1"}))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.ListAccessPolicies", "GET", "GET /api/v1/developer/users/{id}/access_policies", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.ListAccessPolicies(ctx, "u1", &UserPoliciesOptions{OnlyUserPolicies: Ptr(false)})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Users.AssignLicensePlates", "PUT", "PUT /api/v1/developer/users/{id}/license_plates", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Users.AssignLicensePlates(ctx, "u1", []string{"JQ178"}))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Users.UnassignLicensePlate", "DELETE", "DELETE /api/v1/developer/users/{id}/license_plates/{plate}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Users.UnassignLicensePlate(ctx, "u1", "lp1"))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Users.UploadAvatar", "POST", "POST /api/v1/developer/users/{id}/avatar", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.UploadAvatar(ctx, "u1", &AvatarOptions{FileName: "a.png", ContentType: "image/png"}, strings.NewReader(avatarBytes))
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"avatar_url":"https://console/avatar/u1.png"}}`},
	{"UserGroups.Create", "POST", "POST /api/v1/developer/user_groups", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.Create(ctx, &UserGroupRequest{Name: "Firmware", UpID: "g0"}))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"UserGroups.List", "GET", "GET /api/v1/developer/user_groups", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.UserGroups.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"UserGroups.Get", "GET", "GET /api/v1/developer/user_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.UserGroups.Get(ctx, "g1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"g1"}}`},
	{"UserGroups.Update", "PUT", "PUT /api/v1/developer/user_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.Update(ctx, "g1", &UserGroupUpdate{Name: "FW"}))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"UserGroups.Delete", "DELETE", "DELETE /api/v1/developer/user_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.Delete(ctx, "g1"))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"UserGroups.AddUsers", "POST", "POST /api/v1/developer/user_groups/{id}/users", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.AddUsers(ctx, "g1", []string{"u1", "u2"}))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"UserGroups.RemoveUsers", "POST", "POST /api/v1/developer/user_groups/{id}/users/delete", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.RemoveUsers(ctx, "g1", []string{"u1"}))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"UserGroups.ListUsers", "GET", "GET /api/v1/developer/user_groups/{id}/users", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.UserGroups.ListUsers(ctx, "g1")
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"UserGroups.ListAllUsers", "GET", "GET /api/v1/developer/user_groups/{id}/users/all", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.UserGroups.ListAllUsers(ctx, "g1")
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"UserGroups.SetAccessPolicies", "PUT", "PUT /api/v1/developer/user_groups/{id}/access_policies", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.UserGroups.SetAccessPolicies(ctx, "g1", []string{"p1"}))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"UserGroups.ListAccessPolicies", "GET", "GET /api/v1/developer/user_groups/{id}/access_policies", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.UserGroups.ListAccessPolicies(ctx, "g1")
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"AccessPolicies.Create", "POST", "POST /api/v1/developer/access_policies", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "test", ScheduleID: "s1", Resources: []Resource{{ID: "d1", Type: ResourceDoor}}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"p1"}}`},
	{"AccessPolicies.Update", "PUT", "PUT /api/v1/developer/access_policies/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.AccessPolicies.Update(ctx, "p1", &AccessPolicyUpdate{Name: Ptr("x")}))
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"p1"}}`},
	{"AccessPolicies.Delete", "DELETE", "DELETE /api/v1/developer/access_policies/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.AccessPolicies.Delete(ctx, "p1"))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"AccessPolicies.Get", "GET", "GET /api/v1/developer/access_policies/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.AccessPolicies.Get(ctx, "p1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"p1"}}`},
	{"AccessPolicies.List", "GET", "GET /api/v1/developer/access_policies", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.AccessPolicies.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Schedules.Create", "POST", "POST /api/v1/developer/access_policies/schedules", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Schedules.Create(ctx, &ScheduleRequest{Name: "Office", WeekSchedule: &WeekSchedule{Monday: []TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"s1","weekly":null}}`},
	{"Schedules.Update", "PUT", "PUT /api/v1/developer/access_policies/schedules/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Schedules.Update(ctx, "s1", &ScheduleUpdate{Name: Ptr("Office")}))
		}, `{"code":"SUCCESS","msg":"success","data":{}}`},
	{"Schedules.List", "GET", "GET /api/v1/developer/access_policies/schedules", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Schedules.List(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCEED","msg":"success","data":[]}`},
	{"Schedules.Delete", "DELETE", "DELETE /api/v1/developer/access_policies/schedules/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Schedules.Delete(ctx, "s1"))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"HolidayGroups.Create", "POST", "POST /api/v1/developer/access_policies/holiday_groups", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "Public", Holidays: []HolidayRequest{{Name: "Xmas", StartTime: xmas, EndTime: xmas.Add(24 * time.Hour)}}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"h1","holidays":[]}}`},
	{"HolidayGroups.Update", "PUT", "PUT /api/v1/developer/access_policies/holiday_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.HolidayGroups.Update(ctx, "h1", &HolidayGroupUpdate{Name: "Public"})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"h1","holidays":[]}}`},
	{"HolidayGroups.Delete", "DELETE", "DELETE /api/v1/developer/access_policies/holiday_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.HolidayGroups.Delete(ctx, "h1"))
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"HolidayGroups.Get", "GET", "GET /api/v1/developer/access_policies/holiday_groups/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.HolidayGroups.Get(ctx, "h1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"h1"}}`},
	{"Identity.SendInvitations", "POST", "POST /api/v1/developer/users/identity/invitations", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Identity.SendInvitations(ctx, []Invitation{{UserID: "u1", Email: "ada@example.com"}})
			var ie *InvitationError
			if errors.As(err, &ie) {
				return v, r, nil // a valid answer listing failures
			}
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"Identity.ListResources", "GET", "GET /api/v1/developer/users/identity/assignments", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Identity.ListResources(ctx, &IdentityResourceOptions{Types: []IdentityResourceType{IdentityEVStation, IdentityVPN}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"evstation":[],"vpn":[],"wifi":[]}}`},
	{"Identity.AssignToUser", "POST", "POST /api/v1/developer/users/{id}/identity/assignments", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Identity.AssignToUser(ctx, "u1", &IdentityAssignment{ResourceType: IdentityWiFi, ResourceIDs: []string{"w1"}}))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Identity.ListForUser", "GET", "GET /api/v1/developer/users/{id}/identity/assignments", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Identity.ListForUser(ctx, "u1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"ev_station":[],"vpn":[],"wifi":[]}}`},
	{"Identity.AssignToUserGroup", "POST", "POST /api/v1/developer/user_groups/{id}/identity/assignments", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			return noResult(c.Identity.AssignToUserGroup(ctx, "g1", &IdentityAssignment{ResourceType: IdentityVPN, ResourceIDs: []string{"v1"}}))
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Identity.ListForUserGroup", "GET", "GET /api/v1/developer/user_groups/{id}/identity/assignments", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Identity.ListForUserGroup(ctx, "g1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"ev_station":[],"vpn":[],"wifi":[]}}`},
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
	// Issue 13: visitors and credentials, and the users' credential operations.
	{"NFCCards.StartEnrollment", "POST", "POST /api/v1/developer/credentials/nfc_cards/sessions", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.NFCCards.StartEnrollment(ctx, &EnrollmentRequest{DeviceID: "942a6f4247b2"})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"session_id":"s1"}}`},
	{"NFCCards.EnrollmentStatus", "GET", "GET /api/v1/developer/credentials/nfc_cards/sessions/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.NFCCards.EnrollmentStatus(ctx, "s1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"token":"t1","card_id":"100004"}}`},
	{"NFCCards.EndEnrollment", "DELETE", "DELETE /api/v1/developer/credentials/nfc_cards/sessions/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.NFCCards.EndEnrollment(ctx, "s1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"NFCCards.Get", "GET", "GET /api/v1/developer/credentials/nfc_cards/tokens/{token}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.NFCCards.Get(ctx, "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"token":"t1","status":"pending"}}`},
	{"NFCCards.List", "GET", "GET /api/v1/developer/credentials/nfc_cards/tokens", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.NFCCards.List(ctx, &NFCCardListOptions{PageNum: 1, PageSize: 25})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[],"pagination":{"page_num":1,"page_size":25,"total":0}}`},
	{"NFCCards.Delete", "DELETE", "DELETE /api/v1/developer/credentials/nfc_cards/tokens/{token}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.NFCCards.Delete(ctx, "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"NFCCards.Update", "PUT", "PUT /api/v1/developer/credentials/nfc_cards/tokens/{token}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.NFCCards.Update(ctx, "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c", &NFCCardUpdate{Alias: Ptr("Spare 1")})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"NFCCards.Import", "POST", "POST /api/v1/developer/credentials/nfc_cards/import", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.NFCCards.Import(ctx, []NFCImportRow{{NFCID: "04A2B3C4D5E680", Alias: "Contractor 1"}})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"nfc_id":"04A2B3C4D5E680","alias":"Contractor 1","token":"t1"}]}`},
	{"PINCodes.Generate", "POST", "POST /api/v1/developer/credentials/pin_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.PINCodes.Generate(ctx)
			if err != nil {
				return nil, r, err
			}
			return v, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"67203419"}`},
	{"Visitors.Create", "POST", "POST /api/v1/developer/visitors", false,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Visitors.Create(ctx, &VisitorRequest{FirstName: "H", LastName: "L", StartTime: time.Unix(1688546460, 0), EndTime: time.Unix(1688572799, 0), VisitReason: VisitReasonInterview, Resources: []Resource{VisitDoorGroup("g1")}})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"v1","status":"UPCOMING"}}`},
	{"Visitors.Get", "GET", "GET /api/v1/developer/visitors/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Visitors.Get(ctx, "v1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"v1","status":"VISITED"}}`},
	{"Visitors.Update", "PUT", "PUT /api/v1/developer/visitors/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Visitors.Update(ctx, "v1", &VisitorUpdate{Remarks: Ptr("Parking"), VisitReason: Ptr(VisitReasonBusiness)})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"v1"}}`},
	{"Visitors.Delete", "DELETE", "DELETE /api/v1/developer/visitors/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.Delete(ctx, "v1", &VisitorDeleteOptions{Force: true})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Visitors.AssignNFCCard", "PUT", "PUT /api/v1/developer/visitors/{id}/nfc_cards", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.AssignNFCCard(ctx, "v1", &NFCCardAssignment{Token: "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c", ForceAdd: true})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Visitors.UnassignNFCCard", "PUT", "PUT /api/v1/developer/visitors/{id}/nfc_cards/delete", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.UnassignNFCCard(ctx, "v1", "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Visitors.AssignPINCode", "PUT", "PUT /api/v1/developer/visitors/{id}/pin_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.AssignPINCode(ctx, "v1", "67203419")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Visitors.UnassignPINCode", "DELETE", "DELETE /api/v1/developer/visitors/{id}/pin_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.UnassignPINCode(ctx, "v1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Visitors.AssignQRCode", "PUT", "PUT /api/v1/developer/visitors/{id}/qr_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.AssignQRCode(ctx, "v1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Visitors.UnassignQRCode", "DELETE", "DELETE /api/v1/developer/visitors/{id}/qr_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.UnassignQRCode(ctx, "v1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Visitors.AssignLicensePlates", "PUT", "PUT /api/v1/developer/visitors/{id}/license_plates", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.AssignLicensePlates(ctx, "v1", []string{"jq178", "bs279"})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Visitors.UnassignLicensePlate", "DELETE", "DELETE /api/v1/developer/visitors/{id}/license_plates/{plate}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Visitors.UnassignLicensePlate(ctx, "v1", "p1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"TouchPasses.List", "GET", "GET /api/v1/developer/credentials/touch_passes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.List(ctx, &TouchPassListOptions{Status: TouchPassActive, PageNum: 1, PageSize: 10})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"succ","data":[],"pagination":{"page_num":1,"page_size":10,"total":0}}`},
	{"TouchPasses.ListAssignable", "GET", "GET /api/v1/developer/credentials/touch_passes/assignable", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.ListAssignable(ctx)
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[]}`},
	{"TouchPasses.Get", "GET", "GET /api/v1/developer/credentials/touch_passes/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.Get(ctx, "tp1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"tp1","activated_at":{},"expired_at":{},"bundles":[]}}`},
	{"TouchPasses.Update", "PUT", "PUT /api/v1/developer/credentials/touch_passes/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.TouchPasses.Update(ctx, "tp1", &TouchPassUpdate{Status: Ptr(TouchPassSuspended)})
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"tp1","status":"SUSPENDED"}}`},
	{"QRCodes.Download", "GET", "GET /api/v1/developer/credentials/qr_codes/download/{id}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			var buf bytes.Buffer
			r, err := c.QRCodes.Download(ctx, "15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", &buf)
			if err != nil {
				return nil, r, err
			}
			return buf.Bytes(), r, err
		}, `{"code":"SUCCESS","msg":"success","data":null}`},
	{"Users.AssignNFCCard", "PUT", "PUT /api/v1/developer/users/{id}/nfc_cards", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Users.AssignNFCCard(ctx, "u1", &NFCCardAssignment{Token: "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c"})
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.UnassignNFCCard", "PUT", "PUT /api/v1/developer/users/{id}/nfc_cards/delete", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Users.UnassignNFCCard(ctx, "u1", "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.AssignPINCode", "PUT", "PUT /api/v1/developer/users/{id}/pin_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Users.AssignPINCode(ctx, "u1", "67203419")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.UnassignPINCode", "DELETE", "DELETE /api/v1/developer/users/{id}/pin_codes", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			r, err := c.Users.UnassignPINCode(ctx, "u1")
			if err != nil {
				return nil, r, err
			}
			return struct{}{}, r, err
		}, `{"code":"SUCCESS","msg":"success","data":"success"}`},
	{"Users.AssignTouchPass", "PUT", "PUT /api/v1/developer/users/{id}/touch_passes/{tp}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.AssignTouchPass(ctx, "u1", "tp1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"tp1","status":"PENDING"}}`},
	{"Users.UnassignTouchPass", "DELETE", "DELETE /api/v1/developer/users/{id}/touch_passes/{tp}", true,
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.UnassignTouchPass(ctx, "u1", "tp1")
			return nilIfNone(v), r, err
		}, `{"code":"SUCCESS","msg":"success","data":{"id":"tp1","status":"INACTIVE"}}`},
	{"Users.BatchAssignTouchPasses", "PUT", "PUT /api/v1/developer/users/touch_passes/assign", false, // hands out passes: sent once
		func(ctx context.Context, c *Client) (any, *Response, error) {
			v, r, err := c.Users.BatchAssignTouchPasses(ctx, &BatchTouchPassAssignment{UserIDs: []string{"u1", "u2"}})
			return sliceResult(v, err), r, err
		}, `{"code":"SUCCESS","msg":"success","data":[{"id":"tp1","status":"PENDING"}]}`},
}

// avatarBytes is the picture the avatar operation uploads in the tests
// and benchmarks.
var avatarBytes = "\x89PNG\r\n\x1a\n" + strings.Repeat("pixel", 200)

// xmas is the holiday the holiday-group operations send.
var xmas = time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)

// noResult turns a (*Response, error) write into an anOp result.
func noResult(r *Response, err error) (any, *Response, error) {
	if err != nil {
		return nil, r, err
	}
	return struct{}{}, r, nil
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
