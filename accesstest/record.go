package accesstest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	access "github.com/access-dev/access"
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

var (
	pseudoFirst = []string{"Avery", "Blake", "Casey", "Devon", "Emery", "Finley", "Harper", "Jordan",
		"Kendall", "Logan", "Morgan", "Parker", "Quinn", "Riley", "Sawyer", "Taylor"}
	pseudoLast = []string{"Ashdown", "Birchley", "Cobbett", "Dunmore", "Elsworth", "Fairclough", "Garside", "Holloway",
		"Ingleby", "Jessop", "Kingsley", "Lowther", "Marwood", "Norcott", "Oakridge", "Pemberton"}
)

// pseudonyms maps personal values to generated ones, the same value (or
// person) always to the same pseudonym under one key.
type pseudonyms struct{ key []byte }

func (p pseudonyms) sum(kind, v string) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(v))
	return m.Sum(nil)
}

// digits is n decimal digits drawn from the value's mac.
func (p pseudonyms) digits(kind, v string, n int) string {
	s := p.sum(kind, v)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte('0' + s[i%len(s)]%10)
	}
	return b.String()
}

func (p pseudonyms) hex(kind, v string, n int) string {
	s := hex.EncodeToString(p.sum(kind, v))
	for len(s) < n {
		s += s
	}
	return s[:n]
}

// person is the generated name, email and employee number of a person
// (by id).
func (p pseudonyms) person(id string) (first, last, email, emp string) {
	s := p.sum("person", id)
	first, last = pseudoFirst[s[0]%16], pseudoLast[s[1]%16]
	tag := hex.EncodeToString(s[2:5])
	email = strings.ToLower(first+"."+last+"."+tag) + "@example.invalid"
	emp = fmt.Sprintf("P-%06d", binary.BigEndian.Uint32(s[5:9])%1000000)
	return first, last, email, emp
}

func (p pseudonyms) ifSet(v, kind string, f func(kind, v string) string) string {
	if v == "" {
		return ""
	}
	return f(kind, v)
}

func (p pseudonyms) token(v string) string {
	return p.ifSet(v, "token", func(k, v string) string { return p.hex(k, v, max(len(v), 16)) })
}

func (p pseudonyms) card(c *access.NFCCard) {
	c.Token = p.token(c.Token)
	// the id is often the card's number: it is replaced as display ids
	// are, so a card whose id is its display id keeps them equal
	c.ID = p.ifSet(c.ID, "display", func(k, v string) string { return p.digits(k, v, len(v)) })
	c.DisplayID = p.ifSet(c.DisplayID, "display", func(k, v string) string { return p.digits(k, v, len(v)) })
	if c.Note != "" {
		c.Note = "note " + p.hex("note", c.Note, 8)
	}
	if c.Alias != "" {
		c.Alias = "card " + p.hex("alias", c.Alias, 8)
	}
	if c.User != nil {
		id := c.User.ID
		if id == "" {
			id = c.UserID
		}
		first, last, _, _ := p.person(id)
		c.User.FirstName, c.User.LastName, c.User.Name = first, last, first+" "+last
	}
}

func (p pseudonyms) pin(c *access.PINCode) {
	if c != nil {
		c.Token = p.token(c.Token)
	}
}

func (p pseudonyms) plates(ps []access.LicensePlate) {
	for i := range ps {
		ps[i].Credential = strings.ToUpper(p.ifSet(ps[i].Credential, "plate", func(k, v string) string { return p.hex(k, v, max(len(v), 6)) }))
	}
}

func (p pseudonyms) phone(v string) string {
	return p.ifSet(v, "phone", func(k, v string) string {
		d := p.digits(k, v, 7)
		return "+1 555 " + d[:3] + " " + d[3:]
	})
}

// Pseudonymise replaces the personal data of the record by pseudonyms
// keyed by key: a person (by id) always gets the same generated name,
// email and employee number, a card token, display id, PIN or plate the
// same replacement, wherever it appears; ids, the structure and unknown
// fields are kept. Without the key the originals cannot be recovered
// from the pseudonyms (HMAC-SHA256); keep the key unwritten.
func (r *SiteRecord) Pseudonymise(key []byte) {
	p := pseudonyms{key: key}
	for i := range r.Users {
		u := &r.Users[i]
		first, last, email, emp := p.person(u.ID)
		u.FirstName, u.LastName = first, last
		if u.FullName != "" {
			u.FullName = first + " " + last
		}
		for _, f := range []*string{&u.Alias, &u.Username} {
			if *f != "" {
				*f = strings.ToLower(first + "." + last)
			}
		}
		for _, f := range []*string{&u.Email, &u.UserEmail} {
			if *f != "" {
				*f = email
			}
		}
		if u.EmployeeNumber != "" {
			u.EmployeeNumber = emp
		}
		u.Phone = p.phone(u.Phone)
		u.AvatarRelativePath = ""
		for j := range u.NFCCards {
			p.card(&u.NFCCards[j])
		}
		p.plates(u.LicensePlates)
		p.pin(u.PINCode)
		for j := range u.TouchPass {
			p.touchPass(&u.TouchPass[j])
		}
	}
	for i := range r.Visitors {
		v := &r.Visitors[i]
		first, last, email, _ := p.person(v.ID)
		v.FirstName, v.LastName = first, last
		if v.Email != "" {
			v.Email = email
		}
		v.MobilePhone = p.phone(v.MobilePhone)
		if v.Remarks != "" {
			v.Remarks = "remark " + p.hex("remark", v.Remarks, 8)
		}
		if v.InviterName != "" {
			f, l, _, _ := p.person(v.InviterID)
			v.InviterName = f + " " + l
		}
		for j := range v.NFCCards {
			p.card(&v.NFCCards[j])
		}
		p.plates(v.LicensePlates)
		p.pin(v.PINCode)
	}
	for i := range r.NFCCards {
		p.card(&r.NFCCards[i])
		if r.NFCCards[i].User != nil && r.NFCCards[i].User.ID == "" {
			r.NFCCards[i].User.ID = r.NFCCards[i].UserID
		}
	}
	for i := range r.TouchPasses {
		p.touchPass(&r.TouchPasses[i])
	}
}

func (p pseudonyms) touchPass(t *access.TouchPass) {
	t.CardID = p.token(t.CardID)
	if t.CardName != "" { // often the holder's name: "Ada's iPhone"
		t.CardName = "pass " + p.hex("card name", t.CardName, 8)
		if t.UserID != "" {
			first, _, _, _ := p.person(t.UserID)
			t.CardName = first + "'s " + t.CardName
		}
	}
	if t.UserID != "" {
		first, last, email, _ := p.person(t.UserID)
		if t.UserName != "" {
			t.UserName = first + " " + last
		}
		if t.UserEmail != "" {
			t.UserEmail = email
		}
	} else {
		t.UserName, t.UserEmail = "", ""
	}
	t.UserAvatar = ""
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
