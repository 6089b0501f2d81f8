package access

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gatedReader yields head, then blocks until gate is closed (or a
// timeout), then yields tail: a body that cannot be buffered whole before
// the server has seen its beginning.
type gatedReader struct {
	head, tail []byte
	gate       chan struct{}
	stage      int
	timedOut   bool
}

func (g *gatedReader) Read(p []byte) (int, error) {
	switch g.stage {
	case 0:
		g.stage++
		return copy(p, g.head), nil
	case 1:
		g.stage++
		select {
		case <-g.gate:
		case <-time.After(10 * time.Second): // a failure bound, not synchronisation
			g.timedOut = true
		}
		return copy(p, g.tail), nil
	}
	return 0, io.EOF
}

// TestUploadAvatarStreams: the picture goes out as multipart part "file"
// while it is still being read: the server sees the first bytes before
// the reader has produced the rest.
func TestUploadAvatarStreams(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	g := &gatedReader{head: bytes.Repeat([]byte{0xff}, 4096), tail: []byte("end-of-picture"), gate: make(chan struct{})}
	mux.HandleFunc("POST /api/v1/developer/users/{id}/avatar", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "u1", r.PathValue("id"))
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		require.NoError(t, err)
		assert.Equal(t, "multipart/form-data", mt)
		part, err := multipart.NewReader(r.Body, params["boundary"]).NextPart()
		require.NoError(t, err)
		assert.Equal(t, "file", part.FormName())
		assert.Equal(t, "ada.png", part.FileName())
		assert.Equal(t, "image/png", part.Header.Get("Content-Type"))
		head := make([]byte, 4096)
		_, err = io.ReadFull(part, head)
		require.NoError(t, err)
		close(g.gate) // the head arrived while the reader still holds the tail
		rest, err := io.ReadAll(part)
		require.NoError(t, err)
		assert.Equal(t, "end-of-picture", string(rest))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"avatar_url":"https://console/avatar/u1.png"}}`)
	})
	av, _, err := c.Users.UploadAvatar(context.Background(), "u1", &AvatarOptions{FileName: "ada.png", ContentType: "image/png"}, g)
	require.NoError(t, err)
	assert.False(t, g.timedOut, "the request was not sent before the reader finished")
	assert.Equal(t, "https://console/avatar/u1.png", av.AvatarURL)
}

// TestUploadAvatarIsNeverRetried: the reader cannot be read twice, so even
// with RetryWrites a failed upload is not repeated.
func TestUploadAvatarIsNeverRetried(t *testing.T) {
	t.Parallel()
	policy := fastRetry()
	policy.RetryWrites = true
	c, mux, _ := setup(t, WithRetryPolicy(policy))
	var n atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/users/{id}/avatar", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
	})
	_, _, err := c.Users.UploadAvatar(context.Background(), "u1", nil, bytes.NewReader([]byte("jpeg")))
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, int32(1), n.Load())
}

// TestUsersAllAndSearchAllPage: both iterators go through the one pager,
// with the options' filters on every page; Search answers carry no
// pagination, so SearchAll stops at the first short page.
func TestUsersAllAndSearchAllPage(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	const total = 7
	page := func(num, size int) string {
		var b bytes.Buffer
		b.WriteString("[")
		for i := (num - 1) * size; i < min(num*size, total); i++ {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":"u%d","first_name":"F%d","status":"ACTIVE"}`, i, i)
		}
		b.WriteString("]")
		return b.String()
	}
	var listQ, searchQ []string
	mux.HandleFunc("GET /api/v1/developer/users", func(w http.ResponseWriter, r *http.Request) {
		listQ = append(listQ, r.URL.RawQuery)
		num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		writeRaw(w, 200, "application/json", fmt.Sprintf(`{"code":"SUCCESS","data":%s,"pagination":{"page_num":%d,"page_size":%d,"total":%d}}`, page(num, size), num, size, total))
	})
	mux.HandleFunc("GET /api/v1/developer/users/search", func(w http.ResponseWriter, r *http.Request) {
		searchQ = append(searchQ, r.URL.RawQuery)
		num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":`+page(num, size)+`}`)
	})
	ctx := context.Background()
	opts := &UserListOptions{PageSize: 3, Expand: []UserExpand{UserExpandAccessPolicy}}
	var ids []string
	for u, err := range c.Users.All(ctx, opts) {
		require.NoError(t, err)
		ids = append(ids, u.ID)
	}
	assert.Equal(t, []string{"u0", "u1", "u2", "u3", "u4", "u5", "u6"}, ids)
	assert.Equal(t, []string{"expand%5B%5D=access_policy&page_num=1&page_size=3", "expand%5B%5D=access_policy&page_num=2&page_size=3",
		"expand%5B%5D=access_policy&page_num=3&page_size=3"}, listQ)
	assert.Equal(t, &UserListOptions{PageSize: 3, Expand: []UserExpand{UserExpandAccessPolicy}}, opts, "options not modified")

	ids = nil
	for u, err := range c.Users.SearchAll(ctx, &UserSearchOptions{Statuses: []UserStatus{UserStatusActive}, PageSize: 4}) {
		require.NoError(t, err)
		ids = append(ids, u.ID)
	}
	assert.Len(t, ids, total)
	assert.Equal(t, []string{"page_num=1&page_size=4&status=ACTIVE", "page_num=2&page_size=4&status=ACTIVE"}, searchQ)

	// Breaking out of the loop stops the requests.
	listQ = nil
	for range c.Users.All(ctx, &UserListOptions{PageSize: 2}) {
		break
	}
	assert.Len(t, listQ, 1)
	// Bad options come out of the iterator as its only value.
	for _, err := range c.Users.SearchAll(ctx, &UserSearchOptions{Statuses: []UserStatus{"GONE"}}) {
		assert.ErrorIs(t, err, ErrValidation)
	}
}

