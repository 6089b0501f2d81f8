package access

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// Benchmarks compare each operation made through the SDK with a
// hand-written net/http + encoding/json call doing the same request
// against the same loopback TLS server, in the same run:
//
//	make bench   (go test -run '^$' -bench . -benchmem .)
//
// Sub-benchmarks are named <op>/sdk and <op>/baseline.
// benchBodies are realistic success bodies per operation pattern.
func benchBodies(tb testing.TB) map[string][]byte {
	tb.Helper()
	sample := func(name string) []byte {
		b, err := os.ReadFile("testdata/samples/" + name + ".json")
		require.NoError(tb, err)
		return b
	}
	var page bytes.Buffer
	page.WriteString(`{"code":"SUCCESS","msg":"success","data":[`)
	for i := range 25 {
		if i > 0 {
			page.WriteByte(',')
		}
		page.WriteString(benchVisitor(fmt.Sprint("v", i)))
	}
	page.WriteString(`],"pagination":{"page_num":1,"page_size":25,"total":25}}`)
	qrPNG, err := os.ReadFile("testdata/samples/qr_code.png")
	require.NoError(tb, err)
	importOK := []byte(`{"code":"SUCCESS","msg":"success","data":[{"nfc_id":"04A2B3C4D5E680","alias":"Contractor 1","token":"5b0e7c1d2a3f4e5d6c7b8a9f0e1d2c3b4a5f6e7d8c9b0a1f2e3d4c5b6a7f8e9d"}]}`)
	return map[string][]byte{
		"POST /api/v1/developer/webhooks/endpoints":             sample("webhook_create"),
		"DELETE /api/v1/developer/webhooks/endpoints/{id}":      sample("webhook_delete"),
		"GET /api/v1/developer/webhooks/endpoints":              sample("webhook_list"),
		"PUT /api/v1/developer/webhooks/endpoints/{id}":         sample("webhook_create"), // §11.5 answers the endpoint as create does
		"GET /api/v1/developer/visitors":                        page.Bytes(),
		"GET /api/v1/developer/users/{id}":                      sample("user_get"),
		"GET /api/v1/developer/devices/{id}/settings":           sample("device_settings_get"),
		"PUT /api/v1/developer/devices/{id}/settings":           sample("device_settings_put"),
		"GET /api/v1/developer/access_policies/schedules/{id}":  sample("schedule_get"),
		"GET /api/v1/developer/access_policies/holiday_groups":  sample("holiday_groups_list"),
		"POST /api/v1/developer/credentials/touch_passes":       sample("touch_pass_purchase"),
		"GET /api/v1/developer/credentials/touch_passes/search": sample("touch_pass_search"),
		"GET /api/v1/developer/doors/{id}":                      sample("door_get"),
		"GET /api/v1/developer/doors":                           sample("doors_list"),
		"PUT /api/v1/developer/doors/{id}/unlock":               sample("success"),
		"PUT /api/v1/developer/doors/{id}/lock_rule":            sample("success"),
		"GET /api/v1/developer/doors/{id}/lock_rule":            sample("door_lock_rule_get"),
		"PUT /api/v1/developer/doors/settings/emergency":        sample("success"),
		"GET /api/v1/developer/doors/settings/emergency":        sample("door_emergency_get"),
		"GET /api/v1/developer/door_groups/topology":            sample("door_group_topology"),
		"POST /api/v1/developer/door_groups":                    sample("door_group_create"),
		"GET /api/v1/developer/door_groups/{id}":                sample("door_group_get"),
		"PUT /api/v1/developer/door_groups/{id}":                sample("door_group_update"),
		"GET /api/v1/developer/door_groups":                     sample("door_groups_list"),
		"DELETE /api/v1/developer/door_groups/{id}":             sample("success"),
		"GET /api/v1/developer/devices":                         sample("devices_list"),
		"POST /api/v1/developer/devices/{id}/doorbell":          sample("success"),
		// Issue 12: people and policies.
		"POST /api/v1/developer/users":                                 sample("user_create"),
		"PUT /api/v1/developer/users/{id}":                             sample("null"),
		"GET /api/v1/developer/users":                                  sample("users_list"),
		"DELETE /api/v1/developer/users/{id}":                          sample("success"),
		"GET /api/v1/developer/users/search":                           sample("users_search"),
		"PUT /api/v1/developer/users/{id}/access_policies":             sample("success"),
		"GET /api/v1/developer/users/{id}/access_policies":             sample("user_access_policies"),
		"PUT /api/v1/developer/users/{id}/license_plates":              sample("null"),
		"DELETE /api/v1/developer/users/{id}/license_plates/{plate}":   sample("null"),
		"POST /api/v1/developer/users/{id}/avatar":                     sample("user_avatar"),
		"POST /api/v1/developer/user_groups":                           sample("success"),
		"GET /api/v1/developer/user_groups":                            sample("user_groups_list"),
		"GET /api/v1/developer/user_groups/{id}":                       sample("user_group_get"),
		"PUT /api/v1/developer/user_groups/{id}":                       sample("success"),
		"DELETE /api/v1/developer/user_groups/{id}":                    sample("success"),
		"POST /api/v1/developer/user_groups/{id}/users":                sample("success"),
		"POST /api/v1/developer/user_groups/{id}/users/delete":         sample("success"),
		"GET /api/v1/developer/user_groups/{id}/users":                 sample("user_group_users"),
		"GET /api/v1/developer/user_groups/{id}/users/all":             sample("user_group_users"),
		"PUT /api/v1/developer/user_groups/{id}/access_policies":       sample("null"),
		"GET /api/v1/developer/user_groups/{id}/access_policies":       sample("user_access_policies"),
		"POST /api/v1/developer/access_policies":                       sample("access_policy_get"),
		"PUT /api/v1/developer/access_policies/{id}":                   sample("null"),
		"DELETE /api/v1/developer/access_policies/{id}":                sample("success"),
		"GET /api/v1/developer/access_policies/{id}":                   sample("access_policy_get"),
		"GET /api/v1/developer/access_policies":                        sample("access_policies_list"),
		"POST /api/v1/developer/access_policies/schedules":             sample("schedule_get"),
		"PUT /api/v1/developer/access_policies/schedules/{id}":         sample("schedule_update"),
		"GET /api/v1/developer/access_policies/schedules":              sample("schedules_list"),
		"DELETE /api/v1/developer/access_policies/schedules/{id}":      sample("success"),
		"POST /api/v1/developer/access_policies/holiday_groups":        sample("holiday_group_get"),
		"PUT /api/v1/developer/access_policies/holiday_groups/{id}":    sample("holiday_group_get"),
		"DELETE /api/v1/developer/access_policies/holiday_groups/{id}": sample("success"),
		"GET /api/v1/developer/access_policies/holiday_groups/{id}":    sample("holiday_group_get"),
		"POST /api/v1/developer/users/identity/invitations":            sample("identity_invitations"),
		"GET /api/v1/developer/users/identity/assignments":             sample("identity_resources"),
		"POST /api/v1/developer/users/{id}/identity/assignments":       sample("null"),
		"GET /api/v1/developer/users/{id}/identity/assignments":        sample("identity_assigned"),
		"POST /api/v1/developer/user_groups/{id}/identity/assignments": sample("null"),
		"GET /api/v1/developer/user_groups/{id}/identity/assignments":  sample("identity_assigned"),
		"POST /api/v1/developer/system/logs":                           benchLogPage(25),
		"GET /api/v1/developer/system/logs/resource/{id}":              sample("system_log_resource"),
		"POST /api/v1/developer/api_server/certificates":               sample("success"),
		"DELETE /api/v1/developer/api_server/certificates":             sample("success"),
		// Visitors and credentials (issue 13).
		"POST /api/v1/developer/credentials/nfc_cards/sessions":         sample("nfc_session_start"),
		"GET /api/v1/developer/credentials/nfc_cards/sessions/{id}":     sample("nfc_session_status"),
		"DELETE /api/v1/developer/credentials/nfc_cards/sessions/{id}":  sample("success"),
		"GET /api/v1/developer/credentials/nfc_cards/tokens/{token}":    sample("nfc_card_get"),
		"GET /api/v1/developer/credentials/nfc_cards/tokens":            sample("nfc_cards_list"),
		"DELETE /api/v1/developer/credentials/nfc_cards/tokens/{token}": sample("success"),
		"PUT /api/v1/developer/credentials/nfc_cards/tokens/{token}":    sample("success"),
		"POST /api/v1/developer/credentials/nfc_cards/import":           importOK,
		"POST /api/v1/developer/credentials/pin_codes":                  sample("pin_generate"),
		"POST /api/v1/developer/visitors":                               sample("visitor_get"),
		"GET /api/v1/developer/visitors/{id}":                           sample("visitor_get"),
		"PUT /api/v1/developer/visitors/{id}":                           sample("visitor_get"),
		"DELETE /api/v1/developer/visitors/{id}":                        sample("webhook_delete"),
		"PUT /api/v1/developer/visitors/{id}/nfc_cards":                 sample("success"),
		"PUT /api/v1/developer/visitors/{id}/nfc_cards/delete":          sample("success"),
		"PUT /api/v1/developer/visitors/{id}/pin_codes":                 sample("success"),
		"DELETE /api/v1/developer/visitors/{id}/pin_codes":              sample("success"),
		"PUT /api/v1/developer/visitors/{id}/qr_codes":                  sample("webhook_delete"),
		"DELETE /api/v1/developer/visitors/{id}/qr_codes":               sample("webhook_delete"),
		"PUT /api/v1/developer/visitors/{id}/license_plates":            sample("webhook_delete"),
		"DELETE /api/v1/developer/visitors/{id}/license_plates/{plate}": sample("webhook_delete"),
		"GET /api/v1/developer/credentials/touch_passes":                sample("touch_pass_list"),
		"GET /api/v1/developer/credentials/touch_passes/assignable":     sample("touch_pass_search"),
		"GET /api/v1/developer/credentials/touch_passes/{id}":           sample("touch_pass_get"),
		"PUT /api/v1/developer/credentials/touch_passes/{id}":           sample("touch_pass_get"),
		"GET /api/v1/developer/credentials/qr_codes/download/{id}":      qrPNG,
		"PUT /api/v1/developer/users/{id}/nfc_cards":                    sample("success"),
		"PUT /api/v1/developer/users/{id}/nfc_cards/delete":             sample("success"),
		"PUT /api/v1/developer/users/{id}/pin_codes":                    sample("success"),
		"DELETE /api/v1/developer/users/{id}/pin_codes":                 sample("success"),
		"PUT /api/v1/developer/users/{id}/touch_passes/{tp}":            sample("touch_pass_get"),
		"DELETE /api/v1/developer/users/{id}/touch_passes/{tp}":         sample("touch_pass_purchase"),
		"PUT /api/v1/developer/users/touch_passes/assign":               sample("touch_pass_search"),
	}
}

