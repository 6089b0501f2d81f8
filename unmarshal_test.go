package access_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
)

// roundTrip checks Unmarshal(Marshal(x)) == x and that the decoded value
// marshals to the same bytes.
func roundTrip[T any](t *testing.T, name string, x T) {
	t.Helper()
	b, err := json.Marshal(x)
	require.NoError(t, err, name)
	var got T
	require.NoError(t, json.Unmarshal(b, &got), "%s: %s", name, b)
	assert.True(t, reflect.DeepEqual(x, got), "%s: %s\nwant %#v\n got %#v", name, b, x, got)
	b2, err := json.Marshal(got)
	require.NoError(t, err, name)
	assert.JSONEq(t, string(b), string(b2), name)
}

var (
	rtStart = time.Unix(1700000000, 0).UTC()
	rtEnd   = time.Unix(1700028800, 0).UTC()
	rtWeek  = &access.WeekSchedule{Monday: []access.TimeRange{{StartTime: "09:00:00", EndTime: "17:00:59"}},
		Friday: []access.TimeRange{{StartTime: "09:00:00", EndTime: "12:00:00"}, {StartTime: "13:00:00", EndTime: "17:00:00"}}}
	rtRes = []access.Resource{access.VisitDoor("d1"), access.VisitDoorGroup("g1")}
)

func TestUserRequestRoundTrip(t *testing.T) {
	t.Parallel()
	for name, x := range map[string]access.UserRequest{
		"names":    {FirstName: "Ada", LastName: "Lovelace"},
		"all":      {FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com", EmployeeNumber: "7", OnboardTime: rtStart},
		"unicode":  {FirstName: "Zoë", LastName: "<Ω & \"x\">"},
		"no-email": {FirstName: "A", LastName: "B", EmployeeNumber: "E-1"},
	} {
		roundTrip(t, name, x)
	}
}

func TestUserUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	for name, x := range map[string]access.UserUpdate{
		"keep all":      {},
		"set names":     {FirstName: access.Ptr("Ada"), LastName: access.Ptr("King")},
		"set all":       {UserEmail: access.Ptr("a@example.com"), EmployeeNumber: access.Ptr("9"), OnboardTime: access.Ptr(rtStart), Status: access.Ptr(access.UserStatusDeactivated)},
		"clear":         {UserEmail: access.Ptr(""), EmployeeNumber: access.Ptr(""), OnboardTime: access.Ptr(time.Time{})},
		"status active": {Status: access.Ptr(access.UserStatusActive)},
	} {
		roundTrip(t, name, x)
	}
}

func TestVisitorRequestRoundTrip(t *testing.T) {
	t.Parallel()
	base := access.VisitorRequest{FirstName: "Grace", LastName: "Hopper", StartTime: rtStart, EndTime: rtEnd, VisitReason: access.VisitReasonBusiness}
	all := base
	all.Remarks, all.MobilePhone, all.Email, all.VisitorCompany = "r", "+41791234567", "g@example.com", "Navy"
	all.Resources, all.WeekSchedule = rtRes, rtWeek
	empty := base
	empty.WeekSchedule = &access.WeekSchedule{}
	for name, x := range map[string]access.VisitorRequest{"required": base, "all": all, "empty week": empty} {
		roundTrip(t, name, x)
	}
}

func TestVisitorUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	for name, x := range map[string]access.VisitorUpdate{
		"keep all": {},
		"set":      {FirstName: access.Ptr("G"), LastName: access.Ptr("H"), StartTime: access.Ptr(rtStart), EndTime: access.Ptr(rtEnd), VisitReason: access.Ptr(access.VisitReasonOthers), Resources: rtRes, WeekSchedule: rtWeek},
		"clear":    {Remarks: access.Ptr(""), MobilePhone: access.Ptr(""), Email: access.Ptr(""), VisitorCompany: access.Ptr(""), Resources: []access.Resource{}, WeekSchedule: &access.WeekSchedule{}},
		"set opt":  {Remarks: access.Ptr("x"), MobilePhone: access.Ptr("+1"), Email: access.Ptr("e@x"), VisitorCompany: access.Ptr("c")},
	} {
		roundTrip(t, name, x)
	}
}

func TestAccessPolicyUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	for name, x := range map[string]access.AccessPolicyUpdate{
		"keep all": {},
		"set":      {Name: access.Ptr("Night"), ScheduleID: access.Ptr("s1"), Resources: []access.Resource{{ID: "d1", Type: access.ResourceDoor}}},
		"clear":    {Resources: []access.Resource{}},
	} {
		roundTrip(t, name, x)
	}
}

func TestDoorGroupUpdateRoundTrip(t *testing.T) {
	t.Parallel()
	for name, x := range map[string]access.DoorGroupUpdate{
		"keep all": {},
		"set":      {GroupName: access.Ptr("Lobby"), Resources: []string{"d1", "d2"}},
		"clear":    {Resources: []string{}},
	} {
		roundTrip(t, name, x)
	}
}

