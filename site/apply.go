package site

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
)

// Status is what became of one change.
type Status string

// The outcomes of a change.
const (
	StatusDone    Status = "done"
	StatusSkipped Status = "skipped"
	StatusFailed  Status = "failed"
)

// Result is what became of one change; Reason says why it was skipped or
// failed, or notes something about a done one.
type Result struct {
	Change Change `json:"change"`
	Status Status `json:"status"`
	Reason string `json:"reason,omitempty"`
	// Err is the error of a failed change.
	Err error `json:"-"`
}

// Report is the outcome of [Plan.Apply], one result per change in plan
// order.
type Report struct {
	Results []Result `json:"results"`
	Done    int      `json:"done"`
	Skipped int      `json:"skipped"`
	Failed  int      `json:"failed"`
}

// ApplyOptions tune [Plan.Apply].
type ApplyOptions struct {
	// Concurrency bounds the writes in flight; 0 means 2 (net/http keeps
	// two idle connections per host: more writes at once each open a new
	// TLS connection). The pace of requests is the client's (its retry
	// policy and request budget).
	Concurrency int
	// Progress, when set, is called after each change, from one goroutine
	// at a time.
	Progress func(Result)
	// LookupEnv resolves webhook header references; nil: the plan's, else
	// os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// FreshFor lets Apply use the plan's own reading of the console
	// instead of reading it again, when [MakePlan] finished reading at
	// most FreshFor ago and no Apply has used that reading yet: for a
	// plan applied right after it was made (`access apply --yes`), where
	// a second read would only repeat the first. 0, the default: the
	// console is always read again. A plan decoded from JSON, one older
	// than FreshFor and one applied before are always checked against a
	// new reading.
	FreshFor time.Duration
}

// ErrStale is matched by the error of [Plan.Apply] when the console no
// longer matches the plan.
var ErrStale = errors.New("site: the plan is stale")

// StaleError says which changes of a plan no longer match the console.
type StaleError struct {
	// Changed lists the objects whose change differs from the plan's, or
	// that the plan lacks or no longer needs.
	Changed []Ref
}

// Error names the objects whose change no longer matches.
func (e *StaleError) Error() string {
	names := make([]string, 0, len(e.Changed))
	for _, r := range e.Changed {
		names = append(names, r.String())
	}
	return "site: the plan is stale: the console changed since it was made (" + strings.Join(names, ", ") + "); make a new plan"
}

// Is makes a StaleError match [ErrStale].
func (e *StaleError) Is(target error) bool { return target == ErrStale }