func benchVisitor(id string) string {
	return `{"id":"` + id + `","first_name":"Camille","last_name":"Dubois","status":"ACTIVE","inviter_id":"3e763e5d-6804-437d-ae8d-3fee74119b80",` +
		`"inviter_name":"Ada Lovelace","mobile_phone":"+41791234567","email":"camille@example.org","visitor_company":"Fabrikam",` +
		`"visit_reason":"Business","start_time":1759087879,"end_time":1759091479,"nfc_cards":[],"pin_code":null,` +
		`"resources":[{"id":"5c496423-6d25-4e4f-8cdf-95ad5135188a","name":"Door-Group-1","type":"door_group"}],` +
		`"schedule":{"id":"c03bf601-0b90-4341-bce4-6061931e9f4e","is_default":false,"name":"visitor-1691646856097","type":"access",` +
		`"weekly":{"friday":[{"end_time":"17:00:59","start_time":"10:00:00"}],"monday":[{"end_time":"17:00:59","start_time":"10:00:00"}],` +
		`"saturday":[],"sunday":[],"thursday":[],"tuesday":[],"wednesday":[]}},"schedule_id":"c03bf601-0b90-4341-bce4-6061931e9f4e"}`
}

func benchServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	mux := http.NewServeMux()
	for pattern, body := range benchBodies(tb) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			ct := "application/json"
			if bytes.HasPrefix(body, []byte("\x89PNG")) {
				ct = "image/png"
			}
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			_, _ = w.Write(body)
		})
	}
	for pattern, f := range benchFiles() {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", f.contentType)
			w.Header().Set("Content-Length", strconv.Itoa(len(f.body)))
			_, _ = w.Write(f.body)
		})
	}
	srv := testlog.NewTLSServer(tb, mux)
	tb.Cleanup(srv.Close)
	return srv
}

