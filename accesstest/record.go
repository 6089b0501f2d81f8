package accesstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/internal/redact"
)

// SiteRecord is a console's site as read through the SDK, read-only: its
// structure (building, floors, doors, devices, door groups, schedules,
// holiday groups, access policies, user groups with their members and
// policies) and its people (users with their policies, visitors, NFC
// cards, touch passes). [RecordSite] reads one, [SiteRecord.Pseudonymise]
// replaces its personal data, [SiteRecord.WriteState] writes it in the
// format [Server.ReadState] reads.
type SiteRecord struct {
	BuildingID   string
	BuildingName string
	Floors       []access.FloorTopology
	Doors        []access.Door
	Devices      []access.Device
	// DeviceDoors are the doors each device serves, by device id (a
	// device the console lists under several doors is in Devices once).
	DeviceDoors map[string][]string
	// DeviceSettings are the access-method settings of the devices that
	// have them.
	DeviceSettings []access.DeviceSettings
	DoorGroups     []access.DoorGroup
	Schedules      []access.Schedule
	HolidayGroups  []access.HolidayGroup
	Policies       []access.AccessPolicy
	UserGroups     []RecordedGroup
	Users          []access.User
	Visitors       []access.Visitor
	NFCCards       []access.NFCCard
	TouchPasses    []access.TouchPass
}

// RecordedGroup is a user group with the ids of its direct members and of
// its access policies.
type RecordedGroup struct {
	Group     access.UserGroup
	Members   []string
	PolicyIDs []string
}

// RecordSite reads the site of the console c talks to: every page of
// every list, through GET requests only. The first error ends it.
func RecordSite(ctx context.Context, c *access.Client) (*SiteRecord, error) {
	r := &SiteRecord{}
	fail := func(what string, err error) (*SiteRecord, error) {
		return nil, fmt.Errorf("record %s: %w", what, err)
	}
	topo, _, err := c.DoorGroups.Topology(ctx)
	if err != nil {
		return fail("topology", err)
	}
	for _, g := range topo {
		if g.Type == "building" || r.BuildingID == "" {
			r.BuildingID, r.BuildingName = g.ID, g.Name
		}
	}
	floorSeen := map[string]bool{}
	for _, g := range topo {
		for _, f := range g.Floors {
			if f.Type == "floor" && !floorSeen[f.ID] {
				floorSeen[f.ID] = true
				r.Floors = append(r.Floors, access.FloorTopology{ID: f.ID, Name: f.Name, Type: f.Type})
			}
		}
	}
	if r.Doors, _, err = c.Doors.List(ctx); err != nil {
		return fail("doors", err)
	}
	devs, _, err := c.Devices.List(ctx, nil)
	if err != nil {
		return fail("devices", err)
	}
	r.deviceDoors(devs)
	for _, d := range r.Devices {
		set, _, err := c.Devices.GetSettings(ctx, d.ID)
		var apiErr *access.APIError
		switch {
		case errors.As(err, &apiErr) && (apiErr.Code == access.CodeDeviceDeviceNotFound || apiErr.Code == access.CodeDeviceAPINotSupported):
			continue // a device without settings
		case err != nil:
			return fail("device settings", err)
		}
		r.DeviceSettings = append(r.DeviceSettings, *set)
	}
	if r.DoorGroups, _, err = c.DoorGroups.List(ctx); err != nil {
		return fail("door groups", err)
	}
	scheds, _, err := c.Schedules.List(ctx) // summaries: each is read whole
	if err != nil {
		return fail("schedules", err)
	}
	for _, sc := range scheds {
		full, _, err := c.Schedules.Get(ctx, sc.ID)
		if err != nil {
			return fail("schedule", err)
		}
		r.Schedules = append(r.Schedules, *full)
	}
	hs, _, err := c.HolidayGroups.List(ctx)
	if err != nil {
		return fail("holiday groups", err)
	}
	for _, h := range hs {
		g, _, err := c.HolidayGroups.Get(ctx, h.ID)
		if err != nil {
			return fail("holiday group", err)
		}
		r.HolidayGroups = append(r.HolidayGroups, *g)
	}
	if r.Policies, _, err = c.AccessPolicies.List(ctx); err != nil {
		return fail("access policies", err)
	}
	groups, _, err := c.UserGroups.List(ctx)
	if err != nil {
		return fail("user groups", err)
	}
	for _, g := range groups {
		rg := RecordedGroup{Group: g, Members: []string{}, PolicyIDs: []string{}}
		users, _, err := c.UserGroups.ListUsers(ctx, g.ID)
		if err != nil {
			return fail("user group members", err)
		}
		for _, u := range users {
			rg.Members = append(rg.Members, u.ID)
		}
		pols, _, err := c.UserGroups.ListAccessPolicies(ctx, g.ID)
		if err != nil {
			return fail("user group policies", err)
		}
		for _, p := range pols {
			rg.PolicyIDs = append(rg.PolicyIDs, p.ID)
		}
		r.UserGroups = append(r.UserGroups, rg)
	}
	for u, err := range c.Users.All(ctx, &access.UserListOptions{Expand: []access.UserExpand{access.UserExpandAccessPolicy}}) {
		if err != nil {
			return fail("users", err)
		}
		ids := []string{}
		for _, p := range u.AccessPolicies {
			ids = append(ids, p.ID)
		}
		if len(ids) > 0 || len(u.AccessPolicyIDs) == 0 {
			u.AccessPolicyIDs = ids
		}
		u.AccessPolicies = nil
		r.Users = append(r.Users, u)
	}
	for v, err := range c.Visitors.All(ctx, nil) {
		if err != nil {
			return fail("visitors", err)
		}
		r.Visitors = append(r.Visitors, v)
	}
	for card, err := range c.NFCCards.All(ctx, nil) {
		if err != nil {
			return fail("NFC cards", err)
		}
		r.NFCCards = append(r.NFCCards, card)
	}
	for tp, err := range c.TouchPasses.All(ctx, nil) {
		if err != nil {
			return fail("touch passes", err)
		}
		r.TouchPasses = append(r.TouchPasses, tp)
	}
	return r, nil
}