// Apply reads the console again, refuses the plan with a [*GuardError] if
// it prunes more users than its options allow, or with a [*StaleError] if
// its changes are no longer what the console needs, and then makes them
// in order: holiday groups, schedules, door groups, access policies, user
// groups (parents first), users with their memberships, policies and
// licence plates, webhooks, then removals in the reverse order. Changes
// of one step run concurrently (ApplyOptions.Concurrency). A change whose
// dependency failed is skipped; a failed change stops nothing else. A
// create whose answer is lost is looked up by name or key before anything
// else is decided, never sent twice.
//
// The error is nil when every change was made; it is ctx's error when ctx
// ended, and a summary of the failures otherwise. The report is non-nil
// whenever the plan was not refused.
func (p *Plan) Apply(ctx context.Context, c *access.Client, opts *ApplyOptions) (*Report, error) {
	if p == nil || p.Document == nil {
		return nil, &DocumentError{Problems: []Problem{{Message: "no plan"}}}
	}
	var o ApplyOptions
	if opts != nil {
		o = *opts
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	po := p.Options
	if o.LookupEnv != nil {
		po.LookupEnv = o.LookupEnv
	}
	fresh, err := p.own(&po, o.FreshFor)
	if err != nil {
		return nil, err
	}
	if fresh == nil {
		if fresh, err = MakePlan(ctx, c, p.Document, &po); err != nil {
			return nil, err
		}
		if stale := staleRefs(p.Changes, fresh.Changes); len(stale) > 0 {
			return nil, &StaleError{Changed: stale}
		}
	}
	a := newApplier(c, fresh)
	rep := &Report{Results: make([]Result, 0, len(fresh.Changes))}
	var mu sync.Mutex
	record := func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		a.status[r.Change.Ref()] = r.Status
		rep.Results = append(rep.Results, r)
		if o.Progress != nil {
			o.Progress(r)
		}
	}
	changes := fresh.Changes
	for start := 0; start < len(changes); {
		end := start + 1
		for end < len(changes) && phase(&changes[end]) == phase(&changes[start]) {
			end++
		}
		sem := make(chan struct{}, o.Concurrency)
		var wg sync.WaitGroup
		for i := start; i < end; i++ {
			ch := changes[i]
			if ctx.Err() != nil {
				record(Result{Change: ch, Status: StatusSkipped, Reason: "interrupted"})
				continue
			}
			mu.Lock()
			var blocked *Ref
			for _, d := range ch.DependsOn {
				if s := a.status[d]; s == StatusFailed || s == StatusSkipped {
					blocked = &d
					break
				}
			}
			mu.Unlock()
			if blocked != nil {
				record(Result{Change: ch, Status: StatusSkipped, Reason: blocked.String() + " was not created"})
				continue
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				record(Result{Change: ch, Status: StatusSkipped, Reason: "interrupted"})
				continue
			}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				note, err := a.apply(ctx, &ch)
				switch {
				case err != nil:
					record(Result{Change: ch, Status: StatusFailed, Reason: err.Error(), Err: err})
				default:
					record(Result{Change: ch, Status: StatusDone, Reason: note})
				}
			}()
		}
		wg.Wait()
		start = end
	}
	// Results in plan order, whatever order they finished in.
	pos := make(map[Ref]int, len(changes))
	for i, ch := range changes {
		pos[ch.Ref()] = i
	}
	slices.SortFunc(rep.Results, func(x, y Result) int { return pos[x.Change.Ref()] - pos[y.Change.Ref()] })
	for _, r := range rep.Results {
		switch r.Status {
		case StatusDone:
			rep.Done++
		case StatusSkipped:
			rep.Skipped++
		case StatusFailed:
			rep.Failed++
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if rep.Failed > 0 || rep.Skipped > 0 {
		return rep, fmt.Errorf("site: %d of %d changes failed and %d were skipped", rep.Failed, len(changes), rep.Skipped)
	}
	return rep, nil
}

// own returns p itself when Apply may use its reading of the console
// (see ApplyOptions.FreshFor), with the guard's refusal if it has one;
// nil when the console must be read again. po are the plan's options
// with Apply's LookupEnv: headers that resolve differently now need a
// new plan.
func (p *Plan) own(po *PlanOptions, freshFor time.Duration) (*Plan, error) {
	if freshFor <= 0 || p.st == nil || p.read == nil || time.Since(p.read.at) > freshFor {
		return nil, nil
	}
	chk := &checker{loc: po.Locator}
	headers := resolveHeaders(p.Document, po.LookupEnv, chk)
	if chk.err() != nil || !maps.EqualFunc(headers, p.headers, maps.Equal) {
		return nil, nil
	}
	if err := p.guard(); err != nil {
		return nil, err
	}
	if !p.read.used.CompareAndSwap(false, true) {
		return nil, nil
	}
	return p, nil
}

// staleRefs compares a saved plan's changes with a fresh plan's.
func staleRefs(saved, fresh []Change) []Ref {
	idx := make(map[Ref]*Change, len(fresh))
	for i := range fresh {
		idx[fresh[i].Ref()] = &fresh[i]
	}
	var out []Ref
	seen := map[Ref]bool{}
	for i := range saved {
		s := &saved[i]
		seen[s.Ref()] = true
		f := idx[s.Ref()]
		if f == nil || f.Op != s.Op || f.Before != s.Before || !slices.Equal(f.Fields, s.Fields) {
			out = append(out, s.Ref())
		}
	}
	for i := range fresh {
		if !seen[fresh[i].Ref()] {
			out = append(out, fresh[i].Ref())
		}
	}
	return out
}

// ids maps names (and user keys) to console ids, growing as creates
// succeed.
type ids struct {
	mu     sync.Mutex
	byKind map[Kind]map[string]string
}

func newIDs(st *state) *ids {
	x := &ids{byKind: map[Kind]map[string]string{}}
	put := func(k Kind, n, id string) {
		if x.byKind[k] == nil {
			x.byKind[k] = map[string]string{}
		}
		x.byKind[k][n] = id
	}
	for n, e := range st.holidayGroups {
		put(KindHolidayGroups, n, e.id)
	}
	for n, e := range st.schedules {
		put(KindSchedules, n, e.id)
	}
	for n, e := range st.doorGroups {
		put(KindDoorGroups, n, e.id)
	}
	for n, e := range st.accessPolicies {
		put(KindAccessPolicies, n, e.id)
	}
	for n, e := range st.userGroups {
		put(KindUserGroups, n, e.id)
	}
	for n, e := range st.users {
		put(KindUsers, n, e.id)
	}
	for k, k2 := range st.alias {
		put(KindUsers, k, st.users[k2].id)
	}
	for n, e := range st.webhooks {
		put(KindWebhooks, n, e.id)
	}
	return x
}

func (x *ids) get(k Kind, n string) (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	id, ok := x.byKind[k][n]
	if !ok {
		return "", fmt.Errorf("no %s named %q", k.singular(), n)
	}
	return id, nil
}

func (x *ids) set(k Kind, n, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.byKind[k] == nil {
		x.byKind[k] = map[string]string{}
	}
	x.byKind[k][n] = id
}

func (x *ids) all(k Kind, names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		id, err := x.get(k, n)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

type applier struct {
	c      *access.Client
	p      *Plan
	ids    *ids
	status map[Ref]Status
	users  map[string]int // document user key -> index in Document.Users
}

func newApplier(c *access.Client, p *Plan) *applier {
	a := &applier{c: c, p: p, ids: newIDs(p.st), status: map[Ref]Status{}}
	if p.Document.Users != nil {
		a.users = make(map[string]int, len(p.Document.Users))
		for i := range p.Document.Users {
			a.users[p.Document.Users[i].Key()] = i
		}
	}
	return a
}

// definite reports whether err means the request certainly did not take
// effect: refused before sending, or answered with a client error.
func definite(err error) bool {
	var ve *access.ValidationError
	if errors.As(err, &ve) {
		return true
	}
	var ae *access.APIError
	return errors.As(err, &ae) && ae.StatusCode < 500 && ae.StatusCode != 408 && ae.Err == nil
}

// settle handles a create's error: a definite refusal fails; an answer
// that may have been lost is settled by looking the object up (find
// returns its id, or "" when it is not there).
func settle(ctx context.Context, err error, find func(context.Context) (string, error)) (id, note string, _ error) {
	if definite(err) {
		return "", "", err
	}
	found, ferr := find(ctx)
	switch {
	case ferr != nil:
		return "", "", fmt.Errorf("%w (and looking for it failed: %v; not sent again)", err, ferr)
	case found == "":
		return "", "", fmt.Errorf("%w (not found afterwards; not sent again)", err)
	}
	return found, "created; its answer was lost and it was found by name", nil
}

func (a *applier) desired(k Kind, key string) any {
	d := a.p.Document
	switch k {
	case KindHolidayGroups:
		return &d.HolidayGroups[slices.IndexFunc(d.HolidayGroups, func(g HolidayGroup) bool { return g.Name == key })]
	case KindSchedules:
		return &d.Schedules[slices.IndexFunc(d.Schedules, func(s Schedule) bool { return s.Name == key })]
	case KindDoorGroups:
		return &d.DoorGroups[slices.IndexFunc(d.DoorGroups, func(g DoorGroup) bool { return g.Name == key })]
	case KindAccessPolicies:
		return &d.AccessPolicies[slices.IndexFunc(d.AccessPolicies, func(p AccessPolicy) bool { return p.Name == key })]
	case KindUserGroups:
		return &d.UserGroups[slices.IndexFunc(d.UserGroups, func(g UserGroup) bool { return g.Name == key })]
	case KindUsers:
		return &d.Users[a.users[key]] // the key of a change of the document's users
	case KindWebhooks:
		return &d.Webhooks[slices.IndexFunc(d.Webhooks, func(w Webhook) bool { return w.Name == key })]
	}
	return nil
}

func changed(ch *Change, field string) bool {
	return slices.ContainsFunc(ch.Fields, func(f FieldChange) bool { return f.Field == field })
}

func (a *applier) apply(ctx context.Context, ch *Change) (string, error) {
	if ch.Op == OpDelete || ch.Op == OpDeactivate {
		return "", a.remove(ctx, ch)
	}
	switch w := a.desired(ch.Kind, ch.Key).(type) {
	case *HolidayGroup:
		return a.holidayGroup(ctx, ch, w)
	case *Schedule:
		return a.schedule(ctx, ch, w)
	case *DoorGroup:
		return a.doorGroup(ctx, ch, w)
	case *AccessPolicy:
		return a.policy(ctx, ch, w)
	case *UserGroup:
		return a.userGroup(ctx, ch, w)
	case *User:
		return a.user(ctx, ch, w)
	case *Webhook:
		return a.webhook(ctx, ch, w)
	}
	return "", fmt.Errorf("site: no way to apply %s", ch.Ref())
}

// findByName adapts a list call to [created]'s lookup.
func findByName[T any](name string, list func(context.Context) ([]T, *access.Response, error), get func(*T) (string, string)) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		items, _, err := list(ctx)
		if err != nil {
			return "", err
		}
		for i := range items {
			if n, id := get(&items[i]); n == name {
				return id, nil
			}
		}
		return "", nil
	}
}

