package site

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/access-dev/access"
)

// FormatVersion is the version of a plan's JSON form; it changes when a
// member is renamed or removed.
const FormatVersion = "1.0"

// Op is what a change does.
type Op string

// The operations of a plan.
const (
	OpCreate     Op = "create"
	OpUpdate     Op = "update"
	OpDeactivate Op = "deactivate"
	OpDelete     Op = "delete"
)

// Ref names an object of a plan: its kind and key (a name, or a user's
// key).
type Ref struct {
	Kind Kind   `json:"kind"`
	Key  string `json:"key"`
}

// String is "kind key", e.g. "user_group Night shift".
func (r Ref) String() string { return r.Kind.singular() + " " + r.Key }

// FieldChange is one member of an object, from Old to New (masked when
// secret); Old is empty for a create.
type FieldChange struct {
	Field string `json:"field"`
	Old   string `json:"old"`
	New   string `json:"new"`
}

// Change is one object to create, update, deactivate or delete.
type Change struct {
	Kind Kind   `json:"kind"`
	Key  string `json:"key"`
	// Name is a user's full name (the document's, or the console's for a
	// user pruned), so that a plan names people, not only keys.
	Name   string        `json:"name,omitempty"`
	Op     Op            `json:"op"`
	Fields []FieldChange `json:"fields,omitempty"`
	// DependsOn are the objects this change needs created first; when one
	// of them fails, this change is skipped.
	DependsOn []Ref `json:"depends_on,omitempty"`
	// Before is a digest of the object as read (empty for a create): a
	// saved plan is refused when it no longer matches.
	Before string `json:"before,omitempty"`

	depth int // of a user group, to order parents first
}

// Ref returns the change's object.
func (c *Change) Ref() Ref { return Ref{c.Kind, c.Key} }

// Summary counts a plan's changes.
type Summary struct {
	Create     int `json:"create"`
	Update     int `json:"update"`
	Deactivate int `json:"deactivate"`
	Delete     int `json:"delete"`
	// Unlisted counts the objects of the listed kinds that the document
	// does not hold and the plan keeps (without Prune): see
	// [Plan].Unlisted.
	Unlisted int `json:"unlisted"`
	// OutOfScope counts the console users outside the scope ([Scope])
	// that the document does not list: left alone, not changes.
	OutOfScope int `json:"out_of_scope,omitempty"`
}

// Total is the number of changes.
func (s Summary) Total() int { return s.Create + s.Update + s.Deactivate + s.Delete }

// String is the summary line: "3 to create, 2 to change, 1 to deactivate".
func (s Summary) String() string {
	out := fmt.Sprintf("%d to create, %d to change", s.Create, s.Update)
	if s.Deactivate > 0 {
		out += fmt.Sprintf(", %d to deactivate", s.Deactivate)
	}
	if s.Delete > 0 {
		out += fmt.Sprintf(", %d to delete", s.Delete)
	}
	if s.Unlisted > 0 {
		out += fmt.Sprintf(", %d not in the document (kept: only pruning removes them)", s.Unlisted)
	}
	if s.OutOfScope > 0 {
		out += fmt.Sprintf("; %d users outside the scope left alone", s.OutOfScope)
	}
	return out
}

// Unlisted is an object of a kind the document lists that the console
// holds and the document does not: a user who left, a group no longer
// used. Without [PlanOptions].Prune it is kept, and the plan says so;
// with it, it is a change (a user deactivated, another object deleted).
// A user the console holds as deactivated, a built-in object and a user
// outside the scope are never unlisted.
type Unlisted struct {
	Kind Kind   `json:"kind"`
	Key  string `json:"key"`
	// Name is a user's full name.
	Name string `json:"name,omitempty"`
	// Prune is what pruning would do to it: deactivate (a user, or
	// delete with PruneDeleteUsers) or delete.
	Prune Op `json:"prune"`
}

