package accesstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// The UniFi Identity operations.
const (
	OpIdentitySendInvitations   Op = "Identity.SendInvitations"
	OpIdentityListResources     Op = "Identity.ListResources"
	OpIdentityAssignToUser      Op = "Identity.AssignToUser"
	OpIdentityListForUser       Op = "Identity.ListForUser"
	OpIdentityAssignToUserGroup Op = "Identity.AssignToUserGroup"
	OpIdentityListForUserGroup  Op = "Identity.ListForUserGroup"
)

var identityTypes = []access.IdentityResourceType{access.IdentityEVStation, access.IdentityVPN, access.IdentityWiFi}

// identityState holds the Identity resources and what is assigned to
// users and groups (type -> resource ids).
type identityState struct {
	resources map[access.IdentityResourceType][]access.IdentityResource
	users     map[string]map[access.IdentityResourceType][]string
	groups    map[string]map[access.IdentityResourceType][]string
	invited   []string
}

func (st *identityState) init() {
	if st.resources == nil {
		st.resources = map[access.IdentityResourceType][]access.IdentityResource{}
		st.users = map[string]map[access.IdentityResourceType][]string{}
		st.groups = map[string]map[access.IdentityResourceType][]string{}
	}
}

// AddIdentityResource stores an EV station, VPN or Wi-Fi network that
// can be assigned to users and groups; an empty ID gets a UUID.
func (s *Server) AddIdentityResource(typ access.IdentityResourceType, res access.IdentityResource) access.IdentityResource {
	return seed(s, func() (access.IdentityResource, error) {
		st := &s.ppl().identity
		st.init()
		if !slices.Contains(identityTypes, typ) {
			return access.IdentityResource{}, fmt.Errorf("accesstest: AddIdentityResource: unknown type %q", typ)
		}
		if res.ID == "" {
			res.ID = s.newID()
		}
		if len(res.Metadata) == 0 {
			res.Metadata = json.RawMessage(`{}`) // consoles always send it
		}
		st.resources[typ] = append(st.resources[typ], res)
		return res, nil
	})
}

// Invited returns the ids of the users invited so far, in order.
func (s *Server) Invited() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ppl().identity.invited)
}

