package accesstest

import (
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
	"strings"

	"github.com/access-dev/access"
)

// The permission keys that change users and access policies (view:user
// and view:policy are in server.go).
const (
	EditUser   Permission = "edit:user"
	EditPolicy Permission = "edit:policy"
)

// The user operations (Users.Get is in server.go).
const (
	OpUsersCreate               Op = "Users.Create"
	OpUsersUpdate               Op = "Users.Update"
	OpUsersList                 Op = "Users.List"
	OpUsersDelete               Op = "Users.Delete"
	OpUsersSearch               Op = "Users.Search"
	OpUsersSetAccessPolicies    Op = "Users.SetAccessPolicies"
	OpUsersListAccessPolicies   Op = "Users.ListAccessPolicies"
	OpUsersAssignLicensePlates  Op = "Users.AssignLicensePlates"
	OpUsersUnassignLicensePlate Op = "Users.UnassignLicensePlate"
	OpUsersUploadAvatar         Op = "Users.UploadAvatar"
)

// peopleState is the people store: users, user groups, access policies
// (and the order they were added in), schedules, holiday groups,
// visitors, avatars and Identity assignments.
type peopleState struct {
	users         table[access.User, userID]
	policies      map[string]*access.AccessPolicy
	schedules     map[string]*access.Schedule
	holidayGroups table[access.HolidayGroup, holidayGroupID]
	visitors      table[access.Visitor, visitorID]
	groups        table[groupRec, userGroupID]
	policyOrder   []string
	scheduleOrder []string
	avatars       map[string]Avatar
	identity      identityState
}

// Avatar is a user's uploaded profile picture, as [Server.Avatar]
// returns it.
type Avatar struct {
	URL         string
	FileName    string
	ContentType string
	Data        []byte
}

// ppl returns the people state, filling its defaults. The caller holds
// s.mu.
func (s *Server) ppl() *peopleState {
	p := &s.people
	if p.avatars == nil {
		p.avatars = map[string]Avatar{}
	}
	return p
}

// ---- seeding and inspection ----

// AddUser stores a user and returns it as stored: an empty ID is filled
// with a new UUID and an empty Status with ACTIVE. A duplicate ID fails the
// test (or panics without one). Seeding does not check references.
func (s *Server) AddUser(u access.User) access.User {
	return addRecord(s, "AddUser", "user id", u,
		func(u *access.User) string {
			if u.ID == "" {
				u.ID = s.newID()
			}
			if u.Status == "" {
				u.Status = access.UserStatusActive
			}
			return u.ID
		},
		func(u *access.User) bool { return s.people.users.has(u.ID) },
		func(u *access.User) { s.people.users.add(u); s.holdCards(u.ID, false, u.NFCCards) })
}

// User returns the stored user with the given id.
func (s *Server) User(id string) (access.User, bool) {
	defer s.readUnlock(s.readLock(false))
	if u := s.people.users.peek(id); u != nil {
		return clone(*u), true
	}
	return access.User{}, false
}

// Users returns every stored user, in insertion order.
func (s *Server) Users() []access.User {
	defer s.readUnlock(s.readLock(false))
	out := make([]access.User, s.people.users.len())
	for i, u := range s.people.users.list {
		out[i] = clone(*u)
	}
	return out
}

// Avatar returns the last picture uploaded for a user.
func (s *Server) Avatar(userID string) (Avatar, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.ppl().avatars[userID]
	if ok {
		a.Data = slices.Clone(a.Data)
	}
	return a, ok
}

// user returns the stored user; the caller holds s.mu.
func (s *Server) user(id string) *access.User { return s.people.users.get(id) }

// withUser runs f, under the lock, on the user named by the request's
// {id}, or answers that there is none.
func (s *Server) withUser(w http.ResponseWriter, r *http.Request, f func(u *access.User)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.user(r.PathValue("id"))
	if u == nil {
		userNotFound(w)
		return
	}
	f(u)
}

func userNotFound(w http.ResponseWriter) {
	writeError(w, http.StatusBadRequest, access.CodeUserWorkerNotExists, "The requested user does not exist.")
}

// ---- handlers ----

func (s *Server) getUser(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	expand, ok := userExpand(w, r)
	if !ok {
		return
	}
	defer s.readUnlock(s.readLock(false))
	u := s.people.users.peek(id)
	if u == nil {
		userNotFound(w)
		return
	}
	writeData(w, s.wireUser(u, expand))
}

// userExpand reads expand[], which accepts only access_policy.
func userExpand(w http.ResponseWriter, r *http.Request) (bool, bool) {
	expand := r.URL.Query()["expand[]"]
	for _, e := range expand {
		if e != "access_policy" {
			badParams(w, "expand[] accepts only access_policy.")
			return false, false
		}
	}
	return len(expand) > 0, true
}

