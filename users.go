package access

import (
	"context"
	"io"
	"iter"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// UsersService creates, updates, lists, searches and deletes users, and
// manages their access policies, licence plates and avatars. Get it from
// [Client.Users]. User groups are in [UserGroupsService]; a user's NFC
// cards, PIN codes and touch passes are assigned through the credential
// operations.
type UsersService service

// UserStatus is a user's status.
type UserStatus string

// User statuses documented by the vendor; others are kept as sent.
const (
	UserStatusActive      UserStatus = "ACTIVE"
	UserStatusPending     UserStatus = "PENDING"
	UserStatusDeactivated UserStatus = "DEACTIVATED"
)

// User is a user record (spec §2.4). The list, search and group-member
// operations fill a subset of it; Search and the group-member lists also
// fill Username, Email and AvatarRelativePath.
type User struct {
	ID                 string `json:"id"`
	FirstName          string `json:"first_name"`
	LastName           string `json:"last_name"`
	FullName           string `json:"full_name,omitempty"`
	Alias              string `json:"alias,omitempty"`
	Username           string `json:"username,omitempty"`
	Email              string `json:"email,omitempty"`
	UserEmail          string `json:"user_email,omitempty"`
	EmailStatus        string `json:"email_status,omitempty"`
	Phone              string `json:"phone,omitempty"`
	EmployeeNumber     string `json:"employee_number"`
	AvatarRelativePath string `json:"avatar_relative_path,omitempty"`
	// OnboardTime may be 0 (unknown).
	OnboardTime     UnixTime       `json:"onboard_time"`
	NFCCards        []NFCCard      `json:"nfc_cards,omitempty"`
	LicensePlates   []LicensePlate `json:"license_plates,omitempty"`
	PINCode         *PINCode       `json:"pin_code,omitempty"`
	AccessPolicyIDs []string       `json:"access_policy_ids,omitempty"`
	// AccessPolicies is filled only when [UserExpandAccessPolicy] is asked.
	AccessPolicies []AccessPolicy `json:"access_policies,omitempty"`
	Status         UserStatus     `json:"status"`
	// TouchPass holds the user's touch pass, if any. The spec says an array;
	// controllers send one object. Both decode here.
	TouchPass TouchPasses `json:"touch_pass,omitempty"`
}

// UserExpand names an object a user may embed (expand[]).
type UserExpand string

// UserExpandAccessPolicy embeds the user's access policies
// ([User.AccessPolicies]); it is the only value the API accepts.
const UserExpandAccessPolicy UserExpand = "access_policy"

// UserGetOptions selects what [UsersService.Get] embeds.
type UserGetOptions struct {
	// Expand embeds related objects (query "expand[]", repeated).
	Expand []UserExpand `url:"expand,brackets,omitempty"`
}

func checkExpand(op string, expand []UserExpand) error {
	for _, e := range expand {
		if e == "" {
			return invalidArg(op, "Expand", "must not contain an empty value")
		}
	}
	return nil
}

func userPath(id string) string { return "/users/" + pathSeg(id) }

// Get fetches the user with the given id.
//
// API: GET /api/v1/developer/users/{id} (permission view:user)
func (s *UsersService) Get(ctx context.Context, id string, opts *UserGetOptions) (*User, *Response, error) {
	const op = "Users.Get"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if opts != nil {
		if err := checkExpand(op, opts.Expand); err != nil {
			return nil, nil, err
		}
	}
	return call[User](ctx, s.client, "GET", userPath(id), opts, nil, true)
}

// UserRequest registers a user with [UsersService.Create].
type UserRequest struct {
	// FirstName and LastName are required.
	FirstName string
	LastName  string
	// UserEmail needs controller 1.22.16 or later; empty is not sent.
	UserEmail string
	// EmployeeNumber is not sent when empty.
	EmployeeNumber string
	// OnboardTime is sent as Unix seconds (sub-second precision is
	// dropped); the zero time is not sent.
	OnboardTime time.Time
}

// MarshalJSON writes the vendor's form: onboard_time as Unix seconds,
// empty optional members left out.
func (r UserRequest) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		FirstName      string `json:"first_name"`
		LastName       string `json:"last_name"`
		UserEmail      string `json:"user_email,omitempty"`
		EmployeeNumber string `json:"employee_number,omitempty"`
		OnboardTime    *int64 `json:"onboard_time,omitempty"`
	}{r.FirstName, r.LastName, r.UserEmail, r.EmployeeNumber, unixPtr(r.OnboardTime)})
}