func (a *applier) holidayGroup(ctx context.Context, ch *Change, g *HolidayGroup) (string, error) {
	hs := make([]access.HolidayRequest, len(g.Holidays))
	for i, h := range g.Holidays {
		hs[i] = access.HolidayRequest{Name: h.Name, Description: h.Description, Repeat: h.Repeat, StartTime: h.Start, EndTime: h.End}
	}
	if ch.Op == OpUpdate {
		id, err := a.ids.get(ch.Kind, ch.Key)
		if err != nil {
			return "", err
		}
		_, _, err = a.c.HolidayGroups.Update(ctx, id, &access.HolidayGroupUpdate{Name: g.Name, Description: &g.Description, Holidays: hs})
		return "", err
	}
	got, _, err := a.c.HolidayGroups.Create(ctx, &access.HolidayGroupRequest{Name: g.Name, Description: g.Description, Holidays: hs})
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, got.ID)
		return "", nil
	}
	id, note, err := settle(ctx, err, findByName(g.Name, a.c.HolidayGroups.List, func(s *access.HolidayGroupSummary) (string, string) { return s.Name, s.ID }))
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, id)
	}
	return note, err
}

func timeRanges(rs []Range) []access.TimeRange {
	out := make([]access.TimeRange, len(rs))
	for i, r := range rs {
		out[i] = access.TimeRange{StartTime: r.Start, EndTime: r.End}
	}
	return out
}