// baselineCall is what a careful user would write by hand: build the
// request, send it, read the body, decode the envelope, check the code.
func baselineCall[T any](ctx context.Context, hc *http.Client, method, url string, body any) (*T, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env struct {
		Code string `json:"code"`
		Msg  string `json:"msg"`
		Data *T     `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	if env.Code != "SUCCESS" {
		return nil, fmt.Errorf("code %s", env.Code)
	}
	return env.Data, nil
}

// baselineCallLenient is baselineCall for a GET whose controller may
// answer with the code SUCCEED (the vendor's schedule-list sample).
func baselineCallLenient[T any](ctx context.Context, hc *http.Client, url string) (*T, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env struct {
		Code string `json:"code"`
		Data *T     `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	if env.Code != "SUCCESS" && env.Code != "SUCCEED" {
		return nil, fmt.Errorf("code %s", env.Code)
	}
	return env.Data, nil
}

// baselines mirror allOps, request for request.
func baselines(base string) map[string]func(ctx context.Context, hc *http.Client) error {
	api := base + "/api/v1/developer"
	return map[string]func(context.Context, *http.Client) error{
		"Webhooks.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[WebhookEndpoint](ctx, hc, "POST", api+"/webhooks/endpoints",
				&WebhookEndpointRequest{Endpoint: "https://receiver.example/hook", Name: "n", Events: []EventType{EventDoorUnlock}})
			return err
		},
		"Webhooks.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/webhooks/endpoints/w1", nil)
			return err
		},
		"Webhooks.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]WebhookEndpoint](ctx, hc, "GET", api+"/webhooks/endpoints", nil)
			return err
		},
		"Webhooks.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[WebhookEndpoint](ctx, hc, "PUT", api+"/webhooks/endpoints/w1",
				&WebhookEndpointRequest{Endpoint: "https://receiver.example/hook", Name: "n", Events: []EventType{EventDoorUnlock}})
			return err
		},
		"Visitors.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]Visitor](ctx, hc, "GET", api+"/visitors?page_num=1&page_size=25", nil)
			return err
		},
		"Users.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[User](ctx, hc, "GET", api+"/users/u1", nil)
			return err
		},
		"Devices.GetSettings": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[DeviceSettings](ctx, hc, "GET", api+"/devices/d1/settings", nil)
			return err
		},
		"Devices.UpdateSettings": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/devices/d1/settings",
				map[string]any{"access_methods": &AccessMethods{NFC: &AccessMethod{Enabled: Yes}}})
			return err
		},
		"Schedules.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[Schedule](ctx, hc, "GET", api+"/access_policies/schedules/s1", nil)
			return err
		},
		"HolidayGroups.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]HolidayGroupSummary](ctx, hc, "GET", api+"/access_policies/holiday_groups", nil)
			return err
		},
		"TouchPasses.Purchase": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[TouchPasses](ctx, hc, "POST", api+"/credentials/touch_passes", map[string]int{"count": 1})
			return err
		},
		"TouchPasses.Search": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]TouchPass](ctx, hc, "GET", api+"/credentials/touch_passes/search?condition=057B", nil)
			return err
		},
		"Doors.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[Door](ctx, hc, "GET", api+"/doors/door-1", nil)
			return err
		},
		"Doors.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]Door](ctx, hc, "GET", api+"/doors", nil)
			return err
		},
		"Doors.Unlock": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/doors/door-1/unlock",
				map[string]any{"actor_id": "a1", "actor_name": "Front desk", "extra": map[string]any{"ticket": 42}})
			return err
		},
		"Doors.SetLockRule": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/doors/door-1/lock_rule",
				&struct {
					Type     string `json:"type"`
					Interval int    `json:"interval"`
				}{"custom", 10})
			return err
		},
		"Doors.GetLockRule": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[LockRule](ctx, hc, "GET", api+"/doors/door-1/lock_rule", nil)
			return err
		},
		"Doors.SetEmergency": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/doors/settings/emergency", &EmergencyStatus{Lockdown: true})
			return err
		},
		"Doors.GetEmergency": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[EmergencyStatus](ctx, hc, "GET", api+"/doors/settings/emergency", nil)
			return err
		},
		"DoorGroups.Topology": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]DoorGroupTopology](ctx, hc, "GET", api+"/door_groups/topology", nil)
			return err
		},
		"DoorGroups.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[DoorGroup](ctx, hc, "POST", api+"/door_groups",
				&DoorGroupRequest{GroupName: "Test", Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
			return err
		},
		"DoorGroups.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[DoorGroup](ctx, hc, "GET", api+"/door_groups/g1", nil)
			return err
		},
		"DoorGroups.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[DoorGroup](ctx, hc, "PUT", api+"/door_groups/g1",
				&DoorGroupRequest{GroupName: "test", Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
			return err
		},
		"DoorGroups.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]DoorGroup](ctx, hc, "GET", api+"/door_groups", nil)
			return err
		},
		"DoorGroups.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/door_groups/g1", nil)
			return err
		},
		"Devices.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[][]Device](ctx, hc, "GET", api+"/devices?refresh=true", nil)
			return err
		},
		"Devices.TriggerDoorbell": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/devices/788a20c002c7/doorbell", &DoorbellRequest{RoomName: "Reception"})
			return err
		},
		"Users.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[User](ctx, hc, "POST", api+"/users", map[string]string{"first_name": "Ada", "last_name": "Lovelace", "user_email": "ada@example.com"})
			return err
		},
		"Users.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1", map[string]string{"status": "DEACTIVATED"})
			return err
		},
		"Users.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]User](ctx, hc, "GET", api+"/users?page_num=1&page_size=25", nil)
			return err
		},
		"Users.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/users/u1", nil)
			return err
		},
		"Users.Search": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]User](ctx, hc, "GET", api+"/users/search?keyword=Ada&status=ACTIVE&user_id=u1&user_id=u2", nil)
			return err
		},
		"Users.SetAccessPolicies": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1/access_policies", map[string][]string{"access_policy_ids": {"p1"}})
			return err
		},
		"Users.ListAccessPolicies": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]AccessPolicy](ctx, hc, "GET", api+"/users/u1/access_policies?only_user_policies=false", nil)
			return err
		},
		"Users.AssignLicensePlates": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1/license_plates", []string{"JQ178"})
			return err
		},
		"Users.UnassignLicensePlate": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/users/u1/license_plates/lp1", nil)
			return err
		},
		"Users.UploadAvatar": func(ctx context.Context, hc *http.Client) error {
			return baselineFileUpload[Avatar](ctx, hc, api+"/users/u1/avatar", "file", "a.png", "image/png", strings.NewReader(avatarBytes))
		},
		"UserGroups.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/user_groups", map[string]string{"name": "Firmware", "up_id": "g0"})
			return err
		},
		"UserGroups.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]UserGroup](ctx, hc, "GET", api+"/user_groups", nil)
			return err
		},
		"UserGroups.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[UserGroup](ctx, hc, "GET", api+"/user_groups/g1", nil)
			return err
		},
		"UserGroups.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/user_groups/g1", map[string]string{"name": "FW"})
			return err
		},
		"UserGroups.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/user_groups/g1", nil)
			return err
		},
		"UserGroups.AddUsers": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/user_groups/g1/users", []string{"u1", "u2"})
			return err
		},
		"UserGroups.RemoveUsers": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/user_groups/g1/users/delete", []string{"u1"})
			return err
		},
		"UserGroups.ListUsers": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]User](ctx, hc, "GET", api+"/user_groups/g1/users", nil)
			return err
		},
		"UserGroups.ListAllUsers": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]User](ctx, hc, "GET", api+"/user_groups/g1/users/all", nil)
			return err
		},
		"UserGroups.SetAccessPolicies": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/user_groups/g1/access_policies", map[string][]string{"access_policy_ids": {"p1"}})
			return err
		},
		"UserGroups.ListAccessPolicies": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]AccessPolicy](ctx, hc, "GET", api+"/user_groups/g1/access_policies", nil)
			return err
		},
		"AccessPolicies.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[AccessPolicy](ctx, hc, "POST", api+"/access_policies", &AccessPolicyRequest{Name: "test", ScheduleID: "s1", Resources: []Resource{{ID: "d1", Type: ResourceDoor}}})
			return err
		},
		"AccessPolicies.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/access_policies/p1", map[string]string{"name": "x"})
			return err
		},
		"AccessPolicies.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/access_policies/p1", nil)
			return err
		},
		"AccessPolicies.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[AccessPolicy](ctx, hc, "GET", api+"/access_policies/p1", nil)
			return err
		},
		"AccessPolicies.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]AccessPolicy](ctx, hc, "GET", api+"/access_policies", nil)
			return err
		},
		"Schedules.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[Schedule](ctx, hc, "POST", api+"/access_policies/schedules", map[string]any{"name": "Office", "week_schedule": fullWeek(&WeekSchedule{Monday: []TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}})})
			return err
		},
		"Schedules.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/access_policies/schedules/s1", map[string]string{"name": "Office"})
			return err
		},
		"Schedules.List": func(ctx context.Context, hc *http.Client) error {
			// The sample's code is SUCCEED, which a careful hand-written call accepts too.
			_, err := baselineCallLenient[[]Schedule](ctx, hc, api+"/access_policies/schedules")
			return err
		},
		"Schedules.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/access_policies/schedules/s1", nil)
			return err
		},
		"HolidayGroups.Create": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[HolidayGroup](ctx, hc, "POST", api+"/access_policies/holiday_groups", &HolidayGroupRequest{Name: "Public", Holidays: []HolidayRequest{{Name: "Xmas", StartTime: xmas, EndTime: xmas.Add(24 * time.Hour)}}})
			return err
		},
		"HolidayGroups.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[HolidayGroup](ctx, hc, "PUT", api+"/access_policies/holiday_groups/h1", map[string]string{"name": "Public"})
			return err
		},
		"HolidayGroups.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/access_policies/holiday_groups/h1", nil)
			return err
		},
		"HolidayGroups.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[HolidayGroup](ctx, hc, "GET", api+"/access_policies/holiday_groups/h1", nil)
			return err
		},
		"Identity.SendInvitations": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]InvitationFailure](ctx, hc, "POST", api+"/users/identity/invitations", []Invitation{{UserID: "u1", Email: "ada@example.com"}})
			return err
		},
		"Identity.ListResources": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[IdentityResources](ctx, hc, "GET", api+"/users/identity/assignments?resource_type=evstation%2Cvpn", nil)
			return err
		},
		"Identity.AssignToUser": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/users/u1/identity/assignments", &IdentityAssignment{ResourceType: IdentityWiFi, ResourceIDs: []string{"w1"}})
			return err
		},
		"Identity.ListForUser": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[IdentityResources](ctx, hc, "GET", api+"/users/u1/identity/assignments", nil)
			return err
		},
		"Identity.AssignToUserGroup": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/user_groups/g1/identity/assignments", &IdentityAssignment{ResourceType: IdentityVPN, ResourceIDs: []string{"v1"}})
			return err
		},
		"Identity.ListForUserGroup": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[IdentityResources](ctx, hc, "GET", api+"/user_groups/g1/identity/assignments", nil)
			return err
		},
		"SystemLogs.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[baseLogPage](ctx, hc, "POST", api+"/system/logs?page_num=1&page_size=25", &struct {
				Topic string `json:"topic"`
				Since int64  `json:"since"`
				Until int64  `json:"until"`
			}{"door_openings", 1688169600, 1689120000})
			return err
		},
		"SystemLogs.Export": func(ctx context.Context, hc *http.Client) error {
			return baselineDownload(ctx, hc, "POST", api+"/system/logs/export", &struct {
				Topic    string `json:"topic"`
				Since    int64  `json:"since"`
				Until    int64  `json:"until"`
				Timezone string `json:"timezone"`
			}{"all", 1688169600, 1689120000, "UTC"}, io.Discard)
		},
		"SystemLogs.GetResource": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[SystemLogResource](ctx, hc, "GET", api+"/system/logs/resource/67e2d3d4-8b17-4b55-9a3e-a6e5a9f0a5b3", nil)
			return err
		},
		"SystemLogs.DownloadStatic": func(ctx context.Context, hc *http.Client) error {
			return baselineDownload(ctx, hc, "GET", api+"/system/static/activities_resource/thumbnail/t1.jpg", nil, io.Discard)
		},
		"APIServer.UploadCertificate": func(ctx context.Context, hc *http.Client) error {
			return baselineUpload(ctx, hc, api+"/api_server/certificates", opKey, opCert)
		},
		"APIServer.DeleteCertificate": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/api_server/certificates", nil)
			return err
		},
		// Visitors and credentials (issue 13).
		"NFCCards.StartEnrollment": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[EnrollmentSession](ctx, hc, "POST", api+"/credentials/nfc_cards/sessions", map[string]string{"device_id": "942a6f4247b2"})
			return err
		},
		"NFCCards.EnrollmentStatus": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[EnrolledCard](ctx, hc, "GET", api+"/credentials/nfc_cards/sessions/s1", nil)
			return err
		},
		"NFCCards.EndEnrollment": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/credentials/nfc_cards/sessions/s1", nil)
			return err
		},
		"NFCCards.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[NFCCard](ctx, hc, "GET", api+"/credentials/nfc_cards/tokens/"+benchTok, nil)
			return err
		},
		"NFCCards.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]NFCCard](ctx, hc, "GET", api+"/credentials/nfc_cards/tokens?page_num=1&page_size=25", nil)
			return err
		},
		"NFCCards.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/credentials/nfc_cards/tokens/"+benchTok, nil)
			return err
		},
		"NFCCards.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/credentials/nfc_cards/tokens/"+benchTok, map[string]string{"alias": "Spare 1"})
			return err
		},
		"NFCCards.Import": func(ctx context.Context, hc *http.Client) error {
			return baselineFileUpload[[]NFCImportResult](ctx, hc, api+"/credentials/nfc_cards/import", "file", "nfc_cards.csv", "text/csv",
				strings.NewReader("04A2B3C4D5E680, Contractor 1\n"))
		},
		"PINCodes.Generate": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[string](ctx, hc, "POST", api+"/credentials/pin_codes", nil)
			return err
		},
		"Visitors.Create": func(ctx context.Context, hc *http.Client) error {
			type resource struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			}
			_, err := baselineCall[Visitor](ctx, hc, "POST", api+"/visitors", &struct {
				FirstName   string     `json:"first_name"`
				LastName    string     `json:"last_name"`
				StartTime   int64      `json:"start_time"`
				EndTime     int64      `json:"end_time"`
				VisitReason string     `json:"visit_reason"`
				Resources   []resource `json:"resources"`
			}{"H", "L", 1688546460, 1688572799, "Interview", []resource{{"g1", "door_group"}}})
			return err
		},
		"Visitors.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[Visitor](ctx, hc, "GET", api+"/visitors/v1", nil)
			return err
		},
		"Visitors.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[Visitor](ctx, hc, "PUT", api+"/visitors/v1", map[string]any{"remarks": "Parking", "visit_reason": "Business"})
			return err
		},
		"Visitors.Delete": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/visitors/v1?is_force=true", nil)
			return err
		},
		"Visitors.AssignNFCCard": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/visitors/v1/nfc_cards", &struct {
				Token    string `json:"token"`
				ForceAdd bool   `json:"force_add"`
			}{benchTok, true})
			return err
		},
		"Visitors.UnassignNFCCard": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/visitors/v1/nfc_cards/delete", map[string]any{"token": benchTok})
			return err
		},
		"Visitors.AssignPINCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/visitors/v1/pin_codes", map[string]any{"pin_code": "67203419"})
			return err
		},
		"Visitors.UnassignPINCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/visitors/v1/pin_codes", nil)
			return err
		},
		"Visitors.AssignQRCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/visitors/v1/qr_codes", nil)
			return err
		},
		"Visitors.UnassignQRCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/visitors/v1/qr_codes", nil)
			return err
		},
		"Visitors.AssignLicensePlates": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/visitors/v1/license_plates", []string{"jq178", "bs279"})
			return err
		},
		"Visitors.UnassignLicensePlate": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/visitors/v1/license_plates/p1", nil)
			return err
		},
		"TouchPasses.List": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]TouchPass](ctx, hc, "GET", api+"/credentials/touch_passes?page_num=1&page_size=10&status=ACTIVE", nil)
			return err
		},
		"TouchPasses.ListAssignable": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]TouchPass](ctx, hc, "GET", api+"/credentials/touch_passes/assignable", nil)
			return err
		},
		"TouchPasses.Get": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[TouchPass](ctx, hc, "GET", api+"/credentials/touch_passes/tp1", nil)
			return err
		},
		"TouchPasses.Update": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[TouchPass](ctx, hc, "PUT", api+"/credentials/touch_passes/tp1", map[string]string{"status": "SUSPENDED"})
			return err
		},
		"QRCodes.Download": func(ctx context.Context, hc *http.Client) error {
			var buf bytes.Buffer
			return baselineDownload(ctx, hc, "GET", api+"/credentials/qr_codes/download/15a90692-6f3b-4e1c-9886-bcd15e9c3f2d", nil, &buf)
		},
		"Users.AssignNFCCard": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1/nfc_cards", map[string]any{"token": benchTok})
			return err
		},
		"Users.UnassignNFCCard": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1/nfc_cards/delete", map[string]any{"token": benchTok})
			return err
		},
		"Users.AssignPINCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "PUT", api+"/users/u1/pin_codes", map[string]any{"pin_code": "67203419"})
			return err
		},
		"Users.UnassignPINCode": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/users/u1/pin_codes", nil)
			return err
		},
		"Users.AssignTouchPass": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[TouchPass](ctx, hc, "PUT", api+"/users/u1/touch_passes/tp1", nil)
			return err
		},
		"Users.UnassignTouchPass": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[TouchPass](ctx, hc, "DELETE", api+"/users/u1/touch_passes/tp1", nil)
			return err
		},
		"Users.BatchAssignTouchPasses": func(ctx context.Context, hc *http.Client) error {
			_, err := baselineCall[[]TouchPass](ctx, hc, "PUT", api+"/users/touch_passes/assign", map[string]any{"ids": []string{"u1", "u2"}})
			return err
		},
	}
}

