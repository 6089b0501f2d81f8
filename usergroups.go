package access

import (
	"context"
	"fmt"
	"strings"
)

// UserGroupsService manages user groups: a tree of groups (each names its
// parent in UpID), their members and their access policies. Get it from
// [Client.UserGroups]. Every operation requires controller 2.2.6 or later.
type UserGroupsService service

// UserGroup is a user group.
type UserGroup struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// FullName is the path of names from the top group, as the controller
	// shows it.
	FullName string `json:"full_name"`
	// UpID is the parent group's id; empty for a top-level group.
	UpID string `json:"up_id"`
	// UpIDs are the ids of every ancestor.
	UpIDs []string `json:"up_ids"`
}

// UserGroupRequest creates a user group with [UserGroupsService.Create].
type UserGroupRequest struct {
	// Name is required.
	Name string `json:"name"`
	// UpID is the parent group's id; empty makes a top-level group.
	UpID string `json:"up_id,omitempty"`
}

func (r *UserGroupRequest) validate(op string) error {
	switch {
	case r == nil:
		return invalidArg(op, "req", "must not be nil")
	case strings.TrimSpace(r.Name) == "":
		return invalidArg(op, "Name", "must not be empty")
	}
	return nil
}

// UserGroupUpdate changes a user group with [UserGroupsService.Update].
// Name is required by the vendor on every update (pass the current name
// to keep it).
type UserGroupUpdate struct {
	Name string `json:"name"`
	// UpID moves the group under another parent when not nil; nil keeps
	// the parent. Ptr("") sends an empty up_id, asking for a top-level
	// group: the vendor documents neither that nor another way back to
	// the top (accesstest honours it).
	UpID *string `json:"up_id,omitempty"`
}

func userGroupPath(id string) string { return "/user_groups/" + pathSeg(id) }

// Create makes a user group. The controller answers "success" without
// the new group's id: use [UserGroupsService.CreateAndGet] to get the
// group, or [UserGroupsService.Find] afterwards.
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is
// set.
//
// API: POST /api/v1/developer/user_groups (permission edit:user)
func (s *UserGroupsService) Create(ctx context.Context, req *UserGroupRequest) (*Response, error) {
	if err := req.validate("UserGroups.Create"); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "POST", "/user_groups", nil, req, false)
	return resp, err
}

// CreateAndGet creates a user group and returns it, id included, by
// listing the groups after the create and picking the one with the
// request's name and parent (see Find). The returned Response is the
// list's. Permissions edit:user and view:user.
//
// The lookup is a second request: a group renamed, moved or deleted by
// someone else between the two requests is not found (an error matching
// [ErrNotFound]), and if another client creates a group with the same
// name under the same parent in that window (the controller rejects
// duplicate names under one parent, so only after deleting ours), the
// group found may be theirs. Where that matters, give groups names only
// your program uses.
func (s *UserGroupsService) CreateAndGet(ctx context.Context, req *UserGroupRequest) (*UserGroup, *Response, error) {
	if resp, err := s.Create(ctx, req); err != nil {
		return nil, resp, err
	}
	return s.Find(ctx, req.Name, req.UpID)
}

// ErrGroupNotFound is returned by [UserGroupsService.Find] when no group
// has the name under the parent. It matches [ErrNotFound].
var ErrGroupNotFound = fmt.Errorf("%w: no user group with that name under that parent", ErrNotFound)

// Find lists the user groups and returns the one named name whose parent
// is upID (empty: a top-level group); names are compared exactly. No
// match is [ErrGroupNotFound].
//
// API: GET /api/v1/developer/user_groups (permission view:user)
func (s *UserGroupsService) Find(ctx context.Context, name, upID string) (*UserGroup, *Response, error) {
	if strings.TrimSpace(name) == "" {
		return nil, nil, invalidArg("UserGroups.Find", "name", "must not be empty")
	}
	groups, resp, err := s.List(ctx)
	if err != nil {
		return nil, resp, err
	}
	for i := range groups {
		if groups[i].Name == name && groups[i].UpID == upID {
			return &groups[i], resp, nil
		}
	}
	return nil, resp, ErrGroupNotFound
}

// List fetches every user group (not paged).
//
// API: GET /api/v1/developer/user_groups (permission view:user)
func (s *UserGroupsService) List(ctx context.Context) ([]UserGroup, *Response, error) {
	return list[UserGroup](ctx, s.client, "/user_groups", nil)
}

