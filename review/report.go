package review

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// FormatVersion is the version of the JSON form of a review (member
// "format_version"); [ReadJSON] refuses another major version.
const FormatVersion = "1"

// DefaultLookBack is how far back the system log is read for the last use
// when [Options.LookBack] is zero: 90 days, the review period of the
// strictest baselines (NIST 800-53 PE-2 at High).
const DefaultLookBack = 90 * 24 * time.Hour

// logPageSize is the page size of the one pass over the system log.
const logPageSize = 500

// The flags of a review. A flag is set on the rows, people, doors and
// policies it concerns; the package doc says when each is raised.
const (
	// FlagStale: an ACTIVE user who can open the door made no use of it
	// in the look-back (on a person: of any door).
	FlagStale = "stale"
	// FlagInactiveWithCredentials: a user who is not ACTIVE or PENDING, or
	// a visitor whose visit is over or cancelled, still holds NFC cards,
	// a PIN, a touch pass or license plates.
	FlagInactiveWithCredentials = "inactive_with_credentials"
	// FlagVisitorPastEnd: a visitor, not cancelled, whose end time has
	// passed, still on the console.
	FlagVisitorPastEnd = "visitor_past_end"
	// FlagUnusedPolicy: an access policy that no ACTIVE user holds, by
	// their own policies or their groups'; or one that names no door.
	FlagUnusedPolicy = "unused_policy"
	// FlagDoorNobodyCanOpen: no ACTIVE user's policy and no visitor whose
	// visit is not over covers the door.
	FlagDoorNobodyCanOpen = "door_nobody_can_open"
	// FlagNotInDirectory: a user who is not DEACTIVATED and whose employee
	// number and email are both missing from the directory given
	// ([Options.Directory]).
	FlagNotInDirectory = "not_in_directory"
)

// Flags lists every flag, in the order they are written.
func Flags() []string {
	return []string{FlagStale, FlagInactiveWithCredentials, FlagVisitorPastEnd, FlagUnusedPolicy, FlagDoorNobodyCanOpen, FlagNotInDirectory}
}

// CredentialsNote is written in every report: what the API does not show.
const CredentialsNote = "mobile (UniFi Identity) and face credentials are not readable through the developer API, " +
	"nor whether a visitor holds a QR code: they are not counted"

// Options say what a report covers.
type Options struct {
	// Console names the console in every row (a profile's name); may be
	// empty.
	Console string
	// At is the moment the report evaluates "open now"; zero is the time
	// of the build.
	At time.Time
	// LookBack is how far before At the system log is read for the last
	// use; zero is DefaultLookBack.
	LookBack time.Duration
	// Directory lists the keys of the people who should be there (an HR
	// file's employee numbers and emails, or a sync's directory): a user
	// matched by neither is flagged FlagNotInDirectory. Emails match
	// without regard to case. Nil checks nothing.
	Directory []string
	// ZoneSource says where the evaluator's zone came from (e.g. "--tz",
	// "the console's notifications", "local"), for the report's head.
	ZoneSource string
}

// Credentials are the kinds and counts of credentials a person holds;
// never their values.
type Credentials struct {
	NFCCards      int `json:"nfc_cards"`
	PINs          int `json:"pins"`
	TouchPasses   int `json:"touch_passes"`
	LicensePlates int `json:"license_plates"`
}

// Any reports whether any credential is held.
func (c Credentials) Any() bool { return c != Credentials{} }

