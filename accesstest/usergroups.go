package accesstest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// The user-group operations.
const (
	OpUserGroupsCreate             Op = "UserGroups.Create"
	OpUserGroupsList               Op = "UserGroups.List"
	OpUserGroupsGet                Op = "UserGroups.Get"
	OpUserGroupsUpdate             Op = "UserGroups.Update"
	OpUserGroupsDelete             Op = "UserGroups.Delete"
	OpUserGroupsAddUsers           Op = "UserGroups.AddUsers"
	OpUserGroupsRemoveUsers        Op = "UserGroups.RemoveUsers"
	OpUserGroupsListUsers          Op = "UserGroups.ListUsers"
	OpUserGroupsListAllUsers       Op = "UserGroups.ListAllUsers"
	OpUserGroupsSetAccessPolicies  Op = "UserGroups.SetAccessPolicies"
	OpUserGroupsListAccessPolicies Op = "UserGroups.ListAccessPolicies"
)

// groupRec is a user group: its id, name and parent, its direct members
// and its access policies.
//
// members is the members in the order they were added (the order the
// state file and GroupMembers show); in indexes it, so that adding a
// member or asking whether a user is one costs O(1) however large the
// group is (an add that walked members made a first import of N people
// into one group quadratic). Change members only through setMembers,
// addMembers and removeMembers, which keep the two in step.
type groupRec struct {
	id, name, upID string
	members        []string
	in             map[string]struct{}
	policyIDs      []string
}

// newGroupRec returns a group with these members, each once, in the
// order of their first occurrence.
func newGroupRec(id, name, upID string, members, policyIDs []string) *groupRec {
	g := &groupRec{id: id, name: name, upID: upID, policyIDs: policyIDs}
	g.setMembers(members)
	return g
}

// setMembers replaces the members with ids, each once, in the order of
// their first occurrence.
func (g *groupRec) setMembers(ids []string) {
	g.members, g.in = make([]string, 0, len(ids)), make(map[string]struct{}, len(ids))
	g.addMembers(ids)
}

// addMembers appends the ids that are not members yet, in order, each
// once; its cost is that of the ids, not of the group.
func (g *groupRec) addMembers(ids []string) {
	for _, id := range ids {
		if _, ok := g.in[id]; !ok {
			g.in[id] = struct{}{}
			g.members = append(g.members, id)
		}
	}
}

// removeMembers removes the ids that are members, keeping the others'
// order; it walks the members only when one of ids is among them.
func (g *groupRec) removeMembers(ids ...string) {
	gone := false
	for _, id := range ids {
		if _, ok := g.in[id]; ok {
			delete(g.in, id)
			gone = true
		}
	}
	if gone {
		g.members = slices.DeleteFunc(g.members, func(m string) bool { _, ok := g.in[m]; return !ok })
	}
}

// hasMember reports whether the user is a direct member.
func (g *groupRec) hasMember(id string) bool {
	_, ok := g.in[id]
	return ok
}

// group returns the group with the id, for a caller that may change it
// (it drops the group's cached encoding); peekGroup is the read-only
// lookup that a holder of the shared lock uses.
func (p *peopleState) group(id string) *groupRec { return p.groups.get(id) }

func (p *peopleState) peekGroup(id string) *groupRec { return p.groups.peek(id) }

// ancestors returns the ids of g's ancestors, nearest first.
func (p *peopleState) ancestors(g *groupRec) []string {
	var out []string
	for up := p.peekGroup(g.upID); up != nil && !slices.Contains(out, up.id); up = p.peekGroup(up.upID) {
		out = append(out, up.id)
	}
	return out
}

// wire is the group as the API shows it; full_name joins the names from
// the top group down with " / ".
func (p *peopleState) wire(g *groupRec) access.UserGroup {
	ups := p.ancestors(g)
	names := []string{g.name}
	for _, id := range ups {
		names = append([]string{p.peekGroup(id).name}, names...)
	}
	if ups == nil {
		ups = []string{}
	}
	return access.UserGroup{ID: g.id, Name: g.name, FullName: strings.Join(names, " / "), UpID: g.upID, UpIDs: ups}
}

