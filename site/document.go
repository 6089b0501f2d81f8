package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind names a kind of object a document holds.
type Kind string

// The kinds, in the order apply creates and updates them (and prune
// deletes them in reverse).
const (
	KindHolidayGroups  Kind = "holiday_groups"
	KindSchedules      Kind = "schedules"
	KindDoorGroups     Kind = "door_groups"
	KindAccessPolicies Kind = "access_policies"
	KindUserGroups     Kind = "user_groups"
	KindUsers          Kind = "users"
	KindWebhooks       Kind = "webhooks"
)

// AllKinds lists every kind in dependency order.
func AllKinds() []Kind {
	return []Kind{KindHolidayGroups, KindSchedules, KindDoorGroups, KindAccessPolicies, KindUserGroups, KindUsers, KindWebhooks}
}

// ParseKind accepts a kind's name with '-' or '_' ("user-groups").
func ParseKind(s string) (Kind, error) {
	k := Kind(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	if slices.Contains(AllKinds(), k) {
		return k, nil
	}
	names := make([]string, 0, 7)
	for _, k := range AllKinds() {
		names = append(names, strings.ReplaceAll(string(k), "_", "-"))
	}
	return "", fmt.Errorf("unknown kind %q (want one of %s)", s, strings.Join(names, ", "))
}

func (k Kind) order() int { return slices.Index(AllKinds(), k) }

// singular is the kind's name for one object, as plans print it.
func (k Kind) singular() string {
	switch k {
	case KindHolidayGroups:
		return "holiday_group"
	case KindSchedules:
		return "schedule"
	case KindDoorGroups:
		return "door_group"
	case KindAccessPolicies:
		return "access_policy"
	case KindUserGroups:
		return "user_group"
	case KindUsers:
		return "user"
	case KindWebhooks:
		return "webhook"
	}
	return string(k)
}

// Document is what a console should hold. A nil list means the document
// does not mention the kind: it is neither read nor changed. An empty,
// non-nil list (`users: []`) lists the kind with no object in it, which
// matters only to pruning.
type Document struct {
	HolidayGroups  []HolidayGroup `json:"holiday_groups,omitempty" yaml:"holiday_groups,omitempty"`
	Schedules      []Schedule     `json:"schedules,omitempty" yaml:"schedules,omitempty"`
	DoorGroups     []DoorGroup    `json:"door_groups,omitempty" yaml:"door_groups,omitempty"`
	AccessPolicies []AccessPolicy `json:"access_policies,omitempty" yaml:"access_policies,omitempty"`
	UserGroups     []UserGroup    `json:"user_groups,omitempty" yaml:"user_groups,omitempty"`
	Users          []User         `json:"users,omitempty" yaml:"users,omitempty"`
	// UsersCSV names a CSV file whose rows are added to Users (see
	// [ReadUsersCSV]), and how to read it; the caller reads it, relative
	// to the document (package sitefile does).
	UsersCSV *UsersCSV `json:"users_csv,omitempty" yaml:"users_csv,omitempty"`
	Webhooks []Webhook `json:"webhooks,omitempty" yaml:"webhooks,omitempty"`
	// Scope, when set, limits the console users the document manages
	// (see [Scope]); [PlanOptions].Scope overrides it.
	Scope *Scope `json:"scope,omitempty" yaml:"scope,omitempty"`
	// Sites holds per-console overrides keyed by the console's name (a
	// profile): each object of an override replaces the object of the
	// same kind and name (user key) of the main document, or is added
	// (see [Document.ForSite]).
	Sites map[string]*Document `json:"sites,omitempty" yaml:"sites,omitempty"`
}

// Kinds returns the kinds the document lists, in dependency order.
func (d *Document) Kinds() []Kind {
	var out []Kind
	for _, k := range AllKinds() {
		if d.lists(k) {
			out = append(out, k)
		}
	}
	return out
}

func (d *Document) lists(k Kind) bool {
	switch k {
	case KindHolidayGroups:
		return d.HolidayGroups != nil
	case KindSchedules:
		return d.Schedules != nil
	case KindDoorGroups:
		return d.DoorGroups != nil
	case KindAccessPolicies:
		return d.AccessPolicies != nil
	case KindUserGroups:
		return d.UserGroups != nil
	case KindUsers:
		return d.Users != nil || d.UsersCSV != nil
	case KindWebhooks:
		return d.Webhooks != nil
	}
	return false
}

// count returns how many objects of kind k the document holds.
func (d *Document) count(k Kind) int {
	switch k {
	case KindHolidayGroups:
		return len(d.HolidayGroups)
	case KindSchedules:
		return len(d.Schedules)
	case KindDoorGroups:
		return len(d.DoorGroups)
	case KindAccessPolicies:
		return len(d.AccessPolicies)
	case KindUserGroups:
		return len(d.UserGroups)
	case KindUsers:
		return len(d.Users)
	case KindWebhooks:
		return len(d.Webhooks)
	}
	return 0
}

// UsersCSV is the document's users_csv member: the path of a CSV file of
// users, written `users_csv: hr.csv`, or with how to read it,
// `users_csv: {path: hr.csv, delimiter: ";", columns: {employee_number:
// Personalnummer}}` (see [CSVOptions]).
type UsersCSV struct {
	Path string `json:"path" yaml:"path"`
	// Delimiter is one character; empty for ','.
	Delimiter string `json:"delimiter,omitempty" yaml:"delimiter,omitempty"`
	// Columns maps a column of [CSVColumns] to the file's header.
	Columns map[string]string `json:"columns,omitempty" yaml:"columns,omitempty"`
}

// UnmarshalJSON accepts the path alone, as a string, or the object.
func (u *UsersCSV) UnmarshalJSON(b []byte) error {
	var path string
	if err := json.Unmarshal(b, &path); err == nil {
		*u = UsersCSV{Path: path}
		return nil
	}
	type plain UsersCSV
	return json.Unmarshal(b, (*plain)(u))
}

// MarshalJSON writes the path alone, as a string, when there is nothing
// else.
func (u UsersCSV) MarshalJSON() ([]byte, error) {
	if u.Delimiter == "" && len(u.Columns) == 0 {
		return json.Marshal(u.Path)
	}
	type plain UsersCSV
	return json.Marshal(plain(u))
}

// HolidayGroup is a named set of holidays.
type HolidayGroup struct {
	Name        string    `json:"name" yaml:"name"`
	Description string    `json:"description,omitempty" yaml:"description,omitempty"`
	Holidays    []Holiday `json:"holidays,omitempty" yaml:"holidays,omitempty"`
}

// Holiday is one holiday of a [HolidayGroup].
type Holiday struct {
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Repeat repeats the holiday every year.
	Repeat bool `json:"repeat,omitempty" yaml:"repeat,omitempty"`
	// Start and End are RFC 3339 times; End is after Start.
	Start time.Time `json:"start" yaml:"start"`
	End   time.Time `json:"end" yaml:"end"`
}

// Range is a time of day range, "HH:MM:SS" to a later "HH:MM:SS".
type Range struct {
	Start string `json:"start" yaml:"start"`
	End   string `json:"end" yaml:"end"`
}

// Week holds a schedule's ranges per weekday; a day left out has none.
type Week struct {
	Monday    []Range `json:"monday,omitempty" yaml:"monday,omitempty"`
	Tuesday   []Range `json:"tuesday,omitempty" yaml:"tuesday,omitempty"`
	Wednesday []Range `json:"wednesday,omitempty" yaml:"wednesday,omitempty"`
	Thursday  []Range `json:"thursday,omitempty" yaml:"thursday,omitempty"`
	Friday    []Range `json:"friday,omitempty" yaml:"friday,omitempty"`
	Saturday  []Range `json:"saturday,omitempty" yaml:"saturday,omitempty"`
	Sunday    []Range `json:"sunday,omitempty" yaml:"sunday,omitempty"`
}

func (w *Week) days() [7]struct {
	name   string
	ranges []Range
} {
	return [7]struct {
		name   string
		ranges []Range
	}{{"monday", w.Monday}, {"tuesday", w.Tuesday}, {"wednesday", w.Wednesday}, {"thursday", w.Thursday},
		{"friday", w.Friday}, {"saturday", w.Saturday}, {"sunday", w.Sunday}}
}

// Schedule is an access schedule: weekly ranges and, on the holidays of
// its holiday group, the holiday ranges instead.
type Schedule struct {
	Name string `json:"name" yaml:"name"`
	Week Week   `json:"week" yaml:"week"`
	// HolidayGroup is a holiday group's name; empty: none.
	HolidayGroup string  `json:"holiday_group,omitempty" yaml:"holiday_group,omitempty"`
	Holidays     []Range `json:"holiday_ranges,omitempty" yaml:"holiday_ranges,omitempty"`
}

// DoorGroup is a named set of doors.
type DoorGroup struct {
	Name string `json:"name" yaml:"name"`
	// Doors are door names.
	Doors []string `json:"doors" yaml:"doors"`
}

// Resource is a door or a door group, by name: exactly one of the two is
// set (`door: Main entrance` or `door_group: Visitor lobby`).
type Resource struct {
	Door      string `json:"door,omitempty" yaml:"door,omitempty"`
	DoorGroup string `json:"door_group,omitempty" yaml:"door_group,omitempty"`
}

// String is "door:NAME" or "door_group:NAME", as plans show a resource.
func (r Resource) String() string {
	if r.DoorGroup != "" {
		return "door_group:" + r.DoorGroup
	}
	return "door:" + r.Door
}

// AccessPolicy opens doors and door groups on a schedule.
type AccessPolicy struct {
	Name      string     `json:"name" yaml:"name"`
	Schedule  string     `json:"schedule" yaml:"schedule"`
	Resources []Resource `json:"resources" yaml:"resources"`
}

// UserGroup is a user group; Parent names its parent group (empty: a
// top-level group). Policies, when not nil, are the group's access
// policies by name.
type UserGroup struct {
	Name     string   `json:"name" yaml:"name"`
	Parent   string   `json:"parent,omitempty" yaml:"parent,omitempty"`
	Policies []string `json:"policies,omitempty" yaml:"policies,omitempty"`
}

// User is a person. A member left empty (nil for lists) is not managed:
// the console's value stays. Groups, Policies and LicensePlates, when not
// nil, are the whole set (write [] for none).
type User struct {
	EmployeeNumber string `json:"employee_number,omitempty" yaml:"employee_number,omitempty"`
	Email          string `json:"email,omitempty" yaml:"email,omitempty"`
	FirstName      string `json:"first_name" yaml:"first_name"`
	LastName       string `json:"last_name" yaml:"last_name"`
	// Status is ACTIVE or DEACTIVATED; PENDING (the console's value for
	// an invited user, written by Export) is accepted and leaves the
	// console's status as it is.
	Status string `json:"status,omitempty" yaml:"status,omitempty"`
	// OnboardTime is when the user starts; nil is not managed.
	OnboardTime   *time.Time `json:"onboard_time,omitempty" yaml:"onboard_time,omitempty"`
	Groups        []string   `json:"groups,omitempty" yaml:"groups,omitempty"`
	Policies      []string   `json:"policies,omitempty" yaml:"policies,omitempty"`
	LicensePlates []string   `json:"license_plates,omitempty" yaml:"license_plates,omitempty"`
}

// Scope limits the console users a document manages: a console user
// outside it that the document does not list is neither reported as a
// leaver nor pruned, only counted ([Summary].OutOfScope). The users the
// document lists are managed whatever the scope. Both members may be
// given: a user must then meet both.
type Scope struct {
	// EmployeeNumber limits the scope to users with an employee number
	// (those an HR system knows); every user of the document must then
	// have one.
	EmployeeNumber bool `json:"employee_number,omitempty" yaml:"employee_number,omitempty"`
	// UserGroup limits the scope to the direct members of the named user
	// group.
	UserGroup string `json:"user_group,omitempty" yaml:"user_group,omitempty"`
}

// holds reports whether the console user u is in the scope; a nil scope
// holds everyone.
func (s *Scope) holds(u *User) bool {
	switch {
	case s == nil:
		return true
	case s.EmployeeNumber && u.EmployeeNumber == "":
		return false
	case s.UserGroup != "" && !slices.Contains(u.Groups, s.UserGroup):
		return false
	}
	return true
}

// checkScope checks a scope (at path) against the document's users.
func checkScope(c *checker, d *Document, s *Scope, path string) {
	if s == nil {
		return
	}
	if !s.EmployeeNumber && strings.TrimSpace(s.UserGroup) == "" {
		c.add(path, "a scope needs employee_number: true or a user_group")
		return
	}
	if s.UserGroup != "" && d.lists(KindUserGroups) && !slices.ContainsFunc(d.UserGroups, func(g UserGroup) bool { return g.Name == s.UserGroup }) {
		c.add(path+".user_group", "no user_group named %q in the document", s.UserGroup)
	}
	for i, u := range d.Users {
		switch {
		case s.EmployeeNumber && u.EmployeeNumber == "":
			c.add(fmt.Sprintf("users[%d]", i), "outside the scope (%s: employee_number): the user has no employee_number", path)
		case s.UserGroup != "" && u.Groups != nil && !slices.Contains(u.Groups, s.UserGroup):
			c.add(fmt.Sprintf("users[%d].groups", i), "outside the scope (%s: user_group %q): the user's groups leave it out", path, s.UserGroup)
		}
	}
}

// Key identifies the user: the employee number when there is one, else
// the email; empty when there is neither.
func (u *User) Key() string {
	if u.EmployeeNumber != "" {
		return u.EmployeeNumber
	}
	return strings.ToLower(u.Email)
}

// FullName is the first and last name, "Chloe Martin".
func (u *User) FullName() string {
	return strings.TrimSpace(strings.TrimSpace(u.FirstName) + " " + strings.TrimSpace(u.LastName))
}

// Webhook is a webhook endpoint, known by its name. Header values are
// references to environment variables, "${NAME}", resolved when a plan
// is made; a literal value is refused so that no secret is kept in the
// document.
type Webhook struct {
	Name     string            `json:"name" yaml:"name"`
	Endpoint string            `json:"endpoint" yaml:"endpoint"`
	Events   []string          `json:"events" yaml:"events"`
	Headers  map[string]string `json:"headers,omitempty" yaml:"headers,omitempty"`
}

// Position is where something is in the document's file; zero Line when
// unknown.
type Position struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// String is "file:line:column", leaving out what is unknown.
func (p Position) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Column == 0 && p.File == "":
		return fmt.Sprintf("%d", p.Line)
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	case p.File == "":
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Locator returns the position of a path in the document: kinds and
// members by their JSON names, list items by index, e.g.
// "users[3].groups[0]". It may return the zero Position.
type Locator func(path string) Position

// Problem is one thing wrong with a document.
type Problem struct {
	Path    string   `json:"path"`
	Pos     Position `json:"position"`
	Message string   `json:"message"`
	// Err, when not nil, is the kind of problem, for errors.Is (for
	// example csv.ErrFieldCount for a CSV row of the wrong length).
	Err error `json:"-"`
}

// String is "position: path: message".
func (p Problem) String() string {
	if s := p.Pos.String(); s != "" {
		return s + ": " + p.Path + ": " + p.Message
	}
	return p.Path + ": " + p.Message
}

// DocumentError lists what is wrong with a document; nothing was written.
type DocumentError struct {
	Problems []Problem
}

// Unwrap returns the Err of each problem that has one, so that
// errors.Is(err, csv.ErrFieldCount) tells a short CSV row.
func (e *DocumentError) Unwrap() []error {
	var out []error
	for _, p := range e.Problems {
		if p.Err != nil {
			out = append(out, p.Err)
		}
	}
	return out
}

// Error lists the problems, one per line after the first.
func (e *DocumentError) Error() string {
	if len(e.Problems) == 1 {
		return "site: bad document: " + e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "site: bad document (%d problems):", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.String())
	}
	return b.String()
}

