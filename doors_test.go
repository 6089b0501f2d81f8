package access

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wireCase is one call of a door, door-group or device operation: the
// request it must put on the wire and the vendor sample it gets back.
type wireCase struct {
	name   string
	method string
	uri    string // escaped path and query, without the API prefix
	body   string // exact body; "" for none
	sample string // testdata/samples/<sample>.json is the answer
	call   func(ctx context.Context, c *Client) (any, error)
	check  func(t *testing.T, v any)
}

func doorWireCases() []wireCase {
	return []wireCase{
		{"Doors.Get", "GET", "/doors/0ed545f8-2fcd-4839-9021-b39e707f6aa9", "", "door_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Doors.Get(ctx, "0ed545f8-2fcd-4839-9021-b39e707f6aa9")
				return v, err
			}, func(t *testing.T, v any) {
				d := v.(*Door)
				assert.Equal(t, Door{ID: "0ed545f8-2fcd-4839-9021-b39e707f6aa9", Name: "Main Door", FullName: "UNVR - 1F - Main Door",
					FloorID: "3275af8d-3fa7-4902-a11b-011e41c8464a", Type: "door", IsBindHub: true,
					LockRelayStatus: DoorLocked, PositionStatus: DoorPositionUnknown}, *d)
			}},
		{"Doors.List", "GET", "/doors", "", "doors_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Doors.List(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				ds := v.([]Door)
				require.Len(t, ds, 2)
				assert.Equal(t, DoorUnlocked, ds[0].LockRelayStatus)
				assert.Equal(t, DoorOpen, ds[0].PositionStatus)
				assert.Equal(t, "UNVR - 1F - Door 3855", ds[1].FullName)
				assert.Equal(t, DoorLocked, ds[1].LockRelayStatus)
				assert.Equal(t, DoorClosed, ds[1].PositionStatus)
			}},
		{"Doors.Unlock (token actor)", "PUT", "/doors/d1/unlock", "", "success",
			func(ctx context.Context, c *Client) (any, error) {
				r, err := c.Doors.Unlock(ctx, "d1", nil)
				return r, err
			}, nil},
		{"Doors.Unlock (actor and extra)", "PUT", "/doors/CF4b9ee6-05cb-4799-a462-ec307fff2067/unlock",
			`{"actor_id":"actoruuid","actor_name":"actor name","extra":{"extra_string":"test","extra_integer":1,"extraBoolean":true}}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				r, err := c.Doors.Unlock(ctx, "CF4b9ee6-05cb-4799-a462-ec307fff2067", &UnlockRequest{ActorID: "actoruuid", ActorName: "actor name",
					Extra: json.RawMessage(`{"extra_string":"test","extra_integer":1,"extraBoolean":true}`)})
				return r, err
			}, nil},
		{"Doors.Unlock (extra any value)", "PUT", "/doors/d1/unlock", `{"extra":["a<b",2]}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				r, err := c.Doors.Unlock(ctx, "d1", &UnlockRequest{Extra: []any{"a<b", 2}})
				return r, err
			}, nil},
		{"Doors.SetLockRule (custom)", "PUT", "/doors/e4978b83/lock_rule", `{"type":"custom","interval":10}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Doors.SetLockRule(ctx, "e4978b83", &LockRuleRequest{Type: LockRuleCustom, Interval: 10})
			}, nil},
		{"Doors.SetLockRule (keep_unlock)", "PUT", "/doors/e4978b83/lock_rule", `{"type":"keep_unlock"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Doors.SetLockRule(ctx, "e4978b83", &LockRuleRequest{Type: LockRuleKeepUnlock})
			}, nil},
		{"Doors.GetLockRule", "GET", "/doors/e4978b83/lock_rule", "", "door_lock_rule_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Doors.GetLockRule(ctx, "e4978b83")
				return v, err
			}, func(t *testing.T, v any) {
				r := v.(*LockRule)
				assert.Equal(t, LockRuleCustom, r.Type)
				assert.Equal(t, time.Date(2024, 2, 23, 7, 29, 2, 0, time.UTC), r.EndedTime.Time())
			}},
		{"Doors.SetEmergency", "PUT", "/doors/settings/emergency", `{"lockdown":true,"evacuation":false}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Doors.SetEmergency(ctx, &EmergencyStatus{Lockdown: true})
			}, nil},
		{"Doors.SetEmergency (release)", "PUT", "/doors/settings/emergency", `{"lockdown":false,"evacuation":false}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Doors.SetEmergency(ctx, &EmergencyStatus{})
			}, nil},
		{"Doors.GetEmergency", "GET", "/doors/settings/emergency", "", "door_emergency_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Doors.GetEmergency(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, EmergencyStatus{Lockdown: true}, *v.(*EmergencyStatus))
			}},
		{"DoorGroups.Topology", "GET", "/door_groups/topology", "", "door_group_topology",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Topology(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				tops := v.([]DoorGroupTopology)
				require.Len(t, tops, 2)
				assert.Equal(t, DoorGroupBuilding, tops[0].Type)
				assert.Equal(t, "All Doors", tops[0].Name)
				require.Len(t, tops[0].Floors, 1)
				assert.Equal(t, "Main Floor", tops[0].Floors[0].Name)
				assert.Equal(t, "floor", tops[0].Floors[0].Type)
				assert.Equal(t, []TopologyDoor{{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Name: "Door 3855", Type: "door", IsBindHub: true}}, tops[0].Floors[0].Doors)
				assert.Equal(t, DoorGroupType(""), tops[1].Type, "the sample's second group has no type")
			}},
		{"DoorGroups.Create", "POST", "/door_groups", `{"group_name":"Test","resources":["6ff875d2-af87-470b-9cb5-774c6596afc8"]}`, "door_group_create",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Create(ctx, &DoorGroupRequest{GroupName: "Test", Resources: []string{"6ff875d2-af87-470b-9cb5-774c6596afc8"}})
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, DoorGroup{ID: "0140fa3d-8973-4305-a0ce-5306ae277878", Name: "Customized Door Group", Type: DoorGroupAccess,
					Resources: []Resource{{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Type: "door"}}}, *v.(*DoorGroup))
			}},
		{"DoorGroups.Create (no doors)", "POST", "/door_groups", `{"group_name":"R&D <lab>","resources":[]}`, "door_group_create",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Create(ctx, &DoorGroupRequest{GroupName: "R&D <lab>"})
				return v, err
			}, nil},
		{"DoorGroups.Get", "GET", "/door_groups/d5573467-d6b3-4e8f-8e48-8a322b91664a", "", "door_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Get(ctx, "d5573467-d6b3-4e8f-8e48-8a322b91664a")
				return v, err
			}, func(t *testing.T, v any) {
				g := v.(*DoorGroup)
				assert.Equal(t, DoorGroupBuilding, g.Type)
				require.Len(t, g.Resources, 3)
				assert.Equal(t, Resource{ID: "7cc1823f-9cdb-447b-b01b-4cb2abc661c0", Name: "A2 Door", Type: "door"}, g.Resources[1])
			}},
		{"DoorGroups.Update (doors)", "PUT", "/door_groups/0140fa3d", `{"resources":["6ff875d2","5a2c3d4e"]}`, "door_group_update",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Update(ctx, "0140fa3d", &DoorGroupUpdate{Resources: []string{"6ff875d2", "5a2c3d4e"}})
				return v, err
			}, func(t *testing.T, v any) {
				g := v.(*DoorGroup)
				assert.Equal(t, "test", g.Name)
				assert.Equal(t, []Resource{{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Type: "door"}}, g.Resources)
			}},
		{"DoorGroups.Update (empty the group)", "PUT", "/door_groups/0140fa3d", `{"resources":[]}`, "door_group_update",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Update(ctx, "0140fa3d", &DoorGroupUpdate{Resources: []string{}})
				return v, err
			}, nil},
		{"DoorGroups.Update (rename)", "PUT", "/door_groups/0140fa3d", `{"group_name":"Labs & more"}`, "door_group_update",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.Update(ctx, "0140fa3d", &DoorGroupUpdate{GroupName: Ptr("Labs & more")})
				return v, err
			}, nil},
		{"DoorGroups.List", "GET", "/door_groups", "", "door_groups_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.DoorGroups.List(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				gs := v.([]DoorGroup)
				require.Len(t, gs, 2)
				assert.Equal(t, "Test2", gs[1].Name)
				assert.Equal(t, DoorGroupAccess, gs[1].Type)
			}},
		{"DoorGroups.Delete", "DELETE", "/door_groups/0140fa3d-8973-4305-a0ce-5306ae277878", "", "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.DoorGroups.Delete(ctx, "0140fa3d-8973-4305-a0ce-5306ae277878")
			}, nil},
		{"Devices.List", "GET", "/devices", "", "devices_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Devices.List(ctx, nil)
				return v, err
			}, func(t *testing.T, v any) {
				g := v.(DeviceGroups)
				require.Len(t, g, 1)
				require.Len(t, g[0], 2)
				assert.Equal(t, Device{ID: "58d61f309629", Name: "UA G2 Pro 9629", Type: "UA-G2-PRO",
					Capabilities:   []string{"pin_code", "nfc", "face", "qr_code", "is_reader", "support_reboot"},
					ConnectedUAHID: "58d61f25c2d5", IsAdopted: true, IsConnected: true, IsManaged: true, IsOnline: true,
					LocationID: "2ad41f5a-55ca-4751-b36e-432833638c62"}, g[0][0])
				assert.Equal(t, "UAH-DOOR", g[0][1].Type)
				assert.Len(t, g.Devices(), 2)
			}},
		{"Devices.List (refresh)", "GET", "/devices?refresh=true", "", "devices_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Devices.List(ctx, &DeviceListOptions{Refresh: true})
				return v, err
			}, nil},
		{"Devices.TriggerDoorbell", "POST", "/devices/788a20c002c7/doorbell", `{"room_name":"intercom directory name","cancel":true}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Devices.TriggerDoorbell(ctx, "788a20c002c7", &DoorbellRequest{RoomName: "intercom directory name", Cancel: true})
			}, nil},
		{"Devices.TriggerDoorbell (default room)", "POST", "/devices/788a20c002c7/doorbell", `{"room_name":""}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Devices.TriggerDoorbell(ctx, "788a20c002c7", &DoorbellRequest{})
			}, nil},
	}
}