// Create registers a user, who starts ACTIVE. The controller answers with
// the new user's id, names and email only; fetch the rest with Get.
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is
// set. Any controller version.
//
// API: POST /api/v1/developer/users (permission edit:user)
func (s *UsersService) Create(ctx context.Context, req *UserRequest) (*User, *Response, error) {
	const op = "Users.Create"
	switch {
	case req == nil:
		return nil, nil, invalidArg(op, "req", "must not be nil")
	case strings.TrimSpace(req.FirstName) == "":
		return nil, nil, invalidArg(op, "FirstName", "must not be empty")
	case strings.TrimSpace(req.LastName) == "":
		return nil, nil, invalidArg(op, "LastName", "must not be empty")
	case beforeEpoch(req.OnboardTime):
		return nil, nil, invalidArg(op, "OnboardTime", "must not be before 1970")
	}
	return call[User](ctx, s.client, "POST", "/users", nil, req, true)
}

// UserUpdate changes a user with [UsersService.Update]. A nil member
// keeps the user's value; a non-nil one sets it (see [Ptr]).
// UserEmail and EmployeeNumber are cleared with Ptr(""), OnboardTime
// with Ptr(time.Time{}) (sent as 0, the vendor's "unknown"); the names
// cannot be cleared.
type UserUpdate struct {
	FirstName      *string
	LastName       *string
	UserEmail      *string
	EmployeeNumber *string
	// OnboardTime is sent as Unix seconds.
	OnboardTime *time.Time
	// Status is UserStatusActive or UserStatusDeactivated (deactivate a
	// user before deleting them).
	Status *UserStatus
}

// MarshalJSON writes the members that are set, onboard_time as Unix
// seconds.
func (u UserUpdate) MarshalJSON() ([]byte, error) {
	var onboard *int64
	if u.OnboardTime != nil {
		onboard = Ptr(unixOrZero(*u.OnboardTime))
	}
	return marshalCompact(struct {
		FirstName      *string     `json:"first_name,omitempty"`
		LastName       *string     `json:"last_name,omitempty"`
		UserEmail      *string     `json:"user_email,omitempty"`
		EmployeeNumber *string     `json:"employee_number,omitempty"`
		OnboardTime    *int64      `json:"onboard_time,omitempty"`
		Status         *UserStatus `json:"status,omitempty"`
	}{u.FirstName, u.LastName, u.UserEmail, u.EmployeeNumber, onboard, u.Status})
}

// Update changes a user's names, email, employee number, onboarding time
// or status; an update that changes nothing is a [*ValidationError].
// Deactivate a user with
//
//	client.Users.Update(ctx, id, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
//
// Any controller version.
//
// API: PUT /api/v1/developer/users/{id} (permission edit:user)
func (s *UsersService) Update(ctx context.Context, id string, req *UserUpdate) (*Response, error) {
	const op = "Users.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	switch {
	case req == nil:
		return nil, invalidArg(op, "req", "must not be nil")
	case *req == UserUpdate{}:
		return nil, invalidArg(op, "req", "changes nothing")
	case req.Status != nil && *req.Status != UserStatusActive && *req.Status != UserStatusDeactivated:
		return nil, invalidArg(op, "Status", "must be ACTIVE or DEACTIVATED")
	case req.FirstName != nil && strings.TrimSpace(*req.FirstName) == "":
		return nil, invalidArg(op, "FirstName", "must not be empty")
	case req.LastName != nil && strings.TrimSpace(*req.LastName) == "":
		return nil, invalidArg(op, "LastName", "must not be empty")
	case req.OnboardTime != nil && beforeEpoch(*req.OnboardTime):
		return nil, invalidArg(op, "OnboardTime", "must not be before 1970")
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", userPath(id), nil, req, false)
	return resp, err
}