func (a *applier) schedule(ctx context.Context, ch *Change, s *Schedule) (string, error) {
	w := s.Week
	week := &access.WeekSchedule{Monday: timeRanges(w.Monday), Tuesday: timeRanges(w.Tuesday), Wednesday: timeRanges(w.Wednesday),
		Thursday: timeRanges(w.Thursday), Friday: timeRanges(w.Friday), Saturday: timeRanges(w.Saturday), Sunday: timeRanges(w.Sunday)}
	hg := ""
	if s.HolidayGroup != "" {
		var err error
		if hg, err = a.ids.get(KindHolidayGroups, s.HolidayGroup); err != nil {
			return "", err
		}
	}
	if ch.Op == OpUpdate {
		id, err := a.ids.get(ch.Kind, ch.Key)
		if err != nil {
			return "", err
		}
		_, err = a.c.Schedules.Update(ctx, id, &access.ScheduleUpdate{Name: &s.Name, WeekSchedule: week, HolidayGroupID: &hg, HolidaySchedule: timeRanges(s.Holidays)})
		return "", err
	}
	req := &access.ScheduleRequest{Name: s.Name, WeekSchedule: week, HolidayGroupID: hg}
	if len(s.Holidays) > 0 {
		req.HolidaySchedule = timeRanges(s.Holidays)
	}
	got, _, err := a.c.Schedules.Create(ctx, req)
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, got.ID)
		return "", nil
	}
	id, note, err := settle(ctx, err, findByName(s.Name, a.c.Schedules.List, func(x *access.Schedule) (string, string) { return x.Name, x.ID }))
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, id)
	}
	return note, err
}