func TestHolidayGroupRoundTrip(t *testing.T) {
	t.Parallel()
	hs := []access.HolidayRequest{
		{Name: "New year", StartTime: rtStart, EndTime: rtEnd, Repeat: true},
		{ID: "h2", Name: "Fair", Description: "d", IsTemplate: true, StartTime: rtStart, EndTime: rtEnd},
	}
	for name, x := range map[string]access.HolidayGroupRequest{
		"name only":   {Name: "Swiss"},
		"all":         {Name: "Swiss", Description: "federal", Holidays: hs},
		"no holidays": {Name: "Swiss", Holidays: []access.HolidayRequest{}},
	} {
		roundTrip(t, name, x)
	}
	for name, x := range map[string]access.HolidayGroupUpdate{
		"keep":  {Name: "Swiss"},
		"set":   {Name: "Swiss", Description: access.Ptr("d"), Holidays: hs},
		"clear": {Name: "Swiss", Description: access.Ptr(""), Holidays: []access.HolidayRequest{}},
	} {
		roundTrip(t, name, x)
	}
}

func TestScheduleRoundTrip(t *testing.T) {
	t.Parallel()
	hol := []access.TimeRange{{StartTime: "10:00:00", EndTime: "11:00:00"}}
	for name, x := range map[string]access.ScheduleRequest{
		"required": {Name: "Office", WeekSchedule: rtWeek},
		"all":      {Name: "Office", WeekSchedule: rtWeek, HolidayGroupID: "hg", HolidaySchedule: hol},
		"empty":    {Name: "Office", WeekSchedule: &access.WeekSchedule{}, HolidaySchedule: []access.TimeRange{}},
	} {
		roundTrip(t, name, x)
	}
	for name, x := range map[string]access.ScheduleUpdate{
		"keep all": {},
		"set":      {Name: access.Ptr("Lab"), WeekSchedule: rtWeek, HolidayGroupID: access.Ptr("hg"), HolidaySchedule: hol},
		"clear":    {WeekSchedule: &access.WeekSchedule{}, HolidayGroupID: access.Ptr(""), HolidaySchedule: []access.TimeRange{}},
	} {
		roundTrip(t, name, x)
	}
}

func TestUserGroupRoundTrip(t *testing.T) {
	t.Parallel()
	roundTrip(t, "request", access.UserGroupRequest{Name: "Staff", UpID: "p"})
	for name, x := range map[string]access.UserGroupUpdate{
		"keep parent": {Name: "Staff"},
		"move":        {Name: "Staff", UpID: access.Ptr("p")},
		"top":         {Name: "Staff", UpID: access.Ptr("")},
	} {
		roundTrip(t, name, x)
	}
}

// The vendor's documented forms decode, unknown members are refused and
// null leaves the value alone.
func TestRequestUnmarshalWireForms(t *testing.T) {
	t.Parallel()
	var v access.VisitorRequest
	require.NoError(t, json.Unmarshal([]byte(`{"first_name":"H","last_name":"L","start_time":1700000000,"end_time":1700028800,
		"visit_reason":"Interview","resources":[{"id":"d1","type":"door"}],"week_schedule":{"monday":[{"start_time":"09:00:00","end_time":"17:00:59"}]}}`), &v))
	assert.Equal(t, rtStart, v.StartTime)
	assert.Equal(t, access.VisitReasonInterview, v.VisitReason)
	assert.Equal(t, []access.Resource{access.VisitDoor("d1")}, v.Resources)
	assert.Equal(t, "17:00:59", v.WeekSchedule.Monday[0].EndTime)
	assert.Nil(t, v.WeekSchedule.Sunday)

	var h access.HolidayGroupRequest
	require.NoError(t, json.Unmarshal([]byte(`{"name":"g","holidays":[{"name":"x","start_time":"2023-08-25T02:00:00+02:00","end_time":"2023-08-26T00:00:00Z","repeat":true}]}`), &h))
	assert.Equal(t, time.Date(2023, 8, 25, 0, 0, 0, 0, time.UTC), h.Holidays[0].StartTime)
	assert.True(t, h.Holidays[0].Repeat)
	err := json.Unmarshal([]byte(`{"name":"g","holidays":[{"name":"x","start_time":"yesterday"}]}`), &h)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "start_time")

	for _, c := range []struct {
		v   any
		doc string
	}{
		{&access.UserRequest{}, `{"first_nam":"A"}`},
		{&access.UserUpdate{}, `{"state":"ACTIVE"}`},
		{&access.VisitorRequest{}, `{"weekly":{}}`},
		{&access.VisitorUpdate{}, `{"status":1}`},
		{&access.AccessPolicyUpdate{}, `{"resources":[{"id":"d","type":"door","name":"x"}]}`},
		{&access.DoorGroupUpdate{}, `{"name":"x"}`},
		{&access.HolidayGroupRequest{}, `{"holidays":[{"when":1}]}`},
		{&access.HolidayGroupUpdate{}, `{"id":"x"}`},
		{&access.ScheduleRequest{}, `{"weekly":{}}`},
		{&access.ScheduleUpdate{}, `{"week_schedule":{"someday":[]}}`},
	} {
		err := json.Unmarshal([]byte(c.doc), c.v)
		require.Error(t, err, c.doc)
		assert.Contains(t, err.Error(), "unknown field", c.doc)
		assert.True(t, strings.HasPrefix(err.Error(), "access: decoding "), err.Error())
	}

	u := access.UserUpdate{FirstName: access.Ptr("kept")}
	require.NoError(t, json.Unmarshal([]byte(`null`), &u))
	assert.Equal(t, "kept", *u.FirstName)
}