// benchTimeout is the default configuration's per-attempt timeout, which
// the benchmarks give both sides: the SDK's WithTimeout (as NewClient sets
// it by default) and the baseline's http.Client.Timeout.
const benchTimeout = defaultTimeout

// benchPair starts the benchmark server and returns an SDK client, the
// plain http.Client the baselines use, and the baselines. Both clients
// share one transport and have the per-attempt timeout given (0: none):
// the SDK's is the default configuration's with benchTimeout.
func benchPair(b *testing.B, timeout time.Duration) (*Client, *http.Client, map[string]func(context.Context, *http.Client) error) {
	srv := benchServer(b)
	hc := &http.Client{Transport: srv.Client().Transport, Timeout: timeout}
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(b, err)
	return c, hc, baselines(srv.URL)
}

// BenchmarkOperations runs each operation's SDK call and baseline apart,
// in the default configuration (a 30 s per-attempt timeout on both sides).
func BenchmarkOperations(b *testing.B) {
	c, hc, base := benchPair(b, benchTimeout)
	ctx := context.Background()
	for _, op := range allOps {
		manual := base[op.name]
		require.NotNil(b, manual, op.name)
		b.Run(op.name+"/sdk", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, _, err := op.call(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(op.name+"/baseline", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := manual(ctx, hc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInterleaved measures the same pairs as BenchmarkOperations,
// plus the iterators and composite calls (benchExtras), in the default
// configuration (a 30 s per-attempt timeout on both sides). It alternates
// an SDK call and a baseline call in every iteration (SDK first in even
// iterations, baseline first in odd ones), so that a slow patch
// of the machine hits both sides alike, and reports each side's time per
// call, their ratio, the ratio of each side's median call (p50-ratio: on
// a loaded machine a call that waits for a core moves a sum by far more
// than a median), and allocations per call (measured apart, with
// testing.AllocsPerRun).
func BenchmarkInterleaved(b *testing.B) { benchInterleaved(b, benchTimeout) }

// BenchmarkInterleavedNoTimeout is BenchmarkInterleaved with no
// per-attempt timeout on either side (WithTimeout(0) against an
// http.Client without Timeout).
func BenchmarkInterleavedNoTimeout(b *testing.B) { benchInterleaved(b, 0) }

func benchInterleaved(b *testing.B, timeout time.Duration) {
	c, hc, base := benchPair(b, timeout)
	ctx := context.Background()
	type pair struct {
		name          string
		sdk, baseline func()
		composite     bool // an iterator or a composite call (benchExtras)
	}
	var pairs []pair
	for _, op := range allOps {
		manual := base[op.name]
		pairs = append(pairs, pair{op.name, func() {
			if _, _, err := op.call(ctx, c); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if err := manual(ctx, hc); err != nil {
				b.Fatal(err)
			}
		}, false})
	}
	csrv, _ := compositeServer(b)
	chc := &http.Client{Transport: csrv.Client().Transport, Timeout: timeout}
	cc, err := NewClient(csrv.URL, testToken, WithHTTPClient(chc))
	require.NoError(b, err)
	api := csrv.URL + "/api/v1/developer"
	for _, x := range benchExtras() {
		pairs = append(pairs, pair{x.name, func() {
			if err := x.sdk(ctx, cc); err != nil {
				b.Fatal(err)
			}
		}, func() {
			if err := x.baseline(ctx, chc, api); err != nil {
				b.Fatal(err)
			}
		}, true})
	}
	for _, p := range pairs {
		sdk, baseline, composite := p.sdk, p.baseline, p.composite
		b.Run(p.name, func(b *testing.B) {
			sdkAllocs, baseAllocs := testing.AllocsPerRun(50, sdk), testing.AllocsPerRun(50, baseline)
			var inSDK, inBase time.Duration
			// Each call's time, for the medians (a call that waited for a
			// core on a loaded machine moves a sum, not a median).
			sdkCalls, baseCalls := make([]time.Duration, b.N), make([]time.Duration, b.N)
			b.ResetTimer()
			// Which side goes first alternates too, so that what one call
			// leaves behind (the server finishing its answer, the idle
			// connection's return to the pool) does not always fall on the
			// same side.
			for i := range b.N {
				first, second, inFirst, inSecond := sdk, baseline, &sdkCalls[i], &baseCalls[i]
				if i%2 == 1 {
					first, second, inFirst, inSecond = baseline, sdk, &baseCalls[i], &sdkCalls[i]
				}
				t0 := time.Now()
				first()
				t1 := time.Now()
				second()
				*inFirst = t1.Sub(t0)
				*inSecond = time.Since(t1)
			}
			b.StopTimer()
			for i := range b.N {
				inSDK += sdkCalls[i]
				inBase += baseCalls[i]
			}
			slices.Sort(sdkCalls)
			slices.Sort(baseCalls)
			b.ReportMetric(float64(sdkCalls[b.N/2])/float64(baseCalls[b.N/2]), "p50-ratio")
			b.ReportMetric(float64(inSDK.Nanoseconds())/float64(b.N), "sdk-ns/call")
			b.ReportMetric(float64(inBase.Nanoseconds())/float64(b.N), "base-ns/call")
			b.ReportMetric(float64(inSDK)/float64(inBase), "ratio")
			b.ReportMetric(sdkAllocs, "sdk-allocs/call")
			b.ReportMetric(baseAllocs, "base-allocs/call")
			if composite {
				b.ReportMetric(1, "composite") // scripts/benchratio.awk lists these apart
			}
		})
	}
}

// TestBaselinesMatchTheSDK checks that the baseline requests are the same
// requests the SDK sends (method, path, query, body), so that the
// benchmark compares like with like.
func TestBaselinesMatchTheSDK(t *testing.T) {
	t.Parallel()
	type wire struct{ method, uri, body string }
	var got []wire
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		body = withoutBoundary(r, body) // multipart boundaries are random
		got = append(got, wire{r.Method, r.URL.RequestURI(), string(body)})
		return &http.Response{StatusCode: 200, Header: http.Header{}, Request: r,
			Body: io.NopCloser(strings.NewReader(`{"code":"SUCCESS","data":{}}`))}, nil
	})
	hc := &http.Client{Transport: rt}
	c := rtClient(rt)
	base := baselines("https://console.test:12445")
	for _, op := range allOps {
		got = nil
		_, _, _ = op.call(context.Background(), c)
		_ = base[op.name](context.Background(), hc)
		require.Len(t, got, 2, op.name)
		assert.Equal(t, got[0], got[1], op.name)
	}
}

// TestOneConnectionForAThousandCalls makes 1,000 sequential calls, mixing
// successes, API errors on 4xx, error codes on HTTP 200, busy devices that
// are retried and 503s that exhaust the retries, and checks that they all
// travel over one kept-alive connection: a failing call must not empty the
// pool.
//
// What is the SDK's part is asserted exactly: every answer's body is read
// to its end before it is closed (else net/http cannot reuse the
// connection), and no connection is opened but to replace one net/http
// did not take back after an attempt (an SDK that closed the idle
// connections would open more). net/http itself may decline to reuse a
// connection when its writer goroutine has not reported the request
// written within 50 ms of the answer's end (persistConn.wroteRequest), as
// happens on a loaded machine: such a connection is counted, through
// httptrace's PutIdleConn, not failed on.
func TestOneConnectionForAThousandCalls(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	bodies := benchBodies(t)
	mux := http.NewServeMux()
	for pattern, body := range bodies {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			ct := "application/json"
			if bytes.HasPrefix(body, []byte("\x89PNG")) {
				ct = "image/png"
			}
			w.Header().Set("Content-Type", ct)
			switch n.Add(1) % 6 {
			case 1:
				w.WriteHeader(400)
				io.WriteString(w, `{"code":"CODE_PARAMS_INVALID","msg":"The provided parameters are invalid."}`)
			case 2:
				io.WriteString(w, `{"code":"CODE_DEVICE_DEVICE_OFFLINE","msg":"offline"}`)
			case 3:
				io.WriteString(w, `{"code":"CODE_USER_WORKER_NOT_EXISTS","msg":"no such user"}`)
			case 4:
				w.WriteHeader(503)
				io.WriteString(w, `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
			default:
				w.Write(body)
			}
		})
	}
	srv, conns := countingServer(t, mux)
	p := fastRetry()
	p.MaxRetries = 1
	hc := srv.Client()
	acct, ctx := newConnAccount(hc)
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc), WithRetryPolicy(p))
	require.NoError(t, err)
	var ok, apiErrs, failed int
	for i := range 1000 {
		_, _, err := allOps[i%len(allOps)].call(ctx, c)
		var e *APIError
		switch {
		case err == nil:
			ok++
		case assert.ErrorAs(t, err, &e):
			apiErrs++
			if e.Attempts > 1 {
				failed++ // a call that failed after its retries
			}
		}
	}
	assert.Equal(t, 1000, ok+apiErrs)
	assert.Greater(t, ok, 200)
	assert.Greater(t, apiErrs, 400)
	assert.Greater(t, failed, 50, "calls that failed after retrying")
	acct.check(t, conns.Load())
}

// connAccount accounts for the connections of the calls made with its
// context through the client it wraps: the attempts, the connections
// net/http took back into its pool after them (httptrace's PutIdleConn),
// and the answers whose body was closed before its end.
type connAccount struct {
	attempts, takenBack, cut atomic.Int32
}

// newConnAccount wraps hc's transport and returns the context to make
// the calls with.
func newConnAccount(hc *http.Client) (*connAccount, context.Context) {
	a := &connAccount{}
	hc.Transport = endCheckingTransport{rt: hc.Transport, cut: &a.cut}
	return a, httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { a.attempts.Add(1) },
		PutIdleConn: func(err error) {
			if err == nil {
				a.takenBack.Add(1)
			}
		},
	})
}

// check asserts the SDK's part: every answer's body read to its end, and
// no more connections opened (conns) than the first and one for each
// connection net/http did not take back; it returns those it did not.
func (a *connAccount) check(t *testing.T, conns int32) (declined int32) {
	t.Helper()
	assert.Zero(t, a.cut.Load(), "answers whose body was closed before its end")
	declined = a.attempts.Load() - a.takenBack.Load()
	if declined > 0 {
		t.Logf("net/http declined to reuse the connection after %d of %d attempts", declined, a.attempts.Load())
	}
	assert.LessOrEqual(t, conns, 1+declined, "connections opened (%d attempts, %d connections not taken back)", a.attempts.Load(), declined)
	assert.Positive(t, conns)
	return declined
}

// TestConnAccountOfAStalledWriter plays what a loaded machine does to
// TestOneConnectionForAThousandCalls: the client's writer goroutine
// stalls after sending one request (its conn's Write returns only when
// the next connection is dialled), so net/http, which waits 50 ms for the
// write to be reported, does not take the connection back although the
// SDK read the answer to its end. Two connections are opened, which
// "one connection" failed on; the account explains the second.
func TestConnAccountOfAStalledWriter(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/developer/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"id":"`+r.PathValue("id")+`"}}`)
	})
	srv, conns := countingServer(t, mux)
	hc := srv.Client()
	tr := hc.Transport.(*http.Transport)
	redialled := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(redialled) }) }) // a failed test leaves no writer stalled
	var dials atomic.Int32
	tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 2 {
			once.Do(func() { close(redialled) })
		}
		d := &tls.Dialer{Config: tr.TLSClientConfig}
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &stallingConn{Conn: conn, marker: []byte("/users/stall "), until: redialled}, nil
	}
	acct, ctx := newConnAccount(hc)
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(t, err)
	for _, id := range []string{"u1", "u2", "stall", "u3", "u4"} {
		u, _, err := c.Users.Get(ctx, id, nil)
		require.NoError(t, err)
		assert.Equal(t, id, u.ID)
	}
	assert.Equal(t, int32(2), conns.Load(), "connections opened")
	assert.Equal(t, int32(1), acct.check(t, conns.Load()), "connections net/http did not take back")
}