func (a *applier) doorIDs(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, n := range names {
		ids := a.p.st.doors[n]
		if len(ids) != 1 {
			return nil, fmt.Errorf("door %q: %d doors have that name", n, len(ids))
		}
		out = append(out, ids[0])
	}
	return out, nil
}

func (a *applier) doorGroup(ctx context.Context, ch *Change, g *DoorGroup) (string, error) {
	doors, err := a.doorIDs(g.Doors)
	if err != nil {
		return "", err
	}
	if ch.Op == OpUpdate {
		id, err := a.ids.get(ch.Kind, ch.Key)
		if err != nil {
			return "", err
		}
		_, _, err = a.c.DoorGroups.Update(ctx, id, &access.DoorGroupUpdate{GroupName: &g.Name, Resources: doors})
		return "", err
	}
	got, _, err := a.c.DoorGroups.Create(ctx, &access.DoorGroupRequest{GroupName: g.Name, Resources: doors})
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, got.ID)
		return "", nil
	}
	id, note, err := settle(ctx, err, findByName(g.Name, a.c.DoorGroups.List, func(x *access.DoorGroup) (string, string) { return x.Name, x.ID }))
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, id)
	}
	return note, err
}

func (a *applier) policy(ctx context.Context, ch *Change, p *AccessPolicy) (string, error) {
	sched, err := a.ids.get(KindSchedules, p.Schedule)
	if err != nil {
		return "", err
	}
	res := make([]access.Resource, 0, len(p.Resources))
	for _, r := range p.Resources {
		if r.Door != "" {
			ids, err := a.doorIDs([]string{r.Door})
			if err != nil {
				return "", err
			}
			res = append(res, access.Resource{ID: ids[0], Type: access.ResourceDoor})
			continue
		}
		id, err := a.ids.get(KindDoorGroups, r.DoorGroup)
		if err != nil {
			return "", err
		}
		res = append(res, access.Resource{ID: id, Type: access.ResourceDoorGroup})
	}
	if ch.Op == OpUpdate {
		id, err := a.ids.get(ch.Kind, ch.Key)
		if err != nil {
			return "", err
		}
		_, err = a.c.AccessPolicies.Update(ctx, id, &access.AccessPolicyUpdate{Name: &p.Name, Resources: res, ScheduleID: &sched})
		return "", err
	}
	got, _, err := a.c.AccessPolicies.Create(ctx, &access.AccessPolicyRequest{Name: p.Name, Resources: res, ScheduleID: sched})
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, got.ID)
		return "", nil
	}
	id, note, err := settle(ctx, err, findByName(p.Name, a.c.AccessPolicies.List, func(x *access.AccessPolicy) (string, string) { return x.Name, x.ID }))
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, id)
	}
	return note, err
}

func (a *applier) userGroup(ctx context.Context, ch *Change, g *UserGroup) (string, error) {
	up := ""
	if g.Parent != "" {
		var err error
		if up, err = a.ids.get(KindUserGroups, g.Parent); err != nil {
			return "", err
		}
	}
	var id, note string
	if ch.Op == OpCreate {
		_, err := a.c.UserGroups.Create(ctx, &access.UserGroupRequest{Name: g.Name, UpID: up})
		if err != nil && definite(err) {
			return "", err
		}
		found, _, ferr := a.c.UserGroups.Find(ctx, g.Name, up)
		switch {
		case err != nil && ferr != nil:
			return "", fmt.Errorf("%w (not found afterwards; not sent again)", err)
		case ferr != nil:
			return "", fmt.Errorf("created, but looking it up failed: %w", ferr)
		case err != nil:
			note = "created; its answer was lost and it was found by name"
		}
		id = found.ID
		a.ids.set(ch.Kind, ch.Key, id)
		if len(g.Policies) == 0 {
			return note, nil
		}
	} else {
		var err error
		if id, err = a.ids.get(ch.Kind, ch.Key); err != nil {
			return "", err
		}
		if changed(ch, "parent") {
			if _, err := a.c.UserGroups.Update(ctx, id, &access.UserGroupUpdate{Name: g.Name, UpID: &up}); err != nil {
				return "", err
			}
		}
		if !changed(ch, "policies") {
			return "", nil
		}
	}
	pols, err := a.ids.all(KindAccessPolicies, g.Policies)
	if err != nil {
		return note, err
	}
	if _, err := a.c.UserGroups.SetAccessPolicies(ctx, id, pols); err != nil {
		return note, fmt.Errorf("setting its policies: %w", err)
	}
	return note, nil
}

