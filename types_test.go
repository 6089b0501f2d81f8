package access

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveSample answers pattern with the vendor sample testdata/samples/name.json.
func serveSample(t *testing.T, mux *http.ServeMux, pattern, name string) {
	t.Helper()
	b, err := os.ReadFile("testdata/samples/" + name + ".json")
	require.NoError(t, err)
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", string(b))
	})
}

func TestVendorSamplesDecode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, mux, _ := setup(t)
	serveSample(t, mux, "GET /api/v1/developer/users/{id}", "user_get")
	serveSample(t, mux, "GET /api/v1/developer/visitors", "visitors_list")
	serveSample(t, mux, "GET /api/v1/developer/devices/{id}/settings", "device_settings_get")
	serveSample(t, mux, "PUT /api/v1/developer/devices/{id}/settings", "device_settings_put")
	serveSample(t, mux, "GET /api/v1/developer/access_policies/schedules/{id}", "schedule_get")
	serveSample(t, mux, "GET /api/v1/developer/access_policies/holiday_groups", "holiday_groups_list")
	serveSample(t, mux, "POST /api/v1/developer/credentials/touch_passes", "touch_pass_purchase")
	serveSample(t, mux, "GET /api/v1/developer/credentials/touch_passes/search", "touch_pass_search")
	serveSample(t, mux, "POST /api/v1/developer/webhooks/endpoints", "webhook_create")
	serveSample(t, mux, "GET /api/v1/developer/webhooks/endpoints", "webhook_list")
	serveSample(t, mux, "DELETE /api/v1/developer/webhooks/endpoints/{id}", "webhook_delete")

	t.Run("user", func(t *testing.T) {
		u, _, err := c.Users.Get(ctx, "17d2f099", &UserGetOptions{Expand: []UserExpand{UserExpandAccessPolicy}})
		require.NoError(t, err)
		assert.Equal(t, "17d2f099-99df-429b-becb-1399a6937e5a", u.ID)
		assert.Equal(t, UserStatusActive, u.Status)
		assert.Equal(t, UnixTime(1689047588), u.OnboardTime)
		assert.Equal(t, time.Date(2023, 7, 11, 3, 53, 8, 0, time.UTC), u.OnboardTime.Time())
		assert.Equal(t, []string{"edbc80df-3698-49fd-8b53-f1867f104947"}, u.AccessPolicyIDs)
		require.Len(t, u.AccessPolicies, 1)
		assert.Equal(t, "73facd6c-839e-4521-a4f4-c07e1d44e748", u.AccessPolicies[0].ScheduleID)
		require.Len(t, u.AccessPolicies[0].Resources, 3)
		assert.Equal(t, Resource{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Type: "door"}, u.AccessPolicies[0].Resources[2])
		require.Len(t, u.TouchPass, 1, "the single touch_pass object decodes as one pass")
		tp := u.TouchPass[0]
		assert.Equal(t, TouchPassSuspended, tp.Status)
		assert.JSONEq(t, `{}`, string(tp.ActivatedAt))
		require.Len(t, tp.Bundles, 1)
		assert.Equal(t, 20, tp.Bundles[0].DeviceType)
		at, err := tp.LastActivity.Time()
		require.NoError(t, err)
		assert.True(t, at.Equal(time.Date(2025, 4, 9, 16, 46, 20, 0, time.UTC)))
		require.NotNil(t, u.PINCode)
		assert.Equal(t, "ua_card", u.NFCCards[0].Type)
		assert.Equal(t, "license", u.LicensePlates[0].CredentialType)
	})
	t.Run("visitors", func(t *testing.T) {
		vs, resp, err := c.Visitors.List(ctx, nil)
		require.NoError(t, err)
		require.Len(t, vs, 1)
		v := vs[0]
		assert.Equal(t, "ACTIVE", v.Status)
		s, ok := v.StatusCode()
		assert.True(t, ok)
		assert.Equal(t, VisitorStatusActive, s)
		assert.Equal(t, UnixTime(1759087879), v.StartTime)
		assert.Equal(t, UnixTime(1759091479), v.EndTime)
		assert.Nil(t, v.PINCode)
		assert.Empty(t, v.NFCCards)
		require.NotNil(t, v.Schedule)
		require.NotNil(t, v.Schedule.WeekSchedule, "weekly decodes into WeekSchedule")
		assert.Equal(t, []TimeRange{{StartTime: "11:00:00", EndTime: "18:00:59"}}, v.Schedule.WeekSchedule.Day(time.Thursday))
		assert.Empty(t, v.Schedule.WeekSchedule.Day(time.Sunday))
		assert.Len(t, v.Resources, 3)
		assert.Equal(t, 1, resp.Pagination.Total)
	})
	t.Run("device settings", func(t *testing.T) {
		s, _, err := c.Devices.GetSettings(ctx, "942a6f4247b2")
		require.NoError(t, err)
		m := s.AccessMethods
		assert.Equal(t, "942a6f4247b2", s.DeviceID)
		assert.True(t, m.NFC.Enabled.Bool())
		assert.Equal(t, No, m.PINCode.PINCodeShuffle)
		assert.Equal(t, AntiSpoofingNo, m.Face.AntiSpoofingLevel)
		assert.Equal(t, DetectFar, m.Face.DetectDistance)
		assert.Empty(t, m.Face.Enabled, "face has no enabled key in the sample")
		assert.Nil(t, m.BTShake, "absent methods stay nil")
		assert.Nil(t, m.Wave)
		resp, err := c.Devices.UpdateSettings(ctx, "942a6f4247b2", (*DeviceSettingsUpdate)(&m))
		require.NoError(t, err)
		assert.Equal(t, CodeSuccess, resp.Code)
	})
	t.Run("schedule", func(t *testing.T) {
		s, _, err := c.Schedules.Get(ctx, "1d31b648")
		require.NoError(t, err)
		assert.Equal(t, "access", s.Type)
		assert.Equal(t, []TimeRange{{StartTime: "10:00:00", EndTime: "17:01:59"}}, s.WeekSchedule.Day(time.Thursday))
		assert.Equal(t, []TimeRange{{StartTime: "09:15:00", EndTime: "11:45:59"}}, s.HolidaySchedule)
		require.NotNil(t, s.HolidayGroup)
		require.Len(t, s.HolidayGroup.Holidays, 2)
		h := s.HolidayGroup.Holidays[0]
		assert.Equal(t, DateTime("2023-08-25 00:00:00Z"), h.StartTime)
		st, err := h.StartTime.Time()
		require.NoError(t, err)
		assert.Equal(t, time.Date(2023, 8, 25, 0, 0, 0, 0, time.UTC), st.UTC())
	})
	t.Run("holiday groups", func(t *testing.T) {
		gs, _, err := c.HolidayGroups.List(ctx)
		require.NoError(t, err)
		assert.Equal(t, []HolidayGroupSummary{
			{ID: "8cc22b49-a7f4-49a6-9f04-044444992d6c", Name: "No Holidays", IsDefault: true},
			{ID: "86c634da-7b2c-411c-a2c1-1495d089c719", Name: "Holiday Group-1692867312225", Count: 2},
		}, gs)
	})
	t.Run("touch passes", func(t *testing.T) {
		bought, _, err := c.TouchPasses.Purchase(ctx, 2)
		require.NoError(t, err)
		require.Len(t, bought, 1)
		assert.Equal(t, TouchPassInactive, bought[0].Status)
		assert.Equal(t, "F8AD-3A41-787D-4D30", bought[0].CardID)
		assert.NotNil(t, bought[0].Bundles)
		found, _, err := c.TouchPasses.Search(ctx, "057B")
		require.NoError(t, err)
		require.Len(t, found, 1)
		assert.Equal(t, TouchPassPending, found[0].Status)
		assert.Equal(t, "Test Name", found[0].UserName)
		assert.Nil(t, found[0].ActivatedAt)
	})
	t.Run("webhooks", func(t *testing.T) {
		ep, _, err := c.Webhooks.Create(ctx, &WebhookEndpointRequest{Endpoint: "http://192.168.1.1:8080", Name: "subscription events", Events: []EventType{EventDoorUnlock}})
		require.NoError(t, err)
		assert.Equal(t, "1a7c9c6a69bb5a1e", ep.Secret.Value())
		assert.Equal(t, map[string]string{"key": "value"}, ep.Headers)
		assert.Contains(t, ep.Events, EventDoorbellIncomingREN)
		eps, _, err := c.Webhooks.List(ctx)
		require.NoError(t, err)
		require.Len(t, eps, 1)
		assert.Equal(t, Secret("6601f1243d2ff70f"), eps[0].Secret)
		_, err = c.Webhooks.Delete(ctx, eps[0].ID)
		require.NoError(t, err)
	})
}