// AddUserGroup stores a user group under the group upID (empty: a
// top-level group) with these members, and returns its id (a new UUID
// when id is empty). Seeding checks the parent and the members exist.
func (s *Server) AddUserGroup(id, name, upID string, members ...string) string {
	return seed(s, func() (string, error) {
		p := s.ppl()
		if id == "" {
			id = s.newID()
		}
		if p.group(id) != nil {
			return "", fmt.Errorf("accesstest: AddUserGroup: duplicate id %q", id)
		}
		if upID != "" && p.group(upID) == nil {
			return "", fmt.Errorf("accesstest: AddUserGroup: no parent group %q", upID)
		}
		for _, m := range members {
			if s.user(m) == nil {
				return "", fmt.Errorf("accesstest: AddUserGroup: no user %q", m)
			}
		}
		p.groups.add(newGroupRec(id, name, upID, members, []string{}))
		return id, nil
	})
}

// UserGroups returns every user group, in insertion order.
func (s *Server) UserGroups() []access.UserGroup {
	defer s.readUnlock(s.readLock(false))
	p := s.ppl()
	out := make([]access.UserGroup, p.groups.len())
	for i, g := range p.groups.list {
		out[i] = p.wire(g)
	}
	return out
}

// GroupMembers returns the ids of a group's direct members.
func (s *Server) GroupMembers(groupID string) []string {
	defer s.readUnlock(s.readLock(false))
	if g := s.ppl().peekGroup(groupID); g != nil {
		return slices.Clone(g.members)
	}
	return nil
}

// ---- handlers ----

// groupOf returns the group of the request's path, or answers
// CODE_RESOURCE_NOT_FOUND. The caller holds s.mu.
func (s *Server) groupOf(w http.ResponseWriter, r *http.Request) *groupRec {
	g := s.ppl().group(r.PathValue("id"))
	if g == nil {
		resourceNotFound(w)
	}
	return g
}

// checkGroupName validates a name and parent: the parent exists, is not
// the group itself nor one of its descendants, and no sibling has the
// name (CODE_USER_NAME_DUPLICATED). The caller holds s.mu.
func (s *Server) checkGroupName(w http.ResponseWriter, self *groupRec, name, upID string) bool {
	p := s.ppl()
	if strings.TrimSpace(name) == "" {
		badParams(w, "name is required.")
		return false
	}
	if upID != "" {
		up := p.group(upID)
		if up == nil {
			resourceNotFound(w)
			return false
		}
		if self != nil && (up == self || slices.Contains(p.ancestors(up), self.id)) {
			badParams(w, "A group cannot be moved under itself or its subgroups.")
			return false
		}
	}
	for _, g := range p.groups.list {
		if g != self && g.upID == upID && g.name == name {
			writeError(w, http.StatusBadRequest, access.CodeUserNameDuplicated, "The provided name already exists.")
			return false
		}
	}
	return true
}

type groupRequest struct {
	Name *string `json:"name"`
	UpID string  `json:"up_id"`
}

// createUserGroup answers "success" without the id, as consoles do.
func (s *Server) createUserGroup(w http.ResponseWriter, r *http.Request) {
	var req groupRequest
	if err := decodeBody(r, &req); err != nil || req.Name == nil {
		badParams(w, "Body must be an object with name.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.checkGroupName(w, nil, *req.Name, req.UpID) {
		return
	}
	g := newGroupRec(s.newID(), *req.Name, req.UpID, nil, []string{})
	s.ppl().groups.add(g)
	s.publish(change{Log: "user group created: " + g.id})
	writeSuccess(w)
}

func (s *Server) listUserGroups(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.UserGroups())
}

func (s *Server) getUserGroup(w http.ResponseWriter, r *http.Request) {
	defer s.readUnlock(s.readLock(false))
	p := s.ppl()
	g := p.peekGroup(r.PathValue("id"))
	if g == nil {
		resourceNotFound(w)
		return
	}
	writeData(w, p.wire(g))
}