// wireUser is u as the user endpoints send it, with its policies
// expanded or not. It shares u's slices: the caller holds s.mu until the
// answer is encoded.
func (s *Server) wireUser(u *access.User, expand bool) userWire {
	c := *u
	c.AccessPolicies = nil
	if expand {
		c.AccessPolicies = []access.AccessPolicy{}
		for _, pid := range c.AccessPolicyIDs {
			if p, ok := s.people.policies[pid]; ok {
				c.AccessPolicies = append(c.AccessPolicies, *p)
			}
		}
	}
	return userView(&c)
}

func validEmail(e string) bool {
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e
}

func (s *Server) createUser(w http.ResponseWriter, r *http.Request) {
	var req struct {
		FirstName      string          `json:"first_name"`
		LastName       string          `json:"last_name"`
		UserEmail      string          `json:"user_email"`
		EmployeeNumber string          `json:"employee_number"`
		OnboardTime    access.UnixTime `json:"onboard_time"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be a user object.")
		return
	}
	switch {
	case strings.TrimSpace(req.FirstName) == "" || strings.TrimSpace(req.LastName) == "":
		badParams(w, "first_name and last_name are required.")
		return
	case req.UserEmail != "" && !validEmail(req.UserEmail):
		writeError(w, http.StatusBadRequest, access.CodeUserEmailError, "The provided email format is invalid.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u := &access.User{ID: s.newID(), FirstName: req.FirstName, LastName: req.LastName, FullName: req.FirstName + " " + req.LastName,
		UserEmail: req.UserEmail, EmployeeNumber: req.EmployeeNumber, OnboardTime: req.OnboardTime, Status: access.UserStatusActive,
		NFCCards: []access.NFCCard{}, AccessPolicyIDs: []string{}}
	if u.OnboardTime == 0 {
		u.OnboardTime = access.UnixTimeOf(s.clockNow())
	}
	s.people.users.add(u)
	s.publish(change{Log: "user created: " + u.ID})
	writeData(w, struct {
		ID        string `json:"id"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		UserEmail string `json:"user_email"`
	}{u.ID, u.FirstName, u.LastName, u.UserEmail})
}

func (s *Server) updateUser(w http.ResponseWriter, r *http.Request) {
	var req struct {
		FirstName      *string          `json:"first_name"`
		LastName       *string          `json:"last_name"`
		UserEmail      *string          `json:"user_email"`
		EmployeeNumber *string          `json:"employee_number"`
		OnboardTime    *access.UnixTime `json:"onboard_time"`
		Status         *string          `json:"status"`
	}
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be a user object.")
		return
	}
	switch {
	case req.FirstName != nil && strings.TrimSpace(*req.FirstName) == "",
		req.LastName != nil && strings.TrimSpace(*req.LastName) == "":
		badParams(w, "first_name and last_name must not be empty.")
		return
	case req.Status != nil && *req.Status != string(access.UserStatusActive) && *req.Status != string(access.UserStatusDeactivated):
		badParams(w, "status must be ACTIVE or DEACTIVATED.")
		return
	case req.UserEmail != nil && *req.UserEmail != "" && !validEmail(*req.UserEmail):
		writeError(w, http.StatusBadRequest, access.CodeUserEmailError, "The provided email format is invalid.")
		return
	}
	s.withUser(w, r, func(u *access.User) {
		set := func(dst *string, v *string) {
			if v != nil {
				*dst = *v
			}
		}
		set(&u.FirstName, req.FirstName)
		set(&u.LastName, req.LastName)
		set(&u.UserEmail, req.UserEmail)
		set(&u.EmployeeNumber, req.EmployeeNumber)
		if req.OnboardTime != nil {
			u.OnboardTime = *req.OnboardTime
		}
		if req.FirstName != nil || req.LastName != nil {
			u.FullName = u.FirstName + " " + u.LastName
		}
		if req.Status != nil {
			u.Status = access.UserStatus(*req.Status)
		}
		s.publish(change{Log: "user updated: " + u.ID})
		writeData(w, nil)
	})
}

// pageParams reads page_num and page_size (defaults 1 and 25).
func pageParams(w http.ResponseWriter, r *http.Request) (num, size int, ok bool) {
	q := r.URL.Query()
	num, ok1 := positiveParam(q, "page_num", 1)
	size, ok2 := positiveParam(q, "page_size", defaultPageSize)
	if !ok1 || !ok2 {
		badParams(w, "page_num and page_size must be positive integers.")
		return 0, 0, false
	}
	return num, size, true
}

// pageOf returns the records of one page.
func pageOf[T any](all []T, num, size int) []T {
	total := len(all)
	start := total
	if num-1 <= total/size {
		start = min((num-1)*size, total)
	}
	end := total
	if size < total-start {
		end = start + size
	}
	return all[start:end]
}