// findUser looks a user up by key through the search.
func (a *applier) findUser(u *User) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		for x, err := range a.c.Users.SearchAll(ctx, &access.UserSearchOptions{Keyword: u.Key()}) {
			if err != nil {
				return "", err
			}
			email := x.UserEmail
			if email == "" {
				email = x.Email
			}
			cand := User{EmployeeNumber: x.EmployeeNumber, Email: email}
			if cand.Key() == u.Key() {
				return x.ID, nil
			}
		}
		return "", nil
	}
}

func (a *applier) user(ctx context.Context, ch *Change, u *User) (string, error) {
	var id, note string
	var have *userEntry
	if ch.Op == OpCreate {
		req := &access.UserRequest{FirstName: u.FirstName, LastName: u.LastName, UserEmail: u.Email, EmployeeNumber: u.EmployeeNumber}
		if u.OnboardTime != nil {
			req.OnboardTime = *u.OnboardTime
		}
		got, _, err := a.c.Users.Create(ctx, req)
		if err != nil {
			if id, note, err = settle(ctx, err, a.findUser(u)); err != nil {
				return "", err
			}
		} else {
			id = got.ID
		}
		a.ids.set(KindUsers, ch.Key, id)
		have = &userEntry{obj: User{Status: string(access.UserStatusActive)}}
		// A user found after a lost answer may already hold some of what
		// follows; the next plan sets the rest right.
	} else {
		var err error
		if id, err = a.ids.get(KindUsers, ch.Key); err != nil {
			return "", err
		}
		have = a.p.st.user(ch.Key)
		upd := access.UserUpdate{}
		str := func(field string, v string) *string {
			if changed(ch, field) {
				return &v
			}
			return nil
		}
		upd.FirstName, upd.LastName = str("first_name", u.FirstName), str("last_name", u.LastName)
		upd.UserEmail, upd.EmployeeNumber = str("email", u.Email), str("employee_number", u.EmployeeNumber)
		if changed(ch, "onboard_time") && u.OnboardTime != nil {
			upd.OnboardTime = u.OnboardTime
		}
		if upd != (access.UserUpdate{}) {
			if _, err := a.c.Users.Update(ctx, id, &upd); err != nil {
				return "", err
			}
		}
	}
	steps := []string{}
	fail := func(what string, err error) (string, error) {
		done := ""
		if len(steps) > 0 {
			done = " (done: " + strings.Join(steps, ", ") + ")"
		}
		return note, fmt.Errorf("%s: %w%s", what, err, done)
	}
	if u.Status != "" && u.Status != have.obj.Status && u.Status != string(access.UserStatusPending) {
		st := access.UserStatus(u.Status)
		if _, err := a.c.Users.Update(ctx, id, &access.UserUpdate{Status: &st}); err != nil {
			return fail("setting its status", err)
		}
		steps = append(steps, "status")
	}
	if u.Policies != nil && (ch.Op == OpCreate && len(u.Policies) > 0 || changed(ch, "policies")) {
		pols, err := a.ids.all(KindAccessPolicies, u.Policies)
		if err != nil {
			return fail("its policies", err)
		}
		if _, err := a.c.Users.SetAccessPolicies(ctx, id, pols); err != nil {
			return fail("setting its policies", err)
		}
		steps = append(steps, "policies")
	}
	if u.Groups != nil {
		add, remove := setDiff(have.obj.Groups, u.Groups)
		for _, g := range add {
			gid, err := a.ids.get(KindUserGroups, g)
			if err != nil {
				return fail("its groups", err)
			}
			if _, err := a.c.UserGroups.AddUsers(ctx, gid, []string{id}); err != nil {
				return fail("adding it to "+g, err)
			}
			steps = append(steps, "+"+g)
		}
		for _, g := range remove {
			gid, err := a.ids.get(KindUserGroups, g)
			if err != nil {
				return fail("its groups", err)
			}
			if _, err := a.c.UserGroups.RemoveUsers(ctx, gid, []string{id}); err != nil {
				return fail("removing it from "+g, err)
			}
			steps = append(steps, "-"+g)
		}
	}
	if u.LicensePlates != nil {
		add, remove := setDiff(have.obj.LicensePlates, u.LicensePlates)
		if len(add) > 0 {
			if _, err := a.c.Users.AssignLicensePlates(ctx, id, add); err != nil {
				return fail("assigning licence plates", err)
			}
			steps = append(steps, "plates")
		}
		for _, n := range remove {
			if _, err := a.c.Users.UnassignLicensePlate(ctx, id, have.plates[n]); err != nil {
				return fail("removing licence plate "+n, err)
			}
		}
	}
	return note, nil
}