func TestYesNo(t *testing.T) {
	t.Parallel()
	cases := map[string]YesNo{
		`"yes"`: Yes, `"no"`: No, `"YES"`: Yes, `" No "`: No, `"true"`: Yes, `"False"`: No,
		`true`: Yes, `false`: No, `"maybe"`: "maybe", `""`: "", `null`: "",
	}
	for in, want := range cases {
		var v YesNo
		require.NoError(t, json.Unmarshal([]byte(in), &v), in)
		assert.Equal(t, want, v, in)
	}
	for _, bad := range []string{`1`, `{}`, `[]`, `"unterminated`} {
		var v YesNo
		assert.Error(t, json.Unmarshal([]byte(bad), &v), bad)
	}
	assert.Equal(t, Yes, YesNoOf(true))
	assert.Equal(t, No, YesNoOf(false))
	assert.False(t, YesNo("true").Bool(), "only the normalised value counts")

	// Decoded "true" is sent back as "yes".
	var m AccessMethods
	require.NoError(t, json.Unmarshal([]byte(`{"nfc":{"enabled":true},"pin_code":{"enabled":"false","pin_code_shuffle":"no"}}`), &m))
	out, err := json.Marshal(m)
	require.NoError(t, err)
	assert.JSONEq(t, `{"nfc":{"enabled":"yes"},"pin_code":{"enabled":"no","pin_code_shuffle":"no"}}`, string(out))
}