func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	num, size, ok := pageParams(w, r)
	if !ok {
		return
	}
	expand, ok := userExpand(w, r)
	if !ok {
		return
	}
	defer s.readUnlock(s.readLock(false))
	pg := pageOf(s.people.users.list, num, size)
	out := make([]userWire, len(pg))
	for i, u := range pg {
		out[i] = s.wireUser(u, expand)
	}
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "success", Data: out,
		Pagination: &pagination{PageNum: num, PageSize: size, Total: s.people.users.len()}})
}

// searchUsers filters by keyword (a case-insensitive substring of the
// names, email or employee number), user_id and status (both
// repeatable). The fake has no administrators: only_admin=true finds
// nobody. Like the vendor's sample, the answer has no pagination.
func (s *Server) searchUsers(w http.ResponseWriter, r *http.Request) {
	num, size, ok := pageParams(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	for _, st := range q["status"] {
		if st != string(access.UserStatusActive) && st != string(access.UserStatusDeactivated) && st != string(access.UserStatusPending) {
			badParams(w, "status must be ACTIVE, DEACTIVATED or PENDING.")
			return
		}
	}
	onlyAdmin := q.Get("only_admin")
	if onlyAdmin != "" && onlyAdmin != "true" && onlyAdmin != "false" {
		badParams(w, "only_admin must be true or false.")
		return
	}
	kw := strings.ToLower(strings.TrimSpace(q.Get("keyword")))
	ids, statuses := q["user_id"], q["status"]
	s.mu.Lock()
	defer s.mu.Unlock()
	var matched []*access.User
	for _, u := range s.people.users.list {
		switch {
		case onlyAdmin == "true":
			continue
		case len(ids) > 0 && !slices.Contains(ids, u.ID):
			continue
		case len(statuses) > 0 && !slices.Contains(statuses, string(u.Status)):
			continue
		case kw != "" && !strings.Contains(strings.ToLower(u.FirstName+" "+u.LastName+"\x00"+u.UserEmail+"\x00"+u.EmployeeNumber), kw):
			continue
		}
		matched = append(matched, u)
	}
	pg := pageOf(matched, num, size)
	out := make([]searchWire, len(pg))
	for i, u := range pg {
		out[i] = searchView(u)
	}
	writeData(w, out)
}

// deleteUser removes a deactivated user, with their group memberships,
// avatar and Identity assignments. An active or pending user gets
// CODE_OPERATION_FORBIDDEN (the vendor documents the rule, not its code).
func (s *Server) deleteUser(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.user(id)
	if u == nil {
		userNotFound(w)
		return
	}
	if u.Status != access.UserStatusDeactivated {
		operationForbidden(w, "Only deactivated users can be deleted.")
		return
	}
	s.people.users.remove(id)
	s.releaseUserCredentials(id)
	p := s.ppl()
	for _, g := range p.groups.list {
		g.removeMembers(id)
	}
	delete(p.avatars, id)
	delete(p.identity.users, id)
	s.publish(change{Log: "user deleted: " + id})
	writeSuccess(w)
}

// policyIDsBody reads {"access_policy_ids": [...]} and checks that every
// policy exists. The caller holds s.mu.
func (s *Server) policyIDsBody(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	var req struct {
		IDs *[]string `json:"access_policy_ids"`
	}
	if err := decodeBody(r, &req); err != nil || req.IDs == nil {
		badParams(w, "Body must be an object with access_policy_ids.")
		return nil, false
	}
	for _, id := range *req.IDs {
		if _, ok := s.people.policies[id]; !ok {
			writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found: access policy "+id+".")
			return nil, false
		}
	}
	return uniq(*req.IDs), true
}

// uniq returns ids without repeats, each at its first place; a set of
// those seen keeps it linear (a holder's growing list of credentials
// goes through it at every add).
func uniq(ids []string) []string {
	out := []string{}
	seen := make(map[string]struct{}, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			seen[id] = struct{}{}
			out = append(out, id)
		}
	}
	return out
}

func (s *Server) setUserPolicies(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		ids, ok := s.policyIDsBody(w, r)
		if !ok {
			return
		}
		u.AccessPolicyIDs = ids
		s.publish(change{Log: "access policies assigned to user: " + u.ID})
		writeSuccess(w)
	})
}

