package accesstest_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// keyPaths returns, for every path of a JSON document where an object
// sits (array elements merged under "[]"), the set of its keys, and the
// paths where an object or an array sits ("object", "array").
func keyPaths(t *testing.T, b []byte) (keys map[string]map[string]bool, kinds map[string]string) {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v), "%s", b)
	keys, kinds = map[string]map[string]bool{}, map[string]string{}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			kinds[path] = "object"
			if keys[path] == nil {
				keys[path] = map[string]bool{}
			}
			for k, e := range x {
				keys[path][k] = true
				walk(e, path+"."+k)
			}
		case []any:
			kinds[path] = "array"
			for _, e := range x {
				walk(e, path+"[]")
			}
		}
	}
	walk(v, "")
	return keys, kinds
}

// shapeCase is one operation with a vendor sample: the raw request that
// makes the fake answer with the same kind of record.
type shapeCase struct {
	sample, method, path, body string
	// extra lists keys (path + "." + key) that the fake sends and this
	// sample happens not to show, each documented elsewhere (another
	// vendor sample of the same record or the API reference).
	extra []string
}

func TestAnswersHaveTheVendorsShapes(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return t0 }))
	c := srv.Client(noRetry())
	tok := srv.Token()
	const u = accesstest.DemoUserID
	// Records the demo lacks.
	v, _, err := c.Visitors.Create(ctx, &access.VisitorRequest{FirstName: "Vera", LastName: "Visitor", StartTime: t0, EndTime: t0.Add(time.Hour),
		VisitReason: access.VisitReasonBusiness})
	require.NoError(t, err)
	_, err = c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil)
	require.NoError(t, err)
	require.NoError(t, srv.WaitDeliveries(ctx))
	srv.AddWebhook(access.WebhookEndpoint{Endpoint: "http://127.0.0.1:1/hook", Name: "hook", Events: []access.EventType{access.EventDoorbellIncoming},
		Headers: map[string]string{"key": "value"}}) // as the sample's endpoint was registered
	wh := srv.Webhooks()
	cards := srv.NFCCards()
	require.NotEmpty(t, cards)
	tps := srv.TouchPasses()
	require.NotEmpty(t, tps)
	// A pass activated through the fake's own path (the demo seeds its
	// passes directly): user and pass answers must keep the vendor's
	// empty activated_at, with no member the fake invents.
	bob := srv.AddUser(access.User{FirstName: "Bob", LastName: "Ng", UserEmail: "bob@example.com", Status: access.UserStatusActive,
		AccessPolicyIDs: []string{srv.AccessPolicies()[0].ID}})
	bought, _, err := c.TouchPasses.Purchase(ctx, 1)
	require.NoError(t, err)
	_, _, err = c.Users.AssignTouchPass(ctx, bob.ID, bought[0].ID)
	require.NoError(t, err)
	activated, ok := srv.AddToWallet(bought[0].ID, access.SourceGoogle, "Bob's Pixel")
	require.True(t, ok)
	require.Equal(t, access.TouchPassActive, activated.Status)
	groupID := srv.AddUserGroup("", "Staff", "", u)
	wifi := srv.AddIdentityResource(access.IdentityWiFi, access.IdentityResource{Name: "HQ-Staff", ShortName: "staff"})
	srv.AddIdentityResource(access.IdentityEVStation, access.IdentityResource{Name: "Garage", ShortName: "GC", Metadata: json.RawMessage(`{"site":"HQ"}`)})
	status, body := raw(t, srv, "POST", "/api/v1/developer/users/"+u+"/identity/assignments", srv.Token(),
		`{"resource_type":"wifi","resource_ids":["`+wifi.ID+`"]}`)
	require.Equal(t, 200, status, body)
	_ = wh

	cases := []shapeCase{
		// users_list shows these keys of a user.
		{sample: "user_get", method: "GET", path: "/users/" + u + "?expand[]=access_policy",
			extra: []string{".data.alias", ".data.email_status", ".data.full_name", ".data.phone"}},
		// user_get shows a user's touch pass.
		{sample: "users_list", method: "GET", path: "/users", extra: []string{".data[].touch_pass"}},
		{sample: "users_search", method: "GET", path: "/users/search?keyword=a"},
		{sample: "user_group_users", method: "GET", path: "/user_groups/" + groupID + "/users"},
		{sample: "user_groups_list", method: "GET", path: "/user_groups"},
		{sample: "user_group_get", method: "GET", path: "/user_groups/" + groupID},
		{sample: "user_access_policies", method: "GET", path: "/users/" + u + "/access_policies"},
		{sample: "access_policies_list", method: "GET", path: "/access_policies"},
		// The Visitor schema (vendor-notes.md, PDF §4.1) and visitors_list
		// show these keys of a visitor.
		{sample: "visitor_get", method: "GET", path: "/visitors/" + v.ID, extra: []string{".data.create_time", ".data.start_time", ".data.end_time", ".data.visit_reason", ".data.email", ".data.inviter_id", ".data.inviter_name", ".data.mobile_phone", ".data.remarks", ".data.visitor_company", ".data.license_plates"}},
		{sample: "visitors_list", method: "GET", path: "/visitors?expand[]=resource&expand[]=schedule&expand[]=nfc_card&expand[]=pin_code",
			extra: []string{".data[].create_time", ".data[].start_time", ".data[].end_time", ".data[].visit_reason", ".data[].email", ".data[].inviter_id", ".data[].inviter_name", ".data[].mobile_phone", ".data[].remarks", ".data[].visitor_company", ".data[].license_plates"}},
		{sample: "nfc_card_get", method: "GET", path: "/credentials/nfc_cards/tokens/" + cards[0].Token},
		{sample: "nfc_cards_list", method: "GET", path: "/credentials/nfc_cards/tokens"},
		{sample: "touch_pass_get", method: "GET", path: "/credentials/touch_passes/" + tps[0].ID},
		{sample: "touch_pass_get", method: "GET", path: "/credentials/touch_passes/" + activated.ID},
		{sample: "user_get", method: "GET", path: "/users/" + bob.ID + "?expand[]=access_policy",
			extra: []string{".data.alias", ".data.email_status", ".data.full_name", ".data.phone"}},
		{sample: "touch_pass_list", method: "GET", path: "/credentials/touch_passes"},
		{sample: "touch_pass_search", method: "GET", path: "/credentials/touch_passes/search?condition=a"},
		{sample: "touch_pass_purchase", method: "POST", path: "/credentials/touch_passes", body: `{"count":1}`},
		{sample: "identity_resources", method: "GET", path: "/users/identity/assignments"},
		{sample: "identity_assigned", method: "GET", path: "/users/" + u + "/identity/assignments"},
		// testdata/notifications/logs_add.json shows an entry's log_key.
		{sample: "system_logs_list", method: "POST", path: "/system/logs", body: `{"topic":"all"}`,
			extra: []string{".data.hits[]._source.event.log_key"}},
		{sample: "doors_list", method: "GET", path: "/doors"},
		{sample: "door_get", method: "GET", path: "/doors/" + accesstest.DemoDoorID},
		{sample: "devices_list", method: "GET", path: "/devices"},
		{sample: "device_settings_get", method: "GET", path: "/devices/" + accesstest.DemoDeviceID + "/settings"},
		{sample: "schedules_list", method: "GET", path: "/access_policies/schedules"},
		{sample: "schedule_get", method: "GET", path: "/access_policies/schedules/" + accesstest.DemoScheduleID},
		{sample: "holiday_groups_list", method: "GET", path: "/access_policies/holiday_groups"},
		{sample: "door_groups_list", method: "GET", path: "/door_groups"},
		{sample: "door_group_get", method: "GET", path: "/door_groups/" + accesstest.DemoDoorGroupID},
		{sample: "door_group_topology", method: "GET", path: "/door_groups/topology"},
		{sample: "door_emergency_get", method: "GET", path: "/doors/settings/emergency"},
		{sample: "door_lock_rule_get", method: "GET", path: "/doors/" + accesstest.DemoDoorID + "/lock_rule"},
		{sample: "webhook_list", method: "GET", path: "/webhooks/endpoints"},
		{sample: "webhook_create", method: "POST", path: "/webhooks/endpoints",
			body: `{"endpoint":"http://127.0.0.1:2/hook","name":"n","events":["access.door.unlock"],"headers":{"key":"value"}}`},
		{sample: "access_policy_get", method: "GET", path: "/access_policies/" + srv.AccessPolicies()[0].ID},
		{sample: "holiday_group_get", method: "GET", path: "/access_policies/holiday_groups/8cc22b49-a7f4-49a6-9f04-044444992d6c"},
		{sample: "user_create", method: "POST", path: "/users", body: `{"first_name":"Ada","last_name":"Lovelace","user_email":"ada@example.com"}`},
		{sample: "nfc_session_start", method: "POST", path: "/credentials/nfc_cards/sessions", body: `{"device_id":"` + accesstest.DemoDeviceID + `"}`},
	}
	_ = tok
	var uncovered []string
	for _, tc := range cases {
		sample, err := os.ReadFile("../testdata/samples/" + tc.sample + ".json")
		require.NoError(t, err)
		status, body := raw(t, srv, tc.method, "/api/v1/developer"+tc.path, srv.Token(), tc.body)
		require.Equal(t, 200, status, "%s: %s", tc.sample, body)
		want, wantKinds := keyPaths(t, sample)
		got, gotKinds := keyPaths(t, []byte(body))
		var missing, extra []string
		for _, p := range slices.Sorted(maps.Keys(want)) {
			g, ok := got[p]
			if !ok {
				continue // the fake has no such object here (an empty list)
			}
			for k := range want[p] {
				if !g[k] {
					missing = append(missing, p+"."+k)
				}
			}
			for k := range g {
				if !want[p][k] && !slices.Contains(tc.extra, p+"."+k) {
					extra = append(extra, p+"."+k)
				}
			}
		}
		for p, k := range wantKinds {
			if g, ok := gotKinds[p]; ok && g != k {
				missing = append(missing, p+" as an "+k+", not an "+g)
			}
		}
		if len(want) < 2 || len(got) < 2 {
			uncovered = append(uncovered, tc.sample)
		}
		sort.Strings(missing)
		sort.Strings(extra)
		assert.Empty(t, missing, "%s: keys the vendor sends that the fake leaves out", tc.sample)
		assert.Empty(t, extra, "%s: keys the fake sends that the sample does not show", tc.sample)
	}
	assert.Empty(t, uncovered, "cases that compared no record, just the envelope")
}