// Get fetches a user group.
//
// API: GET /api/v1/developer/user_groups/{id} (permission view:user)
func (s *UserGroupsService) Get(ctx context.Context, id string) (*UserGroup, *Response, error) {
	if err := checkID("UserGroups.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[UserGroup](ctx, s.client, "GET", userGroupPath(id), nil, nil, true)
}

// Update renames a user group or moves it under another parent (see
// [UserGroupUpdate]); Name is required. A group cannot be moved under itself or its descendants.
//
// API: PUT /api/v1/developer/user_groups/{id} (permission edit:user)
func (s *UserGroupsService) Update(ctx context.Context, id string, req *UserGroupUpdate) (*Response, error) {
	const op = "UserGroups.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	switch {
	case req == nil:
		return nil, invalidArg(op, "req", "must not be nil")
	case strings.TrimSpace(req.Name) == "":
		return nil, invalidArg(op, "Name", "must not be empty")
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", userGroupPath(id), nil, req, false)
	return resp, err
}

// Delete removes a user group. A group that still has subgroups or
// members cannot be deleted (CODE_OPERATION_FORBIDDEN in accesstest; the
// vendor documents no code): remove them first.
//
// API: DELETE /api/v1/developer/user_groups/{id} (permission edit:user)
func (s *UserGroupsService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("UserGroups.Delete", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, userGroupPath(id), nil)
}

// AddUsers puts users into a group; the body is a bare JSON array of
// their ids. Users already in the group stay.
//
// AddUsers is a POST and is not retried unless RetryPolicy.RetryWrites is
// set (adding twice is harmless).
//
// API: POST /api/v1/developer/user_groups/{id}/users (permission edit:user)
func (s *UserGroupsService) AddUsers(ctx context.Context, id string, userIDs []string) (*Response, error) {
	return s.members(ctx, "UserGroups.AddUsers", id, "/users", userIDs)
}

// RemoveUsers takes users out of a group; the body is a bare JSON array
// of their ids.
//
// RemoveUsers is a POST and is not retried unless RetryPolicy.RetryWrites
// is set (removing twice is harmless).
//
// API: POST /api/v1/developer/user_groups/{id}/users/delete (permission edit:user)
func (s *UserGroupsService) RemoveUsers(ctx context.Context, id string, userIDs []string) (*Response, error) {
	return s.members(ctx, "UserGroups.RemoveUsers", id, "/users/delete", userIDs)
}

func (s *UserGroupsService) members(ctx context.Context, op, id, sub string, userIDs []string) (*Response, error) {
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkIDs(op, "userIDs", userIDs, false); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "POST", userGroupPath(id)+sub, nil, userIDs, false)
	return resp, err
}

// ListUsers fetches the direct members of a group (not those of its
// subgroups; see ListAllUsers).
//
// API: GET /api/v1/developer/user_groups/{id}/users (permission view:user)
func (s *UserGroupsService) ListUsers(ctx context.Context, id string) ([]User, *Response, error) {
	if err := checkID("UserGroups.ListUsers", "id", id); err != nil {
		return nil, nil, err
	}
	return list[User](ctx, s.client, userGroupPath(id)+"/users", nil)
}

// ListAllUsers fetches the members of a group and of all its subgroups,
// each user once.
//
// API: GET /api/v1/developer/user_groups/{id}/users/all (permission view:user)
func (s *UserGroupsService) ListAllUsers(ctx context.Context, id string) ([]User, *Response, error) {
	if err := checkID("UserGroups.ListAllUsers", "id", id); err != nil {
		return nil, nil, err
	}
	return list[User](ctx, s.client, userGroupPath(id)+"/users/all", nil)
}

// SetAccessPolicies replaces a group's access policies; its members get
// them in addition to their own (see [UsersService.ListAccessPolicies]).
// A nil slice is a [*ValidationError]; an empty non-nil slice removes
// every policy.
//
// API: PUT /api/v1/developer/user_groups/{id}/access_policies (permission edit:user)
func (s *UserGroupsService) SetAccessPolicies(ctx context.Context, id string, policyIDs []string) (*Response, error) {
	const op = "UserGroups.SetAccessPolicies"
	if err := checkID(op, "id", id); err != nil {
		return nil, err
	}
	if err := checkIDs(op, "policyIDs", policyIDs, true); err != nil {
		return nil, err
	}
	_, resp, err := call[ignored](ctx, s.client, "PUT", userGroupPath(id)+"/access_policies", nil, policyIDsBody{policyIDs}, false)
	return resp, err
}

// ListAccessPolicies fetches a group's access policies.
//
// API: GET /api/v1/developer/user_groups/{id}/access_policies (permission view:user)
func (s *UserGroupsService) ListAccessPolicies(ctx context.Context, id string) ([]AccessPolicy, *Response, error) {
	if err := checkID("UserGroups.ListAccessPolicies", "id", id); err != nil {
		return nil, nil, err
	}
	return list[AccessPolicy](ctx, s.client, userGroupPath(id)+"/access_policies", nil)
}