// UserListOptions pages the user list. The zero value lists the first
// page at the controller's default size.
type UserListOptions struct {
	// Expand embeds related objects (query "expand[]", repeated).
	Expand []UserExpand `url:"expand,brackets,omitempty"`
	// PageNum is the 1-based page number (query "page_num").
	PageNum int `url:"page_num,omitempty"`
	// PageSize is the number of users per page (query "page_size").
	PageSize int `url:"page_size,omitempty"`
}

func (o *UserListOptions) validate(op string) error {
	if o == nil {
		return nil
	}
	if err := checkPaging(op, o.PageNum, o.PageSize); err != nil {
		return err
	}
	return checkExpand(op, o.Expand)
}

// List fetches one page of users; resp.Pagination holds the paging the
// controller reports. Use All to iterate over every user.
// Any controller version.
//
// API: GET /api/v1/developer/users (permission view:user)
func (s *UsersService) List(ctx context.Context, opts *UserListOptions) ([]User, *Response, error) {
	if err := opts.validate("Users.List"); err != nil {
		return nil, nil, err
	}
	return list[User](ctx, s.client, "/users", opts.query())
}

// query encodes the options without reflection (the struct tags document
// the same keys).
func (o *UserListOptions) query() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	for _, e := range o.Expand {
		q.Add("expand[]", string(e))
	}
	setPaging(q, o.PageNum, o.PageSize)
	return q
}

func setPaging(q url.Values, num, size int) {
	if num != 0 {
		q.Set("page_num", strconv.Itoa(num))
	}
	if size != 0 {
		q.Set("page_size", strconv.Itoa(size))
	}
}

// All iterates over every user, fetching pages lazily as the loop
// advances, with the same pager and stopping rules as
// [VisitorsService.All]. opts is copied, never modified. Permission
// view:user; any controller version.
//
//	for u, err := range client.Users.All(ctx, nil) {
//		if err != nil { return err }
//		fmt.Println(u.FirstName)
//	}
func (s *UsersService) All(ctx context.Context, opts *UserListOptions) iter.Seq2[User, error] {
	if err := opts.validate("Users.All"); err != nil {
		return func(yield func(User, error) bool) { yield(User{}, err) }
	}
	var o UserListOptions
	if opts != nil {
		o = *opts
		o.Expand = slices.Clone(opts.Expand)
	}
	return paginate(ctx, o.PageNum, o.PageSize, userKey,
		func(ctx context.Context, num, size int) (page[User], error) {
			o.PageNum, o.PageSize = num, size
			items, resp, err := s.List(ctx, &o)
			return page[User]{items: items, total: resp.total()}, err
		})
}

func userKey(u *User) string { return u.ID }

// Delete removes a user. Only deactivated users can be deleted: deleting
// an ACTIVE or PENDING user fails with an [*APIError]. The vendor
// documents the rule but no code for it; the SDK expects
// CODE_OPERATION_FORBIDDEN ([CodeOperationForbidden], matching
// [ErrForbidden]), which is what accesstest answers. Deactivate first:
//
//	_, err := client.Users.Update(ctx, id, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)})
//	if err == nil {
//		_, err = client.Users.Delete(ctx, id)
//	}
//
// Requires controller 3.1.30 or later. A retried delete that finds the
// user already gone (its first answer was lost) succeeds.
//
// API: DELETE /api/v1/developer/users/{id} (permission edit:user)
func (s *UsersService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("Users.Delete", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, userPath(id), nil)
}