// TestPeopleValidation: bad input fails before anything is sent.
func TestPeopleValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request would fail the test
	ctx := context.Background()
	errs := map[string]error{}
	add := func(name string, err error) { errs[name] = err }
	var err error
	_, _, err = c.Users.Create(ctx, nil)
	add("Users.Create nil", err)
	_, _, err = c.Users.Create(ctx, &UserRequest{FirstName: "A"})
	add("Users.Create no last name", err)
	_, _, err = c.Users.Create(ctx, &UserRequest{LastName: "B", FirstName: " "})
	add("Users.Create blank first name", err)
	_, _, err = c.Users.Create(ctx, &UserRequest{FirstName: "A", LastName: "B", OnboardTime: time.Unix(-1, 0)})
	add("Users.Create onboard before 1970", err)
	var nilCtx context.Context // a nil context is what is tested
	_, _, err = c.Users.Create(nilCtx, &UserRequest{FirstName: "A", LastName: "B"})
	add("Users.Create nil ctx", err)
	_, err = c.Users.Update(ctx, "u1", nil)
	add("Users.Update nil", err)
	_, err = c.Users.Update(ctx, "u1", &UserUpdate{})
	add("Users.Update nothing", err)
	_, err = c.Users.Update(ctx, "u1", &UserUpdate{Status: Ptr(UserStatusPending)})
	add("Users.Update pending", err)
	_, err = c.Users.Update(ctx, "u1", &UserUpdate{FirstName: Ptr("")})
	add("Users.Update empty first name", err)
	_, err = c.Users.Update(ctx, "u1", &UserUpdate{OnboardTime: Ptr(time.Unix(-1, 0))})
	add("Users.Update onboard before 1970", err)
	_, err = c.Users.Update(ctx, "", &UserUpdate{Status: Ptr(UserStatusActive)})
	add("Users.Update empty id", err)
	_, _, err = c.Users.List(ctx, &UserListOptions{PageSize: -1})
	add("Users.List negative size", err)
	_, _, err = c.Users.List(ctx, &UserListOptions{Expand: []UserExpand{""}})
	add("Users.List empty expand", err)
	_, err = c.Users.Delete(ctx, "..")
	add("Users.Delete dot id", err)
	_, _, err = c.Users.Search(ctx, &UserSearchOptions{UserIDs: []string{""}})
	add("Users.Search empty user id", err)
	_, _, err = c.Users.Search(ctx, &UserSearchOptions{Statuses: []UserStatus{"GONE"}})
	add("Users.Search bad status", err)
	_, _, err = c.Users.Search(ctx, &UserSearchOptions{PageNum: -2})
	add("Users.Search negative page", err)
	_, err = c.Users.SetAccessPolicies(ctx, "u1", nil)
	add("Users.SetAccessPolicies nil", err)
	_, err = c.Users.SetAccessPolicies(ctx, "u1", []string{"p", " "})
	add("Users.SetAccessPolicies blank id", err)
	_, _, err = c.Users.ListAccessPolicies(ctx, "", nil)
	add("Users.ListAccessPolicies empty id", err)
	_, err = c.Users.AssignLicensePlates(ctx, "u1", nil)
	add("Users.AssignLicensePlates none", err)
	_, err = c.Users.AssignLicensePlates(ctx, "u1", []string{""})
	add("Users.AssignLicensePlates empty plate", err)
	_, err = c.Users.UnassignLicensePlate(ctx, "u1", "")
	add("Users.UnassignLicensePlate empty plate id", err)
	_, err = c.Users.UnassignLicensePlate(ctx, "", "p")
	add("Users.UnassignLicensePlate empty user id", err)
	_, _, err = c.Users.UploadAvatar(ctx, "u1", nil, nil)
	add("Users.UploadAvatar nil reader", err)
	_, _, err = c.Users.UploadAvatar(ctx, "", nil, bytes.NewReader(nil))
	add("Users.UploadAvatar empty id", err)

	_, err = c.UserGroups.Create(ctx, nil)
	add("UserGroups.Create nil", err)
	_, err = c.UserGroups.Create(ctx, &UserGroupRequest{UpID: "g"})
	add("UserGroups.Create no name", err)
	_, _, err = c.UserGroups.CreateAndGet(ctx, &UserGroupRequest{})
	add("UserGroups.CreateAndGet no name", err)
	_, _, err = c.UserGroups.Find(ctx, "", "")
	add("UserGroups.Find no name", err)
	_, _, err = c.UserGroups.Get(ctx, "")
	add("UserGroups.Get empty id", err)
	_, err = c.UserGroups.Update(ctx, "g", &UserGroupUpdate{UpID: Ptr("g0")})
	add("UserGroups.Update no name", err)
	_, err = c.UserGroups.Update(ctx, "g", nil)
	add("UserGroups.Update nil", err)
	_, err = c.UserGroups.Delete(ctx, "")
	add("UserGroups.Delete empty id", err)
	_, err = c.UserGroups.AddUsers(ctx, "g", []string{})
	add("UserGroups.AddUsers none", err)
	_, err = c.UserGroups.RemoveUsers(ctx, "g", []string{"u", ""})
	add("UserGroups.RemoveUsers blank", err)
	_, _, err = c.UserGroups.ListUsers(ctx, "")
	add("UserGroups.ListUsers empty id", err)
	_, _, err = c.UserGroups.ListAllUsers(ctx, ".")
	add("UserGroups.ListAllUsers dot id", err)
	_, err = c.UserGroups.SetAccessPolicies(ctx, "g", nil)
	add("UserGroups.SetAccessPolicies nil", err)
	_, _, err = c.UserGroups.ListAccessPolicies(ctx, "")
	add("UserGroups.ListAccessPolicies empty id", err)

	_, _, err = c.AccessPolicies.Create(ctx, nil)
	add("AccessPolicies.Create nil", err)
	_, _, err = c.AccessPolicies.Create(ctx, &AccessPolicyRequest{ScheduleID: "s"})
	add("AccessPolicies.Create no name", err)
	_, _, err = c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "n"})
	add("AccessPolicies.Create no schedule", err)
	_, _, err = c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "n", ScheduleID: "s", Resources: []Resource{{ID: "d", Type: "floor"}}})
	add("AccessPolicies.Create bad type", err)
	_, _, err = c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "n", ScheduleID: "s", Resources: []Resource{{Type: ResourceDoor}}})
	add("AccessPolicies.Create empty door id", err)
	_, err = c.AccessPolicies.Update(ctx, "p", &AccessPolicyUpdate{})
	add("AccessPolicies.Update nothing", err)
	_, err = c.AccessPolicies.Update(ctx, "p", &AccessPolicyUpdate{Name: Ptr("")})
	add("AccessPolicies.Update clear name", err)
	_, err = c.AccessPolicies.Update(ctx, "p", &AccessPolicyUpdate{ScheduleID: Ptr(" ")})
	add("AccessPolicies.Update clear schedule", err)
	_, err = c.AccessPolicies.Update(ctx, "p", nil)
	add("AccessPolicies.Update nil", err)
	_, err = c.AccessPolicies.Delete(ctx, "")
	add("AccessPolicies.Delete empty id", err)
	_, _, err = c.AccessPolicies.Get(ctx, "")
	add("AccessPolicies.Get empty id", err)

	_, _, err = c.Schedules.Create(ctx, nil)
	add("Schedules.Create nil", err)
	_, _, err = c.Schedules.Create(ctx, &ScheduleRequest{Name: "s"})
	add("Schedules.Create no week", err)
	_, _, err = c.Schedules.Create(ctx, &ScheduleRequest{WeekSchedule: &WeekSchedule{}})
	add("Schedules.Create no name", err)
	_, _, err = c.Schedules.Create(ctx, &ScheduleRequest{Name: "s", WeekSchedule: &WeekSchedule{Monday: []TimeRange{{StartTime: "9:00", EndTime: "17:00:00"}}}})
	add("Schedules.Create bad time", err)
	_, _, err = c.Schedules.Create(ctx, &ScheduleRequest{Name: "s", WeekSchedule: &WeekSchedule{Monday: []TimeRange{{StartTime: "17:00:00", EndTime: "09:00:00"}}}})
	add("Schedules.Create reversed range", err)
	_, err = c.Schedules.Update(ctx, "s", &ScheduleUpdate{})
	add("Schedules.Update nothing", err)
	_, err = c.Schedules.Update(ctx, "s", &ScheduleUpdate{Name: Ptr(" ")})
	add("Schedules.Update clear name", err)
	_, err = c.Schedules.Update(ctx, "s", nil)
	add("Schedules.Update nil", err)
	_, err = c.Schedules.Update(ctx, "s", &ScheduleUpdate{HolidaySchedule: []TimeRange{{StartTime: "x", EndTime: "y"}}})
	add("Schedules.Update bad holiday range", err)
	_, err = c.Schedules.Delete(ctx, "")
	add("Schedules.Delete empty id", err)

	day := time.Date(2026, 12, 25, 0, 0, 0, 0, time.UTC)
	_, _, err = c.HolidayGroups.Create(ctx, nil)
	add("HolidayGroups.Create nil", err)
	_, _, err = c.HolidayGroups.Create(ctx, &HolidayGroupRequest{})
	add("HolidayGroups.Create no name", err)
	_, _, err = c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "g", Holidays: []HolidayRequest{{Name: "x", StartTime: day}}})
	add("HolidayGroups.Create no end", err)
	_, _, err = c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "g", Holidays: []HolidayRequest{{Name: "x", StartTime: day, EndTime: day}}})
	add("HolidayGroups.Create empty span", err)
	_, _, err = c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "g", Holidays: []HolidayRequest{{StartTime: day, EndTime: day.Add(time.Hour)}}})
	add("HolidayGroups.Create unnamed holiday", err)
	_, _, err = c.HolidayGroups.Update(ctx, "", &HolidayGroupUpdate{Name: "g"})
	add("HolidayGroups.Update empty id", err)
	_, _, err = c.HolidayGroups.Update(ctx, "g", &HolidayGroupUpdate{Description: Ptr("d")})
	add("HolidayGroups.Update no name", err)
	_, _, err = c.HolidayGroups.Update(ctx, "g", nil)
	add("HolidayGroups.Update nil", err)
	_, _, err = c.HolidayGroups.Update(ctx, "g", &HolidayGroupUpdate{Name: "g", Holidays: []HolidayRequest{{Name: "x", StartTime: day}}})
	add("HolidayGroups.Update no end", err)
	_, err = c.HolidayGroups.Delete(ctx, "")
	add("HolidayGroups.Delete empty id", err)
	_, _, err = c.HolidayGroups.Get(ctx, "")
	add("HolidayGroups.Get empty id", err)

	_, _, err = c.Identity.SendInvitations(ctx, nil)
	add("Identity.SendInvitations none", err)
	_, _, err = c.Identity.SendInvitations(ctx, []Invitation{{Email: "a@b.c"}})
	add("Identity.SendInvitations no user", err)
	_, _, err = c.Identity.ListResources(ctx, &IdentityResourceOptions{Types: []IdentityResourceType{"camera"}})
	add("Identity.ListResources bad type", err)
	_, err = c.Identity.AssignToUser(ctx, "u", nil)
	add("Identity.AssignToUser nil", err)
	_, err = c.Identity.AssignToUser(ctx, "u", &IdentityAssignment{ResourceType: "evstation", ResourceIDs: []string{"r"}})
	add("Identity.AssignToUser list spelling", err)
	_, err = c.Identity.AssignToUserGroup(ctx, "g", &IdentityAssignment{ResourceType: IdentityVPN})
	add("Identity.AssignToUserGroup no ids", err)
	_, err = c.Identity.AssignToUserGroup(ctx, "", &IdentityAssignment{ResourceType: IdentityVPN, ResourceIDs: []string{"r"}})
	add("Identity.AssignToUserGroup empty id", err)
	_, _, err = c.Identity.ListForUser(ctx, "")
	add("Identity.ListForUser empty id", err)
	_, _, err = c.Identity.ListForUserGroup(ctx, "")
	add("Identity.ListForUserGroup empty id", err)

	for name, err := range errs {
		var ve *ValidationError
		assert.True(t, errors.As(err, &ve), "%s: %v", name, err)
		assert.ErrorIs(t, err, ErrValidation, name)
	}
	assert.Len(t, errs, 81)
}