// TestDoorOperationsWire checks the exact request of every door, door-group
// and device-list operation and the decoding of the vendor's sample answer.
func TestDoorOperationsWire(t *testing.T) {
	t.Parallel()
	runWireCases(t, doorWireCases())
}

// runWireCases checks, for each case, the exact request on the wire and
// the decoding of the vendor sample the fake console answers with.
func runWireCases(t *testing.T, cases []wireCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sample, err := os.ReadFile("testdata/samples/" + tc.sample + ".json")
			require.NoError(t, err)
			type seen struct{ method, uri, body string }
			got := make(chan seen, 1)
			c, mux, _ := setup(t)
			mux.HandleFunc("/api/v1/developer/", func(w http.ResponseWriter, r *http.Request) {
				testHeaders(t, r, tc.body != "")
				b, _ := io.ReadAll(r.Body)
				got <- seen{r.Method, r.URL.RequestURI(), string(b)}
				writeRaw(w, 200, "application/json", string(sample))
			})
			v, err := tc.call(context.Background(), c)
			require.NoError(t, err)
			s := <-got
			assert.Equal(t, tc.method, s.method)
			assert.Equal(t, "/api/v1/developer"+tc.uri, s.uri)
			assert.Equal(t, tc.body, s.body)
			if tc.check != nil {
				tc.check(t, v)
			}
		})
	}
}