// listUserPolicies answers the user's own policies and, unless
// only_user_policies is true, those of every group the user is in
// (directly or through a subgroup), each once. The vendor leaves the
// default open; the fake includes the groups' policies.
func (s *Server) listUserPolicies(w http.ResponseWriter, r *http.Request) {
	only := r.URL.Query().Get("only_user_policies")
	if only != "" && only != "true" && only != "false" {
		badParams(w, "only_user_policies must be true or false.")
		return
	}
	s.withUser(w, r, func(u *access.User) {
		ids := slices.Clone(u.AccessPolicyIDs)
		if only != "true" {
			p := s.ppl()
			for _, g := range p.groups.list {
				if g.hasMember(u.ID) {
					ids = append(ids, g.policyIDs...)
					for _, up := range p.ancestors(g) {
						ids = append(ids, p.group(up).policyIDs...)
					}
				}
			}
		}
		writeData(w, policyViews(s.policiesOf(uniq(ids))))
	})
}

// policiesOf returns the stored policies with these ids, skipping unknown
// ones. The caller holds s.mu.
func (s *Server) policiesOf(ids []string) []access.AccessPolicy {
	out := []access.AccessPolicy{}
	for _, id := range ids {
		if p, ok := s.people.policies[id]; ok {
			out = append(out, clone(*p))
		}
	}
	return out
}

// plateTaken reports whether another user already has the plate number.
// The caller holds s.mu.
func (s *Server) plateTaken(number, self string) bool {
	for _, u := range s.people.users.list {
		if u.ID == self {
			continue
		}
		for _, p := range u.LicensePlates {
			if strings.EqualFold(p.Credential, number) {
				return true
			}
		}
	}
	return false
}

// assignPlates adds plate numbers (a bare JSON array) to a user. A number
// the user already has is kept once; one another user has gets
// CODE_PARAMS_INVALID.
func (s *Server) assignPlates(w http.ResponseWriter, r *http.Request) {
	var plates []string
	if err := decodeBody(r, &plates); err != nil || len(plates) == 0 {
		badParams(w, "Body must be a non-empty JSON array of licence plate numbers.")
		return
	}
	for _, p := range plates {
		if strings.TrimSpace(p) == "" {
			badParams(w, "Licence plate numbers must not be empty.")
			return
		}
	}
	s.withUser(w, r, func(u *access.User) {
		for _, p := range plates {
			if s.plateTaken(p, u.ID) {
				badParams(w, "The licence plate "+strconv.Quote(p)+" already exists.")
				return
			}
		}
		for _, p := range plates {
			if slices.ContainsFunc(u.LicensePlates, func(lp access.LicensePlate) bool { return strings.EqualFold(lp.Credential, p) }) {
				continue
			}
			u.LicensePlates = append(u.LicensePlates, access.LicensePlate{ID: s.newID(), Credential: p, CredentialType: "license", CredentialStatus: "active"})
		}
		s.publish(change{Log: "licence plates assigned to user: " + u.ID})
		writeData(w, nil)
	})
}

// unassignPlate removes the plate {plate} from a user's or, for the
// visitors' route, a visitor's plates. A user's change is logged; a
// visitor's, like its other credential changes, is not.
func (s *Server) unassignPlate(w http.ResponseWriter, r *http.Request) {
	remove := func(plates *[]access.LicensePlate, log string) {
		i := slices.IndexFunc(*plates, func(lp access.LicensePlate) bool { return lp.ID == r.PathValue("plate") })
		if i < 0 {
			resourceNotFound(w)
			return
		}
		*plates = slices.Delete(*plates, i, i+1)
		if log != "" {
			s.publish(change{Log: log})
		} else {
			s.mu.touch()
		}
		writeData(w, nil)
	}
	if strings.HasPrefix(operationPath(r), "/visitors/") {
		s.withVisitor(w, r, func(v *access.Visitor) { remove(&v.LicensePlates, "") })
		return
	}
	s.withUser(w, r, func(u *access.User) { remove(&u.LicensePlates, "licence plate unassigned from user: "+u.ID) })
}

// uploadAvatar reads the multipart part "file" and keeps it (see
// [Server.Avatar]); the user's avatar_relative_path points to it.
func (s *Server) uploadAvatar(w http.ResponseWriter, r *http.Request) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		badParams(w, "Body must be multipart/form-data.")
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var av Avatar
	found := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			badParams(w, "Malformed multipart body.")
			return
		}
		if part.FormName() == "file" && !found {
			data, err := io.ReadAll(part)
			if err != nil {
				badParams(w, "Malformed multipart body.")
				return
			}
			av = Avatar{FileName: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data}
			found = true
		}
	}
	if !found || len(av.Data) == 0 {
		badParams(w, "file is required.")
		return
	}
	s.withUser(w, r, func(u *access.User) {
		rel := "/avatar/" + s.newID()
		av.URL = s.srv.URL + rel
		u.AvatarRelativePath = rel
		s.ppl().avatars[u.ID] = av
		s.publish(change{Log: "avatar uploaded for user: " + u.ID})
		writeData(w, access.Avatar{AvatarURL: av.URL})
	})
}