// UserSearchOptions filters [UsersService.Search]. Every filter is
// optional; UserIDs and Statuses are sent as repeated keys
// (user_id=a&user_id=b, status=ACTIVE&status=PENDING).
type UserSearchOptions struct {
	// Keyword is passed as is (query "keyword"). The vendor documents no
	// meaning for it; controllers match it against names and emails.
	Keyword string `url:"keyword,omitempty"`
	// UserIDs limits the search to these users (query "user_id", repeated).
	UserIDs []string `url:"user_id,omitempty"`
	// OnlyAdmin returns administrators only (query "only_admin").
	OnlyAdmin bool `url:"only_admin,omitempty"`
	// Statuses limits the search to users in these statuses (query
	// "status", repeated).
	Statuses []UserStatus `url:"status,omitempty"`
	// PageNum is the 1-based page number (query "page_num").
	PageNum int `url:"page_num,omitempty"`
	// PageSize is the number of users per page (query "page_size").
	PageSize int `url:"page_size,omitempty"`
}

func (o *UserSearchOptions) validate(op string) error {
	if o == nil {
		return nil
	}
	if err := checkPaging(op, o.PageNum, o.PageSize); err != nil {
		return err
	}
	for _, id := range o.UserIDs {
		if strings.TrimSpace(id) == "" {
			return invalidArg(op, "UserIDs", "must not contain an empty id")
		}
	}
	for _, st := range o.Statuses {
		if st != UserStatusActive && st != UserStatusDeactivated && st != UserStatusPending {
			return invalidArg(op, "Statuses", "must be ACTIVE, DEACTIVATED or PENDING")
		}
	}
	return nil
}

// Search fetches one page of the users matching opts (nil: every user).
// The vendor's sample answer carries no pagination; SearchAll therefore
// stops at an empty page, or at a short page once the console has served
// that page size whole. Requires controller 3.1.30 or later.
//
// API: GET /api/v1/developer/users/search (permission view:user)
func (s *UsersService) Search(ctx context.Context, opts *UserSearchOptions) ([]User, *Response, error) {
	if err := opts.validate("Users.Search"); err != nil {
		return nil, nil, err
	}
	return list[User](ctx, s.client, "/users/search", opts.query())
}

// query encodes the options without reflection (the struct tags document
// the same keys).
func (o *UserSearchOptions) query() url.Values {
	q := url.Values{}
	if o == nil {
		return q
	}
	if o.Keyword != "" {
		q.Set("keyword", o.Keyword)
	}
	if len(o.UserIDs) > 0 {
		q["user_id"] = o.UserIDs // Encode only reads it
	}
	if o.OnlyAdmin {
		q.Set("only_admin", "true")
	}
	for _, st := range o.Statuses {
		q.Add("status", string(st))
	}
	setPaging(q, o.PageNum, o.PageSize)
	return q
}

// SearchAll iterates over every user matching opts, page by page, with
// the pager of [UsersService.All]. Search answers carry no total, so a
// short page ends the loop only at a size the console served whole before:
// a console that caps page_size is followed at the size it serves until an
// empty or short page, and no user is lost. opts is copied, never
// modified.
// Permission view:user; requires controller 3.1.30 or later.
func (s *UsersService) SearchAll(ctx context.Context, opts *UserSearchOptions) iter.Seq2[User, error] {
	if err := opts.validate("Users.SearchAll"); err != nil {
		return func(yield func(User, error) bool) { yield(User{}, err) }
	}
	var o UserSearchOptions
	if opts != nil {
		o = *opts
		o.UserIDs = slices.Clone(opts.UserIDs)
		o.Statuses = slices.Clone(opts.Statuses)
	}
	return paginate(ctx, o.PageNum, o.PageSize, userKey,
		func(ctx context.Context, num, size int) (page[User], error) {
			o.PageNum, o.PageSize = num, size
			// No total is trusted: the vendor documents none for search.
			items, _, err := s.Search(ctx, &o)
			return page[User]{items: items}, err
		})
}

// checkIDs validates a list of ids sent in a body: at least one unless
// empty is allowed, and no blank one.
func checkIDs(op, field string, ids []string, allowEmpty bool) error {
	if ids == nil || (len(ids) == 0 && !allowEmpty) {
		if allowEmpty {
			return invalidArg(op, field, "must not be nil (an empty slice removes them all)")
		}
		return invalidArg(op, field, "must not be empty")
	}
	for _, id := range ids {
		if strings.TrimSpace(id) == "" {
			return invalidArg(op, field, "must not contain an empty id")
		}
	}
	return nil
}