// TestDoorOperationsValidation: bad input fails before anything is sent.
func TestDoorOperationsValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request would fail the test
	ctx := context.Background()
	errs := map[string]error{}
	add := func(name string, err error) { errs[name] = err }
	_, _, err := c.Doors.Get(ctx, "")
	add("Get empty id", err)
	_, err = c.Doors.Unlock(ctx, " ", nil)
	add("Unlock blank id", err)
	_, err = c.Doors.Unlock(ctx, "d1", &UnlockRequest{ActorID: "a1"})
	add("Unlock actor id alone", err)
	_, err = c.Doors.Unlock(ctx, "d1", &UnlockRequest{ActorName: "Front desk"})
	add("Unlock actor name alone", err)
	_, err = c.Doors.Unlock(ctx, "d1", &UnlockRequest{Extra: json.RawMessage(`{bad`)})
	add("Unlock invalid raw extra", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", nil)
	add("SetLockRule nil", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", &LockRuleRequest{Type: LockRuleCustom})
	add("SetLockRule custom without interval", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", &LockRuleRequest{Type: LockRuleCustom, Interval: -5})
	add("SetLockRule negative interval", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", &LockRuleRequest{Type: LockRuleKeepLock, Interval: 5})
	add("SetLockRule interval on keep_lock", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", &LockRuleRequest{Type: LockRuleSchedule})
	add("SetLockRule schedule", err)
	_, err = c.Doors.SetLockRule(ctx, "d1", &LockRuleRequest{Type: "open_sesame"})
	add("SetLockRule unknown type", err)
	_, err = c.Doors.SetLockRule(ctx, "..", &LockRuleRequest{Type: LockRuleReset})
	add("SetLockRule dot id", err)
	_, _, err = c.Doors.GetLockRule(ctx, "")
	add("GetLockRule empty id", err)
	_, err = c.Doors.SetEmergency(ctx, nil)
	add("SetEmergency nil", err)
	_, err = c.Doors.SetEmergency(ctx, &EmergencyStatus{Lockdown: true, Evacuation: true})
	add("SetEmergency both", err)
	var nilCtx context.Context // a nil context is what is tested
	_, _, err = c.Doors.GetEmergency(nilCtx)
	add("GetEmergency nil ctx", err)
	_, _, err = c.DoorGroups.Create(ctx, nil)
	add("Create nil", err)
	_, _, err = c.DoorGroups.Create(ctx, &DoorGroupRequest{Resources: []string{"d1"}})
	add("Create no name", err)
	_, _, err = c.DoorGroups.Create(ctx, &DoorGroupRequest{GroupName: "g", Resources: []string{"d1", ""}})
	add("Create empty door id", err)
	_, _, err = c.DoorGroups.Get(ctx, "")
	add("Get group empty id", err)
	_, _, err = c.DoorGroups.Update(ctx, "g1", nil)
	add("Update nil", err)
	_, _, err = c.DoorGroups.Update(ctx, "g1", &DoorGroupUpdate{})
	add("Update nothing", err)
	_, _, err = c.DoorGroups.Update(ctx, "", &DoorGroupUpdate{GroupName: Ptr("x")})
	add("Update empty id", err)
	_, _, err = c.DoorGroups.Update(ctx, "g1", &DoorGroupUpdate{GroupName: Ptr("")})
	add("Update clear name", err)
	_, err = c.DoorGroups.Delete(ctx, "")
	add("Delete empty id", err)
	_, _, err = c.Devices.List(nilCtx, nil)
	add("Devices.List nil ctx", err)
	_, err = c.Devices.TriggerDoorbell(ctx, "", &DoorbellRequest{})
	add("TriggerDoorbell empty id", err)
	_, err = c.Devices.TriggerDoorbell(ctx, "dev1", nil)
	add("TriggerDoorbell nil", err)
	_, err = c.Devices.TriggerDoorbell(nilCtx, "dev1", &DoorbellRequest{})
	add("TriggerDoorbell nil ctx", err)
	for name, err := range errs {
		var ve *ValidationError
		assert.True(t, errors.As(err, &ve), "%s: %v", name, err)
		assert.ErrorIs(t, err, ErrValidation, name)
	}
	assert.Len(t, errs, 29)
}

// TestDoorOperationsErrorCodes: the controller's error codes reach the
// caller as classified APIErrors, with the response.
func TestDoorOperationsErrorCodes(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/doors/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 400, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"The requested resource was not found."}`)
	})
	mux.HandleFunc("PUT /api/v1/developer/doors/{id}/unlock", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_DEVICE_OFFLINE","msg":"The device is currently offline."}`)
	})
	mux.HandleFunc("PUT /api/v1/developer/doors/settings/emergency", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 403, "application/json", `{"code":"CODE_UNAUTHORIZED","msg":"You are not allowed to perform this action."}`)
	})
	mux.HandleFunc("POST /api/v1/developer/door_groups", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 400, "application/json", `{"code":"CODE_PARAMS_INVALID","msg":"The provided name already exists."}`)
	})
	mux.HandleFunc("POST /api/v1/developer/devices/{id}/doorbell", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"CODE_DEVICE_API_NOT_SUPPORTED","msg":"The API is currently not available for this device."}`)
	})
	ctx := context.Background()
	check := func(err error, resp *Response, status int, code ErrorCode, class error) {
		t.Helper()
		var e *APIError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, status, e.StatusCode)
		assert.Equal(t, code, e.Code)
		if class != nil {
			assert.ErrorIs(t, err, class)
		}
		require.NotNil(t, resp)
		assert.Equal(t, code, resp.Code)
	}
	d, resp, err := c.Doors.Get(ctx, "nope")
	assert.Nil(t, d)
	check(err, resp, 400, CodeResourceNotFound, ErrNotFound)
	resp, err = c.Doors.Unlock(ctx, "d1", nil)
	check(err, resp, 200, CodeDeviceDeviceOffline, nil)
	resp, err = c.Doors.SetEmergency(ctx, &EmergencyStatus{Evacuation: true})
	check(err, resp, 403, CodeUnauthorized, ErrForbidden)
	g, resp, err := c.DoorGroups.Create(ctx, &DoorGroupRequest{GroupName: "dup", Resources: []string{"d1"}})
	assert.Nil(t, g)
	check(err, resp, 400, CodeParamsInvalid, ErrInvalidParams)
	resp, err = c.Devices.TriggerDoorbell(ctx, "hub1", &DoorbellRequest{})
	check(err, resp, 200, CodeDeviceAPINotSupported, nil)
}

// TestTriggerDoorbellRingsOnce: a doorbell rings a physical device; even
// with RetryWrites an attempt the console may have acted on (a 502) is not
// repeated, while other POSTs are. A 503, which proves it did not ring, is
// retried (TestPhysicalActsAreRetriedWhenTheConsoleDidNotAct).
func TestTriggerDoorbellRingsOnce(t *testing.T) {
	t.Parallel()
	policy := fastRetry()
	policy.RetryWrites = true
	c, mux, _ := setup(t, WithRetryPolicy(policy))
	n := 0
	mux.HandleFunc("POST /api/v1/developer/devices/{id}/doorbell", func(w http.ResponseWriter, r *http.Request) {
		n++
		writeRaw(w, 502, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"bad gateway"}`)
	})
	mux.HandleFunc("POST /api/v1/developer/door_groups", func(w http.ResponseWriter, r *http.Request) {
		n += 10
		writeRaw(w, 502, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"bad gateway"}`)
	})
	_, err := c.Devices.TriggerDoorbell(context.Background(), "788a20c002c7", &DoorbellRequest{})
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, 1, n, "one attempt")
	_, _, err = c.DoorGroups.Create(context.Background(), &DoorGroupRequest{GroupName: "g"})
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, 1+10*(1+policy.MaxRetries), n, "RetryWrites does retry other POSTs")
}

func TestDeviceGroupsDecodingAndFlatView(t *testing.T) {
	t.Parallel()
	var g DeviceGroups
	require.NoError(t, json.Unmarshal([]byte(`[
		[{"id":"hub1","type":"UAH-Ent","location_id":"door-a"},{"id":"r1","location_id":"door-a"}],
		null,
		[{"id":"hub1","type":"UAH-Ent","location_id":"door-a"},{"id":"r2","location_id":"door-b"}],
		[],
		{"id":"lone","type":"UA-Intercom"}
	]`), &g))
	require.Len(t, g, 4, "null dropped, empty group kept, a bare device becomes a group")
	assert.Equal(t, []Device{}, g[2])
	assert.Equal(t, "lone", g[3][0].ID)
	ids := []string{}
	for _, d := range g.Devices() {
		ids = append(ids, d.ID)
	}
	assert.Equal(t, []string{"hub1", "r1", "r2", "lone"}, ids, "first appearance order, no duplicates")

	c, mux, _ := setup(t)
	bodies := []string{
		`{"code":"SUCCESS","msg":"success","data":null}`,
		`{"code":"SUCCESS","msg":"succ","data":[{"id":"a"},{"id":"b"},{"id":"a"}]}`,
		`{"code":"SUCCESS","msg":"success","data":[null,[{"id":"a"}],[{"id":"a"},{"id":"c"}]]}`,
		`{"code":"CODE_SYSTEM_ERROR","msg":"x","data":[{"id":"a"}]}`,
	}
	mux.HandleFunc("GET /api/v1/developer/devices", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", bodies[0])
		bodies = bodies[1:]
	})
	empty, _, err := c.Devices.List(context.Background(), &DeviceListOptions{})
	require.NoError(t, err)
	assert.NotNil(t, empty)
	assert.Empty(t, empty)
	assert.Empty(t, empty.Devices())

	flat, resp, err := c.Devices.List(context.Background(), nil)
	require.NoError(t, err, "a flat array is accepted")
	assert.Equal(t, CodeSuccess, resp.Code)
	assert.Equal(t, "succ", resp.Message)
	assert.Len(t, flat, 3)
	assert.Len(t, flat.Devices(), 2)

	nested, _, err := c.Devices.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, nested, 2, "the null group is dropped")
	assert.Len(t, nested.Devices(), 2)

	none, resp, err := c.Devices.List(context.Background(), nil)
	assert.Nil(t, none)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, CodeSystemError, apiErr.Code, "an error code stays an error whatever the data")
	assert.Equal(t, CodeSystemError, resp.Code)

	assert.Error(t, json.Unmarshal([]byte(`[[{"id":5}]]`), &g))
	assert.Error(t, json.Unmarshal([]byte(`{"id":"x"}`), &g))
}

func TestDoorPositionStatusEncodesUnknownAsNull(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Door{ID: "d", LockRelayStatus: DoorLocked})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"door_position_status":null`)
	var d Door
	require.NoError(t, json.Unmarshal(b, &d))
	assert.Equal(t, DoorPositionUnknown, d.PositionStatus)
	b, err = json.Marshal(Door{PositionStatus: DoorOpen})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"door_position_status":"open"`)
}