// PlanOptions tune [MakePlan].
type PlanOptions struct {
	// Prune deletes the objects of the listed kinds that the document does
	// not hold (users are deactivated instead); built-in objects are never
	// deleted.
	Prune bool `json:"prune,omitempty"`
	// PruneDeleteUsers deletes pruned users after deactivating them.
	PruneDeleteUsers bool `json:"prune_delete_users,omitempty"`
	// PruneEmpty allows pruning a kind the document lists with no object
	// (which deletes every object of that kind); without it such a
	// document is refused.
	PruneEmpty bool `json:"prune_empty,omitempty"`
	// MaxDeactivate is the most users one plan may deactivate (or delete)
	// by pruning: 0 means [DefaultMaxDeactivate], a negative value no
	// limit. Users the console holds as deactivated are not counted.
	MaxDeactivate int `json:"max_deactivate,omitempty"`
	// MaxDeactivateShare is the most users one plan may deactivate by
	// pruning, as a percentage (rounded up) of the console's users that
	// the document manages (inside the scope, not deactivated): 0 means
	// [DefaultMaxDeactivateShare], a negative value or 100 or more no
	// limit. A plan over either limit is refused with a [*GuardError].
	MaxDeactivateShare float64 `json:"max_deactivate_share,omitempty"`
	// Scope limits the console users the document manages; nil: the
	// document's own scope ([Document].Scope), if any.
	Scope *Scope `json:"scope,omitempty"`
	// Locator places problems found against the console (unknown doors,
	// names of kinds the document does not list) in the document.
	Locator Locator `json:"-"`
	// LookupEnv resolves webhook header references; nil: os.LookupEnv.
	LookupEnv func(string) (string, bool) `json:"-"`
}

// Plan is what apply would do, as data: the changes in the order apply
// makes them, and the document and options they came from.
type Plan struct {
	FormatVersion string      `json:"format_version"`
	Options       PlanOptions `json:"options"`
	Changes       []Change    `json:"changes"`
	// Unlisted are the objects the document does not hold that the plan
	// keeps (without Prune), in kind order then by key: the leavers.
	Unlisted []Unlisted `json:"unlisted"`
	Summary  Summary    `json:"summary"`
	// Warnings name console objects left alone (duplicate names, users
	// without a key).
	Warnings []string  `json:"warnings,omitempty"`
	Document *Document `json:"document"`

	st      *state
	headers map[string]map[string]string // webhook name -> resolved headers
	read    *planRead                    // when MakePlan read st; nil for a plan decoded from JSON
}

// planRead is when a plan's reading of the console ended, and whether
// [Plan.Apply] has used that reading already (it may once: after its
// writes the reading is out of date).
type planRead struct {
	at   time.Time
	used atomic.Bool
}

// MakePlan reads the console and returns what it takes to make it hold
// desired. The document is validated first ([Validate]); references to
// the console's own objects are checked after reading it. Nothing is
// written. A plan that would prune more users than the guard allows
// (PlanOptions.MaxDeactivate, MaxDeactivateShare) is returned with a
// [*GuardError], so that it can be shown; [Plan.Apply] refuses it.
func MakePlan(ctx context.Context, c *access.Client, desired *Document, opts *PlanOptions) (*Plan, error) {
	var o PlanOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case c == nil:
		return nil, ErrNoClient
	case desired == nil:
		return nil, &DocumentError{Problems: []Problem{{Message: "no document"}}}
	}
	if err := Validate(desired, o.Locator); err != nil {
		return nil, err
	}
	chk := &checker{loc: o.Locator}
	if o.Prune && !o.PruneEmpty {
		for _, k := range desired.Kinds() {
			if desired.count(k) == 0 {
				chk.add(string(k), "lists no %s: pruning would delete every one (allow it explicitly: --prune-empty)", k.singular())
			}
		}
	}
	if o.Scope != nil {
		checkScope(chk, desired, o.Scope, "options.scope")
	}
	headers := resolveHeaders(desired, o.LookupEnv, chk)
	if err := chk.err(); err != nil {
		return nil, err
	}
	st, err := readState(ctx, c, desired.Kinds())
	if err != nil {
		return nil, err
	}
	p := &Plan{FormatVersion: FormatVersion, Options: o, Document: desired, st: st, headers: headers, Warnings: st.warnings,
		read: &planRead{at: time.Now()}}
	if err := p.checkRefs(); err != nil {
		return nil, err
	}
	p.compute()
	if err := p.guard(); err != nil {
		return p, err
	}
	return p, nil
}

// Drift reports whether the console differs from the document: a change
// to make, or an object of a listed kind that the document does not hold
// ([Plan].Unlisted). Users outside the scope are not drift.
func (p *Plan) Drift() bool { return len(p.Changes) > 0 || len(p.Unlisted) > 0 }

