package accesstest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// Sizes and well-known records of the demo site (see [Server.LoadDemoData]).
const (
	DemoUserCount    = 300
	DemoVisitorCount = 250
	// DemoUserID is a user with access policies, cards, a PIN and a
	// touch pass.
	DemoUserID = "3e763e5d-6804-437d-ae8d-3fee74119b80"
	// DemoDeviceID is a reader whose settings match the vendor's sample.
	DemoDeviceID = "942a6f4247b2"
	// DemoScheduleID is the office-hours schedule, with public holidays.
	DemoScheduleID = "1d31b648-b8ff-4bd1-b742-60dbd70592cd"
	// DemoTouchPassCardID is the card id of the demo user's touch pass.
	DemoTouchPassCardID = "057B-D703-0C6D-4AC9"
	// DemoBuildingID is the building group holding every demo door.
	DemoBuildingID = "9b1a3c2e-5d47-4e0b-8f6a-1c2d3e4f5a6b"
	// DemoDoorID is the main entrance: a hub, a reader, an intercom and a
	// position sensor.
	DemoDoorID = "6ff875d2-af87-470b-9cb5-774c6596afc8"
	// DemoIntercomID is the intercom at the main entrance, whose doorbell
	// can be triggered.
	DemoIntercomID = "788a20c002c7"
	// DemoVisitorID is the first visitor of the demo site, an UPCOMING one.
	DemoVisitorID = "5b0c6a3e-2f4d-4e7a-9c1b-8d2e3f4a5b6c"
	// DemoDoorGroupID is the "Office floors" door group.
	DemoDoorGroupID = "d5573467-d6b3-4e8f-8e48-8a322b91664a"
	// DemoCardNumber is the number of the demo user's card (Ada
	// Lovelace's): typed at the reader of a door her policies name
	// ([Server.PresentCard], the control API's card/tap), it is granted,
	// at any hour. [DemoCardNumbers] lists every such demo card.
	DemoCardNumber = "100000"
	// DemoStaleUserID is an active user (Dmitri Umarov) who can open the
	// main entrance (Staff policy, a card) and last did 120 days before
	// the demo was loaded: the system log's only door opening of theirs
	// is that old, where the demo card holders' are days old (a stale
	// user for an access review, issue 37).
	DemoStaleUserID = "3ff62495-07a6-41aa-a0b7-c3ab1e7b592e"
	// DemoDeactivatedUserID is a deactivated user (Dmitri Xu) who still
	// holds an NFC card.
	DemoDeactivatedUserID = "48cf553c-bc41-4bac-a0c3-46e4206bd2d4"
	// DemoPastVisitorID is a visitor (Sofia O'Brien, VISITED) whose visit
	// ended two days before the demo's clock, and who still holds a PIN
	// code.
	DemoPastVisitorID = "d0f59350-fac0-4f21-ad84-83cd62db5327"
)

// DemoCardNumbers returns the numbers of the demo site's cards that can
// be typed to tap them ([Server.PresentCard], the control API's card/tap,
// the web console): Ada Lovelace's ([DemoCardNumber]), Mei Schmidt's and
// Elena Kowalski's. Each holder has the IT access policy, whose schedule
// ("Always") is in force around the clock, every day, so each card opens
// the main entrance, both offices and the server room at any hour. The
// other demo cards' tokens are not derived from their numbers: tap them
// with [Server.PresentCard] after reading the token, or enroll a card.
func DemoCardNumbers() []string { return []string{DemoCardNumber, "100050", "100100"} }

// demoEpoch anchors the demo's times, so that the data set is the same on
// every run.
var demoEpoch = time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)