// TestPeopleErrorCodes: the codes the people operations meet reach the
// caller classified.
func TestPeopleErrorCodes(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	answer := func(pattern string, status int, code ErrorCode) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			writeRaw(w, status, "application/json", `{"code":"`+string(code)+`","msg":"m"}`)
		})
	}
	answer("DELETE /api/v1/developer/users/{id}", 400, CodeOperationForbidden)
	answer("POST /api/v1/developer/user_groups", 400, CodeUserNameDuplicated)
	answer("DELETE /api/v1/developer/access_policies/schedules/{id}", 400, CodeAccessPolicyScheduleCanNotDelete)
	answer("DELETE /api/v1/developer/access_policies/holiday_groups/{id}", 200, CodeHolidayGroupCanNotDelete)
	answer("PUT /api/v1/developer/access_policies/holiday_groups/{id}", 400, CodeHolidayGroupCanNotEdit)
	answer("POST /api/v1/developer/access_policies", 400, CodeAccessPolicyScheduleNotFound)
	answer("POST /api/v1/developer/access_policies/schedules", 400, CodeAccessPolicyScheduleNameExist)
	answer("POST /api/v1/developer/access_policies/holiday_groups", 400, CodeAccessPolicyHolidayGroupNameExist)
	answer("GET /api/v1/developer/users/{id}/identity/assignments", 400, CodeUserWorkerNotExists)
	answer("POST /api/v1/developer/users/identity/invitations", 403, CodeUnauthorized)
	ctx := context.Background()
	check := func(err error, resp *Response, status int, code ErrorCode, class error) {
		t.Helper()
		var e *APIError
		require.ErrorAs(t, err, &e)
		assert.Equal(t, status, e.StatusCode)
		assert.Equal(t, code, e.Code)
		assert.ErrorIs(t, err, class)
		require.NotNil(t, resp)
		assert.Equal(t, code, resp.Code)
	}
	resp, err := c.Users.Delete(ctx, "active")
	check(err, resp, 400, CodeOperationForbidden, ErrForbidden)
	resp, err = c.UserGroups.Create(ctx, &UserGroupRequest{Name: "dup"})
	check(err, resp, 400, CodeUserNameDuplicated, ErrConflict)
	g, resp, err := c.UserGroups.CreateAndGet(ctx, &UserGroupRequest{Name: "dup"})
	assert.Nil(t, g)
	check(err, resp, 400, CodeUserNameDuplicated, ErrConflict)
	resp, err = c.Schedules.Delete(ctx, "s")
	check(err, resp, 400, CodeAccessPolicyScheduleCanNotDelete, ErrConflict)
	resp, err = c.HolidayGroups.Delete(ctx, "g")
	check(err, resp, 200, CodeHolidayGroupCanNotDelete, ErrConflict)
	hg, resp, err := c.HolidayGroups.Update(ctx, "g", &HolidayGroupUpdate{Name: "x"})
	assert.Nil(t, hg)
	check(err, resp, 400, CodeHolidayGroupCanNotEdit, ErrConflict)
	p, resp, err := c.AccessPolicies.Create(ctx, &AccessPolicyRequest{Name: "n", ScheduleID: "s"})
	assert.Nil(t, p)
	check(err, resp, 400, CodeAccessPolicyScheduleNotFound, ErrNotFound)
	s, resp, err := c.Schedules.Create(ctx, &ScheduleRequest{Name: "n", WeekSchedule: &WeekSchedule{}})
	assert.Nil(t, s)
	check(err, resp, 400, CodeAccessPolicyScheduleNameExist, ErrConflict)
	_, resp, err = c.HolidayGroups.Create(ctx, &HolidayGroupRequest{Name: "n"})
	check(err, resp, 400, CodeAccessPolicyHolidayGroupNameExist, ErrConflict)
	_, resp, err = c.Identity.ListForUser(ctx, "u")
	check(err, resp, 400, CodeUserWorkerNotExists, ErrNotFound)
	f, resp, err := c.Identity.SendInvitations(ctx, []Invitation{{UserID: "u"}})
	assert.Nil(t, f)
	check(err, resp, 403, CodeUnauthorized, ErrForbidden)
	var ie *InvitationError
	assert.False(t, errors.As(err, &ie), "an API error is not an InvitationError")
}