// updateUserGroup keeps the parent when up_id is absent; an empty up_id
// moves the group to the top.
func (s *Server) updateUserGroup(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Name *string `json:"name"`
		UpID *string `json:"up_id"`
	}
	if err := decodeBody(r, &req); err != nil || req.Name == nil {
		badParams(w, "Body must be an object with name.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	upID := g.upID
	if req.UpID != nil {
		upID = *req.UpID
	}
	if !s.checkGroupName(w, g, *req.Name, upID) {
		return
	}
	g.name, g.upID = *req.Name, upID
	s.publish(change{Log: "user group updated: " + g.id})
	writeSuccess(w)
}

// deleteUserGroup refuses a group with subgroups or members
// (CODE_OPERATION_FORBIDDEN; the vendor documents no code).
func (s *Server) deleteUserGroup(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	p := s.ppl()
	switch {
	case slices.ContainsFunc(p.groups.list, func(x *groupRec) bool { return x.upID == g.id }):
		operationForbidden(w, "The user group has subgroups.")
		return
	case len(g.members) > 0:
		operationForbidden(w, "The user group has members.")
		return
	}
	p.groups.remove(g.id)
	delete(p.identity.groups, g.id)
	s.publish(change{Log: "user group deleted: " + g.id})
	writeSuccess(w)
}

// memberIDs reads a bare JSON array of user ids, all of which must
// exist. The caller holds s.mu.
func (s *Server) memberIDs(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var ids []string
	if err := decodeBody(r, &ids); err != nil || len(ids) == 0 {
		badParams(w, "Body must be a non-empty JSON array of user ids.")
		return nil, false
	}
	for _, id := range ids {
		if s.user(id) == nil {
			userNotFound(w)
			return nil, false
		}
	}
	return ids, true
}

func (s *Server) addGroupUsers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	ids, ok := s.memberIDs(w, r)
	if !ok {
		return
	}
	g.addMembers(ids)
	s.publish(change{Log: "users added to user group: " + g.id})
	writeSuccess(w)
}

func (s *Server) removeGroupUsers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	ids, ok := s.memberIDs(w, r)
	if !ok {
		return
	}
	g.removeMembers(ids...)
	s.publish(change{Log: "users removed from user group: " + g.id})
	writeSuccess(w)
}

// usersOf returns the members of the groups, each once, in user order.
// The caller holds s.mu.
func (s *Server) usersOf(groups ...*groupRec) []memberWire {
	out := []memberWire{}
	in := map[string]bool{}
	for _, g := range groups {
		for _, m := range g.members {
			in[m] = true
		}
	}
	if len(in) == 0 {
		return out
	}
	users := &s.people.users
	// The members by id, put in user order: a group's read costs its
	// members, not the whole list (500 groups of 10,000 users walked the
	// list 500 times).
	found := make([]*access.User, 0, len(in))
	for id := range in {
		if u := users.byID[id]; u != nil {
			found = append(found, u)
		}
	}
	slices.SortFunc(found, func(a, b *access.User) int { return users.index(a) - users.index(b) })
	for _, u := range found {
		out = append(out, memberView(u))
	}
	return out
}

func (s *Server) listGroupUsers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groupOf(w, r); g != nil {
		writeData(w, s.usersOf(g))
	}
}

// listAllGroupUsers answers the members of the group and of every group
// below it (through up_id).
func (s *Server) listAllGroupUsers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	p := s.ppl()
	tree := []*groupRec{g}
	for _, x := range p.groups.list {
		if slices.Contains(p.ancestors(x), g.id) {
			tree = append(tree, x)
		}
	}
	writeData(w, s.usersOf(tree...))
}

func (s *Server) setGroupPolicies(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groupOf(w, r)
	if g == nil {
		return
	}
	ids, ok := s.policyIDsBody(w, r)
	if !ok {
		return
	}
	g.policyIDs = ids
	s.publish(change{Log: "access policies assigned to user group: " + g.id})
	writeData(w, nil)
}

func (s *Server) listGroupPolicies(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groupOf(w, r); g != nil {
		writeData(w, policyViews(s.policiesOf(g.policyIDs)))
	}
}
