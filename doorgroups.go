package access

import (
	"context"
)

// DoorGroupsService reads the site's floors and doors and manages door
// groups, which access policies and visitors reference. Get it from
// [Client.DoorGroups].
//
// Every operation is available on every controller version with the
// developer API.
type DoorGroupsService service

// DoorGroupType is the type of a door group.
type DoorGroupType string

// The door group types.
const (
	// DoorGroupBuilding is the one group holding every door; only the
	// topology and Get return it.
	DoorGroupBuilding DoorGroupType = "building"
	// DoorGroupAccess is a group made with [DoorGroupsService.Create].
	DoorGroupAccess DoorGroupType = "access"
)

// DoorGroup is a named set of doors. Its Resources are the doors, with
// Type "door" (Name is filled by Get).
type DoorGroup struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	Type      DoorGroupType `json:"type"`
	Resources []Resource    `json:"resources"`
}

// DoorGroupTopology is a door group laid out by floor, as
// [DoorGroupsService.Topology] returns it.
type DoorGroupTopology struct {
	ID   string        `json:"id"`
	Name string        `json:"name"`
	Type DoorGroupType `json:"type"`
	// Floors are the floors with the group's doors (resource_topologies
	// on the wire).
	Floors []FloorTopology `json:"resource_topologies"`
}

// FloorTopology is one floor of a [DoorGroupTopology] and its doors.
type FloorTopology struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is "floor".
	Type string `json:"type"`
	// IsBindHub is listed here by the vendor's table; its sample puts it
	// on each door instead.
	IsBindHub bool           `json:"is_bind_hub,omitempty"`
	Doors     []TopologyDoor `json:"resources"`
}

// TopologyDoor is a door in a [FloorTopology].
type TopologyDoor struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is "door".
	Type string `json:"type"`
	// IsBindHub reports whether a hub drives the door (remote unlock
	// needs one).
	IsBindHub bool `json:"is_bind_hub"`
}

// DoorGroupRequest creates a door group.
type DoorGroupRequest struct {
	// GroupName must be unique on the controller.
	GroupName string `json:"group_name"`
	// Resources are the ids of the group's doors (see
	// [DoorGroupsService.Topology] or [DoorsService.List]).
	Resources []string `json:"resources"`
}

// DoorGroupUpdate changes a door group with [DoorGroupsService.Update]. A
// nil member keeps the group's value; a non-nil one sets it (see [Ptr]).
// A group always has a name, so Ptr("") is refused; an empty, non-nil
// Resources removes every door.
type DoorGroupUpdate struct {
	GroupName *string
	// Resources replaces the ids of the group's doors when not nil.
	Resources []string
}

// MarshalJSON sends only what changes: group_name when set, resources when
// non-nil ([] when empty).
func (u DoorGroupUpdate) MarshalJSON() ([]byte, error) {
	return marshalCompact(struct {
		GroupName *string   `json:"group_name,omitempty"`
		Resources *[]string `json:"resources,omitempty"`
	}{u.GroupName, nilIfNil(u.Resources)})
}

func checkDoorIDs(op string, ids []string) error {
	for _, id := range ids {
		if err := checkID(op, "Resources", id); err != nil {
			return err
		}
	}
	return nil
}

func doorGroupPath(id string) string { return "/door_groups/" + pathSeg(id) }

// Topology fetches every door group, the building group included, with
// its doors laid out by floor. Any controller version.
//
// API: GET /api/v1/developer/door_groups/topology (permission view:space)
func (s *DoorGroupsService) Topology(ctx context.Context) ([]DoorGroupTopology, *Response, error) {
	return list[DoorGroupTopology](ctx, s.client, "/door_groups/topology", nil)
}

// Create makes a door group from existing doors. The name must be unique;
// a door id the controller does not know fails.
// Any controller version.
//
// Create is a POST and is not retried unless RetryPolicy.RetryWrites is set.
//
// API: POST /api/v1/developer/door_groups (permission edit:space)
func (s *DoorGroupsService) Create(ctx context.Context, req *DoorGroupRequest) (*DoorGroup, *Response, error) {
	const op = "DoorGroups.Create"
	switch {
	case req == nil:
		return nil, nil, invalidArg(op, "req", "must not be nil")
	case req.GroupName == "":
		return nil, nil, invalidArg(op, "GroupName", "must not be empty")
	}
	if err := checkDoorIDs(op, req.Resources); err != nil {
		return nil, nil, err
	}
	body := *req
	if body.Resources == nil {
		body.Resources = []string{} // required member
	}
	return call[DoorGroup](ctx, s.client, "POST", "/door_groups", nil, &body, true)
}

// Get fetches a door group with its doors' names. The building group's id
// (from Topology) works too. Any controller version.
//
// API: GET /api/v1/developer/door_groups/{id} (permission view:space)
func (s *DoorGroupsService) Get(ctx context.Context, id string) (*DoorGroup, *Response, error) {
	if err := checkID("DoorGroups.Get", "id", id); err != nil {
		return nil, nil, err
	}
	return call[DoorGroup](ctx, s.client, "GET", doorGroupPath(id), nil, nil, true)
}

// Update renames a door group or replaces its doors (see
// [DoorGroupUpdate]); an update that changes nothing is a
// [*ValidationError]. Any controller version.
//
// API: PUT /api/v1/developer/door_groups/{id} (permission edit:space)
func (s *DoorGroupsService) Update(ctx context.Context, id string, req *DoorGroupUpdate) (*DoorGroup, *Response, error) {
	const op = "DoorGroups.Update"
	if err := checkID(op, "id", id); err != nil {
		return nil, nil, err
	}
	switch {
	case req == nil:
		return nil, nil, invalidArg(op, "req", "must not be nil")
	case req.GroupName == nil && req.Resources == nil:
		return nil, nil, invalidArg(op, "req", "changes nothing: set GroupName or Resources")
	case req.GroupName != nil && *req.GroupName == "":
		return nil, nil, invalidArg(op, "GroupName", "must not be empty when set")
	}
	if err := checkDoorIDs(op, req.Resources); err != nil {
		return nil, nil, err
	}
	return call[DoorGroup](ctx, s.client, "PUT", doorGroupPath(id), nil, req, true)
}

// List fetches the door groups made with Create; the building group is
// not listed (see Topology). Any controller version.
//
// API: GET /api/v1/developer/door_groups (permission view:space)
func (s *DoorGroupsService) List(ctx context.Context) ([]DoorGroup, *Response, error) {
	return list[DoorGroup](ctx, s.client, "/door_groups", nil)
}

// Delete removes a door group. Any controller version.
//
// API: DELETE /api/v1/developer/door_groups/{id} (permission edit:space)
func (s *DoorGroupsService) Delete(ctx context.Context, id string) (*Response, error) {
	if err := checkID("DoorGroups.Delete", "id", id); err != nil {
		return nil, err
	}
	return del(ctx, s.client, doorGroupPath(id), nil)
}