// TestCreateAndGetFindsTheGroup: the group is found by name and parent
// among groups with the same name elsewhere in the tree.
func TestCreateAndGetFindsTheGroup(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var created string
	mux.HandleFunc("POST /api/v1/developer/user_groups", func(w http.ResponseWriter, r *http.Request) {
		created = readJSONBody(t, r)
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":"success"}`)
	})
	mux.HandleFunc("GET /api/v1/developer/user_groups", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":[{"id":"top","name":"Ops","up_id":""},{"id":"eng","name":"Eng","up_id":""},`+
			`{"id":"eng-ops","name":"Ops","full_name":"Eng / Ops","up_id":"eng","up_ids":["eng"]}]}`)
	})
	g, _, err := c.UserGroups.CreateAndGet(context.Background(), &UserGroupRequest{Name: "Ops", UpID: "eng"})
	require.NoError(t, err)
	assert.Equal(t, `{"name":"Ops","up_id":"eng"}`, created)
	assert.Equal(t, "eng-ops", g.ID)
	g, _, err = c.UserGroups.Find(context.Background(), "Ops", "")
	require.NoError(t, err)
	assert.Equal(t, "top", g.ID)
	g, resp, err := c.UserGroups.Find(context.Background(), "ops", "")
	assert.Nil(t, g)
	assert.NotNil(t, resp)
	assert.ErrorIs(t, err, ErrGroupNotFound)
	assert.ErrorIs(t, err, ErrNotFound)
}

