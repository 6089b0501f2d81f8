package accesstest_test

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// peopleSite is a fake with a door, a door group, a holiday group, a
// schedule and a policy to reference.
type peopleSite struct {
	srv                    *accesstest.Server
	c                      *access.Client
	door, doorGroup, sched string
	holidays, policy       string
}

func newPeopleSite(t *testing.T) *peopleSite {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithClock(func() time.Time { return t0 }))
	floor := srv.AddFloor("", "GF")
	door := srv.AddDoor(access.Door{Name: "Main", FloorID: floor, IsBindHub: true})
	dg := srv.AddDoorGroup(access.DoorGroup{Name: "Office", Resources: []access.Resource{{ID: door.ID, Type: "door"}}})
	hg := srv.AddHolidayGroup(access.HolidayGroup{Name: "Public"})
	sc := srv.AddSchedule(access.Schedule{Name: "Office hours", HolidayGroupID: hg.ID, WeekSchedule: &access.WeekSchedule{}})
	p := srv.AddAccessPolicy(access.AccessPolicy{Name: "Staff", ScheduleID: sc.ID, Resources: []access.Resource{{ID: door.ID, Type: "door"}}})
	return &peopleSite{srv: srv, c: srv.Client(noRetry()), door: door.ID, doorGroup: dg.ID, sched: sc.ID, holidays: hg.ID, policy: p.ID}
}

func wantCode(t *testing.T, err error, code access.ErrorCode) {
	t.Helper()
	assert.Equal(t, code, apiErr(t, err).Code)
}

func TestUsersRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	u, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com", EmployeeNumber: "E1"})
	require.NoError(t, err)
	assert.Equal(t, "Ada", u.FirstName)
	assert.Equal(t, "ada@example.com", u.UserEmail)
	got, _, err := c.Users.Get(ctx, u.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, access.UserStatusActive, got.Status)
	assert.Equal(t, access.UnixTimeOf(t0), got.OnboardTime, "onboarded now on the fake's clock")

	_, _, err = c.Users.Create(ctx, &access.UserRequest{FirstName: "Bad", LastName: "Mail", UserEmail: "nope"})
	wantCode(t, err, access.CodeUserEmailError)

	_, err = c.Users.Update(ctx, u.ID, &access.UserUpdate{LastName: access.Ptr("King"), EmployeeNumber: access.Ptr("E2")})
	require.NoError(t, err)
	got, _, _ = c.Users.Get(ctx, u.ID, nil)
	assert.Equal(t, "Ada King", got.FullName)
	assert.Equal(t, "E2", got.EmployeeNumber)
	_, err = c.Users.Update(ctx, "nobody", &access.UserUpdate{Status: access.Ptr(access.UserStatusActive)})
	wantCode(t, err, access.CodeUserWorkerNotExists)

	// Policies: unknown ids are refused, known ones expand.
	_, err = c.Users.SetAccessPolicies(ctx, u.ID, []string{st.policy, "nope"})
	wantCode(t, err, access.CodeResourceNotFound)
	_, err = c.Users.SetAccessPolicies(ctx, u.ID, []string{st.policy})
	require.NoError(t, err)
	got, _, _ = c.Users.Get(ctx, u.ID, &access.UserGetOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	require.Len(t, got.AccessPolicies, 1)
	assert.Equal(t, "Staff", got.AccessPolicies[0].Name)

	// Licence plates: a bare array in, records with ids out.
	_, err = c.Users.AssignLicensePlates(ctx, u.ID, []string{"JQ178", "AB123", "JQ178"})
	require.NoError(t, err)
	got, _, _ = c.Users.Get(ctx, u.ID, nil)
	require.Len(t, got.LicensePlates, 2)
	assert.Equal(t, "JQ178", got.LicensePlates[0].Credential)
	other := st.srv.AddUser(access.User{FirstName: "Bo", LastName: "B"})
	_, err = c.Users.AssignLicensePlates(ctx, other.ID, []string{"jq178"})
	wantCode(t, err, access.CodeParamsInvalid)
	_, err = c.Users.UnassignLicensePlate(ctx, u.ID, got.LicensePlates[0].ID)
	require.NoError(t, err)
	_, err = c.Users.UnassignLicensePlate(ctx, u.ID, got.LicensePlates[0].ID)
	wantCode(t, err, access.CodeResourceNotFound)
	got, _, _ = c.Users.Get(ctx, u.ID, nil)
	assert.Equal(t, []string{"AB123"}, []string{got.LicensePlates[0].Credential})

	// Avatar: the multipart part is stored.
	av, _, err := c.Users.UploadAvatar(ctx, u.ID, &access.AvatarOptions{FileName: "ada.png", ContentType: "image/png"}, strings.NewReader("\x89PNG..."))
	require.NoError(t, err)
	stored, ok := st.srv.Avatar(u.ID)
	require.True(t, ok)
	assert.Equal(t, av.AvatarURL, stored.URL)
	assert.Equal(t, "ada.png", stored.FileName)
	assert.Equal(t, "image/png", stored.ContentType)
	assert.Equal(t, []byte("\x89PNG..."), stored.Data)
	_, _, err = c.Users.UploadAvatar(ctx, "nobody", nil, bytes.NewReader([]byte("x")))
	wantCode(t, err, access.CodeUserWorkerNotExists)

	// Only deactivated users can be deleted.
	_, err = c.Users.Delete(ctx, u.ID)
	e := apiErr(t, err)
	assert.Equal(t, access.CodeOperationForbidden, e.Code)
	assert.ErrorIs(t, err, access.ErrForbidden)
	_, err = c.Users.Update(ctx, u.ID, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
	require.NoError(t, err)
	_, err = c.Users.Delete(ctx, u.ID)
	require.NoError(t, err)
	_, _, err = c.Users.Get(ctx, u.ID, nil)
	wantCode(t, err, access.CodeUserWorkerNotExists)
	_, err = c.Users.Delete(ctx, u.ID)
	wantCode(t, err, access.CodeUserWorkerNotExists)
	_, ok = st.srv.Avatar(u.ID)
	assert.False(t, ok, "the avatar went with the user")
}

func TestUsersListAndSearch(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	c := srv.Client(noRetry())
	var ids []string
	for i := range 11 {
		st := access.UserStatusActive
		if i%4 == 3 {
			st = access.UserStatusDeactivated
		}
		u := srv.AddUser(access.User{FirstName: []string{"Ada", "Bob", "Cy"}[i%3], LastName: "N", UserEmail: "x@example.com", Status: st})
		ids = append(ids, u.ID)
	}
	page, resp, err := c.Users.List(ctx, &access.UserListOptions{PageNum: 2, PageSize: 4})
	require.NoError(t, err)
	assert.Len(t, page, 4)
	assert.Equal(t, &access.Pagination{PageNum: 2, PageSize: 4, Total: 11}, resp.Pagination)
	var all []string
	for u, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 3}) {
		require.NoError(t, err)
		all = append(all, u.ID)
	}
	assert.Equal(t, ids, all)
	assert.Len(t, srv.RequestsFor(accesstest.OpUsersList), 5, "one List and four pages")

	p := srv.AddAccessPolicy(access.AccessPolicy{Name: "Staff"})
	srv.AddUser(access.User{FirstName: "Pol", LastName: "Icy", AccessPolicyIDs: []string{p.ID}})
	page, _, err = c.Users.List(ctx, &access.UserListOptions{PageNum: 12, PageSize: 1, Expand: []access.UserExpand{access.UserExpandAccessPolicy}})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, []string{"Staff"}, policyNames(page[0].AccessPolicies), "expand[] on the list")
	page, _, err = c.Users.List(ctx, &access.UserListOptions{PageNum: 12, PageSize: 1})
	require.NoError(t, err)
	assert.Nil(t, page[0].AccessPolicies)
	status, _ := raw(t, srv, "PUT", "/api/v1/developer/users/"+ids[0], srv.Token(), `{"status":"PENDING"}`)
	assert.Equal(t, 400, status, "only ACTIVE and DEACTIVATED can be set")

	found, resp, err := c.Users.Search(ctx, &access.UserSearchOptions{Keyword: "ada"})
	require.NoError(t, err)
	assert.Len(t, found, 4)
	assert.Nil(t, resp.Pagination, "search answers carry no pagination")
	found, _, err = c.Users.Search(ctx, &access.UserSearchOptions{Statuses: []access.UserStatus{access.UserStatusDeactivated}})
	require.NoError(t, err)
	assert.Len(t, found, 2)
	found, _, err = c.Users.Search(ctx, &access.UserSearchOptions{UserIDs: []string{ids[0], ids[5]}, Statuses: []access.UserStatus{access.UserStatusActive, access.UserStatusDeactivated}})
	require.NoError(t, err)
	assert.Equal(t, []string{ids[0], ids[5]}, []string{found[0].ID, found[1].ID})
	found, _, err = c.Users.Search(ctx, &access.UserSearchOptions{OnlyAdmin: true})
	require.NoError(t, err)
	assert.Empty(t, found)
	var n int
	for _, err := range c.Users.SearchAll(ctx, &access.UserSearchOptions{Statuses: []access.UserStatus{access.UserStatusActive}, PageSize: 2}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 10, n)
	q := srv.RequestsFor(accesstest.OpUsersSearch)[2].Query
	assert.Equal(t, []string{ids[0], ids[5]}, q["user_id"], "repeated keys")
}

func TestUserGroupsRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	resp, err := c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: "Engineering"})
	require.NoError(t, err)
	assert.Equal(t, access.CodeSuccess, resp.Code)
	eng, _, err := c.UserGroups.Find(ctx, "Engineering", "")
	require.NoError(t, err)
	fw, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Firmware", UpID: eng.ID})
	require.NoError(t, err)
	assert.Equal(t, "Engineering / Firmware", fw.FullName)
	assert.Equal(t, []string{eng.ID}, fw.UpIDs)
	_, err = c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: "Firmware", UpID: eng.ID})
	wantCode(t, err, access.CodeUserNameDuplicated)
	_, err = c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: "Firmware"})
	require.NoError(t, err, "the same name under another parent")
	_, err = c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: "X", UpID: "nope"})
	wantCode(t, err, access.CodeResourceNotFound)
	_, err = c.UserGroups.Update(ctx, eng.ID, &access.UserGroupUpdate{Name: "Engineering", UpID: access.Ptr(fw.ID)})
	wantCode(t, err, access.CodeParamsInvalid)

	a := st.srv.AddUser(access.User{FirstName: "A", LastName: "A"})
	b := st.srv.AddUser(access.User{FirstName: "B", LastName: "B"})
	_, err = c.UserGroups.AddUsers(ctx, eng.ID, []string{a.ID})
	require.NoError(t, err)
	_, err = c.UserGroups.AddUsers(ctx, fw.ID, []string{b.ID, b.ID})
	require.NoError(t, err)
	_, err = c.UserGroups.AddUsers(ctx, fw.ID, []string{"nobody"})
	wantCode(t, err, access.CodeUserWorkerNotExists)
	direct, _, err := c.UserGroups.ListUsers(ctx, eng.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{a.ID}, userIDs(direct))
	everyone, _, err := c.UserGroups.ListAllUsers(ctx, eng.ID)
	require.NoError(t, err)
	assert.Equal(t, []string{a.ID, b.ID}, userIDs(everyone), "members of the subgroup too")

	// Group policies: the members get them unless only_user_policies.
	p2 := st.srv.AddAccessPolicy(access.AccessPolicy{Name: "Labs", ScheduleID: st.sched})
	_, err = c.UserGroups.SetAccessPolicies(ctx, eng.ID, []string{p2.ID})
	require.NoError(t, err)
	_, err = c.UserGroups.SetAccessPolicies(ctx, fw.ID, []string{"nope"})
	wantCode(t, err, access.CodeResourceNotFound)
	gp, _, err := c.UserGroups.ListAccessPolicies(ctx, eng.ID)
	require.NoError(t, err)
	assert.Equal(t, "Labs", gp[0].Name)
	_, err = c.Users.SetAccessPolicies(ctx, b.ID, []string{st.policy})
	require.NoError(t, err)
	mine, _, err := c.Users.ListAccessPolicies(ctx, b.ID, &access.UserPoliciesOptions{OnlyUserPolicies: access.Ptr(true)})
	require.NoError(t, err)
	assert.Equal(t, []string{"Staff"}, policyNames(mine))
	merged, _, err := c.Users.ListAccessPolicies(ctx, b.ID, &access.UserPoliciesOptions{OnlyUserPolicies: access.Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, []string{"Staff", "Labs"}, policyNames(merged), "inherited from the parent group")

	// Deleting: a group with members or subgroups is refused.
	_, err = c.UserGroups.Delete(ctx, fw.ID)
	wantCode(t, err, access.CodeOperationForbidden)
	_, err = c.UserGroups.RemoveUsers(ctx, fw.ID, []string{b.ID})
	require.NoError(t, err)
	assert.Empty(t, st.srv.GroupMembers(fw.ID))
	_, err = c.UserGroups.Delete(ctx, fw.ID)
	require.NoError(t, err)
	_, _, err = c.UserGroups.Get(ctx, fw.ID)
	wantCode(t, err, access.CodeResourceNotFound)
	_, err = c.UserGroups.Update(ctx, eng.ID, &access.UserGroupUpdate{Name: "R&D"})
	require.NoError(t, err)
	g, _, err := c.UserGroups.Get(ctx, eng.ID)
	require.NoError(t, err)
	assert.Equal(t, "R&D", g.Name)

	// Deleting a user removes the membership.
	_, _ = c.Users.Update(ctx, a.ID, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
	_, err = c.Users.Delete(ctx, a.ID)
	require.NoError(t, err)
	assert.Empty(t, st.srv.GroupMembers(eng.ID))
	// ... and a policy a group holds cannot be deleted.
	_, err = c.AccessPolicies.Delete(ctx, p2.ID)
	wantCode(t, err, access.CodeOperationForbidden)
}

func userIDs(us []access.User) []string {
	out := []string{}
	for _, u := range us {
		out = append(out, u.ID)
	}
	return out
}

func policyNames(ps []access.AccessPolicy) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func TestAccessPoliciesRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	res := []access.Resource{{ID: st.door, Type: access.ResourceDoor}, {ID: st.doorGroup, Type: access.ResourceDoorGroup}}
	p, _, err := c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "Night", ScheduleID: st.sched, Resources: res})
	require.NoError(t, err)
	assert.Equal(t, res, p.Resources)
	_, _, err = c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "Night", ScheduleID: st.sched})
	wantCode(t, err, access.CodeParamsInvalid)
	_, _, err = c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "X", ScheduleID: "nope"})
	wantCode(t, err, access.CodeAccessPolicyScheduleNotFound)
	_, _, err = c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "X", ScheduleID: st.sched, Resources: []access.Resource{{ID: "nope", Type: "door"}}})
	wantCode(t, err, access.CodeResourceNotFound)
	_, _, err = c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "X", ScheduleID: st.sched, Resources: []access.Resource{{ID: st.door, Type: "door_group"}}})
	wantCode(t, err, access.CodeResourceNotFound)

	// The v3 PDF's "resource" key is understood too.
	status, body := raw(t, st.srv, "POST", "/api/v1/developer/access_policies", st.srv.Token(),
		`{"name":"V3","schedule_id":"`+st.sched+`","resource":[{"id":"`+st.door+`","type":"door"}]}`)
	assert.Equal(t, 200, status)
	assert.Contains(t, body, `"resources":[{"id":"`+st.door+`","type":"door"}]`)

	_, err = c.AccessPolicies.Update(ctx, p.ID, &access.AccessPolicyUpdate{Name: access.Ptr("Late"), Resources: []access.Resource{}})
	require.NoError(t, err)
	got, _, err := c.AccessPolicies.Get(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, access.AccessPolicy{ID: p.ID, Name: "Late", ScheduleID: st.sched, Resources: []access.Resource{}}, *got)
	_, err = c.AccessPolicies.Update(ctx, p.ID, &access.AccessPolicyUpdate{ScheduleID: access.Ptr("nope")})
	wantCode(t, err, access.CodeAccessPolicyScheduleNotFound)
	all, _, err := c.AccessPolicies.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"Staff", "Late", "V3"}, policyNames(all))

	u := st.srv.AddUser(access.User{FirstName: "U", LastName: "U", AccessPolicyIDs: []string{p.ID}})
	_, err = c.AccessPolicies.Delete(ctx, p.ID)
	wantCode(t, err, access.CodeOperationForbidden)
	_, err = c.Users.SetAccessPolicies(ctx, u.ID, []string{})
	require.NoError(t, err)
	_, err = c.AccessPolicies.Delete(ctx, p.ID)
	require.NoError(t, err)
	_, _, err = c.AccessPolicies.Get(ctx, p.ID)
	wantCode(t, err, access.CodeResourceNotFound)
	_, err = c.AccessPolicies.Delete(ctx, p.ID)
	wantCode(t, err, access.CodeResourceNotFound)
}

func TestSchedulesRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	office := []access.TimeRange{{StartTime: "08:00:00", EndTime: "17:00:59"}}
	s, _, err := c.Schedules.Create(ctx, &access.ScheduleRequest{Name: "Early", WeekSchedule: &access.WeekSchedule{Monday: office, Friday: office},
		HolidayGroupID: st.holidays, HolidaySchedule: []access.TimeRange{{StartTime: "09:00:00", EndTime: "12:00:59"}}})
	require.NoError(t, err)
	assert.Equal(t, office, s.WeekSchedule.Monday)
	assert.Equal(t, []access.TimeRange{}, s.WeekSchedule.Sunday)
	require.NotNil(t, s.HolidayGroup)
	assert.Equal(t, "Public", s.HolidayGroup.Name)
	req := st.srv.RequestsFor(accesstest.OpSchedulesCreate)[0]
	assert.Contains(t, string(req.Body), `"week_schedule":{`)
	// Read back as "weekly", as consoles answer.
	_, body := raw(t, st.srv, "GET", "/api/v1/developer/access_policies/schedules/"+s.ID, st.srv.Token(), "")
	assert.Contains(t, body, `"weekly":{`)
	assert.NotContains(t, body, `"week_schedule"`)
	status, body := raw(t, st.srv, "POST", "/api/v1/developer/access_policies/schedules", st.srv.Token(), `{"name":"W","weekly":{"monday":[]}}`)
	assert.Equal(t, 400, status)
	assert.Contains(t, body, "week_schedule")

	_, _, err = c.Schedules.Create(ctx, &access.ScheduleRequest{Name: "Early", WeekSchedule: &access.WeekSchedule{}})
	wantCode(t, err, access.CodeAccessPolicyScheduleNameExist)
	_, _, err = c.Schedules.Create(ctx, &access.ScheduleRequest{Name: "Other", WeekSchedule: &access.WeekSchedule{}, HolidayGroupID: "nope"})
	wantCode(t, err, access.CodeAccessPolicyHolidayGroupNotFound)

	_, err = c.Schedules.Update(ctx, s.ID, &access.ScheduleUpdate{Name: access.Ptr("Early birds"), WeekSchedule: &access.WeekSchedule{Tuesday: office}})
	require.NoError(t, err)
	got, _, err := c.Schedules.Get(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, "Early birds", got.Name)
	assert.Equal(t, office, got.WeekSchedule.Tuesday)
	assert.Empty(t, got.WeekSchedule.Monday)
	assert.Equal(t, st.holidays, got.HolidayGroupID, "kept")
	_, err = c.Schedules.Update(ctx, "nope", &access.ScheduleUpdate{Name: access.Ptr("x")})
	wantCode(t, err, access.CodeAccessPolicyScheduleNotFound)
	_, err = c.Schedules.Update(ctx, s.ID, &access.ScheduleUpdate{Name: access.Ptr("Office hours")})
	wantCode(t, err, access.CodeAccessPolicyScheduleNameExist)

	list, _, err := c.Schedules.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "Early birds", list[1].Name)
	assert.Equal(t, 1, list[1].Status)
	assert.Nil(t, list[1].WeekSchedule)

	// A schedule a policy uses cannot be deleted; its holiday group neither.
	_, err = c.Schedules.Delete(ctx, st.sched)
	e := apiErr(t, err)
	assert.Equal(t, access.CodeAccessPolicyScheduleCanNotDelete, e.Code)
	assert.ErrorIs(t, err, access.ErrConflict)
	_, err = c.HolidayGroups.Delete(ctx, st.holidays)
	wantCode(t, err, access.CodeAccessPolicyHolidayGroupCanNotDelete)
	_, err = c.Schedules.Delete(ctx, s.ID)
	require.NoError(t, err)
	_, err = c.Schedules.Delete(ctx, s.ID)
	wantCode(t, err, access.CodeAccessPolicyScheduleNotFound)
}

func TestHolidayGroupsRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	cet := time.FixedZone("CET", 3600)
	g, _, err := c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Swiss", Description: "CH", Holidays: []access.HolidayRequest{
		{Name: "Christmas", Repeat: true, StartTime: time.Date(2026, 12, 25, 1, 0, 0, 0, cet), EndTime: time.Date(2026, 12, 26, 1, 0, 0, 0, cet)},
		{Name: "Boxing Day", StartTime: time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC), EndTime: time.Date(2026, 12, 27, 0, 0, 0, 0, time.UTC)},
	}})
	require.NoError(t, err)
	require.Len(t, g.Holidays, 2)
	assert.Equal(t, access.DateTime("2026-12-25 00:00:00Z"), g.Holidays[0].StartTime, "the console's own format")
	assert.True(t, g.Holidays[0].Repeat)
	req := st.srv.RequestsFor(accesstest.OpHolidayGroupsCreate)[0]
	assert.Contains(t, string(req.Body), `"start_time":"2026-12-25T00:00:00Z"`, "sent as RFC 3339")
	status, _ := raw(t, st.srv, "POST", "/api/v1/developer/access_policies/holiday_groups", st.srv.Token(),
		`{"name":"Bad","holidays":[{"name":"x","start_time":"2026-12-25 00:00:00Z","end_time":"2026-12-26 00:00:00Z"}]}`)
	assert.Equal(t, 400, status, "the answer's format is not accepted in requests")

	_, _, err = c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Swiss"})
	wantCode(t, err, access.CodeAccessPolicyHolidayGroupNameExist)
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	_, _, err = c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "Twice", Holidays: []access.HolidayRequest{
		{Name: "NY", StartTime: day, EndTime: day.Add(24 * time.Hour)}, {Name: "NY", StartTime: day, EndTime: day.Add(24 * time.Hour)}}})
	wantCode(t, err, access.CodeAccessPolicyHolidayNameExist)

	// Update keeps holidays named by id, adds new ones, drops the rest.
	up, _, err := c.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: "Swiss 2026", Holidays: []access.HolidayRequest{
		{ID: g.Holidays[0].ID, Name: "Xmas", StartTime: time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC), EndTime: time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC)},
		{Name: "New Year", StartTime: day, EndTime: day.Add(24 * time.Hour)},
	}})
	require.NoError(t, err)
	assert.Equal(t, "Swiss 2026", up.Name)
	require.Len(t, up.Holidays, 2)
	assert.Equal(t, g.Holidays[0].ID, up.Holidays[0].ID)
	assert.Equal(t, "Xmas", up.Holidays[0].Name)
	got, _, err := c.HolidayGroups.Get(ctx, g.ID)
	require.NoError(t, err)
	assert.Equal(t, up, got)
	_, _, err = c.HolidayGroups.Update(ctx, g.ID, &access.HolidayGroupUpdate{Name: "Swiss", Holidays: []access.HolidayRequest{
		{ID: "nope", Name: "x", StartTime: day, EndTime: day.Add(time.Hour)}}})
	wantCode(t, err, access.CodeAccessPolicyHolidayNotFound)

	def := st.srv.AddHolidayGroup(access.HolidayGroup{Name: "No Holidays", IsDefault: true})
	_, _, err = c.HolidayGroups.Update(ctx, def.ID, &access.HolidayGroupUpdate{Name: "Some"})
	wantCode(t, err, access.CodeHolidayGroupCanNotEdit)
	_, err = c.HolidayGroups.Delete(ctx, def.ID)
	wantCode(t, err, access.CodeHolidayGroupCanNotDelete)

	summaries, _, err := c.HolidayGroups.List(ctx)
	require.NoError(t, err)
	require.Len(t, summaries, 3)
	assert.Equal(t, 2, summaries[1].Count)

	_, err = c.HolidayGroups.Delete(ctx, g.ID)
	require.NoError(t, err)
	_, _, err = c.HolidayGroups.Get(ctx, g.ID)
	wantCode(t, err, access.CodeAccessPolicyHolidayGroupNotFound)
}