func TestUnixTime(t *testing.T) {
	t.Parallel()
	cases := map[string]UnixTime{
		`1688546460`: 1688546460, `"1688546460"`: 1688546460, `" 12 "`: 12, `null`: 0, `""`: 0,
		`0`: 0, `-5`: -5, `1.7e9`: 1700000000, `1688546460.0`: 1688546460,
	}
	for in, want := range cases {
		var u UnixTime
		require.NoError(t, json.Unmarshal([]byte(in), &u), in)
		assert.Equal(t, want, u, in)
	}
	for _, bad := range []string{`1.5`, `"x"`, `true`, `{}`, `"1.5"`, `1e400`} {
		var u UnixTime
		assert.Error(t, json.Unmarshal([]byte(bad), &u), bad)
	}
	assert.True(t, UnixTime(0).Time().IsZero())
	assert.True(t, UnixTime(0).IsZero())
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	assert.Equal(t, now, UnixTimeOf(now).Time())
	b, err := json.Marshal(struct{ T UnixTime }{42})
	require.NoError(t, err)
	assert.Equal(t, `{"T":42}`, string(b))
}

func TestDateTime(t *testing.T) {
	t.Parallel()
	want := time.Date(2023, 8, 26, 0, 0, 0, 0, time.UTC)
	for _, in := range []string{"2023-08-26 00:00:00Z", "2023-08-26 00:00:00z", "2023-08-26T00:00:00Z", "2023-08-26T02:00:00+02:00", "2023-08-26 02:00:00+02:00", "2023-08-26T00:00:00", "2023-08-26 00:00:00", "2023-08-26", " 2023-08-26 00:00:00Z "} {
		got, err := DateTime(in).Time()
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s gave %s", in, got)
	}
	z, err := DateTime("").Time()
	require.NoError(t, err)
	assert.True(t, z.IsZero())
	_, err = DateTime("yesterday").Time()
	assert.ErrorContains(t, err, `"yesterday"`)
}

