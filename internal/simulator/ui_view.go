package simulator

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The web console's view model: the site as the page shows it.

type view struct {
	Now        time.Time
	Emergency  access.EmergencyStatus
	Unsaved    string // why the state file is not saved, while its saves fail
	Floors     []floorView
	Devices    []deviceView
	Users      int
	Visitors   int
	People     []personView
	Query      string
	Deliveries []deliveryView
	Retries    int // webhook retries allowed (--webhook-retries)
	Backoff    time.Duration
	Feed       []feedItem
	Ops        []string
	// Direct and Proxy count the API requests in each layout: the mode
	// the clients used.
	Direct, Proxy int
}

type floorView struct {
	Name  string
	Doors []doorView
}

type doorView struct {
	access.Door
	Rule    access.LockRule
	HasRule bool
	Ends    time.Time
	Keep    bool
	Readers []access.Device
	Hub     bool
}

type deviceView struct {
	access.Device
	Door      string
	Ringing   bool
	Enrolling bool
	Doorbell  bool
	Reader    bool
}

type personView struct {
	Kind, Name, Status, Detail string
}

type deliveryView struct {
	URL, Event, Status, Error, Latency string
	Attempt                            int
}

func (c *console) snapshot(q string) view {
	f := c.fake
	v := view{Now: f.Now(), Emergency: f.Emergency(), Query: q, Ops: knownOps,
		Retries: c.retries, Backoff: accesstest.DefaultWebhookRetryBackoff}
	v.Direct, v.Proxy = f.RequestsByMode()
	if f := c.unsaved.Load(); f != nil {
		if err := (*f)(); err != nil {
			v.Unsaved = err.Error()
		}
	}
	doors := f.Doors()
	devs := f.DeviceList().Devices()
	enrolling := f.EnrollingDevices()
	doorName := map[string]string{}
	for _, d := range doors {
		doorName[d.ID] = d.Name
	}
	readersAt := map[string][]access.Device{}
	for _, d := range devs {
		dv := deviceView{Device: d, Door: doorName[d.LocationID], Enrolling: slices.Contains(enrolling, d.ID),
			Doorbell: slices.Contains([]string{"UA-Intercom", "UA-G2-PRO", "UA-G3-PRO"}, d.Type),
			Reader:   !slices.Contains(d.Capabilities, "is_hub")}
		_, dv.Ringing = f.Ringing(d.ID)
		v.Devices = append(v.Devices, dv)
		if dv.Reader && d.LocationID != "" {
			readersAt[d.LocationID] = append(readersAt[d.LocationID], d)
		}
	}
	mk := func(d access.Door) doorView {
		dv := doorView{Door: d, Readers: readersAt[d.ID], Hub: d.IsBindHub}
		if r, ok := f.LockRule(d.ID); ok && r.Type != "" && r.Type != access.LockRuleNone {
			dv.Rule, dv.HasRule = r, true
			dv.Ends = r.EndedTime.Time()
			dv.Keep = dv.Ends.Sub(v.Now) > 365*24*time.Hour
		}
		return dv
	}
	placed := map[string]bool{}
	for _, fl := range f.Floors() {
		fv := floorView{Name: fl.Name}
		for _, d := range doors {
			if d.FloorID == fl.ID {
				fv.Doors = append(fv.Doors, mk(d))
				placed[d.ID] = true
			}
		}
		if len(fv.Doors) > 0 {
			v.Floors = append(v.Floors, fv)
		}
	}
	var other floorView
	for _, d := range doors {
		if !placed[d.ID] {
			other.Doors = append(other.Doors, mk(d))
		}
	}
	if len(other.Doors) > 0 {
		other.Name = "Other doors"
		v.Floors = append(v.Floors, other)
	}
	users, visitors := f.Users(), f.Visitors()
	v.Users, v.Visitors = len(users), len(visitors)
	v.People = searchPeople(users, visitors, q)
	ds := f.Deliveries()
	for i := len(ds) - 1; i >= 0 && len(v.Deliveries) < deliveriesShow; i-- {
		d := ds[i]
		dv := deliveryView{URL: d.URL, Event: string(d.Event), Latency: d.Latency.Round(100 * time.Microsecond).String(), Attempt: d.Attempt}
		if d.StatusCode != 0 {
			dv.Status = strconv.Itoa(d.StatusCode)
		}
		if d.Err != nil {
			dv.Error = d.Err.Error()
		}
		v.Deliveries = append(v.Deliveries, dv)
	}
	return v
}

func searchPeople(users []access.User, visitors []access.Visitor, q string) []personView {
	q = strings.ToLower(strings.TrimSpace(q))
	var out []personView
	match := func(s ...string) bool {
		if q == "" {
			return true
		}
		for _, x := range s {
			if strings.Contains(strings.ToLower(x), q) {
				return true
			}
		}
		return false
	}
	for _, u := range users {
		if len(out) == peopleShow {
			return out
		}
		name := strings.TrimSpace(u.FirstName + " " + u.LastName)
		if match(name, u.UserEmail, u.EmployeeNumber) {
			out = append(out, personView{Kind: "user", Name: name, Status: string(u.Status), Detail: u.UserEmail})
		}
	}
	for _, vi := range visitors {
		if len(out) == peopleShow {
			return out
		}
		name := strings.TrimSpace(vi.FirstName + " " + vi.LastName)
		if match(name, vi.Email) {
			out = append(out, personView{Kind: "visitor", Name: name, Status: vi.Status, Detail: vi.Email})
		}
	}
	return out
}

type feedItem struct {
	Time    time.Time
	Event   string
	Summary string
	JSON    string
}

// summarize is a one-line description of a notification for the feed.
func summarize(n *access.Notification) string {
	var m map[string]any
	_ = json.Unmarshal(n.Data, &m)
	str := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	switch n.Event {
	case access.NotificationRemoteView:
		return "Doorbell rings at " + str("device_name") + " (" + str("door_name") + ")"
	case access.NotificationRemoteViewChange:
		if rc, ok := m["reason_code"].(float64); ok {
			return "Doorbell call ended: " + access.RemoteViewReason(int(rc)).String()
		}
	case access.NotificationRemoteUnlock:
		return "Remote unlock: " + str("name")
	case access.NotificationLocationUpdateV2:
		s := str("name")
		if st, ok := m["state"].(map[string]any); ok {
			s += fmt.Sprintf(": lock %v, position %v", st["lock"], st["dps"])
		}
		return s
	case access.NotificationSettingUpdate:
		return fmt.Sprintf("Emergency settings: lockdown %v, evacuation %v", m["lockdown"], m["evacuation"])
	case access.NotificationLogsAdd:
		var e access.SystemLog
		if json.Unmarshal(n.Data, &e) == nil {
			return e.Source.Event.DisplayMessage
		}
	}
	return n.EventObjectID
}
