package access

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peopleWireCases is one call of every user, user-group, access-policy,
// schedule, holiday-group and Identity operation (issue 12): the exact
// request it puts on the wire and the decoding of the vendor's sample (or,
// where the vendor has none, an answer built from its response table).
func peopleWireCases() []wireCase {
	const uid = "17d2f099-99df-429b-becb-1399a6937e5a"
	const gid = "a1f2c3d4-0000-4000-8000-000000000002"
	return []wireCase{
		{"Users.Create", "POST", "/users",
			`{"first_name":"Ada","last_name":"Lovelace","user_email":"ada@example.com","employee_number":"E1","onboard_time":1689047588}`, "user_create",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.Create(ctx, &UserRequest{FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com", EmployeeNumber: "E1", OnboardTime: time.Unix(1689047588, 0)})
				return v, err
			}, func(t *testing.T, v any) {
				assert.Equal(t, &User{ID: "37f2b996-c2c4-4a8b-9c3d-4f1a0d7e2b11", FirstName: "Ada", LastName: "Lovelace", UserEmail: "ada@example.com"}, v)
			}},
		{"Users.Create (required only)", "POST", "/users", `{"first_name":"Ada","last_name":"L"}`, "user_create",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.Create(ctx, &UserRequest{FirstName: "Ada", LastName: "L"})
				return v, err
			}, nil},
		{"Users.Update (deactivate)", "PUT", "/users/" + uid, `{"status":"DEACTIVATED"}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.Update(ctx, uid, &UserUpdate{Status: Ptr(UserStatusDeactivated)})
			}, nil},
		{"Users.Update (set onboard time)", "PUT", "/users/" + uid, `{"onboard_time":1689047588}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.Update(ctx, uid, &UserUpdate{OnboardTime: Ptr(time.Date(2023, 7, 11, 4, 53, 8, 900, time.FixedZone("x", 3600)))})
			}, nil},
		{"Users.Update (fields)", "PUT", "/users/u%2F1", `{"first_name":"Ada","last_name":"King","user_email":"","employee_number":"E2","onboard_time":0}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.Update(ctx, "u/1", &UserUpdate{FirstName: Ptr("Ada"), LastName: Ptr("King"), UserEmail: Ptr(""), EmployeeNumber: Ptr("E2"), OnboardTime: Ptr(time.Time{})})
			}, nil},
		{"Users.List", "GET", "/users?expand%5B%5D=access_policy&page_num=2&page_size=50", "", "users_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, resp, err := c.Users.List(ctx, &UserListOptions{Expand: []UserExpand{UserExpandAccessPolicy}, PageNum: 2, PageSize: 50})
				if err != nil {
					return nil, err
				}
				return listed{v, resp.Pagination}, nil
			}, func(t *testing.T, v any) {
				l := v.(listed)
				assert.Equal(t, &Pagination{PageNum: 1, PageSize: 2, Total: 2}, l.p)
				us := l.users
				require.Len(t, us, 2)
				assert.Equal(t, "*** L", us[0].FullName)
				assert.Equal(t, UnixTime(1689047588), us[0].OnboardTime)
				assert.Equal(t, []NFCCard{{ID: "100001", Token: "d27822fc682b478dc637c6db01813e465174df6e54ca515d8427db623cfda1d0", Type: "ua_card"}}, us[0].NFCCards)
				assert.Nil(t, us[0].PINCode)
				assert.Equal(t, UserStatusDeactivated, us[1].Status)
				assert.True(t, us[1].OnboardTime.IsZero())
				assert.Equal(t, "E1001", us[1].EmployeeNumber)
			}},
		{"Users.List (nil options)", "GET", "/users", "", "users_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.List(ctx, nil)
				return v, err
			}, nil},
		{"Users.Delete", "DELETE", "/users/" + uid, "", "success",
			func(ctx context.Context, c *Client) (any, error) { return c.Users.Delete(ctx, uid) }, nil},
		{"Users.Search (repeated keys)", "GET", "/users/search?keyword=Ada+L&only_admin=true&page_num=1&page_size=10&status=ACTIVE&status=PENDING&user_id=u1&user_id=u%262", "", "users_search",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.Search(ctx, &UserSearchOptions{Keyword: "Ada L", UserIDs: []string{"u1", "u&2"}, OnlyAdmin: true,
					Statuses: []UserStatus{UserStatusActive, UserStatusPending}, PageNum: 1, PageSize: 10})
				return v, err
			}, func(t *testing.T, v any) {
				us := v.([]User)
				require.Len(t, us, 1)
				assert.Equal(t, "ada", us[0].Username)
				assert.Equal(t, "ada@ui.com", us[0].Email)
				assert.Equal(t, "/avatar/17d2f099", us[0].AvatarRelativePath)
				assert.Equal(t, "VERIFIED", us[0].EmailStatus)
			}},
		{"Users.SetAccessPolicies", "PUT", "/users/" + uid + "/access_policies", `{"access_policy_ids":["p1","p2"]}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.SetAccessPolicies(ctx, uid, []string{"p1", "p2"})
			}, nil},
		{"Users.SetAccessPolicies (remove all)", "PUT", "/users/" + uid + "/access_policies", `{"access_policy_ids":[]}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.SetAccessPolicies(ctx, uid, []string{})
			}, nil},
		{"Users.ListAccessPolicies", "GET", "/users/" + uid + "/access_policies?only_user_policies=false", "", "user_access_policies",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.ListAccessPolicies(ctx, uid, &UserPoliciesOptions{OnlyUserPolicies: Ptr(false)})
				return v, err
			}, func(t *testing.T, v any) {
				ps := v.([]AccessPolicy)
				require.Len(t, ps, 1)
				assert.Equal(t, "73facd6c-839e-4521-a4f4-c07e1d44e748", ps[0].ScheduleID)
				assert.Equal(t, Resource{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Type: ResourceDoor}, ps[0].Resources[2])
			}},
		{"Users.ListAccessPolicies (default)", "GET", "/users/" + uid + "/access_policies", "", "user_access_policies",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Users.ListAccessPolicies(ctx, uid, nil)
				return v, err
			}, nil},
		{"Users.AssignLicensePlates (bare array)", "PUT", "/users/" + uid + "/license_plates", `["JQ178","AB 12<3>"]`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.AssignLicensePlates(ctx, uid, []string{"JQ178", "AB 12<3>"})
			}, nil},
		{"Users.UnassignLicensePlate", "DELETE", "/users/" + uid + "/license_plates/5cac1825-f5e9-410d-a32e-a1fb9fc83b92", "", "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Users.UnassignLicensePlate(ctx, uid, "5cac1825-f5e9-410d-a32e-a1fb9fc83b92")
			}, nil},

		{"UserGroups.Create", "POST", "/user_groups", `{"name":"Firmware","up_id":"a1f2c3d4-0000-4000-8000-000000000001"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.Create(ctx, &UserGroupRequest{Name: "Firmware", UpID: "a1f2c3d4-0000-4000-8000-000000000001"})
			}, nil},
		{"UserGroups.Create (top level)", "POST", "/user_groups", `{"name":"Engineering"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.Create(ctx, &UserGroupRequest{Name: "Engineering"})
			}, nil},
		{"UserGroups.List", "GET", "/user_groups", "", "user_groups_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.UserGroups.List(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				gs := v.([]UserGroup)
				require.Len(t, gs, 2)
				assert.Equal(t, UserGroup{ID: gid, Name: "Firmware", FullName: "Engineering / Firmware", UpID: "a1f2c3d4-0000-4000-8000-000000000001",
					UpIDs: []string{"a1f2c3d4-0000-4000-8000-000000000001"}}, gs[1])
				assert.Empty(t, gs[0].UpID)
			}},
		{"UserGroups.Get", "GET", "/user_groups/" + gid, "", "user_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.UserGroups.Get(ctx, gid)
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "Engineering / Firmware", v.(*UserGroup).FullName) }},
		{"UserGroups.Update", "PUT", "/user_groups/" + gid, `{"name":"FW"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.Update(ctx, gid, &UserGroupUpdate{Name: "FW"})
			}, nil},
		{"UserGroups.Update (move)", "PUT", "/user_groups/" + gid, `{"name":"FW","up_id":"g0"}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.Update(ctx, gid, &UserGroupUpdate{Name: "FW", UpID: Ptr("g0")})
			}, nil},
		{"UserGroups.Update (to the top)", "PUT", "/user_groups/" + gid, `{"name":"FW","up_id":""}`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.Update(ctx, gid, &UserGroupUpdate{Name: "FW", UpID: Ptr("")})
			}, nil},
		{"UserGroups.Delete", "DELETE", "/user_groups/" + gid, "", "success",
			func(ctx context.Context, c *Client) (any, error) { return c.UserGroups.Delete(ctx, gid) }, nil},
		{"UserGroups.AddUsers (bare array)", "POST", "/user_groups/" + gid + "/users", `["u1","u2"]`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.AddUsers(ctx, gid, []string{"u1", "u2"})
			}, nil},
		{"UserGroups.RemoveUsers (bare array)", "POST", "/user_groups/" + gid + "/users/delete", `["u1"]`, "success",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.RemoveUsers(ctx, gid, []string{"u1"})
			}, nil},
		{"UserGroups.ListUsers", "GET", "/user_groups/" + gid + "/users", "", "user_group_users",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.UserGroups.ListUsers(ctx, gid)
				return v, err
			}, func(t *testing.T, v any) {
				us := v.([]User)
				require.Len(t, us, 1)
				assert.Equal(t, "ada", us[0].Username)
			}},
		{"UserGroups.ListAllUsers", "GET", "/user_groups/" + gid + "/users/all", "", "user_group_users",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.UserGroups.ListAllUsers(ctx, gid)
				return v, err
			}, func(t *testing.T, v any) { assert.Len(t, v.([]User), 1) }},
		{"UserGroups.SetAccessPolicies", "PUT", "/user_groups/" + gid + "/access_policies", `{"access_policy_ids":["p1"]}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.UserGroups.SetAccessPolicies(ctx, gid, []string{"p1"})
			}, nil},
		{"UserGroups.ListAccessPolicies", "GET", "/user_groups/" + gid + "/access_policies", "", "user_access_policies",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.UserGroups.ListAccessPolicies(ctx, gid)
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "test", v.([]AccessPolicy)[0].Name) }},

		{"AccessPolicies.Create (resources key)", "POST", "/access_policies",
			`{"name":"test","resources":[{"id":"d5573467-d6b3-4e8f-8e48-8a322b91664a","type":"door_group"},{"id":"6ff875d2-af87-470b-9cb5-774c6596afc8","type":"door"}],"schedule_id":"73facd6c-839e-4521-a4f4-c07e1d44e748"}`,
			"access_policy_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "test", ScheduleID: "73facd6c-839e-4521-a4f4-c07e1d44e748",
					Resources: []Resource{{ID: "d5573467-d6b3-4e8f-8e48-8a322b91664a", Name: "not sent", Type: ResourceDoorGroup}, {ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Type: ResourceDoor}}})
				return v, err
			}, func(t *testing.T, v any) {
				p := v.(*AccessPolicy)
				assert.Equal(t, "edbc80df-3698-49fd-8b53-f1867f104947", p.ID)
				assert.Len(t, p.Resources, 3)
			}},
		{"AccessPolicies.Create (no doors)", "POST", "/access_policies", `{"name":"n","resources":[],"schedule_id":"s"}`, "access_policy_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "n", ScheduleID: "s"})
				return v, err
			}, nil},
		{"AccessPolicies.Update", "PUT", "/access_policies/p1", `{"resources":[{"id":"d1","type":"door"}]}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.AccessPolicies.Update(ctx, "p1", &AccessPolicyUpdate{Resources: []Resource{{ID: "d1", Type: ResourceDoor}}})
			}, nil},
		{"AccessPolicies.Update (clear doors, rename)", "PUT", "/access_policies/p1", `{"name":"x","resources":[],"schedule_id":"s2"}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.AccessPolicies.Update(ctx, "p1", &AccessPolicyUpdate{Name: Ptr("x"), Resources: []Resource{}, ScheduleID: Ptr("s2")})
			}, nil},
		{"AccessPolicies.Delete", "DELETE", "/access_policies/p1", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return c.AccessPolicies.Delete(ctx, "p1") }, nil},
		{"AccessPolicies.Get", "GET", "/access_policies/edbc80df-3698-49fd-8b53-f1867f104947", "", "access_policy_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.AccessPolicies.Get(ctx, "edbc80df-3698-49fd-8b53-f1867f104947")
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "test", v.(*AccessPolicy).Name) }},
		{"AccessPolicies.List", "GET", "/access_policies", "", "access_policies_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.AccessPolicies.List(ctx)
				return v, err
			}, func(t *testing.T, v any) { assert.Equal(t, "Lobby", v.([]AccessPolicy)[1].Name) }},

		{"Schedules.Create (week_schedule out, weekly back)", "POST", "/access_policies/schedules",
			`{"name":"schedule-1688977094169","week_schedule":{"sunday":[],"monday":[{"start_time":"10:00:00","end_time":"17:00:59"}],"tuesday":[],"wednesday":[],"thursday":[],"friday":[],"saturday":[]},"holiday_group_id":"75660081-431b-4dbe-9b98-e0257877118e","holiday_schedule":[{"start_time":"09:15:00","end_time":"11:45:59"}]}`,
			"schedule_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Schedules.Create(ctx, &ScheduleRequest{Name: "schedule-1688977094169",
					WeekSchedule:   &WeekSchedule{Monday: []TimeRange{{StartTime: "10:00:00", EndTime: "17:00:59"}}},
					HolidayGroupID: "75660081-431b-4dbe-9b98-e0257877118e", HolidaySchedule: []TimeRange{{StartTime: "09:15:00", EndTime: "11:45:59"}}})
				return v, err
			}, func(t *testing.T, v any) {
				s := v.(*Schedule)
				require.NotNil(t, s.WeekSchedule, "weekly decoded")
				assert.Equal(t, []TimeRange{{StartTime: "10:00:00", EndTime: "17:01:59"}}, s.WeekSchedule.Thursday)
				assert.Equal(t, []TimeRange{}, s.WeekSchedule.Saturday)
				require.NotNil(t, s.HolidayGroup)
				start, err := s.HolidayGroup.Holidays[0].StartTime.Time()
				require.NoError(t, err)
				assert.Equal(t, time.Date(2023, 8, 25, 0, 0, 0, 0, time.UTC), start)
			}},
		{"Schedules.Update", "PUT", "/access_policies/schedules/s1", `{"name":"Office"}`, "schedule_update",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Schedules.Update(ctx, "s1", &ScheduleUpdate{Name: Ptr("Office")})
			}, nil},
		{"Schedules.Update (set every member)", "PUT", "/access_policies/schedules/s1",
			`{"name":"Office","week_schedule":{"sunday":[],"monday":[{"start_time":"10:00:00","end_time":"17:00:59"}],"tuesday":[],"wednesday":[],"thursday":[],"friday":[],"saturday":[]},"holiday_group_id":"h2","holiday_schedule":[{"start_time":"09:15:00","end_time":"11:45:59"}]}`,
			"schedule_update",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Schedules.Update(ctx, "s1", &ScheduleUpdate{Name: Ptr("Office"),
					WeekSchedule:   &WeekSchedule{Monday: []TimeRange{{StartTime: "10:00:00", EndTime: "17:00:59"}}},
					HolidayGroupID: Ptr("h2"), HolidaySchedule: []TimeRange{{StartTime: "09:15:00", EndTime: "11:45:59"}}})
			}, nil},
		{"Schedules.Update (clear holiday group and ranges)", "PUT", "/access_policies/schedules/s1",
			`{"holiday_group_id":"","holiday_schedule":[]}`, "schedule_update",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Schedules.Update(ctx, "s1", &ScheduleUpdate{HolidayGroupID: Ptr(""), HolidaySchedule: []TimeRange{}})
			}, nil},
		{"Schedules.List (SUCCEED)", "GET", "/access_policies/schedules", "", "schedules_list",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Schedules.List(ctx)
				return v, err
			}, func(t *testing.T, v any) {
				ss := v.([]Schedule)
				require.Len(t, ss, 2)
				assert.Equal(t, 1, ss[0].Status)
				assert.Equal(t, "75660081-431b-4dbe-9b98-e0257877118e", ss[0].HolidayGroupID)
				assert.True(t, ss[1].IsDefault)
				assert.Nil(t, ss[0].WeekSchedule)
			}},
		{"Schedules.Delete", "DELETE", "/access_policies/schedules/s1", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return c.Schedules.Delete(ctx, "s1") }, nil},

		{"HolidayGroups.Create (RFC 3339 out)", "POST", "/access_policies/holiday_groups",
			`{"name":"Holiday Group-16928679155714","holidays":[{"name":"Holiday Name 1","repeat":false,"is_template":false,"start_time":"2023-08-25T00:00:00Z","end_time":"2023-08-26T00:00:00Z"}]}`,
			"holiday_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				zurich := time.FixedZone("CEST", 2*3600)
				v, _, err := c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "Holiday Group-16928679155714", Holidays: []HolidayRequest{{
					Name: "Holiday Name 1", StartTime: time.Date(2023, 8, 25, 2, 0, 0, 0, zurich), EndTime: time.Date(2023, 8, 26, 0, 0, 0, 0, time.UTC)}}})
				return v, err
			}, func(t *testing.T, v any) {
				g := v.(*HolidayGroup)
				require.Len(t, g.Holidays, 2)
				assert.Equal(t, DateTime("2023-08-26 00:00:00Z"), g.Holidays[0].EndTime, "kept in the console's format")
				end, err := g.Holidays[0].EndTime.Time()
				require.NoError(t, err)
				assert.Equal(t, time.Date(2023, 8, 26, 0, 0, 0, 0, time.UTC), end)
			}},
		{"HolidayGroups.Update", "PUT", "/access_policies/holiday_groups/g1",
			`{"name":"G","description":"d","holidays":[{"id":"h1","name":"H","description":"x","repeat":true,"is_template":true,"start_time":"2026-12-25T00:00:00Z","end_time":"2026-12-26T00:00:00Z"}]}`,
			"holiday_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.HolidayGroups.Update(ctx, "g1", &HolidayGroupUpdate{Name: "G", Description: Ptr("d"), Holidays: []HolidayRequest{{ID: "h1", Name: "H", Description: "x",
					Repeat: true, IsTemplate: true, StartTime: time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC), EndTime: time.Date(2026, 12, 26, 0, 0, 0, 0, time.UTC)}}})
				return v, err
			}, nil},
		{"HolidayGroups.Update (rename, keep the rest)", "PUT", "/access_policies/holiday_groups/g1", `{"name":"G"}`, "holiday_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.HolidayGroups.Update(ctx, "g1", &HolidayGroupUpdate{Name: "G"})
				return v, err
			}, nil},
		{"HolidayGroups.Update (clear description and holidays)", "PUT", "/access_policies/holiday_groups/g1",
			`{"name":"G","description":"","holidays":[]}`, "holiday_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.HolidayGroups.Update(ctx, "g1", &HolidayGroupUpdate{Name: "G", Description: Ptr(""), Holidays: []HolidayRequest{}})
				return v, err
			}, nil},
		{"HolidayGroups.Delete", "DELETE", "/access_policies/holiday_groups/g1", "", "success",
			func(ctx context.Context, c *Client) (any, error) { return c.HolidayGroups.Delete(ctx, "g1") }, nil},
		{"HolidayGroups.Get", "GET", "/access_policies/holiday_groups/75660081-431b-4dbe-9b98-e0257877118e", "", "holiday_group_get",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.HolidayGroups.Get(ctx, "75660081-431b-4dbe-9b98-e0257877118e")
				return v, err
			}, func(t *testing.T, v any) {
				g := v.(*HolidayGroup)
				assert.Equal(t, "Holiday Group-16928679155714", g.Name)
				assert.Equal(t, "d23a4226-765f-4967-b84f-6dfd53f33c89", g.Holidays[1].ID)
			}},

		{"Identity.SendInvitations (failures inside SUCCESS)", "POST", "/users/identity/invitations",
			`[{"user_id":"3e763e5d-6804-437d-ae8d-3fee74119b80","email":"not-an-email"},{"user_id":"u2"}]`, "identity_invitations",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Identity.SendInvitations(ctx, []Invitation{{UserID: "3e763e5d-6804-437d-ae8d-3fee74119b80", Email: "not-an-email"}, {UserID: "u2"}})
				var ie *InvitationError
				if errors.As(err, &ie) {
					return invited{v, ie}, nil // the expected outcome
				}
				return nil, fmt.Errorf("want an *InvitationError, got %v", err)
			}, func(t *testing.T, v any) {
				f := v.(invited).failed
				assert.Equal(t, f, v.(invited).err.Failures, "the error lists the returned failures")
				assert.ErrorContains(t, v.(invited).err, "1 invitation(s) failed: 3e763e5d-6804-437d-ae8d-3fee74119b80 (CODE_USER_EMAIL_ERROR")
				require.Len(t, f, 1)
				assert.Equal(t, InvitationFailure{UserID: "3e763e5d-6804-437d-ae8d-3fee74119b80", UserEmail: "not-an-email", ErrorCode: CodeUserEmailError,
					ErrorMsg: "The provided email format is invalid."}, f[0])
			}},
		{"Identity.ListResources (evstation spelling)", "GET", "/users/identity/assignments?resource_type=evstation%2Cwifi", "", "identity_resources",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Identity.ListResources(ctx, &IdentityResourceOptions{Types: []IdentityResourceType{IdentityEVStation, IdentityWiFi}})
				return v, err
			}, func(t *testing.T, v any) {
				r := v.(*IdentityResources)
				require.Len(t, r.EVStation, 1)
				assert.Equal(t, "Garage chargers", r.EVStation[0].Name)
				assert.JSONEq(t, `{"site":"HQ"}`, string(r.EVStation[0].Metadata))
				assert.Equal(t, "HQ-Staff", r.WiFi[0].Name)
			}},
		{"Identity.ListResources (all)", "GET", "/users/identity/assignments", "", "identity_resources",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Identity.ListResources(ctx, nil)
				return v, err
			}, nil},
		{"Identity.AssignToUser", "POST", "/users/" + uid + "/identity/assignments", `{"resource_type":"ev_station","resource_ids":["r1","r2"]}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Identity.AssignToUser(ctx, uid, &IdentityAssignment{ResourceType: IdentityEVStation, ResourceIDs: []string{"r1", "r2"}})
			}, nil},
		{"Identity.ListForUser (ev_station spelling)", "GET", "/users/" + uid + "/identity/assignments", "", "identity_assigned",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Identity.ListForUser(ctx, uid)
				return v, err
			}, func(t *testing.T, v any) {
				r := v.(*IdentityResources)
				require.Len(t, r.EVStation, 1)
				assert.Empty(t, r.VPN)
			}},
		{"Identity.AssignToUserGroup", "POST", "/user_groups/" + gid + "/identity/assignments", `{"resource_type":"wifi","resource_ids":["w1"]}`, "null",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Identity.AssignToUserGroup(ctx, gid, &IdentityAssignment{ResourceType: IdentityWiFi, ResourceIDs: []string{"w1"}})
			}, nil},
		{"Identity.ListForUserGroup", "GET", "/user_groups/" + gid + "/identity/assignments", "", "identity_assigned",
			func(ctx context.Context, c *Client) (any, error) {
				v, _, err := c.Identity.ListForUserGroup(ctx, gid)
				return v, err
			}, func(t *testing.T, v any) { assert.Len(t, v.(*IdentityResources).WiFi, 1) }},
	}
}

type listed struct {
	users []User
	p     *Pagination
}

type invited struct {
	failed []InvitationFailure
	err    *InvitationError
}

// TestPeopleOperationsWire checks the exact request of every people
// operation and the decoding of its sample answer.
func TestPeopleOperationsWire(t *testing.T) {
	t.Parallel()
	runWireCases(t, peopleWireCases())
}