// TestUserQueriesMatchTheirTags: the hand-written query encoders send
// exactly what go-querystring makes of the options' url tags.
func TestUserQueriesMatchTheirTags(t *testing.T) {
	t.Parallel()
	lists := []*UserListOptions{nil, {}, {PageNum: 3}, {PageSize: 7, Expand: []UserExpand{UserExpandAccessPolicy, "x"}}}
	for _, o := range lists {
		want, err := query.Values(o)
		require.NoError(t, err)
		assert.Equal(t, want.Encode(), o.query().Encode(), "%+v", o)
	}
	searches := []*UserSearchOptions{nil, {}, {Keyword: "a b&c", OnlyAdmin: true}, {UserIDs: []string{"u2", "u1"}, Statuses: []UserStatus{UserStatusPending, UserStatusActive}, PageNum: 2, PageSize: 9}}
	for _, o := range searches {
		want, err := query.Values(o)
		require.NoError(t, err)
		assert.Equal(t, want.Encode(), o.query().Encode(), "%+v", o)
	}
}

// TestPeopleHostileIDs: ids reach the server as one escaped path segment
// each, whatever they hold, in every position of the people paths.
func TestPeopleHostileIDs(t *testing.T) {
	t.Parallel()
	hostile := []string{"a/b", "../../users/1", "..%2F", "x?y=1", "x#frag", "100%", "a b", "ünï/cødé", "emoji🚪"}
	type seen struct{ rawPath, a, b string }
	got := make(chan seen, 1)
	c, mux, _ := setup(t)
	for _, p := range []string{"DELETE /api/v1/developer/users/{a}", "DELETE /api/v1/developer/users/{a}/license_plates/{b}",
		"POST /api/v1/developer/user_groups/{a}/users/delete", "GET /api/v1/developer/access_policies/{a}",
		"DELETE /api/v1/developer/access_policies/schedules/{a}", "GET /api/v1/developer/access_policies/holiday_groups/{a}",
		"POST /api/v1/developer/users/{a}/avatar", "GET /api/v1/developer/user_groups/{a}/identity/assignments"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			got <- seen{r.URL.EscapedPath(), r.PathValue("a"), r.PathValue("b")}
			writeRaw(w, 200, "application/json", `{"code":"SUCCESS","data":{"id":"x","avatar_url":"u"}}`)
		})
	}
	ctx := context.Background()
	api := "/api/v1/developer"
	for _, id := range hostile {
		calls := []struct {
			path string
			two  bool
			call func() error
		}{
			{api + "/users/" + pathSeg(id), false, func() error { _, err := c.Users.Delete(ctx, id); return err }},
			{api + "/users/" + pathSeg(id) + "/license_plates/" + pathSeg(id), true,
				func() error { _, err := c.Users.UnassignLicensePlate(ctx, id, id); return err }},
			{api + "/user_groups/" + pathSeg(id) + "/users/delete", false,
				func() error { _, err := c.UserGroups.RemoveUsers(ctx, id, []string{"u"}); return err }},
			{api + "/access_policies/" + pathSeg(id), false, func() error { _, _, err := c.AccessPolicies.Get(ctx, id); return err }},
			{api + "/access_policies/schedules/" + pathSeg(id), false, func() error { _, err := c.Schedules.Delete(ctx, id); return err }},
			{api + "/access_policies/holiday_groups/" + pathSeg(id), false, func() error { _, _, err := c.HolidayGroups.Get(ctx, id); return err }},
			{api + "/users/" + pathSeg(id) + "/avatar", false, func() error {
				_, _, err := c.Users.UploadAvatar(ctx, id, nil, strings.NewReader("x"))
				return err
			}},
			{api + "/user_groups/" + pathSeg(id) + "/identity/assignments", false,
				func() error { _, _, err := c.Identity.ListForUserGroup(ctx, id); return err }},
		}
		for _, tc := range calls {
			require.NoError(t, tc.call(), "%q", id)
			s := <-got
			assert.Equal(t, tc.path, s.rawPath, "%q", id)
			assert.Equal(t, id, s.a)
			if tc.two {
				assert.Equal(t, id, s.b)
			}
		}
	}
}