// sendInvitations invites each user; a user who is unknown
// (CODE_USER_WORKER_NOT_EXISTS) or has no valid email
// (CODE_USER_EMAIL_ERROR) is listed as failed, with code SUCCESS, as
// consoles answer.
func (s *Server) sendInvitations(w http.ResponseWriter, r *http.Request) {
	var req []struct {
		UserID string `json:"user_id"`
		Email  string `json:"email"`
	}
	if err := decodeBody(r, &req); err != nil || len(req) == 0 {
		badParams(w, "Body must be a non-empty JSON array of {user_id, email}.")
		return
	}
	type failure struct {
		ErrorCode access.ErrorCode `json:"error_code"`
		ErrorMsg  string           `json:"error_msg"`
		UserEmail string           `json:"user_email"`
		UserID    string           `json:"user_id"`
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.ppl().identity
	failed := []failure{}
	for _, in := range req {
		u := s.user(in.UserID)
		switch {
		case u == nil:
			failed = append(failed, failure{access.CodeUserWorkerNotExists, "The requested user does not exist.", in.Email, in.UserID})
			continue
		case in.Email != "" && !validEmail(in.Email):
			failed = append(failed, failure{access.CodeUserEmailError, "The provided email format is invalid.", in.Email, in.UserID})
			continue
		case in.Email == "" && !validEmail(u.UserEmail):
			failed = append(failed, failure{access.CodeUserEmailError, "The user has no valid email.", u.UserEmail, in.UserID})
			continue
		}
		if in.Email != "" {
			u.UserEmail = in.Email
		}
		st.invited = append(st.invited, u.ID)
		s.publish(change{Log: "identity invitation sent: " + u.ID})
	}
	writeData(w, failed)
}

// listIdentityResources answers the resources by type, under the list's
// own keys (evstation, vpn, wifi); resource_type is a comma list of those
// names.
func (s *Server) listIdentityResources(w http.ResponseWriter, r *http.Request) {
	want := identityTypes
	if q := r.URL.Query().Get("resource_type"); q != "" {
		want = nil
		for _, t := range strings.Split(q, ",") {
			switch t {
			case "evstation":
				want = append(want, access.IdentityEVStation)
			case "vpn", "wifi":
				want = append(want, access.IdentityResourceType(t))
			default:
				badParams(w, "resource_type must list evstation, vpn or wifi.")
				return
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.ppl().identity
	st.init()
	out := map[string][]access.IdentityResource{"evstation": {}, "vpn": {}, "wifi": {}}
	for _, t := range want {
		key := string(t)
		if t == access.IdentityEVStation {
			key = "evstation"
		}
		out[key] = append([]access.IdentityResource{}, st.resources[t]...)
	}
	writeData(w, out)
}

// assignIdentity adds resources of one type to what holder (a user or a
// group, of the given kind, in all) is assigned, logs the change and
// answers. The caller holds s.mu.
func (s *Server) assignIdentity(w http.ResponseWriter, r *http.Request, all map[string]map[access.IdentityResourceType][]string, holder, kind string) {
	var req struct {
		ResourceType access.IdentityResourceType `json:"resource_type"`
		ResourceIDs  []string                    `json:"resource_ids"`
	}
	if err := decodeBody(r, &req); err != nil || !slices.Contains(identityTypes, req.ResourceType) || len(req.ResourceIDs) == 0 {
		badParams(w, "Body must have resource_type (ev_station, vpn or wifi) and resource_ids.")
		return
	}
	st := &s.ppl().identity
	for _, id := range req.ResourceIDs {
		if !slices.ContainsFunc(st.resources[req.ResourceType], func(x access.IdentityResource) bool { return x.ID == id }) {
			resourceNotFound(w)
			return
		}
	}
	if all[holder] == nil {
		all[holder] = map[access.IdentityResourceType][]string{}
	}
	all[holder][req.ResourceType] = uniq(append(all[holder][req.ResourceType], req.ResourceIDs...))
	s.publish(change{Log: "identity resources assigned to " + kind + ": " + holder})
	writeData(w, nil)
}

// assignedView answers assignments under the assignment keys
// (ev_station, vpn, wifi). The caller holds s.mu.
func (s *Server) assignedView(assigned map[access.IdentityResourceType][]string) access.IdentityResources {
	st := &s.ppl().identity
	pick := func(t access.IdentityResourceType) []access.IdentityResource {
		out := []access.IdentityResource{}
		for _, res := range st.resources[t] {
			if slices.Contains(assigned[t], res.ID) {
				out = append(out, res)
			}
		}
		return out
	}
	return access.IdentityResources{EVStation: pick(access.IdentityEVStation), VPN: pick(access.IdentityVPN), WiFi: pick(access.IdentityWiFi)}
}

func (s *Server) assignIdentityToUser(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		st := &s.ppl().identity
		st.init()
		s.assignIdentity(w, r, st.users, u.ID, "user")
	})
}

func (s *Server) listIdentityForUser(w http.ResponseWriter, r *http.Request) {
	s.withUser(w, r, func(u *access.User) {
		st := &s.ppl().identity
		st.init()
		writeData(w, s.assignedView(st.users[u.ID]))
	})
}

func (s *Server) assignIdentityToGroup(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.ppl().identity
	st.init()
	if g := s.groupOf(w, r); g != nil {
		s.assignIdentity(w, r, st.groups, g.id, "user group")
	}
}

func (s *Server) listIdentityForGroup(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := &s.ppl().identity
	st.init()
	if g := s.groupOf(w, r); g != nil {
		writeData(w, s.assignedView(st.groups[g.id]))
	}
}