func TestScheduleWeeklyAndWeekSchedule(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"weekly", "week_schedule"} {
		var s Schedule
		require.NoError(t, json.Unmarshal([]byte(`{"id":"s","`+key+`":{"monday":[{"start_time":"08:00:00","end_time":"12:00:59"}]}}`), &s))
		require.NotNil(t, s.WeekSchedule, key)
		assert.Equal(t, []TimeRange{{"08:00:00", "12:00:59"}}, s.WeekSchedule.Day(time.Monday), key)
		assert.Equal(t, "s", s.ID)
	}
	var s Schedule
	require.NoError(t, json.Unmarshal([]byte(`{"id":"s","weekly":null}`), &s))
	assert.Nil(t, s.WeekSchedule, "weekly null is a one-time schedule")
	assert.Nil(t, s.WeekSchedule.Day(time.Monday))
	assert.Error(t, json.Unmarshal([]byte(`{"id":1}`), &s))

	// Encoding writes the spec's name.
	b, err := json.Marshal(Schedule{ID: "s", WeekSchedule: &WeekSchedule{Monday: []TimeRange{{"08:00:00", "09:00:00"}}}})
	require.NoError(t, err)
	assert.Contains(t, string(b), `"week_schedule":{"sunday":null,"monday":[{"start_time":"08:00:00","end_time":"09:00:00"}]`)
	var back Schedule
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, "09:00:00", back.WeekSchedule.Monday[0].EndTime)

	days := WeekSchedule{Sunday: []TimeRange{{"0", "1"}}, Tuesday: []TimeRange{{"2", "3"}}, Wednesday: []TimeRange{{"4", "5"}}, Friday: []TimeRange{{"6", "7"}}, Saturday: []TimeRange{{"8", "9"}}}
	assert.Equal(t, "0", days.Day(time.Sunday)[0].StartTime)
	assert.Equal(t, "2", days.Day(time.Tuesday)[0].StartTime)
	assert.Equal(t, "4", days.Day(time.Wednesday)[0].StartTime)
	assert.Equal(t, "6", days.Day(time.Friday)[0].StartTime)
	assert.Equal(t, "8", days.Day(time.Saturday)[0].StartTime)
	assert.Nil(t, days.Day(time.Weekday(9)))
}

func TestTouchPassesShapes(t *testing.T) {
	t.Parallel()
	var tp TouchPasses
	require.NoError(t, json.Unmarshal([]byte(` {"id":"a"}`), &tp))
	assert.Equal(t, TouchPasses{{ID: "a"}}, tp)
	require.NoError(t, json.Unmarshal([]byte(`[{"id":"a"},{"id":"b"}]`), &tp))
	assert.Len(t, tp, 2)
	require.NoError(t, json.Unmarshal([]byte(`null`), &tp))
	assert.Nil(t, tp)
	assert.Error(t, json.Unmarshal([]byte(`"x"`), &tp))
	assert.Error(t, json.Unmarshal([]byte(`{"id":1}`), &tp))

	var u User
	require.NoError(t, json.Unmarshal([]byte(`{"id":"u"}`), &u))
	assert.Nil(t, u.TouchPass, "absent touch_pass")
}