// FuzzUserSearchQuery checks the search query encoder: whatever the
// keyword and ids, the server reads back exactly the filters that were
// set, the repeated keys in order, and nothing leaks into the path.
func FuzzUserSearchQuery(f *testing.F) {
	f.Add("Ada", "u1", "u&2=3", uint8(0b011), 1, 25, true)
	f.Add("", "", "", uint8(0), 0, 0, false)
	f.Add("a#b?c/%zz", "../x", "ü", uint8(0b111), 3, 1, false)
	f.Fuzz(func(t *testing.T, keyword, id1, id2 string, statusMask uint8, pageNum, pageSize int, onlyAdmin bool) {
		var got *url.URL
		c := rtClient(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			got = r.URL
			return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader(`{"code":"SUCCESS","data":[]}`)), Request: r}, nil
		}))
		var statuses []UserStatus
		for i, s := range []UserStatus{UserStatusActive, UserStatusPending, UserStatusDeactivated} {
			if statusMask&(1<<i) != 0 {
				statuses = append(statuses, s)
			}
		}
		var ids []string
		for _, id := range []string{id1, id2} {
			if id != "" {
				ids = append(ids, id)
			}
		}
		opts := &UserSearchOptions{Keyword: keyword, UserIDs: ids, OnlyAdmin: onlyAdmin, Statuses: statuses, PageNum: pageNum, PageSize: pageSize}
		_, _, err := c.Users.Search(context.Background(), opts)
		if err != nil {
			if !errors.Is(err, ErrValidation) || got != nil {
				t.Fatalf("error %v (sent: %v)", err, got != nil)
			}
			return
		}
		if got.Path != "/api/v1/developer/users/search" {
			t.Fatalf("path %q", got.Path)
		}
		q := got.Query()
		if q.Get("keyword") != keyword || (keyword == "" && q.Has("keyword")) {
			t.Fatalf("keyword %q came back as %q", keyword, q["keyword"])
		}
		if strings.Join(q["user_id"], "\x00") != strings.Join(ids, "\x00") {
			t.Fatalf("user ids %q came back as %q", ids, q["user_id"])
		}
		if len(q["status"]) != len(statuses) {
			t.Fatalf("statuses %v came back as %v", statuses, q["status"])
		}
		if (q.Get("only_admin") == "true") != onlyAdmin {
			t.Fatalf("only_admin %v came back as %q", onlyAdmin, q.Get("only_admin"))
		}
		for k := range q {
			switch k {
			case "keyword", "user_id", "only_admin", "status", "page_num", "page_size":
			default:
				t.Fatalf("unexpected query key %q", k)
			}
		}
	})
}