func TestIdentityRoundTrip(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	c := st.c
	ev := st.srv.AddIdentityResource(access.IdentityEVStation, access.IdentityResource{Name: "Garage"})
	wifi := st.srv.AddIdentityResource(access.IdentityWiFi, access.IdentityResource{Name: "HQ-Staff"})
	a := st.srv.AddUser(access.User{FirstName: "A", LastName: "A", UserEmail: "a@example.com"})
	b := st.srv.AddUser(access.User{FirstName: "B", LastName: "B"})

	failed, _, err := c.Identity.SendInvitations(ctx, []access.Invitation{{UserID: a.ID}, {UserID: b.ID}, {UserID: "nobody"}, {UserID: b.ID, Email: "bad"}})
	var ie *access.InvitationError
	require.ErrorAs(t, err, &ie)
	assert.Equal(t, failed, ie.Failures)
	require.Len(t, failed, 3)
	assert.Equal(t, access.CodeUserEmailError, failed[0].ErrorCode)
	assert.Equal(t, access.CodeUserWorkerNotExists, failed[1].ErrorCode)
	assert.Equal(t, "nobody", failed[1].UserID)
	assert.Equal(t, []string{a.ID}, st.srv.Invited())
	failed, _, err = c.Identity.SendInvitations(ctx, []access.Invitation{{UserID: b.ID, Email: "b@example.com"}})
	require.NoError(t, err)
	assert.Empty(t, failed)
	got, _ := st.srv.User(b.ID)
	assert.Equal(t, "b@example.com", got.UserEmail, "the invitation's email updates the user")

	res, _, err := c.Identity.ListResources(ctx, &access.IdentityResourceOptions{Types: []access.IdentityResourceType{access.IdentityEVStation}})
	require.NoError(t, err)
	assert.Equal(t, []access.IdentityResource{ev}, res.EVStation)
	assert.Empty(t, res.WiFi)
	assert.Equal(t, "resource_type=evstation", st.srv.RequestsFor(accesstest.OpIdentityListResources)[0].Query.Encode())

	_, err = c.Identity.AssignToUser(ctx, a.ID, &access.IdentityAssignment{ResourceType: access.IdentityEVStation, ResourceIDs: []string{ev.ID}})
	require.NoError(t, err)
	_, err = c.Identity.AssignToUser(ctx, a.ID, &access.IdentityAssignment{ResourceType: access.IdentityVPN, ResourceIDs: []string{ev.ID}})
	wantCode(t, err, access.CodeResourceNotFound)
	_, err = c.Identity.AssignToUser(ctx, "nobody", &access.IdentityAssignment{ResourceType: access.IdentityVPN, ResourceIDs: []string{ev.ID}})
	wantCode(t, err, access.CodeUserWorkerNotExists)
	mine, _, err := c.Identity.ListForUser(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, []access.IdentityResource{ev}, mine.EVStation)
	_, body := raw(t, st.srv, "GET", "/api/v1/developer/users/"+a.ID+"/identity/assignments", st.srv.Token(), "")
	assert.Contains(t, body, `"ev_station":[`, "assignments use the ev_station spelling")

	grp, _, err := c.UserGroups.CreateAndGet(ctx, &access.UserGroupRequest{Name: "Staff"})
	require.NoError(t, err)
	_, err = c.Identity.AssignToUserGroup(ctx, grp.ID, &access.IdentityAssignment{ResourceType: access.IdentityWiFi, ResourceIDs: []string{wifi.ID}})
	require.NoError(t, err)
	gres, _, err := c.Identity.ListForUserGroup(ctx, grp.ID)
	require.NoError(t, err)
	assert.Equal(t, []access.IdentityResource{wifi}, gres.WiFi)
	_, _, err = c.Identity.ListForUserGroup(ctx, "nope")
	wantCode(t, err, access.CodeResourceNotFound)
}