// stallingConn is a client's connection whose Write of a request holding
// marker returns only once until is closed.
type stallingConn struct {
	net.Conn
	marker []byte
	until  <-chan struct{}
}

func (c *stallingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if bytes.Contains(p, c.marker) {
		<-c.until
	}
	return n, err
}

// endCheckingTransport counts the answers whose body is closed before it
// has been read to its end.
type endCheckingTransport struct {
	rt  http.RoundTripper
	cut *atomic.Int32
}

func (t endCheckingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	if err == nil {
		resp.Body = &endCheckingBody{ReadCloser: resp.Body, cut: t.cut}
	}
	return resp, err
}

// CloseIdleConnections forwards to the transport it wraps, as
// http.Client.CloseIdleConnections does.
func (t endCheckingTransport) CloseIdleConnections() {
	if c, ok := t.rt.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

type endCheckingBody struct {
	io.ReadCloser
	cut    *atomic.Int32
	ended  bool
	closed bool
}

func (b *endCheckingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.ended = b.ended || err == io.EOF
	return n, err
}

func (b *endCheckingBody) Close() error {
	if !b.ended && !b.closed {
		b.cut.Add(1)
	}
	b.closed = true
	return b.ReadCloser.Close()
}

// visitorPages serves total visitors in pages, generating each page from a
// shared template so that the server's cost is the same for every client.
type visitorPages struct {
	total int
	rest  []byte // visitors 2..pageSize of any page, comma-led
	size  int
}

func newVisitorPages(total, size int) *visitorPages {
	var b bytes.Buffer
	for i := 1; i < size; i++ {
		b.WriteByte(',')
		b.WriteString(benchVisitor("v-" + strconv.Itoa(i)))
	}
	return &visitorPages{total: total, rest: b.Bytes(), size: size}
}

func (p *visitorPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
	size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
	if size != p.size || page < 1 {
		http.Error(w, "unexpected paging", 400)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"code":"SUCCESS","msg":"success","data":[`)
	if (page-1)*size < p.total {
		io.WriteString(w, benchVisitor("first-of-page-"+strconv.Itoa(page)))
		w.Write(p.rest)
	}
	fmt.Fprintf(w, `],"pagination":{"page_num":%d,"page_size":%d,"total":%d}}`, page, size, p.total)
}

const (
	allVisitors = 100_000
	allPageSize = 1000
)

// baselineAll pages through the visitors by hand, like the SDK's iterator.
func baselineAll(ctx context.Context, hc *http.Client, base string, each func(*Visitor)) error {
	for page := 1; ; page++ {
		vs, err := baselineCall[[]Visitor](ctx, hc, "GET", fmt.Sprintf("%s/api/v1/developer/visitors?page_num=%d&page_size=%d", base, page, allPageSize), nil)
		if err != nil {
			return err
		}
		for i := range *vs {
			each(&(*vs)[i])
		}
		if len(*vs) < allPageSize || page*allPageSize >= allVisitors {
			return nil
		}
	}
}

func BenchmarkVisitorsAll100k(b *testing.B) {
	srv := testlog.NewTLSServer(b, newVisitorPages(allVisitors, allPageSize))
	b.Cleanup(srv.Close)
	hc := srv.Client()
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(b, err)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		for range b.N {
			n := 0
			for _, err := range c.Visitors.All(ctx, &VisitorListOptions{PageSize: allPageSize}) {
				if err != nil {
					b.Fatal(err)
				}
				if n++; n%10_000 == 0 {
					peak = max(peak, heapInUse())
				}
			}
			if n != allVisitors {
				b.Fatalf("%d visitors", n)
			}
		}
		b.ReportMetric(float64(allVisitors*b.N)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		var peak uint64
		for range b.N {
			n := 0
			err := baselineAll(ctx, hc, srv.URL, func(*Visitor) {
				if n++; n%10_000 == 0 {
					peak = max(peak, heapInUse())
				}
			})
			if err != nil || n != allVisitors {
				b.Fatal(n, err)
			}
		}
		b.ReportMetric(float64(allVisitors*b.N)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	})
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// TestVisitorsAllMemoryIsFlat iterates over 100,000 visitors and checks
// that the heap stays bounded by a page or two, not by the total.
func TestVisitorsAllMemoryIsFlat(t *testing.T) {
	// Not parallel: the heap is shared with whatever else runs.
	// BenchmarkVisitorsAll100k measures 100,000 visitors; 30,000 are
	// enough to see a heap that grows with them: keeping each decoded
	// visitor adds about 2 KiB, some 40 MiB between the two readings.
	const visitors, early = 30_000, 10_000
	srv := testlog.NewTLSServer(t, newVisitorPages(visitors, allPageSize))
	t.Cleanup(srv.Close)
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	var atEarly, peak uint64
	n := 0
	for _, err := range c.Visitors.All(context.Background(), &VisitorListOptions{PageSize: allPageSize}) {
		require.NoError(t, err)
		n++
		if n%2500 == 0 {
			h := heapInUse()
			peak = max(peak, h)
			if n == early {
				atEarly = peak
			}
		}
	}
	assert.Equal(t, visitors, n)
	t.Logf("peak heap in use %.1f MiB (%.1f MiB after %d visitors)", float64(peak)/(1<<20), float64(atEarly)/(1<<20), early)
	assert.Less(t, peak, uint64(64<<20), "peak heap")
	assert.Less(t, peak, atEarly+8<<20, "heap does not grow with the number of visitors")
}

const benchTok = "821f90edfe57ae2b2f9e2a4dda2e3e9e2b96d4a55a8c7c7c3a1b4b5a6e0f1d2c"

// baselineFileUpload is a single-file upload as a careful user writes it by
// hand under the same rule as the SDK (never hold the file in memory): a
// multipart writer in a goroutine feeding the request through an io.Pipe,
// then the envelope decoded into T.
func baselineFileUpload[T any](ctx context.Context, hc *http.Client, url, field, filename, contentType string, file io.Reader) error {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="`+filename+`"`)
		h.Set("Content-Type", contentType)
		part, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.Copy(part, file)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, "POST", url, pr)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Code string `json:"code"`
		Data *T     `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || env.Code != "SUCCESS" {
		return fmt.Errorf("status %d code %s", resp.StatusCode, env.Code)
	}
	return nil
}