type checker struct {
	loc      Locator
	problems []Problem
}

func (c *checker) add(path, format string, args ...any) {
	p := Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	if c.loc != nil {
		p.Pos = c.loc(path)
	}
	c.problems = append(c.problems, p)
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &DocumentError{Problems: c.problems}
}

// The patterns of a time of day and of a header's value, compiled when
// first used: a program that links the package and never validates a
// document (a command of the CLI that is not plan, apply or export) does
// not compile them.
const (
	timeOfDayPattern = `^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`
	envRefPattern    = `^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`
)

var (
	timeOfDay = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(timeOfDayPattern) })
	envRef    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(envRefPattern) })
)

// Validate checks the document itself, before any console is read:
// required members, duplicate names or user keys, impossible ranges, a
// resource that is not exactly one of door and door_group, literal webhook
// header values, and references to a name of a kind the document lists but
// does not define. References to doors and to kinds the document does not
// list are checked by [Plan] against the console. loc may be nil.
func Validate(d *Document, loc Locator) error {
	c := &checker{loc: loc}
	names := map[Kind]map[string]bool{}
	unique := func(k Kind, i int, name string) {
		path := fmt.Sprintf("%s[%d].name", k, i)
		if strings.TrimSpace(name) == "" {
			c.add(path, "a name is required")
			return
		}
		if names[k] == nil {
			names[k] = map[string]bool{}
		}
		if names[k][name] {
			c.add(path, "duplicate %s name %q", k.singular(), name)
		}
		names[k][name] = true
	}
	for i, g := range d.HolidayGroups {
		unique(KindHolidayGroups, i, g.Name)
		for j, h := range g.Holidays {
			p := fmt.Sprintf("holiday_groups[%d].holidays[%d]", i, j)
			switch {
			case strings.TrimSpace(h.Name) == "":
				c.add(p+".name", "a holiday needs a name")
			case h.Start.IsZero() || h.End.IsZero():
				c.add(p, "a holiday needs a start and an end")
			case !h.End.After(h.Start):
				c.add(p+".end", "a holiday must end after it starts")
			}
		}
	}
	checkRanges := func(path string, rs []Range) {
		for j, r := range rs {
			p := fmt.Sprintf("%s[%d]", path, j)
			switch {
			case !timeOfDay().MatchString(r.Start):
				c.add(p+".start", "%q is not a time of day HH:MM:SS", r.Start)
			case !timeOfDay().MatchString(r.End):
				c.add(p+".end", "%q is not a time of day HH:MM:SS", r.End)
			case r.End <= r.Start:
				c.add(p, "the range %s-%s ends before it starts", r.Start, r.End)
			}
		}
	}
	for i, s := range d.Schedules {
		unique(KindSchedules, i, s.Name)
		for _, day := range s.Week.days() {
			checkRanges(fmt.Sprintf("schedules[%d].week.%s", i, day.name), day.ranges)
		}
		checkRanges(fmt.Sprintf("schedules[%d].holiday_ranges", i), s.Holidays)
	}
	for i, g := range d.DoorGroups {
		unique(KindDoorGroups, i, g.Name)
		for j, dn := range g.Doors {
			if strings.TrimSpace(dn) == "" {
				c.add(fmt.Sprintf("door_groups[%d].doors[%d]", i, j), "a door name is required")
			}
		}
	}
	for i, p := range d.AccessPolicies {
		unique(KindAccessPolicies, i, p.Name)
		if strings.TrimSpace(p.Schedule) == "" {
			c.add(fmt.Sprintf("access_policies[%d].schedule", i), "a schedule is required")
		}
		for j, r := range p.Resources {
			if (r.Door == "") == (r.DoorGroup == "") {
				c.add(fmt.Sprintf("access_policies[%d].resources[%d]", i, j), "a resource is exactly one of door: NAME and door_group: NAME")
			}
		}
	}
	for i, g := range d.UserGroups {
		unique(KindUserGroups, i, g.Name)
		if g.Parent == g.Name && g.Name != "" {
			c.add(fmt.Sprintf("user_groups[%d].parent", i), "a group cannot be its own parent")
		}
	}
	// A duplicate names the user it repeats, by position when known.
	first := func(j int) string {
		p := fmt.Sprintf("users[%d]", j)
		if loc != nil {
			if pos := loc(p); pos.Line > 0 {
				return pos.String()
			}
		}
		return p
	}
	keys, emails := map[string]int{}, map[string]int{}
	for i, u := range d.Users {
		p := fmt.Sprintf("users[%d]", i)
		k := u.Key()
		j, dup := keys[k]
		switch {
		case k == "":
			c.add(p, "a user needs an employee_number or an email to be managed")
		case dup:
			c.add(p, "duplicate user %q (also %s)", k, first(j))
		default:
			keys[k] = i
		}
		if e := strings.ToLower(u.Email); e != "" && !dup {
			if j, ok := emails[e]; ok {
				c.add(p+".email", "duplicate email %q (also %s)", u.Email, first(j))
			} else {
				emails[e] = i
			}
		}
		if strings.TrimSpace(u.FirstName) == "" {
			c.add(p+".first_name", "first_name is required")
		}
		if strings.TrimSpace(u.LastName) == "" {
			c.add(p+".last_name", "last_name is required")
		}
		switch u.Status {
		case "", "ACTIVE", "DEACTIVATED", "PENDING":
		default:
			c.add(p+".status", "status %q is not ACTIVE, DEACTIVATED or PENDING", u.Status)
		}
		if u.OnboardTime != nil && u.OnboardTime.Unix() < 0 {
			c.add(p+".onboard_time", "onboard_time must not be before 1970")
		}
	}
	for i, w := range d.Webhooks {
		unique(KindWebhooks, i, w.Name)
		if !strings.HasPrefix(w.Endpoint, "http://") && !strings.HasPrefix(w.Endpoint, "https://") {
			c.add(fmt.Sprintf("webhooks[%d].endpoint", i), "the endpoint must be an http or https URL")
		}
		if len(w.Events) == 0 {
			c.add(fmt.Sprintf("webhooks[%d].events", i), "at least one event is required")
		}
		for _, h := range sortedKeys(w.Headers) {
			if !envRef().MatchString(w.Headers[h]) {
				c.add(fmt.Sprintf("webhooks[%d].headers.%s", i, h), "a header value must be a ${ENV_VAR} reference, never a literal value")
			}
		}
	}
	// References to kinds the document lists must name one of its objects.
	ref := func(k Kind, path, name string) {
		if name != "" && d.lists(k) && !names[k][name] {
			c.add(path, "no %s named %q in the document", k.singular(), name)
		}
	}
	for i, s := range d.Schedules {
		ref(KindHolidayGroups, fmt.Sprintf("schedules[%d].holiday_group", i), s.HolidayGroup)
	}
	for i, p := range d.AccessPolicies {
		ref(KindSchedules, fmt.Sprintf("access_policies[%d].schedule", i), p.Schedule)
		for j, r := range p.Resources {
			ref(KindDoorGroups, fmt.Sprintf("access_policies[%d].resources[%d].door_group", i, j), r.DoorGroup)
		}
	}
	for i, g := range d.UserGroups {
		ref(KindUserGroups, fmt.Sprintf("user_groups[%d].parent", i), g.Parent)
		for j, p := range g.Policies {
			ref(KindAccessPolicies, fmt.Sprintf("user_groups[%d].policies[%d]", i, j), p)
		}
	}
	checkScope(c, d, d.Scope, "scope")
	if cyc := parentCycle(d.UserGroups); cyc != "" {
		c.add("user_groups", "the parents form a cycle: %s", cyc)
	}
	for i, u := range d.Users {
		for j, g := range u.Groups {
			ref(KindUserGroups, fmt.Sprintf("users[%d].groups[%d]", i, j), g)
		}
		for j, p := range u.Policies {
			ref(KindAccessPolicies, fmt.Sprintf("users[%d].policies[%d]", i, j), p)
		}
	}
	return c.err()
}