var (
	demoFirst = []string{"Avery", "Blake", "Camille", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas",
		"Kamala", "Liam", "Mei", "Noor", "Oscar", "Priya", "Quinn", "Rafael", "Sofia", "Tomasz",
		"Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Chidi", "Dana"}
	demoLast = []string{"Adeyemi", "Bergström", "Castillo", "Dubois", "Eriksen", "Fischer", "García", "Haddad", "Ivanova", "Jensen",
		"Kowalski", "Lindqvist", "Moreau", "Nakamura", "O'Brien", "Petrov", "Quispe", "Rossi", "Schmidt", "Tanaka",
		"Umarov", "Varga", "Wójcik", "Xu", "Yilmaz", "Zhang"}
	demoCompanies = []string{"Northwind Logistics", "Contoso Ltd", "Fabrikam", "Initech", "Globex", "Umbrella Facilities", "Hooli", "Stark Elevators"}
	demoReasons   = []string{"Interview", "Business", "Cooperation", "Others"}
)

type demoGen struct{ r *rand.Rand }

func (g demoGen) id() string {
	h := fmt.Sprintf("%016x%016x", g.r.Uint64(), g.r.Uint64())
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

func (g demoGen) hex(n int) string {
	var b strings.Builder
	for b.Len() < n {
		fmt.Fprintf(&b, "%016x", g.r.Uint64())
	}
	return b.String()[:n]
}

// demoVisit returns the times of demo visitor i, which agree with its
// status on the server's clock, whose hour is base: an UPCOMING visit
// starts within the next 30 days (a day or more ahead); a VISITING one
// started up to 3 hours before base and ends 2 to 7 hours after it; an
// ACTIVE one (several days) started days ago and ends days from now; a
// VISITED or NO_VISIT one ended within the last 30 days; a CANCELLED one
// is anywhere in those 60 days. The timers of [Server.planDemoVisit] move
// them on as the time passes.
func demoVisit(g demoGen, st access.VisitorStatus, base time.Time, i int) (start, end time.Time) {
	hour := time.Duration(8+g.r.IntN(8)) * time.Hour // in the day: 08:00 to 15:00
	length := time.Duration(1+g.r.IntN(8)) * time.Hour
	day := base.Truncate(24 * time.Hour)
	switch st {
	case access.VisitorStatusUpcoming:
		start = day.AddDate(0, 0, 1+i%30).Add(hour)
	case access.VisitorStatusVisiting:
		start = base.Add(-time.Duration(i/6%4) * time.Hour)
		return start, base.Add(time.Duration(2+i/6%6) * time.Hour)
	case access.VisitorStatusActive:
		start = day.AddDate(0, 0, -1-i/6%5).Add(hour)
		return start, day.AddDate(0, 0, 1+i/6%20).Add(hour)
	case access.VisitorStatusVisited, access.VisitorStatusNoVisit:
		start = day.AddDate(0, 0, -1-i%30).Add(hour)
	default: // cancelled
		start = day.AddDate(0, 0, -30+i%60).Add(hour)
	}
	return start, start.Add(length)
}

// planDemoVisit schedules the timers that move a demo visitor on: an
// UPCOMING or VISITING one as a visitor created through the API, an
// ACTIVE one to VISITED at its end.
func (s *Server) planDemoVisit(v access.Visitor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.visitor(v.ID)
	switch v.Status {
	case access.VisitorStatusUpcoming.String(), access.VisitorStatusVisiting.String():
		s.planVisit(x)
	case access.VisitorStatusActive.String():
		end := x.EndTime.Time().Sub(s.clockNow())
		s.cr().visitTimers[x.ID] = []*timer{s.after(end, timerKey{Kind: timerVisit, ID: x.ID, Arg: strconv.Itoa(int(access.VisitorStatusVisited))})}
	}
}

func (g demoGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func ranges(start, end string) []access.TimeRange {
	return []access.TimeRange{{StartTime: start, EndTime: end}}
}

// LoadDemoData fills the server with a small office site: 3 holiday
// groups, 5 schedules, 4 access policies, DemoUserCount users,
// DemoVisitorCount visitors in every status, 4 devices' settings and 24
// touch passes, and a building ("HQ") with 4 floors, 8 doors (one without
// a hub, some without a position sensor), 3 door groups and a devices list
// of hubs, readers and an intercom grouped by door (an 8-door hub is
// listed at each of its doors), and four door openings in the system log
// (the demo cards' recent badge-ins, [DemoStaleUserID]'s 120 days back).
// The data set is generated from a fixed seed, so it is identical on every
// run; [DemoUserID], [DemoDeviceID], [DemoScheduleID],
// [DemoTouchPassCardID], [DemoBuildingID], [DemoDoorID], [DemoDoorGroupID]
// and [DemoIntercomID] name records worth showing, and [DemoStaleUserID],
// [DemoDeactivatedUserID] and [DemoPastVisitorID] what an access review
// flags.
func (s *Server) LoadDemoData() {
	g := demoGen{rand.New(rand.NewPCG(2026, 11))}

	s.AddHolidayGroup(access.HolidayGroup{ID: "8cc22b49-a7f4-49a6-9f04-044444992d6c", Name: "No Holidays", IsDefault: true})
	public := s.AddHolidayGroup(access.HolidayGroup{ID: "75660081-431b-4dbe-9b98-e0257877118e", Name: "Public Holidays 2026",
		Description: "Site closed", Holidays: []access.Holiday{
			{ID: g.id(), Name: "New Year's Day", StartTime: "2026-01-01 00:00:00Z", EndTime: "2026-01-02 00:00:00Z", Repeat: true},
			{ID: g.id(), Name: "Good Friday", StartTime: "2026-04-03 00:00:00Z", EndTime: "2026-04-04 00:00:00Z"},
			{ID: g.id(), Name: "Easter Monday", StartTime: "2026-04-06 00:00:00Z", EndTime: "2026-04-07 00:00:00Z"},
			{ID: g.id(), Name: "Labour Day", StartTime: "2026-05-01 00:00:00Z", EndTime: "2026-05-02 00:00:00Z", Repeat: true},
			{ID: g.id(), Name: "Ascension Day", StartTime: "2026-05-14 00:00:00Z", EndTime: "2026-05-15 00:00:00Z"},
			{ID: g.id(), Name: "Whit Monday", StartTime: "2026-05-25 00:00:00Z", EndTime: "2026-05-26 00:00:00Z"},
			{ID: g.id(), Name: "Christmas Day", StartTime: "2026-12-25 00:00:00Z", EndTime: "2026-12-26 00:00:00Z", Repeat: true},
			{ID: g.id(), Name: "Boxing Day", StartTime: "2026-12-26 00:00:00Z", EndTime: "2026-12-27 00:00:00Z", Repeat: true},
		}})
	shutdown := s.AddHolidayGroup(access.HolidayGroup{ID: g.id(), Name: "Winter Shutdown", Description: "Plant maintenance", Holidays: []access.Holiday{
		{ID: g.id(), Name: "Shutdown week 1", StartTime: "2026-12-21 00:00:00Z", EndTime: "2026-12-28 00:00:00Z"},
		{ID: g.id(), Name: "Shutdown week 2", StartTime: "2026-12-28 00:00:00Z", EndTime: "2027-01-04 00:00:00Z"},
	}})

	weekdays := func(start, end string) *access.WeekSchedule {
		r := ranges(start, end)
		return &access.WeekSchedule{Sunday: []access.TimeRange{}, Monday: r, Tuesday: r, Wednesday: r, Thursday: r, Friday: r, Saturday: []access.TimeRange{}}
	}
	all := ranges("00:00:00", "23:59:59")
	office := s.AddSchedule(access.Schedule{ID: DemoScheduleID, Name: "Office hours", WeekSchedule: weekdays("07:30:00", "18:30:59"),
		HolidayGroupID: public.ID, HolidaySchedule: ranges("09:00:00", "12:00:59")})
	always := s.AddSchedule(access.Schedule{ID: g.id(), Name: "Always", IsDefault: true,
		WeekSchedule: &access.WeekSchedule{Sunday: all, Monday: all, Tuesday: all, Wednesday: all, Thursday: all, Friday: all, Saturday: all}})
	cleaning := s.AddSchedule(access.Schedule{ID: g.id(), Name: "Cleaning crew", WeekSchedule: weekdays("18:00:00", "22:00:59"), HolidayGroupID: shutdown.ID})
	weekend := s.AddSchedule(access.Schedule{ID: g.id(), Name: "Weekend security", HolidayGroupID: public.ID, WeekSchedule: &access.WeekSchedule{
		Sunday: ranges("06:00:00", "20:00:59"), Saturday: ranges("06:00:00", "20:00:59"),
		Monday: []access.TimeRange{}, Tuesday: []access.TimeRange{}, Wednesday: []access.TimeRange{}, Thursday: []access.TimeRange{}, Friday: []access.TimeRange{}}})
	visiting := s.AddSchedule(access.Schedule{ID: g.id(), Name: "Visiting hours", WeekSchedule: weekdays("09:00:00", "17:00:59")})

	doors := []access.Resource{
		{ID: "6ff875d2-af87-470b-9cb5-774c6596afc8", Name: "Main entrance", Type: "door"},
		{ID: "d5573467-d6b3-4e8f-8e48-8a322b91664a", Name: "Office floors", Type: "door_group"},
		{ID: "5c496423-6d25-4e4f-8cdf-95ad5135188a", Name: "Server room", Type: "door"},
		{ID: "fd293ecb-98d2-425b-a020-cb9365ea48b3", Name: "Visitor lobby", Type: "door_group"},
	}
	staff := s.AddAccessPolicy(access.AccessPolicy{ID: g.id(), Name: "Staff", Resources: doors[:2], ScheduleID: office.ID})
	it := s.AddAccessPolicy(access.AccessPolicy{ID: g.id(), Name: "IT", Resources: doors[:3], ScheduleID: always.ID})
	clean := s.AddAccessPolicy(access.AccessPolicy{ID: g.id(), Name: "Cleaning", Resources: doors[:2], ScheduleID: cleaning.ID})
	security := s.AddAccessPolicy(access.AccessPolicy{ID: g.id(), Name: "Security", Resources: doors, ScheduleID: weekend.ID})

	for i := range DemoUserCount {
		first, last := g.pick(demoFirst), g.pick(demoLast)
		u := access.User{
			ID: g.id(), FirstName: first, LastName: last, FullName: first + " " + last,
			UserEmail:      strings.ToLower(first+"."+strings.ReplaceAll(last, "'", "")) + fmt.Sprintf("%d@example.com", i),
			EmailStatus:    "VERIFIED",
			EmployeeNumber: fmt.Sprintf("E%05d", 1000+i),
			OnboardTime:    access.UnixTimeOf(demoEpoch.AddDate(0, 0, -g.r.IntN(3000))),
			Status:         access.UserStatusActive,
			NFCCards:       []access.NFCCard{},
		}
		switch {
		case i%37 == 5:
			u.Status = access.UserStatusPending
		case i%53 == 7:
			u.Status = access.UserStatusDeactivated
		}
		if i%3 != 0 {
			u.NFCCards = []access.NFCCard{{ID: fmt.Sprintf("%06d", 100000+i), Token: g.hex(64), Type: "ua_card"}}
		}
		if n := fmt.Sprintf("%06d", 100000+i); slices.Contains(DemoCardNumbers(), n) {
			// A card one can type: its token is the one a tap of its
			// number reads (drawn after the generator's, which stays
			// the same for every other record).
			u.NFCCards = []access.NFCCard{{ID: n, Token: cardToken(n), Type: "ua_card"}}
		}
		if i%4 == 0 {
			u.PINCode = &access.PINCode{Token: g.hex(64)}
		}
		switch {
		case i%50 == 0:
			u.AccessPolicyIDs = []string{staff.ID, it.ID}
		case i%25 == 3:
			u.AccessPolicyIDs = []string{clean.ID}
		case i%40 == 9:
			u.AccessPolicyIDs = []string{security.ID}
		default:
			u.AccessPolicyIDs = []string{staff.ID}
		}
		if i%60 == 11 {
			u.LicensePlates = []access.LicensePlate{{ID: g.id(), Credential: strings.ToUpper(g.hex(6)), CredentialType: "license", CredentialStatus: "active"}}
		}
		if i == 0 {
			u.ID, u.FirstName, u.LastName, u.FullName = DemoUserID, "Ada", "Lovelace", "Ada Lovelace"
			u.UserEmail, u.PINCode = "ada.lovelace@example.com", &access.PINCode{Token: g.hex(64)}
			u.LicensePlates = []access.LicensePlate{{ID: "5cac1825-f5e9-410d-a32e-a1fb9fc83b92", Credential: "JQ178", CredentialType: "license", CredentialStatus: "active"}}
			tp := s.AddTouchPass(access.TouchPass{ID: "c83b69ff-1992-4e7f-9287-1e6a161adeea", CardID: DemoTouchPassCardID, CardName: "Ada's iPhone",
				Status: access.TouchPassActive, LastActivity: access.DateTime(demoEpoch.Add(-26 * time.Hour).Format(time.RFC3339)),
				UserID: u.ID, UserName: u.FullName, UserEmail: u.UserEmail, UserStatus: "ACTIVE",
				Bundles: []access.TouchPassBundle{{BundleID: g.id(), BundleStatus: "ACTIVE", DeviceID: "device-" + g.hex(8), DeviceName: "iPhone 16", DeviceType: 10, Source: "apple"}}})
			u.TouchPass = access.TouchPasses{tp}
		}
		s.AddUser(u)
	}

	// Touch passes: some handed out, some pending, some still unused.
	users := s.Users()
	for i := range 23 {
		tp := access.TouchPass{ID: g.id(), CardID: strings.ToUpper(g.hex(4) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(4)),
			LastActivity: access.DateTime(demoEpoch.Add(-time.Duration(g.r.IntN(500)) * time.Hour).Format(time.RFC3339)), Bundles: []access.TouchPassBundle{}}
		switch {
		case i < 12:
			u := users[1+i*7]
			tp.Status, tp.UserID, tp.UserName, tp.UserEmail, tp.UserStatus = access.TouchPassActive, u.ID, u.FullName, u.UserEmail, "ACTIVE"
			src, typ := "google", 20
			if i%2 == 0 {
				src, typ = "apple", 10
			}
			tp.Bundles = []access.TouchPassBundle{{BundleID: g.id(), BundleStatus: "ACTIVE", DeviceID: "device-" + g.hex(8), DeviceName: u.FirstName + "'s phone", DeviceType: typ, Source: access.TouchPassSource(src)}}
		case i < 17:
			u := users[2+i*5]
			tp.Status, tp.UserID, tp.UserName, tp.UserEmail, tp.UserStatus = access.TouchPassPending, u.ID, u.FullName, u.UserEmail, "PENDING"
		case i < 19:
			tp.Status, tp.UserStatus = access.TouchPassSuspended, "UNLINK"
		default:
			tp.Status = access.TouchPassInactive
		}
		s.AddTouchPass(tp)
	}

	// The visitors' times are anchored on the server's clock (the hour
	// it reads at load), so that their statuses agree with it: none
	// UPCOMING after its visit ended, none VISITING a month later.
	visitBase := s.Now().UTC().Truncate(time.Hour)
	for i := range DemoVisitorCount {
		first, last := g.pick(demoFirst), g.pick(demoLast)
		status := access.VisitorStatus(1 + i%6)
		start, end := demoVisit(g, status, visitBase, i)
		v := access.Visitor{
			ID: g.id(), FirstName: first, LastName: last, Status: status.String(),
			InviterID: users[i%len(users)].ID, InviterName: users[i%len(users)].FullName,
			MobilePhone: fmt.Sprintf("+4179%07d", g.r.IntN(10000000)), Email: strings.ToLower(first) + fmt.Sprintf(".v%d@example.org", i),
			VisitorCompany: g.pick(demoCompanies), VisitReason: access.VisitReason(g.pick(demoReasons)),
			StartTime: access.UnixTimeOf(start), EndTime: access.UnixTimeOf(end),
			CreateTime: access.UnixTimeOf(start.AddDate(0, 0, -3)),
			NFCCards:   []access.NFCCard{}, Resources: []access.Resource{doors[0], doors[3]},
			ScheduleID: visiting.ID,
			Schedule:   &access.Schedule{ID: visiting.ID, Name: visiting.Name, Type: "access", WeekSchedule: visiting.WeekSchedule},
		}
		if i == 0 {
			v.ID = DemoVisitorID
		}
		if i%10 == 4 {
			v.Remarks = "Needs a parking space"
			v.LicensePlates = []access.LicensePlate{{ID: g.id(), Credential: strings.ToUpper(g.hex(6)), CredentialType: "license", CredentialStatus: "active"}}
		}
		if i%5 == 1 {
			v.PINCode = &access.PINCode{Token: g.hex(64)}
		}
		if i%7 == 2 {
			// A one-time visit: no weekly ranges.
			v.Schedule = &access.Schedule{ID: g.id(), Name: fmt.Sprintf("visitor-%d", 1690337152955+i), Type: "access"}
			v.ScheduleID = v.Schedule.ID
		}
		s.planDemoVisit(s.AddVisitor(v))
	}

	s.AddDevice(access.DeviceSettings{DeviceID: DemoDeviceID, AccessMethods: access.AccessMethods{
		BTButton: &access.AccessMethod{Enabled: access.Yes}, BTTap: &access.AccessMethod{Enabled: access.Yes},
		Face: &access.FaceMethod{AntiSpoofingLevel: access.AntiSpoofingNo, DetectDistance: access.DetectFar},
		NFC:  &access.AccessMethod{Enabled: access.Yes}, PINCode: &access.PINCodeMethod{Enabled: access.Yes, PINCodeShuffle: access.No},
		QRCode: &access.AccessMethod{Enabled: access.Yes}, TouchPass: &access.AccessMethod{Enabled: access.Yes},
	}})
	s.AddDevice(access.DeviceSettings{DeviceID: "0418d6a2bb7a", AccessMethods: access.AccessMethods{
		NFC: &access.AccessMethod{Enabled: access.Yes}, PINCode: &access.PINCodeMethod{Enabled: access.Yes, PINCodeShuffle: access.Yes},
		Face:       &access.FaceMethod{Enabled: access.Yes, AntiSpoofingLevel: access.AntiSpoofingHigh, DetectDistance: access.DetectNear},
		MobileWave: &access.AccessMethod{Enabled: access.No}, BTTap: &access.AccessMethod{Enabled: access.Yes}, BTButton: &access.AccessMethod{Enabled: access.Yes},
		BTShake: &access.AccessMethod{Enabled: access.No}, Wave: &access.AccessMethod{Enabled: access.No},
		QRCode: &access.AccessMethod{Enabled: access.No}, TouchPass: &access.AccessMethod{Enabled: access.Yes},
	}})
	s.AddDevice(access.DeviceSettings{DeviceID: "7483c2773855", AccessMethods: access.AccessMethods{
		NFC: &access.AccessMethod{Enabled: access.Yes}, PINCode: &access.PINCodeMethod{Enabled: access.No, PINCodeShuffle: access.No},
	}})
	s.AddDevice(access.DeviceSettings{DeviceID: "f4e2c61fd2cf", AccessMethods: access.AccessMethods{
		NFC: &access.AccessMethod{Enabled: access.Yes}, QRCode: &access.AccessMethod{Enabled: access.Yes},
	}})

	s.loadDemoBuilding(g)
	s.loadDemoOpenings(g, users, visitBase)
}

// loadDemoOpenings adds the door openings of the demo's history to the
// system log, before base (the server's clock at load, to the hour): the
// demo card holders' badge-ins at the main entrance in the last days, and
// the stale user's ([DemoStaleUserID]) 120 days back. Their ids come last
// from the generator, so that no other record's id changes.
func (s *Server) loadDemoOpenings(g demoGen, users []access.User, base time.Time) {
	holder := func(id string) access.User {
		i := slices.IndexFunc(users, func(u access.User) bool { return u.ID == id })
		return users[i]
	}
	byCard := func(number string) access.User {
		i := slices.IndexFunc(users, func(u access.User) bool {
			return slices.ContainsFunc(u.NFCCards, func(c access.NFCCard) bool { return c.ID == number })
		})
		return users[i]
	}
	cards := DemoCardNumbers()
	uses := []struct {
		user access.User
		ago  time.Duration
	}{
		{byCard(cards[0]), 2*24*time.Hour + 1*time.Hour + 5*time.Minute},
		{byCard(cards[1]), 3*24*time.Hour + 50*time.Minute},
		{byCard(cards[2]), 6*24*time.Hour + 10*time.Minute},
		{holder(DemoStaleUserID), 120*24*time.Hour - 25*time.Minute},
	}
	entries := make([]SystemLogEntry, len(uses))
	for i, u := range uses {
		at := base.Add(-u.ago)
		entries[i] = SystemLogEntry{Topic: access.SystemLogTopicDoorOpenings, SystemLog: access.SystemLog{
			ID: g.id(), Timestamp: access.DateTime(at.UTC().Format("2006-01-02T15:04:05.000Z")), Tag: "access",
			Source: access.SystemLogSource{
				Actor: access.SystemLogActor{ID: u.user.ID, Type: "user", DisplayName: u.user.FullName},
				Event: access.SystemLogEvent{Type: string(access.EventDoorUnlock), DisplayMessage: "Access Granted (NFC)", Result: "ACCESS",
					Published: access.UnixMilliOf(at), LogKey: "dashboard.access.door.unlock.success"},
				Authentication: access.SystemLogAuthentication{CredentialProvider: "NFC"},
				Target: []access.SystemLogTarget{{Type: "UA-Reader-Lite", ID: DemoDeviceID, DisplayName: "UA Reader Main"},
					{Type: "door", ID: DemoDoorID, DisplayName: "Main entrance"}},
			}}}
	}
	s.AddSystemLog(entries...)
}

// loadDemoBuilding adds the demo building. The door and door-group ids
// are those the demo access policies name.
func (s *Server) loadDemoBuilding(g demoGen) {
	s.SetBuilding(DemoBuildingID, "HQ")
	basement := s.AddFloor(g.id(), "Basement")
	ground := s.AddFloor(g.id(), "Ground floor")
	first := s.AddFloor(g.id(), "1st floor")
	second := s.AddFloor(g.id(), "2nd floor")

	main := s.AddDoor(access.Door{ID: DemoDoorID, Name: "Main entrance", FloorID: ground, IsBindHub: true, PositionStatus: access.DoorClosed})
	lobby := s.AddDoor(access.Door{ID: g.id(), Name: "Visitor lobby", FloorID: ground, IsBindHub: true, PositionStatus: access.DoorClosed})
	dock := s.AddDoor(access.Door{ID: g.id(), Name: "Loading dock", FloorID: ground, IsBindHub: true})
	server := s.AddDoor(access.Door{ID: "5c496423-6d25-4e4f-8cdf-95ad5135188a", Name: "Server room", FloorID: basement, IsBindHub: true, PositionStatus: access.DoorClosed})
	garage := s.AddDoor(access.Door{ID: g.id(), Name: "Garage", FloorID: basement, IsBindHub: true})
	office1 := s.AddDoor(access.Door{ID: g.id(), Name: "Office 1", FloorID: first, IsBindHub: true, PositionStatus: access.DoorClosed})
	office2 := s.AddDoor(access.Door{ID: g.id(), Name: "Office 2", FloorID: second, IsBindHub: true, PositionStatus: access.DoorClosed})
	s.AddDoor(access.Door{ID: g.id(), Name: "Roof hatch", FloorID: second})

	s.AddDoorGroup(access.DoorGroup{ID: DemoDoorGroupID, Name: "Office floors",
		Resources: []access.Resource{{ID: main.ID}, {ID: office1.ID}, {ID: office2.ID}}})
	s.AddDoorGroup(access.DoorGroup{ID: "fd293ecb-98d2-425b-a020-cb9365ea48b3", Name: "Visitor lobby",
		Resources: []access.Resource{{ID: main.ID}, {ID: lobby.ID}}})
	s.AddDoorGroup(access.DoorGroup{ID: g.id(), Name: "Deliveries",
		Resources: []access.Resource{{ID: dock.ID}, {ID: garage.ID}}})

	hub := func(id, name, typ string, door access.Door, alsoAt ...string) access.Device {
		return s.AddDeviceInfo(access.Device{ID: id, Name: name, Type: typ, LocationID: door.ID,
			Capabilities: []string{"unlock_failure_limit", "emergency_settings", "is_hub", "pin_code"},
			IsAdopted:    true, IsConnected: true, IsManaged: true, IsOnline: true}, alsoAt...)
	}
	reader := func(id, name, typ string, door access.Door, hubID string, caps ...string) {
		s.AddDeviceInfo(access.Device{ID: id, Name: name, Type: typ, LocationID: door.ID, ConnectedUAHID: hubID,
			Capabilities: append([]string{"is_reader", "support_reboot"}, caps...),
			IsAdopted:    true, IsConnected: true, IsManaged: true, IsOnline: true})
	}
	h := hub("7483c2773855", "UA-HUB-3855", "UAH", main)
	reader(DemoDeviceID, "UA Reader Main", "UA-Reader-Lite", main, h.ID, "nfc", "pin_code")
	reader(DemoIntercomID, "UA Intercom Main", "UA-Intercom", main, h.ID, "nfc", "pin_code", "face")
	h = hub(g.hex(12), "UA-HUB-Lobby", "UAH-DOOR", lobby)
	reader("0418d6a2bb7a", "UA G2 Pro bb7a", "UA-G2-PRO", lobby, h.ID, "nfc", "pin_code", "face", "qr_code")
	h = hub("f4e2c61fd2cf", "UA Hub Gate", "UGT", garage)
	reader(g.hex(12), "UA Reader Garage", "UA-Reader-Lite", garage, h.ID, "nfc")
	// One 8-door hub drives the loading dock, the server room and both
	// offices: it is listed at each of them.
	h = hub(g.hex(12), "EAH-8-F95A", "UAH-Ent", dock, server.ID, office1.ID, office2.ID)
	reader(g.hex(12), "UA Reader Dock", "UA-Reader-Lite", dock, h.ID, "nfc")
	reader(g.hex(12), "UA G2 Pro Server", "UA-G2-PRO", server, h.ID, "nfc", "pin_code", "face")
	reader(g.hex(12), "UA Reader Office 1", "UA-Reader-Lite", office1, h.ID, "nfc")
	reader(g.hex(12), "UA Reader Office 2", "UA-Reader-Lite", office2, h.ID, "nfc")
}