// Leavers returns the console users a plan of users manages that its
// document does not list — inside the scope, not ambiguous, deactivated
// ones included — as the plan read them (with their id, status and
// credentials), sorted by key. They are the users [PlanOptions].Prune
// deactivates (or deletes) and, once deactivated, the users whose
// credentials a directory sync takes back. Nil when the document does not
// list users.
func (p *Plan) Leavers() []access.User {
	if p == nil || p.st == nil || p.st.users == nil || p.Document == nil || p.Document.Users == nil && p.Document.UsersCSV == nil {
		return nil
	}
	listed := make(map[string]bool, len(p.Document.Users))
	for i := range p.Document.Users {
		listed[p.Document.Users[i].Key()] = true
	}
	for k, k2 := range p.st.alias {
		if listed[k] {
			listed[k2] = true
		}
	}
	scope := p.scope()
	out := []access.User{}
	for _, k := range sortedKeys(p.st.users) {
		e := p.st.users[k]
		if listed[k] || !scope.holds(&e.obj) || e.raw == nil {
			continue
		}
		out = append(out, *e.raw)
	}
	return out
}

// ErrNoClient is returned for a nil *access.Client, before anything else.
var ErrNoClient = errors.New("site: no client")

var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\$\{(.*)\}$`) })

func resolveHeaders(d *Document, lookup func(string) (string, bool), chk *checker) map[string]map[string]string {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	out := map[string]map[string]string{}
	for i, w := range d.Webhooks {
		if w.Headers == nil {
			continue
		}
		h := map[string]string{}
		for _, n := range sortedKeys(w.Headers) {
			m := envName().FindStringSubmatch(w.Headers[n])
			if m == nil {
				continue // Validate reported it
			}
			v, ok := lookup(m[1])
			if !ok {
				chk.add(fmt.Sprintf("webhooks[%d].headers.%s", i, n), "the environment variable %s is not set", m[1])
				continue
			}
			h[n] = v
		}
		out[w.Name] = h
	}
	return out
}

// checkRefs checks the names that refer to the console's own objects.
func (p *Plan) checkRefs() error {
	d, st := p.Document, p.st
	chk := &checker{loc: p.Options.Locator}
	door := func(path, name string) {
		switch n := len(st.doors[name]); {
		case n == 0:
			chk.add(path, "no door named %q on the console", name)
		case n > 1:
			chk.add(path, "%d doors are named %q on the console; such a door cannot be named", n, name)
		}
	}
	ref := func(k Kind, path, name string) {
		if name == "" || d.lists(k) {
			return
		}
		var ok bool
		switch k {
		case KindHolidayGroups:
			ok = st.holidayGroups[name] != nil
		case KindSchedules:
			ok = st.schedules[name] != nil
		case KindDoorGroups:
			ok = st.doorGroups[name] != nil
		case KindAccessPolicies:
			ok = st.accessPolicies[name] != nil
		case KindUserGroups:
			ok = st.userGroups[name] != nil
		}
		switch {
		case st.ambiguous[k][name]:
			chk.add(path, "more than one %s is named %q on the console", k.singular(), name)
		case !ok:
			chk.add(path, "no %s named %q on the console", k.singular(), name)
		}
	}
	for i, g := range d.DoorGroups {
		for j, n := range g.Doors {
			door(fmt.Sprintf("door_groups[%d].doors[%d]", i, j), n)
		}
	}
	for i, s := range d.Schedules {
		ref(KindHolidayGroups, fmt.Sprintf("schedules[%d].holiday_group", i), s.HolidayGroup)
	}
	for i, pol := range d.AccessPolicies {
		ref(KindSchedules, fmt.Sprintf("access_policies[%d].schedule", i), pol.Schedule)
		for j, r := range pol.Resources {
			if r.Door != "" {
				door(fmt.Sprintf("access_policies[%d].resources[%d].door", i, j), r.Door)
			}
			ref(KindDoorGroups, fmt.Sprintf("access_policies[%d].resources[%d].door_group", i, j), r.DoorGroup)
		}
	}
	for i, g := range d.UserGroups {
		for j, n := range g.Policies {
			ref(KindAccessPolicies, fmt.Sprintf("user_groups[%d].policies[%d]", i, j), n)
		}
	}
	if s := p.scope(); s != nil && s.UserGroup != "" && d.lists(KindUsers) {
		path := "scope.user_group"
		if p.Options.Scope != nil {
			path = "options.scope.user_group"
		}
		ref(KindUserGroups, path, s.UserGroup)
	}
	for i, u := range d.Users {
		for j, n := range u.Groups {
			ref(KindUserGroups, fmt.Sprintf("users[%d].groups[%d]", i, j), n)
		}
		for j, n := range u.Policies {
			ref(KindAccessPolicies, fmt.Sprintf("users[%d].policies[%d]", i, j), n)
		}
	}
	return chk.err()
}

// planKind compares the desired objects of one kind with the console's.
func planKind[T any](p *Plan, k Kind, want []T, have map[string]*entry[T], name func(*T) string, fields func(*T, bool) []field) {
	if want == nil {
		return
	}
	listed := make(map[string]bool, len(want))
	for i := range want {
		w := &want[i]
		n := name(w)
		listed[n] = true
		if p.st.ambiguous[k][n] {
			continue
		}
		wf := fields(w, true)
		h := have[n]
		if h == nil {
			p.Changes = append(p.Changes, Change{Kind: k, Key: n, Op: OpCreate, Fields: created(wf)})
			continue
		}
		hf := fields(&h.obj, false)
		if fc := diff(hf, wf); len(fc) > 0 {
			p.Changes = append(p.Changes, Change{Kind: k, Key: n, Op: OpUpdate, Fields: fc, Before: digest(hf)})
		}
	}
	for _, n := range sortedKeys(have) {
		h := have[n]
		if listed[n] || h.builtin {
			continue
		}
		if !p.Options.Prune {
			p.Unlisted = append(p.Unlisted, Unlisted{Kind: k, Key: n, Prune: OpDelete})
			continue
		}
		p.Changes = append(p.Changes, Change{Kind: k, Key: n, Op: OpDelete, Before: digest(fields(&h.obj, false))})
	}
}

func (p *Plan) compute() {
	d, st := p.Document, p.st
	planKind(p, KindHolidayGroups, d.HolidayGroups, st.holidayGroups, func(g *HolidayGroup) string { return g.Name },
		func(g *HolidayGroup, _ bool) []field { return holidayGroupFields(g) })
	planKind(p, KindSchedules, d.Schedules, st.schedules, func(s *Schedule) string { return s.Name },
		func(s *Schedule, _ bool) []field { return scheduleFields(s) })
	planKind(p, KindDoorGroups, d.DoorGroups, st.doorGroups, func(g *DoorGroup) string { return g.Name },
		func(g *DoorGroup, _ bool) []field { return doorGroupFields(g) })
	planKind(p, KindAccessPolicies, d.AccessPolicies, st.accessPolicies, func(a *AccessPolicy) string { return a.Name },
		func(a *AccessPolicy, _ bool) []field { return policyFields(a) })
	planKind(p, KindUserGroups, d.UserGroups, st.userGroups, func(g *UserGroup) string { return g.Name },
		func(g *UserGroup, _ bool) []field { return userGroupFields(g) })
	p.planUsers()
	planKind(p, KindWebhooks, d.Webhooks, st.webhooks, func(w *Webhook) string { return w.Name },
		func(w *Webhook, desired bool) []field {
			if desired {
				return webhookFields(w, p.headers[w.Name])
			}
			return webhookFields(w, w.Headers)
		})
	p.order()
}

// scope is the scope in force: the options', else the document's.
func (p *Plan) scope() *Scope {
	if p.Options.Scope != nil {
		return p.Options.Scope
	}
	return p.Document.Scope
}

func (p *Plan) planUsers() {
	want := p.Document.Users
	if want == nil {
		return
	}
	have := p.st.users
	listed := make(map[string]bool, len(want))
	for i := range want {
		listed[want[i].Key()] = true
	}
	for i := range want {
		w := &want[i]
		k := w.Key()
		if p.st.ambiguous[KindUsers][k] {
			continue
		}
		wf := userFields(w)
		h := have[k]
		// A user the document knows by email only is the console's user
		// with that email, even when the console knows them by employee
		// number (unless the document lists that number too): never a
		// second user with the same email.
		if k2, ok := p.st.byEmail[k]; h == nil && w.EmployeeNumber == "" && ok && !listed[k2] {
			h = have[k2]
			p.st.alias[k] = k2
			listed[k2] = true
		}
		if h == nil {
			p.Changes = append(p.Changes, Change{Kind: KindUsers, Key: k, Name: w.FullName(), Op: OpCreate, Fields: created(wf)})
			continue
		}
		hf := userFields(&h.obj)
		if fc := diff(hf, wf); len(fc) > 0 {
			p.Changes = append(p.Changes, Change{Kind: KindUsers, Key: k, Name: w.FullName(), Op: OpUpdate, Fields: fc, Before: digest(hf)})
		}
	}
	scope := p.scope()
	for _, k := range sortedKeys(have) {
		h := have[k]
		if listed[k] {
			continue
		}
		if !scope.holds(&h.obj) {
			p.Summary.OutOfScope++
			continue
		}
		if !p.Options.Prune {
			if h.obj.Status != string(access.UserStatusDeactivated) {
				op := OpDeactivate
				if p.Options.PruneDeleteUsers {
					op = OpDelete
				}
				p.Unlisted = append(p.Unlisted, Unlisted{Kind: KindUsers, Key: k, Name: h.obj.FullName(), Prune: op})
			}
			continue
		}
		op := OpDeactivate
		if p.Options.PruneDeleteUsers {
			op = OpDelete
		} else if h.obj.Status == string(access.UserStatusDeactivated) {
			continue
		}
		var fc []FieldChange
		if h.obj.Status != string(access.UserStatusDeactivated) {
			fc = []FieldChange{{Field: "status", Old: h.obj.Status, New: string(access.UserStatusDeactivated)}}
		}
		p.Changes = append(p.Changes, Change{Kind: KindUsers, Key: k, Name: h.obj.FullName(), Op: op, Fields: fc, Before: digest(userFields(&h.obj))})
	}
}

// order sorts the changes as apply makes them, fills DependsOn and the
// summary.
func (p *Plan) order() {
	creates := map[Ref]bool{}
	for _, c := range p.Changes {
		if c.Op == OpCreate {
			creates[c.Ref()] = true
		}
	}
	parent := map[string]string{}
	for _, g := range p.Document.UserGroups {
		parent[g.Name] = g.Parent
	}
	for n, e := range p.st.userGroups {
		if _, ok := parent[n]; !ok {
			parent[n] = e.obj.Parent
		}
	}
	depth := func(n string) int {
		d := 0
		for seen := map[string]bool{}; parent[n] != "" && !seen[n]; n = parent[n] {
			seen[n] = true
			d++
		}
		return d
	}
	refs := p.refsOf()
	p.Summary = Summary{Unlisted: len(p.Unlisted), OutOfScope: p.Summary.OutOfScope}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Kind == KindUserGroups {
			c.depth = depth(c.Key)
		}
		if c.Op == OpCreate || c.Op == OpUpdate {
			for _, r := range refs[c.Ref()] {
				if creates[r] && !slices.Contains(c.DependsOn, r) {
					c.DependsOn = append(c.DependsOn, r)
				}
			}
			slices.SortFunc(c.DependsOn, func(a, b Ref) int {
				if x := a.Kind.order() - b.Kind.order(); x != 0 {
					return x
				}
				return strings.Compare(a.Key, b.Key)
			})
		}
		switch c.Op {
		case OpCreate:
			p.Summary.Create++
		case OpUpdate:
			p.Summary.Update++
		case OpDeactivate:
			p.Summary.Deactivate++
		case OpDelete:
			p.Summary.Delete++
		}
	}
	slices.SortStableFunc(p.Changes, func(a, b Change) int { return comparePhase(&a, &b) })
	if p.Changes == nil {
		p.Changes = []Change{}
	}
	if p.Unlisted == nil {
		p.Unlisted = []Unlisted{}
	}
}

// phase orders changes: creates and updates by kind (user groups parents
// first), then removals in the reverse kind order (users first, user
// groups children first).
func phase(c *Change) [3]int {
	if c.Op == OpCreate || c.Op == OpUpdate {
		return [3]int{0, c.Kind.order(), c.depth}
	}
	return [3]int{1, -c.Kind.order(), -c.depth}
}

func comparePhase(a, b *Change) int {
	pa, pb := phase(a), phase(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] - pb[i]
		}
	}
	return strings.Compare(a.Key, b.Key)
}

// refsOf returns, for each desired object, the objects it names.
func (p *Plan) refsOf() map[Ref][]Ref {
	d := p.Document
	out := map[Ref][]Ref{}
	add := func(from Ref, k Kind, name string) {
		if name != "" {
			out[from] = append(out[from], Ref{k, name})
		}
	}
	for _, s := range d.Schedules {
		add(Ref{KindSchedules, s.Name}, KindHolidayGroups, s.HolidayGroup)
	}
	for _, a := range d.AccessPolicies {
		r := Ref{KindAccessPolicies, a.Name}
		add(r, KindSchedules, a.Schedule)
		for _, x := range a.Resources {
			add(r, KindDoorGroups, x.DoorGroup)
		}
	}
	for _, g := range d.UserGroups {
		r := Ref{KindUserGroups, g.Name}
		add(r, KindUserGroups, g.Parent)
		for _, n := range g.Policies {
			add(r, KindAccessPolicies, n)
		}
	}
	for _, u := range d.Users {
		r := Ref{KindUsers, u.Key()}
		for _, n := range u.Groups {
			add(r, KindUserGroups, n)
		}
		for _, n := range u.Policies {
			add(r, KindAccessPolicies, n)
		}
	}
	return out
}