func parentCycle(groups []UserGroup) string {
	parent := map[string]string{}
	for _, g := range groups {
		parent[g.Name] = g.Parent
	}
	for _, g := range groups {
		seen := map[string]bool{}
		path := []string{}
		for n := g.Name; n != ""; n = parent[n] {
			if seen[n] {
				return strings.Join(append(path, n), " -> ")
			}
			seen[n] = true
			path = append(path, n)
		}
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// MarshalJSON writes the kinds the document lists, an empty listed kind
// as [] (omitempty would drop it, and with it the kind), in dependency
// order.
func (d Document) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	member := func(name string, v any) error {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(name)
		b.Write(k)
		b.WriteByte(':')
		x, err := json.Marshal(v)
		b.Write(x)
		return err
	}
	for _, k := range AllKinds() {
		if !d.lists(k) || (k == KindUsers && d.Users == nil) {
			continue
		}
		var v any
		switch k {
		case KindHolidayGroups:
			v = d.HolidayGroups
		case KindSchedules:
			v = d.Schedules
		case KindDoorGroups:
			v = d.DoorGroups
		case KindAccessPolicies:
			v = d.AccessPolicies
		case KindUserGroups:
			v = d.UserGroups
		case KindUsers:
			v = d.Users
		case KindWebhooks:
			v = d.Webhooks
		}
		if err := member(string(k), v); err != nil {
			return nil, err
		}
	}
	if d.UsersCSV != nil {
		if err := member("users_csv", d.UsersCSV); err != nil {
			return nil, err
		}
	}
	if d.Scope != nil {
		if err := member("scope", d.Scope); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