type policyIDsBody struct {
	AccessPolicyIDs []string `json:"access_policy_ids"`
}

// SetAccessPolicies replaces the access policies assigned directly to a
// user (not those of the user's groups). A nil slice is a
// [*ValidationError]; an empty non-nil slice removes every policy.
// Any controller version.
//
// API: PUT /api/v1/developer/users/{id}/access_policies (permission edit:user)
func (s *UsersService) SetAccessPolicies(ctx context.Context, id string, policyIDs []string) (*Response, error) {
	const op = "Users.SetAccessPolicies"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkIDs(op, "policyIDs", policyIDs, true); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", userPath(id)+"/access_policies", nil, policyIDsBody{policyIDs}, false)
	return resp, err
}

// UserPoliciesOptions selects the policies [UsersService.ListAccessPolicies]
// returns.
type UserPoliciesOptions struct {
	// OnlyUserPolicies, when set to false, adds the policies of the user's
	// groups to those assigned to the user (query "only_user_policies").
	// Nil leaves the choice to the controller.
	OnlyUserPolicies *bool `url:"only_user_policies,omitempty"`
}

// ListAccessPolicies fetches the access policies of a user: those
// assigned to the user and, with OnlyUserPolicies set to false, those of
// the user's groups. Requires controller 2.2.6 or later.
//
// API: GET /api/v1/developer/users/{id}/access_policies (permission view:user)
func (s *UsersService) ListAccessPolicies(ctx context.Context, id string, opts *UserPoliciesOptions) ([]AccessPolicy, *Response, error) {
	if err := checkID("Users.ListAccessPolicies", "id", id); err != nil {
		return nil, nil, err
	}
	return list[AccessPolicy](ctx, s.client, userPath(id)+"/access_policies", opts.query())
}

// query encodes the options without reflection (the struct tag documents
// the same key).
func (o *UserPoliciesOptions) query() url.Values {
	if o == nil || o.OnlyUserPolicies == nil {
		return nil
	}
	return url.Values{"only_user_policies": {strconv.FormatBool(*o.OnlyUserPolicies)}}
}

// AvatarOptions names the uploaded picture. The zero value sends the
// file name "avatar" with Content-Type application/octet-stream; set
// them when the controller needs to recognise the image type.
type AvatarOptions struct {
	// FileName is the part's file name, e.g. "ada.jpg".
	FileName string
	// ContentType is the part's media type, e.g. "image/jpeg".
	ContentType string
}

// Avatar is the answer to [UsersService.UploadAvatar].
type Avatar struct {
	// AvatarURL is where the controller serves the picture.
	AvatarURL string `json:"avatar_url"`
}

// UploadAvatar sets a user's profile picture, read from r and streamed as
// the multipart/form-data part "file": it is never held in memory whole,
// and the request is never retried (r cannot be read twice). Only local
// users can have an uploaded picture. Requires controller 3.3.10 or later.
//
// The per-attempt timeout ([WithTimeout]) bounds the wait between two
// chunks sent and the wait for the answer, never the whole upload.
//
// API: POST /api/v1/developer/users/{id}/avatar (permission edit:user)
func (s *UsersService) UploadAvatar(ctx context.Context, id string, opts *AvatarOptions, r io.Reader) (*Avatar, *Response, error) {
	const op = "Users.UploadAvatar"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	if r == nil {
		return nil, nil, invalidArg(op, "r", "must not be nil")
	}
	f := formFile{field: "file", filename: "avatar", r: r}
	if opts != nil {
		if opts.FileName != "" {
			f.filename = opts.FileName
		}
		f.contentType = opts.ContentType
	}
	return call[Avatar](ctx, s.client, "POST", userPath(id)+"/avatar", nil, multipartBody(f), true)
}