// TestPeoplePermissions: every people operation needs its permission; a
// token with all the others gets 403.
func TestPeoplePermissions(t *testing.T) {
	t.Parallel()
	st := newPeopleSite(t)
	u := st.srv.AddUser(access.User{FirstName: "A", LastName: "B"})
	g := st.srv.AddUserGroup("", "G", "")
	calls := []struct {
		perm accesstest.Permission
		call func(c *access.Client) error
	}{
		{accesstest.EditUser, func(c *access.Client) error {
			_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "x", LastName: "y"})
			return err
		}},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Users.List(ctx, nil); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Users.Search(ctx, nil); return err }},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.Users.Delete(ctx, u.ID); return err }},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.Users.SetAccessPolicies(ctx, u.ID, []string{}); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Users.ListAccessPolicies(ctx, u.ID, nil); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, err := c.Users.AssignLicensePlates(ctx, u.ID, []string{"P"})
			return err
		}},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.Users.UnassignLicensePlate(ctx, u.ID, "p"); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, _, err := c.Users.UploadAvatar(ctx, u.ID, nil, strings.NewReader("x"))
			return err
		}},
		{accesstest.EditUser, func(c *access.Client) error {
			_, err := c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: "n"})
			return err
		}},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.UserGroups.List(ctx); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.UserGroups.Get(ctx, g); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, err := c.UserGroups.Update(ctx, g, &access.UserGroupUpdate{Name: "n"})
			return err
		}},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.UserGroups.Delete(ctx, g); return err }},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.UserGroups.AddUsers(ctx, g, []string{u.ID}); return err }},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.UserGroups.RemoveUsers(ctx, g, []string{u.ID}); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.UserGroups.ListUsers(ctx, g); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.UserGroups.ListAllUsers(ctx, g); return err }},
		{accesstest.EditUser, func(c *access.Client) error { _, err := c.UserGroups.SetAccessPolicies(ctx, g, []string{}); return err }},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.UserGroups.ListAccessPolicies(ctx, g); return err }},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, _, err := c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: "n", ScheduleID: st.sched})
			return err
		}},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, err := c.AccessPolicies.Update(ctx, st.policy, &access.AccessPolicyUpdate{Name: access.Ptr("n")})
			return err
		}},
		{accesstest.EditPolicy, func(c *access.Client) error { _, err := c.AccessPolicies.Delete(ctx, st.policy); return err }},
		{accesstest.ViewPolicy, func(c *access.Client) error { _, _, err := c.AccessPolicies.Get(ctx, st.policy); return err }},
		{accesstest.ViewPolicy, func(c *access.Client) error { _, _, err := c.AccessPolicies.List(ctx); return err }},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, _, err := c.Schedules.Create(ctx, &access.ScheduleRequest{Name: "n", WeekSchedule: &access.WeekSchedule{}})
			return err
		}},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, err := c.Schedules.Update(ctx, st.sched, &access.ScheduleUpdate{Name: access.Ptr("n")})
			return err
		}},
		{accesstest.ViewPolicy, func(c *access.Client) error { _, _, err := c.Schedules.List(ctx); return err }},
		{accesstest.EditPolicy, func(c *access.Client) error { _, err := c.Schedules.Delete(ctx, st.sched); return err }},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, _, err := c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: "n"})
			return err
		}},
		{accesstest.EditPolicy, func(c *access.Client) error {
			_, _, err := c.HolidayGroups.Update(ctx, st.holidays, &access.HolidayGroupUpdate{Name: "n"})
			return err
		}},
		{accesstest.EditPolicy, func(c *access.Client) error { _, err := c.HolidayGroups.Delete(ctx, st.holidays); return err }},
		{accesstest.ViewPolicy, func(c *access.Client) error { _, _, err := c.HolidayGroups.Get(ctx, st.holidays); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, _, err := c.Identity.SendInvitations(ctx, []access.Invitation{{UserID: u.ID}})
			return err
		}},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Identity.ListResources(ctx, nil); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, err := c.Identity.AssignToUser(ctx, u.ID, &access.IdentityAssignment{ResourceType: access.IdentityVPN, ResourceIDs: []string{"r"}})
			return err
		}},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Identity.ListForUser(ctx, u.ID); return err }},
		{accesstest.EditUser, func(c *access.Client) error {
			_, err := c.Identity.AssignToUserGroup(ctx, g, &access.IdentityAssignment{ResourceType: access.IdentityVPN, ResourceIDs: []string{"r"}})
			return err
		}},
		{accesstest.ViewUser, func(c *access.Client) error { _, _, err := c.Identity.ListForUserGroup(ctx, g); return err }},
	}
	for i, tc := range calls {
		var others []accesstest.Permission
		for _, p := range accesstest.AllPermissions() {
			if p != tc.perm {
				others = append(others, p)
			}
		}
		tok := "all-but-" + string(tc.perm)
		st.srv.AddToken(tok, others...)
		err := tc.call(st.srv.ClientWithToken(tok, noRetry()))
		assert.ErrorIs(t, err, access.ErrForbidden, "call %d", i)
		assert.Equal(t, access.CodeUnauthorized, apiErr(t, err).Code, "call %d", i)
		st.srv.AddToken("only", tc.perm)
		err = tc.call(st.srv.ClientWithToken("only", noRetry()))
		var ae *access.APIError
		if errors.As(err, &ae) {
			assert.NotEqual(t, http.StatusForbidden, ae.StatusCode, "call %d with its permission: %v", i, err)
		}
	}
}
