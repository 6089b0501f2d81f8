package accesstest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/access-dev/access"
)

// The access-policy operations.
const (
	OpAccessPoliciesCreate Op = "AccessPolicies.Create"
	OpAccessPoliciesUpdate Op = "AccessPolicies.Update"
	OpAccessPoliciesDelete Op = "AccessPolicies.Delete"
	OpAccessPoliciesGet    Op = "AccessPolicies.Get"
	OpAccessPoliciesList   Op = "AccessPolicies.List"
)

// AddAccessPolicy stores an access policy that users reference through
// AccessPolicyIDs and that the user fetch expands. Seeding does not check
// that its schedule, doors and door groups exist.
func (s *Server) AddAccessPolicy(p access.AccessPolicy) access.AccessPolicy {
	return addRecord(s, "AddAccessPolicy", "id", p,
		func(p *access.AccessPolicy) string {
			if p.ID == "" {
				p.ID = s.newID()
			}
			if p.Resources == nil {
				p.Resources = []access.Resource{}
			}
			return p.ID
		},
		func(p *access.AccessPolicy) bool { return s.people.policies[p.ID] != nil },
		func(p *access.AccessPolicy) {
			s.people.policies[p.ID] = p
			s.ppl().policyOrder = append(s.ppl().policyOrder, p.ID)
		})
}

// AccessPolicies returns every stored access policy, in insertion order.
func (s *Server) AccessPolicies() []access.AccessPolicy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policiesOf(s.ppl().policyOrder)
}

// policyRequest is a create or update body. The door list is read from
// "resources" (v4) or, when absent, "resource" (the v3 PDF's sample).
type policyRequest struct {
	Name       *string            `json:"name"`
	Resources  *[]access.Resource `json:"resources"`
	Resource   *[]access.Resource `json:"resource"`
	ScheduleID *string            `json:"schedule_id"`
}

func (p *policyRequest) doors() *[]access.Resource {
	if p.Resources != nil {
		return p.Resources
	}
	return p.Resource
}

// checkPolicy validates a policy's name (unique; self is its own id on
// update), schedule and doors against the stored records. It answers and
// returns false on error. The caller holds s.mu.
func (s *Server) checkPolicy(w http.ResponseWriter, self, name, scheduleID string, doors []access.Resource) bool {
	if strings.TrimSpace(name) == "" {
		badParams(w, "name is required.")
		return false
	}
	for _, p := range s.people.policies {
		if p.ID != self && p.Name == name {
			badParams(w, "The provided name already exists.")
			return false
		}
	}
	if _, ok := s.people.schedules[scheduleID]; !ok {
		writeError(w, http.StatusBadRequest, access.CodeAccessPolicyScheduleNotFound, "The requested schedule could not be found.")
		return false
	}
	sp := s.sp()
	for _, d := range doors {
		var ok bool
		switch d.Type {
		case "door":
			ok = sp.door(d.ID) != nil
		case "door_group":
			ok = d.ID == sp.buildingID || sp.group(d.ID) != nil
		default:
			badParams(w, "resources[].type must be door or door_group.")
			return false
		}
		if !ok {
			writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found: "+string(d.Type)+" "+d.ID+".")
			return false
		}
	}
	return true
}

func idType(rs []access.Resource) []access.Resource {
	out := make([]access.Resource, len(rs))
	for i, r := range rs {
		out[i] = access.Resource{ID: r.ID, Type: r.Type}
	}
	return out
}

func (s *Server) createPolicy(w http.ResponseWriter, r *http.Request) {
	var req policyRequest
	if err := decodeBody(r, &req); err != nil || req.Name == nil || req.ScheduleID == nil {
		badParams(w, "Body must be an object with name, resources and schedule_id.")
		return
	}
	var doors []access.Resource
	if d := req.doors(); d != nil {
		doors = *d
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.checkPolicy(w, "", *req.Name, *req.ScheduleID, doors) {
		return
	}
	p := &access.AccessPolicy{ID: s.newID(), Name: *req.Name, Resources: idType(doors), ScheduleID: *req.ScheduleID}
	s.people.policies[p.ID] = p
	s.ppl().policyOrder = append(s.ppl().policyOrder, p.ID)
	s.publish(change{Log: "access policy created: " + p.ID})
	writeData(w, policyView(p))
}

// updatePolicy changes what the body sets and answers the policy's id.
func (s *Server) updatePolicy(w http.ResponseWriter, r *http.Request) {
	var req policyRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body must be an access policy object.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.people.policies[r.PathValue("id")]
	if !ok {
		resourceNotFound(w)
		return
	}
	name, sched, doors := p.Name, p.ScheduleID, p.Resources
	if req.Name != nil {
		name = *req.Name
	}
	if req.ScheduleID != nil {
		sched = *req.ScheduleID
	}
	if d := req.doors(); d != nil {
		doors = *d
	}
	if !s.checkPolicy(w, p.ID, name, sched, doors) {
		return
	}
	p.Name, p.ScheduleID, p.Resources = name, sched, idType(doors)
	s.publish(change{Log: "access policy updated: " + p.ID})
	writeData(w, struct {
		ID string `json:"id"`
	}{p.ID})
}

// deletePolicy refuses a policy that users or user groups still hold
// (CODE_OPERATION_FORBIDDEN; the vendor documents no code).
func (s *Server) deletePolicy(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.people.policies[id]; !ok {
		resourceNotFound(w)
		return
	}
	for _, u := range s.people.users.list {
		if slices.Contains(u.AccessPolicyIDs, id) {
			operationForbidden(w, "The access policy is assigned to users.")
			return
		}
	}
	for _, g := range s.ppl().groups.list {
		if slices.Contains(g.policyIDs, id) {
			operationForbidden(w, "The access policy is assigned to user groups.")
			return
		}
	}
	delete(s.people.policies, id)
	p := s.ppl()
	p.policyOrder = slices.DeleteFunc(p.policyOrder, func(x string) bool { return x == id })
	s.publish(change{Log: "access policy deleted: " + id})
	writeSuccess(w)
}

func (s *Server) getPolicy(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.people.policies[r.PathValue("id")]
	if !ok {
		resourceNotFound(w)
		return
	}
	writeData(w, policyView(p))
}

func (s *Server) listPolicies(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeData(w, policyViews(s.policiesOf(s.ppl().policyOrder)))
}