// deviceDoors files the devices of the console's list, which groups them
// by door (a device serving two doors is in two groups): a group's door
// is the door most of its devices are located at.
func (r *SiteRecord) deviceDoors(groups access.DeviceGroups) {
	doors := map[string]bool{}
	for _, d := range r.Doors {
		doors[d.ID] = true
	}
	r.DeviceDoors = map[string][]string{}
	in := map[string]int{} // how many groups each device is in
	for _, g := range groups {
		for _, d := range g {
			in[d.ID]++
		}
	}
	for _, g := range groups {
		door, fewest := "", 0 // the location of the device in the fewest groups
		for _, d := range g {
			if doors[d.LocationID] && (door == "" || in[d.ID] < fewest) {
				door, fewest = d.LocationID, in[d.ID]
			}
		}
		for _, d := range g {
			known, seen := r.DeviceDoors[d.ID]
			if !seen {
				r.Devices = append(r.Devices, d)
				known = []string{}
			}
			if door != "" && !slices.Contains(known, door) {
				known = append(known, door)
			}
			r.DeviceDoors[d.ID] = known
		}
	}
}

// cardID replaces a card's id when it is the card's number, which the
// display id holds too (replaced by the walk): replaced the same way, so
// a card whose id is its display id keeps them equal. Another id is kept.
func cardID(p *redact.Pseudonyms, c *access.NFCCard) {
	if c.ID != "" && strings.Trim(c.ID, "0123456789abcdefABCDEF") == "" {
		c.ID = p.Replace("display_id", c.ID)
	}
	if c.User != nil {
		c.User.Avatar = ""
	}
}

// pseudonymiseJSON replaces, in *v, every string outside ids, times and
// known enumerations (redact.Walk over its JSON form) by its pseudonym.
func pseudonymiseJSON[T any](p *redact.Pseudonyms, what string, v *T) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("pseudonymise %s: %w", what, err)
	}
	if b, err = p.JSON(b); err != nil {
		return fmt.Errorf("pseudonymise %s: %w", what, err)
	}
	var n T
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("pseudonymise %s: %w", what, err)
	}
	*v = n
	return nil
}