func TestSecretNeverPrinted(t *testing.T) {
	t.Parallel()
	const secret = "6601f1243d2ff70f"
	ep := WebhookEndpoint{ID: "id1", Name: "n", Endpoint: "https://r/hook", Secret: secret,
		Events: []EventType{EventDoorUnlock}, Headers: map[string]string{"Authorization": "Bearer hdr-credential"}}
	var logs strings.Builder
	slog.New(slog.NewTextHandler(&logs, nil)).Info("ep", "ep", ep, "secret", ep.Secret, "ptr", &ep)
	outs := []string{
		fmt.Sprint(ep), fmt.Sprintf("%v|%+v|%#v|%s|%q|%x", ep, ep, ep, ep, ep, ep),
		fmt.Sprintf("%v|%+v|%#v|%s|%q|%x|%d", ep.Secret, ep.Secret, ep.Secret, ep.Secret, ep.Secret, ep.Secret, ep.Secret),
		fmt.Sprintf("%v %+v", &ep, []WebhookEndpoint{ep}), logs.String(),
		fmt.Sprintf("%v %#v", WebhookEndpointRequest{Headers: ep.Headers}, WebhookEndpointRequest{Headers: ep.Headers}),
	}
	for _, out := range outs {
		assert.NotContains(t, out, secret)
		assert.NotContains(t, out, "hdr-credential")
	}
	assert.Contains(t, outs[0], "REDACTED")
	assert.Contains(t, outs[0], "Authorization", "header names are shown")
	assert.Equal(t, secret, ep.Secret.Value())
	assert.Equal(t, "", Secret("").String())
	b, err := json.Marshal(ep)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"secret":"`+secret+`"`, "the wire form keeps the secret")
}

// TestJSONRoundTrip checks that every response type survives encode and
// decode unchanged, so that accesstest (which encodes them) and the client
// (which decodes them) agree.
func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	values := []any{
		&User{ID: "u", FirstName: "A", OnboardTime: 5, Status: UserStatusPending, PINCode: &PINCode{Token: "t"},
			AccessPolicies: []AccessPolicy{{ID: "p", Resources: []Resource{{ID: "r", Type: "door"}}}},
			TouchPass:      TouchPasses{{ID: "tp", Bundles: []TouchPassBundle{{BundleID: "b", DeviceType: 20}}, ActivatedAt: json.RawMessage(`{}`)}}},
		&Visitor{ID: "v", Status: "VISITED", StartTime: 1, EndTime: 2, Schedule: &Schedule{ID: "s", WeekSchedule: &WeekSchedule{Friday: []TimeRange{{"1", "2"}}}},
			LicensePlates: []LicensePlate{{ID: "l", Credential: "jq178"}}, NFCCards: []NFCCard{{ID: "1", Token: "t", Type: "ua_card"}}},
		&Schedule{ID: "s", HolidayGroup: &HolidayGroup{ID: "g", Holidays: []Holiday{{ID: "h", StartTime: "2023-08-25 00:00:00Z", Repeat: true}}}, HolidaySchedule: []TimeRange{{"a", "b"}}},
		&DeviceSettings{DeviceID: "d", AccessMethods: AccessMethods{Face: &FaceMethod{Enabled: Yes, AntiSpoofingLevel: AntiSpoofingHigh, DetectDistance: DetectNear}, QRCode: &AccessMethod{Enabled: No}}},
		&WebhookEndpoint{ID: "w", Secret: "s", Events: []EventType{EventDoorUnlock}, Headers: map[string]string{"k": "v"}},
		&HolidayGroupSummary{ID: "g", Count: 3, IsDefault: true},
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		back := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		require.NoError(t, json.Unmarshal(b, back), string(b))
		assert.Equal(t, v, back)
	}
}

func TestPtr(t *testing.T) {
	t.Parallel()
	p := Ptr(3)
	*p = 4
	assert.Equal(t, 4, *p)
	assert.NotSame(t, Ptr(1), Ptr(1))
}