// setDiff returns what want adds to have and what it takes away.
func setDiff(have, want []string) (add, remove []string) {
	for _, w := range sortedCopy(want) {
		if !slices.Contains(have, w) && !slices.Contains(add, w) {
			add = append(add, w)
		}
	}
	for _, h := range sortedCopy(have) {
		if !slices.Contains(want, h) {
			remove = append(remove, h)
		}
	}
	return add, remove
}

func (a *applier) webhook(ctx context.Context, ch *Change, w *Webhook) (string, error) {
	events := make([]access.EventType, len(w.Events))
	for i, e := range w.Events {
		events[i] = access.EventType(e)
	}
	headers := a.p.headers[w.Name]
	if ch.Op == OpUpdate {
		id, err := a.ids.get(ch.Kind, ch.Key)
		if err != nil {
			return "", err
		}
		if w.Headers == nil {
			headers = a.p.st.webhooks[w.Name].obj.Headers
		}
		_, _, err = a.c.Webhooks.Update(ctx, id, &access.WebhookEndpointUpdate{Endpoint: w.Endpoint, Name: w.Name, Events: events, Headers: headers})
		return "", err
	}
	got, _, err := a.c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: w.Endpoint, Name: w.Name, Events: events, Headers: headers})
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, got.ID)
		return "", nil
	}
	id, note, err := settle(ctx, err, findByName(w.Name, a.c.Webhooks.List, func(x *access.WebhookEndpoint) (string, string) { return x.Name, x.ID }))
	if err == nil {
		a.ids.set(ch.Kind, ch.Key, id)
	}
	return note, err
}

func (a *applier) remove(ctx context.Context, ch *Change) error {
	id, err := a.ids.get(ch.Kind, ch.Key)
	if err != nil {
		return err
	}
	switch ch.Kind {
	case KindUsers:
		if a.p.st.users[ch.Key].obj.Status != string(access.UserStatusDeactivated) {
			if _, err := a.c.Users.Update(ctx, id, &access.UserUpdate{Status: access.Ptr(access.UserStatusDeactivated)}); err != nil {
				return err
			}
		}
		if ch.Op == OpDelete {
			_, err = a.c.Users.Delete(ctx, id)
		}
	case KindUserGroups:
		members, _, err := a.c.UserGroups.ListUsers(ctx, id)
		if err != nil {
			return err
		}
		if len(members) > 0 {
			ids := make([]string, len(members))
			for i, m := range members {
				ids[i] = m.ID
			}
			if _, err := a.c.UserGroups.RemoveUsers(ctx, id, ids); err != nil {
				return fmt.Errorf("removing its members: %w", err)
			}
		}
		_, err = a.c.UserGroups.Delete(ctx, id)
		return err
	case KindAccessPolicies:
		_, err = a.c.AccessPolicies.Delete(ctx, id)
	case KindDoorGroups:
		_, err = a.c.DoorGroups.Delete(ctx, id)
	case KindSchedules:
		_, err = a.c.Schedules.Delete(ctx, id)
	case KindHolidayGroups:
		_, err = a.c.HolidayGroups.Delete(ctx, id)
	case KindWebhooks:
		_, err = a.c.Webhooks.Delete(ctx, id)
	}
	return err
}