// Pseudonymise replaces the record's data by pseudonyms keyed by key. It
// works by an allow-list (package internal/redact): the values of ids,
// times and known enumerations (types, states, settings) are kept, and
// every other string of the record's JSON form is replaced through one
// keyed mapping, in its form (digits for digits, hex for hex: card
// tokens, card numbers, PINs and plates), or as the member's name and a
// tag ("visitor company 3f0c9a1e", "device name 9b2d71c0"): names of
// doors, floors, groups, schedules and devices, touch passes' phones,
// visitors' companies and remarks, and members the SDK adds later,
// alike. The same value gets the same replacement throughout. A person's
// values (names, emails, phones, employee numbers; redact.Person) are
// replaced by one mapping drawn from the value alone, whatever member
// holds them: a name word by word by generated, readable words, so the
// same person has the same name as a user, a card's holder, a touch
// pass's or a visitor's inviter, and as in a capture (package capture)
// made under the same key. A visit's reason is drawn from the documented
// ones. Without the key the originals cannot be recovered from the
// pseudonyms (HMAC-SHA256); keep the key unwritten. An error leaves the
// record partly replaced: do not write it.
func (r *SiteRecord) Pseudonymise(key []byte) error {
	rp := redact.NewPseudonyms(key)
	r.BuildingName = rp.Replace("building_name", r.BuildingName)
	for _, err := range []error{
		pseudonymiseJSON(rp, "floors", &r.Floors),
		pseudonymiseJSON(rp, "doors", &r.Doors),
		pseudonymiseJSON(rp, "devices", &r.Devices),
		pseudonymiseJSON(rp, "device settings", &r.DeviceSettings),
		pseudonymiseJSON(rp, "door groups", &r.DoorGroups),
		pseudonymiseJSON(rp, "schedules", &r.Schedules),
		pseudonymiseJSON(rp, "holiday groups", &r.HolidayGroups),
		pseudonymiseJSON(rp, "access policies", &r.Policies),
		pseudonymiseJSON(rp, "users", &r.Users),
		pseudonymiseJSON(rp, "visitors", &r.Visitors),
		pseudonymiseJSON(rp, "NFC cards", &r.NFCCards),
		pseudonymiseJSON(rp, "touch passes", &r.TouchPasses),
	} {
		if err != nil {
			return err
		}
	}
	for i := range r.UserGroups { // members and policies are ids
		if err := pseudonymiseJSON(rp, "user groups", &r.UserGroups[i].Group); err != nil {
			return err
		}
	}
	for i := range r.Users {
		u := &r.Users[i]
		u.AvatarRelativePath = ""
		for j := range u.NFCCards {
			cardID(rp, &u.NFCCards[j])
		}
		for j := range u.TouchPass {
			u.TouchPass[j].UserAvatar = ""
		}
	}
	reasons := []access.VisitReason{access.VisitReasonInterview, access.VisitReasonBusiness, access.VisitReasonCooperation, access.VisitReasonOthers}
	for i := range r.Visitors {
		v := &r.Visitors[i]
		if v.VisitReason != "" {
			v.VisitReason = reasons[rp.Sum("visit reason", v.ID)[0]%4]
		}
		for j := range v.NFCCards {
			cardID(rp, &v.NFCCards[j])
		}
	}
	for i := range r.NFCCards {
		cardID(rp, &r.NFCCards[i])
		if r.NFCCards[i].User != nil && r.NFCCards[i].User.ID == "" {
			r.NFCCards[i].User.ID = r.NFCCards[i].UserID
		}
	}
	for i := range r.TouchPasses {
		r.TouchPasses[i].UserAvatar = ""
	}
	return nil
}

// WriteState writes the record as a state [Server.ReadState] loads. It
// holds no token: a server loading it keeps its tokens.
func (r *SiteRecord) WriteState(w io.Writer) error {
	f := &stateFile{Version: StateVersion} // no tokens: the loading server keeps its own
	for i := range r.Users {
		f.Users = append(f.Users, &r.Users[i])
	}
	for _, g := range r.UserGroups {
		f.UserGroups = append(f.UserGroups, groupFile{ID: g.Group.ID, Name: g.Group.Name, UpID: g.Group.UpID,
			Members: nonNil(g.Members), PolicyIDs: nonNil(g.PolicyIDs)})
	}
	for i := range r.Policies {
		f.Policies = append(f.Policies, &r.Policies[i])
	}
	for i := range r.Schedules {
		f.Schedules = append(f.Schedules, &r.Schedules[i])
	}
	for i := range r.HolidayGroups {
		f.HolidayGroups = append(f.HolidayGroups, &r.HolidayGroups[i])
	}
	for i := range r.Visitors {
		f.Visitors = append(f.Visitors, &r.Visitors[i])
	}
	f.Space.BuildingID, f.Space.BuildingName = r.BuildingID, r.BuildingName
	for _, fl := range r.Floors {
		f.Space.Floors = append(f.Space.Floors, floorFile{ID: fl.ID, Name: fl.Name})
	}
	for _, d := range r.Doors {
		f.Space.Doors = append(f.Space.Doors, doorFile{Door: d})
	}
	for i := range r.DoorGroups {
		f.Space.DoorGroups = append(f.Space.DoorGroups, &r.DoorGroups[i])
	}
	for _, d := range r.Devices {
		df := deviceFile{Device: d, Doors: nonNil(r.DeviceDoors[d.ID])}
		f.Space.Devices = append(f.Space.Devices, df)
	}
	for i := range r.DeviceSettings {
		f.Devices = append(f.Devices, &r.DeviceSettings[i])
	}
	for i := range r.NFCCards {
		f.Credentials.Cards = append(f.Credentials.Cards, &r.NFCCards[i])
	}
	for i := range r.TouchPasses {
		f.TouchPasses = append(f.TouchPasses, &r.TouchPasses[i])
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}