// String is e.g. "2 NFC cards, PIN, touch pass", or "none".
func (c Credentials) String() string {
	var parts []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(c.NFCCards, "NFC card", "NFC cards")
	add(c.PINs, "PIN", "PINs")
	add(c.TouchPasses, "touch pass", "touch passes")
	add(c.LicensePlates, "license plate", "license plates")
	if parts == nil {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Use is the last use of a door: when, and by which credential (the
// system log's credential provider, e.g. "NFC", "PIN_CODE", "MOBILE_TAP").
type Use struct {
	At         time.Time `json:"at"`
	Credential string    `json:"credential,omitempty"`
	// Door names the door (on a person's and a policy's last use).
	Door string `json:"door,omitempty"`
}

// Access is one row of a review: a person whose access covers a door (by
// a policy of theirs or their groups', or a visitor's resources), whether
// or not it opens at the report's moment.
type Access struct {
	Console  string `json:"console,omitempty"`
	DoorID   string `json:"door_id"`
	Door     string `json:"door"`
	PersonID string `json:"person_id"`
	Person   string `json:"person"`
	// Kind is "user" or "visitor".
	Kind   string `json:"kind"`
	Status string `json:"status"`
	// Policies are the access policies that cover the door, in the
	// evaluator's order (none for a visitor).
	Policies []string `json:"policies"`
	// Schedules are their schedules (a visitor's own), each once.
	Schedules []string `json:"schedules"`
	// Window is the weekly window, e.g. "Mon-Fri 07:30-18:30", with the
	// visit's bounds for a visitor.
	Window string `json:"window"`
	// Week is the weekly window by day ("mon"…"sun"), each range
	// "HH:MM:SS-HH:MM:SS" with an inclusive end, as the console writes it.
	Week map[string][]string `json:"week"`
	// HolidayGroups are the holiday groups whose holidays change the
	// window.
	HolidayGroups []string `json:"holiday_groups,omitempty"`
	// VisitStart and VisitEnd bound a visitor's visit.
	VisitStart *time.Time `json:"visit_start,omitempty"`
	VisitEnd   *time.Time `json:"visit_end,omitempty"`
	// Open says whether the door opens for the person at the report's
	// moment, by Policy; Reason why not.
	Open   bool   `json:"open"`
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Credentials are the person's.
	Credentials Credentials `json:"credentials"`
	// LastUse is the person's last use of the door in the look-back.
	LastUse *Use `json:"last_use,omitempty"`
	// Flags are the row's and the person's.
	Flags []string `json:"flags"`
}

// Person is one user or visitor of a review.
type Person struct {
	Console string `json:"console,omitempty"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Status  string `json:"status"`
	// EmployeeNumber is a user's (the directory key); never a visitor's.
	EmployeeNumber string      `json:"employee_number,omitempty"`
	VisitStart     *time.Time  `json:"visit_start,omitempty"`
	VisitEnd       *time.Time  `json:"visit_end,omitempty"`
	Credentials    Credentials `json:"credentials"`
	// Doors counts the doors their access covers; Open those that open
	// at the report's moment.
	Doors int `json:"doors"`
	Open  int `json:"open"`
	// LastUse is their last use of any door in the look-back.
	LastUse *Use     `json:"last_use,omitempty"`
	Flags   []string `json:"flags"`
}

// Door is one door of a review.
type Door struct {
	Console string `json:"console,omitempty"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	// People counts the people whose access covers it; Open those for
	// whom it opens at the report's moment.
	People  int      `json:"people"`
	Open    int      `json:"open"`
	LastUse *Use     `json:"last_use,omitempty"`
	Flags   []string `json:"flags"`
}

// Policy is one access policy of a review.
type Policy struct {
	Console  string   `json:"console,omitempty"`
	ID       string   `json:"id"`
	Name     string   `json:"name"`
	Schedule string   `json:"schedule"`
	Doors    []string `json:"doors"`
	// Holders counts the users who hold it (own or by a group), Active
	// those of them who are ACTIVE.
	Holders int      `json:"holders"`
	Active  int      `json:"active"`
	Flags   []string `json:"flags"`
}

// Report is the access review of one console: who can open which door,
// when, by which policy and credential, and who did, with the flags an
// auditor looks for. Build it with [NewReport] or [Build].
type Report struct {
	Console string `json:"console,omitempty"`
	// At is the moment evaluated; TimeZone the zone schedules are read in
	// (the evaluator's), printed with every report.
	At       time.Time `json:"at"`
	TimeZone string    `json:"time_zone"`
	// TimeZoneSource says where the zone came from ([Options.ZoneSource]).
	TimeZoneSource string `json:"time_zone_source,omitempty"`
	// Since is the start of the look-back: last uses are from Since to At.
	Since time.Time `json:"since"`
	// LogEntries counts the system-log entries read.
	LogEntries int `json:"log_entries"`
	// DirectoryChecked says whether a directory was given.
	DirectoryChecked bool     `json:"directory_checked"`
	Notes            []string `json:"notes"`
	// Doors, People and Policies are by name; Access by door, then
	// person (see [Report.ByPerson] for the other direction).
	Doors    []Door    `json:"doors"`
	People   []Person  `json:"people"`
	Policies []Policy  `json:"policies"`
	Access   []Access  `json:"access"`
	Counts   FlagCount `json:"flag_counts"`
}

// FlagCount counts each flag over a report's people, doors and policies
// (a person's stale flag once, however many doors).
type FlagCount map[string]int

// ByPerson returns the report's rows by person (users, then visitors, by
// name), then door.
func (r *Report) ByPerson() []Access {
	order := map[string]int{}
	for i, p := range r.People {
		order[p.ID] = i
	}
	doors := map[string]int{}
	for i, d := range r.Doors {
		doors[d.ID] = i
	}
	out := slices.Clone(r.Access)
	slices.SortStableFunc(out, func(a, b Access) int {
		if c := order[a.PersonID] - order[b.PersonID]; c != 0 {
			return c
		}
		return doors[a.DoorID] - doors[b.DoorID]
	})
	return out
}

// useKey is a person's index and a door's.
type useKey struct{ person, door int32 }

type lastUse struct {
	at   int64 // Unix milliseconds
	cred string
}

// NewReport reads the system log of the console c once, from At minus the
// look-back to At (topic door_openings, through the SDK's pager), and
// builds the report of st as e evaluates it. st and e are of the same
// console (e = New(st, zone)).
func NewReport(ctx context.Context, c *access.Client, st *State, e *Evaluator, opts Options) (*Report, error) {
	if c == nil {
		return nil, errors.New("review: NewReport: nil client")
	}
	at, since := opts.window()
	log := c.SystemLogs.All(ctx, &access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings, Since: since, Until: at, PageSize: logPageSize})
	return Build(st, e, log, opts)
}

func (o Options) window() (at, since time.Time) {
	at = o.At
	if at.IsZero() {
		at = time.Now()
	}
	lb := o.LookBack
	if lb <= 0 {
		lb = DefaultLookBack
	}
	return at, at.Add(-lb)
}

// Build builds the report of st as e evaluates it, with the last uses
// read from log (a door-openings system log, any order): only granted
// door unlocks of a user or visitor between the look-back's start and At
// count. It keeps one last use per person and door, so that its memory
// grows with people × doors, never with the log.
func Build(st *State, e *Evaluator, log iter.Seq2[access.SystemLog, error], opts Options) (*Report, error) {
	if st == nil || e == nil {
		return nil, errors.New("review: Build: nil state or evaluator")
	}
	at, since := opts.window()
	r := &Report{Console: opts.Console, At: at.In(e.loc), TimeZone: e.loc.String(), TimeZoneSource: opts.ZoneSource, Since: since.In(e.loc),
		DirectoryChecked: opts.Directory != nil, Notes: []string{CredentialsNote}, Counts: FlagCount{}}
	for _, f := range Flags() {
		r.Counts[f] = 0 // every flag in the JSON, counted or not
	}

	// Indexes.
	doorIDs := make([]string, len(e.doorNames))
	for id, i := range e.doorIdx {
		doorIDs[i] = id
	}
	personIdx := make(map[string]int32, len(e.order))
	for i, p := range e.order {
		personIdx[p.id] = int32(i)
	}

	// The one pass over the log.
	uses := map[useKey]lastUse{}
	lo, hi := since.UnixMilli(), at.UnixMilli()
	if log != nil {
		for entry, err := range log {
			if err != nil {
				return nil, fmt.Errorf("reading the system log: %w", err)
			}
			r.LogEntries++
			src := &entry.Source
			if src.Event.Type != string(access.EventDoorUnlock) || (src.Event.Result != "" && src.Event.Result != "ACCESS") {
				continue
			}
			pi, ok := personIdx[src.Actor.ID]
			if !ok || src.Actor.ID == "" {
				continue
			}
			door, ok := entry.Door()
			if !ok {
				continue
			}
			di, ok := e.doorIdx[door.ID]
			if !ok {
				continue
			}
			ms := entry.Time().UnixMilli()
			if ms < lo || ms > hi {
				continue
			}
			k := useKey{pi, int32(di)}
			if u, seen := uses[k]; !seen || ms > u.at {
				uses[k] = lastUse{at: ms, cred: src.Authentication.CredentialProvider}
			}
		}
	}
	useOf := func(u lastUse, door string) *Use {
		return &Use{At: time.UnixMilli(u.at).In(e.loc), Credential: u.cred, Door: door}
	}

	// People's own facts from the state.
	type facts struct {
		creds      Credentials
		email, emp string
	}
	info := make(map[string]facts, len(st.Users)+len(st.Visitors))
	for _, u := range st.Users {
		f := facts{creds: Credentials{NFCCards: len(u.NFCCards), TouchPasses: len(u.TouchPass), LicensePlates: len(u.LicensePlates)},
			email: u.UserEmail, emp: u.EmployeeNumber}
		if f.email == "" {
			f.email = u.Email
		}
		if u.PINCode != nil && u.PINCode.Token != "" {
			f.creds.PINs = 1
		}
		info[u.ID] = f
	}
	for _, v := range st.Visitors {
		f := facts{creds: Credentials{NFCCards: len(v.NFCCards), LicensePlates: len(v.LicensePlates)}}
		if v.PINCode != nil && v.PINCode.Token != "" {
			f.creds.PINs = 1
		}
		info[v.ID] = f
	}
	dir := map[string]bool{}
	for _, k := range opts.Directory {
		if k = strings.TrimSpace(k); k != "" {
			dir[strings.ToLower(k)] = true
		}
	}

	atUnix := at.Unix()
	visitOver := func(p *person) bool { return p.visitor && (atUnix >= p.end || cancelled(p.status)) }
	// canOpen: the person's access is in force at all (not what the
	// moment decides): an ACTIVE user, a visitor whose visit is not over.
	canOpen := func(p *person) bool {
		if p.visitor {
			return !visitOver(p)
		}
		return p.status == string(access.UserStatusActive)
	}

	// Policies: holders.
	holders, active := make([]int, len(e.policies)), make([]int, len(e.policies))
	for _, p := range e.order {
		if p.visitor {
			continue
		}
		for _, i := range p.policies {
			holders[i]++
			if canOpen(p) {
				active[i]++
			}
		}
	}

	doorPeople, doorOpen, doorCan := make([]int, len(doorIDs)), make([]int, len(doorIDs)), make([]bool, len(doorIDs))
	// The last use of each person (of any door, covered or not) and of
	// each door (by anyone of the state).
	personLast, doorLastAt := make([]lastUse, len(e.order)), make([]lastUse, len(doorIDs))
	personLastDoor := make([]int32, len(e.order))
	for k, u := range uses {
		if pl := personLast[k.person]; u.at > pl.at || (u.at == pl.at && k.door < personLastDoor[k.person]) {
			personLast[k.person], personLastDoor[k.person] = u, k.door
		}
		if u.at > doorLastAt[k.door].at {
			doorLastAt[k.door] = u
		}
	}
	for pi, p := range e.order {
		f := info[p.id]
		person := Person{Console: opts.Console, ID: p.id, Name: p.name, Kind: "user", Status: p.status, Credentials: f.creds}
		if p.visitor {
			person.Kind = "visitor"
			s, en := time.Unix(p.start, 0).In(e.loc), time.Unix(p.end, 0).In(e.loc)
			person.VisitStart, person.VisitEnd = &s, &en
		} else {
			person.EmployeeNumber = f.emp
		}
		var pflags []string
		switch {
		case p.visitor && visitOver(p) && f.creds.Any(),
			!p.visitor && p.status != string(access.UserStatusActive) && p.status != string(access.UserStatusPending) && f.creds.Any():
			pflags = append(pflags, FlagInactiveWithCredentials)
		}
		if p.visitor && !cancelled(p.status) && atUnix >= p.end {
			pflags = append(pflags, FlagVisitorPastEnd)
		}
		if !p.visitor && opts.Directory != nil && p.status != string(access.UserStatusDeactivated) &&
			!(f.emp != "" && dir[strings.ToLower(f.emp)]) && !(f.email != "" && dir[strings.ToLower(f.email)]) {
			pflags = append(pflags, FlagNotInDirectory)
		}
		if u := personLast[pi]; u.at != 0 {
			person.LastUse = useOf(u, e.doorNames[personLastDoor[pi]])
		}
		for d := range doorIDs {
			row, ok := e.accessRow(p, d)
			if !ok {
				continue
			}
			row.Console, row.DoorID, row.Door, row.PersonID, row.Person = opts.Console, doorIDs[d], e.doorNames[d], p.id, p.name
			row.Kind, row.Status, row.Credentials = person.Kind, p.status, f.creds
			if p.visitor {
				row.VisitStart, row.VisitEnd = person.VisitStart, person.VisitEnd
			}
			dec := e.decide(p, d, at)
			row.Open, row.Policy, row.Reason = dec.Open, dec.Policy, dec.Reason
			u, used := uses[useKey{int32(pi), int32(d)}]
			if used {
				row.LastUse = useOf(u, "")
			}
			row.Flags = []string{}
			if !p.visitor && canOpen(p) && !used {
				row.Flags = append(row.Flags, FlagStale)
			}
			row.Flags = append(row.Flags, pflags...)
			person.Doors++
			doorPeople[d]++
			if row.Open {
				person.Open++
				doorOpen[d]++
			}
			if canOpen(p) {
				doorCan[d] = true
			}
			r.Access = append(r.Access, row)
		}
		if !p.visitor && canOpen(p) && person.Doors > 0 && person.LastUse == nil {
			pflags = append([]string{FlagStale}, pflags...)
		}
		person.Flags = append([]string{}, pflags...)
		for _, fl := range person.Flags {
			r.Counts[fl]++
		}
		r.People = append(r.People, person)
	}

	for d, id := range doorIDs {
		door := Door{Console: opts.Console, ID: id, Name: e.doorNames[d], People: doorPeople[d], Open: doorOpen[d], Flags: []string{}}
		if u := doorLastAt[d]; u.at != 0 {
			door.LastUse = useOf(u, "")
		}
		if !doorCan[d] {
			door.Flags = append(door.Flags, FlagDoorNobodyCanOpen)
			r.Counts[FlagDoorNobodyCanOpen]++
		}
		r.Doors = append(r.Doors, door)
	}
	for i := range e.policies {
		pol := &e.policies[i]
		p := Policy{Console: opts.Console, ID: pol.id, Name: pol.name, Holders: holders[i], Active: active[i], Flags: []string{}, Doors: []string{}}
		if pol.sched != nil {
			p.Schedule = pol.sched.name
		}
		for d := range doorIDs {
			if has(pol.doors, d) {
				p.Doors = append(p.Doors, e.doorNames[d])
			}
		}
		if active[i] == 0 || len(p.Doors) == 0 {
			p.Flags = append(p.Flags, FlagUnusedPolicy)
			r.Counts[FlagUnusedPolicy]++
		}
		r.Policies = append(r.Policies, p)
	}

	// Orders: doors and policies by name; rows by door, then person.
	byName := func(a, b string, ia, ib string) int {
		if c := strings.Compare(a, b); c != 0 {
			return c
		}
		return strings.Compare(ia, ib)
	}
	slices.SortStableFunc(r.Doors, func(a, b Door) int { return byName(a.Name, b.Name, a.ID, b.ID) })
	slices.SortStableFunc(r.Policies, func(a, b Policy) int { return byName(a.Name, b.Name, a.ID, b.ID) })
	doorOrder := map[string]int{}
	for i, d := range r.Doors {
		doorOrder[d.ID] = i
	}
	slices.SortStableFunc(r.Access, func(a, b Access) int { return doorOrder[a.DoorID] - doorOrder[b.DoorID] })
	return r, nil
}

func cancelled(status string) bool { return status == "CANCELLED" || status == "CANCELED" }

// accessRow fills the part of a row that depends on the person and the
// door alone: the covering policies, schedules and window. ok is false
// when nothing of the person's covers the door.
func (e *Evaluator) accessRow(p *person, d int) (Access, bool) {
	row := Access{Policies: []string{}, Schedules: []string{}}
	var week [7][]span
	var groups []string
	addSched := func(s *schedule) {
		if s == nil {
			return
		}
		row.Schedules = appendNew(row.Schedules, s.name)
		for day := range 7 {
			week[day] = append(week[day], s.week[day]...)
		}
		if s.group != "" && len(s.days) > 0 {
			groups = appendNew(groups, s.group)
		}
	}
	if p.visitor {
		if !has(p.doors, d) {
			return row, false
		}
		if p.sched != nil {
			addSched(p.sched)
		} else {
			for day := range 7 {
				week[day] = []span{{0, 86399}}
			}
		}
	} else {
		covered := false
		for _, i := range p.policies {
			pol := &e.policies[i]
			if !has(pol.doors, d) {
				continue
			}
			covered = true
			row.Policies = append(row.Policies, pol.name)
			addSched(pol.sched)
		}
		if !covered {
			return row, false
		}
	}
	for day := range 7 {
		week[day] = mergeSpans(week[day])
	}
	row.Week = weekMap(week)
	row.Window = weekText(week)
	if p.visitor {
		row.Window += fmt.Sprintf(", visit %s to %s", time.Unix(p.start, 0).In(e.loc).Format("2006-01-02 15:04"),
			time.Unix(p.end, 0).In(e.loc).Format("2006-01-02 15:04"))
	}
	row.HolidayGroups = groups
	return row, true
}

// mergeSpans sorts ranges and joins those that overlap or touch.
func mergeSpans(ss []span) []span {
	if len(ss) == 0 {
		return nil
	}
	ss = slices.Clone(ss)
	slices.SortFunc(ss, func(a, b span) int { return int(a.from - b.from) })
	out := []span{ss[0]}
	for _, s := range ss[1:] {
		last := &out[len(out)-1]
		if s.from <= last.to+1 {
			last.to = max(last.to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// dayKeys are the week's days as the JSON form names them, Sunday first
// (time.Weekday's order).
var dayKeys = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

func clockText(sec int32) string {
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, sec/60%60, sec%60)
}

func weekMap(week [7][]span) map[string][]string {
	m := map[string][]string{}
	for d, ss := range week {
		for _, s := range ss {
			m[dayKeys[d]] = append(m[dayKeys[d]], clockText(s.from)+"-"+clockText(s.to))
		}
	}
	return m
}

// weekText writes a week's ranges for people, Monday first, days with the
// same ranges together: "Mon-Fri 07:30-18:30", "always", "never".
func weekText(week [7][]span) string {
	allDay := func(ss []span) bool { return len(ss) == 1 && ss[0].from == 0 && ss[0].to >= 86399-59 }
	always := true
	for _, ss := range week {
		always = always && allDay(ss)
	}
	if always {
		return "always"
	}
	text := func(ss []span) string {
		if allDay(ss) {
			return "all day"
		}
		var parts []string
		for _, s := range ss {
			parts = append(parts, fmt.Sprintf("%02d:%02d-%02d:%02d", s.from/3600, s.from/60%60, s.to/3600, s.to/60%60))
		}
		return strings.Join(parts, ", ")
	}
	names := [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	order := [7]int{1, 2, 3, 4, 5, 6, 0}
	var out []string
	for i := 0; i < 7; {
		d := order[i]
		j := i + 1
		for j < 7 && slices.Equal(week[order[j]], week[d]) {
			j++
		}
		if len(week[d]) > 0 {
			days := names[d]
			if j-i > 1 {
				days += "-" + names[order[j-1]]
			}
			out = append(out, days+" "+text(week[d]))
		}
		i = j
	}
	if out == nil {
		return "never"
	}
	return strings.Join(out, "; ")
}
