package dirsync

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/site"
)

// ErrUnusableSnapshot is matched by the error of [MakePlan] and
// [Reconcile] when the snapshot cannot be used to decide who left
// ([*SnapshotError]); nothing was read from the console nor written.
var ErrUnusableSnapshot = errors.New("dirsync: snapshot cannot be used")

// SnapshotError refuses a snapshot that is missing, incomplete or empty:
// such a read is never taken for "everyone left". It matches
// [ErrUnusableSnapshot] and the cause ([ErrIncomplete] or [ErrEmpty]).
type SnapshotError struct {
	// Source is the snapshot's source, empty for a nil snapshot.
	Source string
	// Cause is ErrIncomplete (no snapshot, or Complete false) or
	// ErrEmpty (a complete snapshot without people).
	Cause error
}

// Error says which source and why.
func (e *SnapshotError) Error() string {
	src := e.Source
	if src == "" {
		src = "(no snapshot)"
	}
	return fmt.Sprintf("dirsync: snapshot of %s cannot be used (%v): nobody is deactivated on a read that may be cut short", src, e.Cause)
}

// Is makes a SnapshotError match [ErrUnusableSnapshot].
func (e *SnapshotError) Is(target error) bool { return target == ErrUnusableSnapshot }

// Unwrap returns the cause.
func (e *SnapshotError) Unwrap() error { return e.Cause }

// ReconcileOptions tune [MakePlan]. The zero value revokes: a leaver is
// deactivated and their credentials are unassigned; nobody is deleted.
type ReconcileOptions struct {
	// Groups maps a directory group (a name of [Person].Groups) to a
	// console user group, which must exist. When it is not empty, each
	// person's console groups are exactly the mapped groups of their
	// directory groups (and the scope's group): memberships of other
	// groups are removed. When it is empty, memberships are not managed.
	Groups map[string]string
	// Scope limits the console users the directory manages (package
	// site's scope): a console user outside it that the directory does not
	// list is never touched, only counted. With Scope.UserGroup and
	// Groups, the people the directory lists are put in that group.
	Scope *site.Scope
	// MaxDeactivate and MaxDeactivateShare are site's guard on mass
	// deactivation ([site.PlanOptions]): 0 means site's defaults (10
	// users, 20 %), a negative value no limit. A plan over them fails
	// with a [*site.GuardError]. Users the console holds as deactivated
	// already whose credentials the plan would unassign count as leavers
	// too (a [*CredentialGuardError], which wraps the guard error): a
	// first run does not take the cards of every old leaver unguarded.
	MaxDeactivate      int
	MaxDeactivateShare float64
	// KeepCredentials leaves a leaver's credentials assigned. By default
	// (false) every credential of a deactivated leaver — NFC cards, PIN,
	// touch passes, licence plates — is unassigned once they are
	// deactivated, and listed in the evidence to be re-issued.
	KeepCredentials bool
	// SuspendTouchPasses suspends a leaver's touch passes (status
	// SUSPENDED, still theirs: a pass is bought, and a suspended one can
	// be reactivated in their wallet) instead of unassigning them.
	SuspendTouchPasses bool
	// DeleteUsers deletes leavers from the console (after deactivating
	// them) instead of keeping them deactivated. Off by default.
	DeleteUsers bool
}

// Plan is what [Plan.Apply] would do: site's plan of the console users
// (and their memberships) the snapshot describes, and the credentials to
// take back.
type Plan struct {
	// Site is package site's plan: creates, updates (a re-enabled
	// person's status among them), deactivations of leavers (or
	// deletions), with site's guard and scope.
	Site *site.Plan `json:"site"`
	// Revoke lists the leavers whose credentials are to be unassigned:
	// those the plan deactivates and those already deactivated who still
	// hold some (a run cut short before it took them). Empty with
	// KeepCredentials or DeleteUsers.
	Revoke []Revocation `json:"revoke"`
	// Source, Observed and the people's change times come from the
	// snapshot; Observed is when its read finished.
	Source   string    `json:"source"`
	Observed time.Time `json:"observed"`
	// OutOfScope counts the console users outside the scope, left alone.
	OutOfScope int `json:"out_of_scope"`

	people map[string]*Person
	held   map[string][]Credential // leaver key -> credentials as read
	ids    map[string]string       // leaver key -> console user id
	// found are the leavers of the snapshot the console holds as
	// deactivated already: Apply records those the evidence log does not
	// show revoked (a deactivation whose answer was lost).
	found []foundLeaver
	// guardErr is the credential guard's refusal, which Apply repeats.
	guardErr error
	opts     ReconcileOptions
}

// foundLeaver is a leaver of the snapshot found DEACTIVATED on the console.
type foundLeaver struct {
	key, name, userID string
	modified          time.Time
}

// Revocation is one leaver's credentials to unassign.
type Revocation struct {
	Key  string `json:"key"`
	Name string `json:"name"`
	// UserID is the console user's id.
	UserID      string       `json:"user_id"`
	Credentials []Credential `json:"credentials"`

	user access.User
}

// Credential names a credential taken from (or to re-issue to) a user.
// A PIN is never written: its entry says only that there was one.
type Credential struct {
	// Type is "nfc_card", "pin_code", "touch_pass" or "license_plate".
	Type string `json:"type"`
	// ID is the card number of an NFC card, the card id of a touch pass,
	// the plate of a licence plate; empty for a PIN.
	ID string `json:"id,omitempty"`
	// Token is an NFC card's token or a touch pass's id: what the API
	// assigns again.
	Token string `json:"token,omitempty"`
	// Suspended is true for a touch pass suspended rather than unassigned
	// ([ReconcileOptions].SuspendTouchPasses).
	Suspended bool `json:"suspended,omitempty"`
}

// The credential types of [Credential].Type.
const (
	CredentialNFCCard      = "nfc_card"
	CredentialPINCode      = "pin_code"
	CredentialTouchPass    = "touch_pass"
	CredentialLicensePlate = "license_plate"
)

// credentials lists what u holds, in a fixed order; with suspend, a
// touch pass is to be suspended, and one suspended already is not listed.
func credentials(u *access.User, suspend bool) []Credential {
	var out []Credential
	for _, c := range u.NFCCards {
		id := c.ID
		if id == "" {
			id = c.DisplayID
		}
		out = append(out, Credential{Type: CredentialNFCCard, ID: id, Token: c.Token})
	}
	if u.PINCode != nil {
		out = append(out, Credential{Type: CredentialPINCode})
	}
	for _, tp := range u.TouchPass {
		if tp.ID == "" || suspend && tp.Status == access.TouchPassSuspended {
			continue
		}
		out = append(out, Credential{Type: CredentialTouchPass, ID: tp.CardID, Token: tp.ID, Suspended: suspend})
	}
	for _, p := range u.LicensePlates {
		out = append(out, Credential{Type: CredentialLicensePlate, ID: p.Credential, Token: p.ID})
	}
	return out
}

// Document returns the site document of a snapshot: one user per active
// person (key, names, email, status ACTIVE, groups through the mapping),
// and no user for an inactive one, so that site prunes them as leavers.
// It checks the snapshot as [MakePlan] does.
func Document(snap *Snapshot, opts *ReconcileOptions) (*site.Document, error) {
	if err := usable(snap); err != nil {
		return nil, err
	}
	var o ReconcileOptions
	if opts != nil {
		o = *opts
	}
	users := make([]site.User, 0, len(snap.People))
	for i := range snap.People {
		p := &snap.People[i]
		if !p.Active {
			continue
		}
		u := site.User{EmployeeNumber: p.Key, Email: p.Email, FirstName: p.FirstName, LastName: p.LastName, Status: string(access.UserStatusActive)}
		if len(o.Groups) > 0 {
			u.Groups = []string{}
			for _, g := range p.Groups {
				if cg, ok := o.Groups[g]; ok && !slices.Contains(u.Groups, cg) {
					u.Groups = append(u.Groups, cg)
				}
			}
			if o.Scope != nil && o.Scope.UserGroup != "" && !slices.Contains(u.Groups, o.Scope.UserGroup) {
				u.Groups = append(u.Groups, o.Scope.UserGroup)
			}
			slices.Sort(u.Groups)
		}
		users = append(users, u)
	}
	return &site.Document{Users: users}, nil
}

// joinScope puts the people a plan creates in the scope's user group
// when the options scope by a group but map none: without a mapping the
// document manages no memberships (a user's groups are left as they
// are), so a person created without the group would be outside the scope
// from the next run on, and never revoked. It reports whether it changed
// the document.
func joinScope(doc *site.Document, sp *site.Plan, o *ReconcileOptions) bool {
	if len(o.Groups) > 0 || o.Scope == nil || o.Scope.UserGroup == "" {
		return false
	}
	created := map[string]bool{}
	for _, ch := range sp.Changes {
		if ch.Kind == site.KindUsers && ch.Op == site.OpCreate {
			created[ch.Key] = true
		}
	}
	changed := false
	for i := range doc.Users {
		if u := &doc.Users[i]; created[u.EmployeeNumber] && u.Groups == nil {
			u.Groups = []string{o.Scope.UserGroup}
			changed = true
		}
	}
	return changed
}

func usable(snap *Snapshot) error {
	switch {
	case snap == nil:
		return &SnapshotError{Cause: ErrIncomplete}
	case !snap.Complete:
		return &SnapshotError{Source: snap.Source, Cause: ErrIncomplete}
	case len(snap.People) == 0:
		return &SnapshotError{Source: snap.Source, Cause: ErrEmpty}
	}
	return nil
}

// MakePlan reads the console and returns what it takes to make its users
// equal to the snapshot's people: site's plan with pruning of users on
// (a person the directory disables or no longer lists is deactivated;
// only the users the document lists are pruned, never other kinds), and
// the credentials of leavers to unassign. Scoped by a user group with no
// group mapping, the people it creates join that group (and no other
// membership is managed), so that they stay in the scope and are revoked
// when they leave. A nil, incomplete or empty
// snapshot is refused with a [*SnapshotError] before any request. A plan
// over site's guard is returned with its [*site.GuardError]; Apply
// refuses it. Nothing is written.
func MakePlan(ctx context.Context, c *access.Client, snap *Snapshot, opts *ReconcileOptions) (*Plan, error) {
	var o ReconcileOptions
	if opts != nil {
		o = *opts
	}
	doc, err := Document(snap, &o)
	if err != nil {
		return nil, err
	}
	popts := &site.PlanOptions{
		Prune:              true,
		PruneDeleteUsers:   o.DeleteUsers,
		MaxDeactivate:      o.MaxDeactivate,
		MaxDeactivateShare: o.MaxDeactivateShare,
		Scope:              o.Scope,
	}
	sp, err := site.MakePlan(ctx, c, doc, popts)
	if sp == nil {
		return nil, err
	}
	if joinScope(doc, sp, &o) {
		// The people to create join the scope's group, which the plan
		// made without them; read and plan again with it.
		if sp, err = site.MakePlan(ctx, c, doc, popts); sp == nil {
			return nil, err
		}
	}
	p := &Plan{Site: sp, Source: snap.Source, Observed: snap.Finished, OutOfScope: sp.Summary.OutOfScope,
		people: make(map[string]*Person, len(snap.People)), held: map[string][]Credential{}, ids: map[string]string{}, opts: o, Revoke: []Revocation{}}
	for i := range snap.People {
		p.people[snap.People[i].Key] = &snap.People[i]
	}
	changed := map[string]bool{}
	for _, ch := range sp.Changes {
		if ch.Kind == site.KindUsers {
			changed[ch.Key] = true
		}
	}
	for _, u := range sp.Leavers() {
		p.ids[leaverKey(&u)] = u.ID
		if pe := p.people[leaverKey(&u)]; pe != nil && !pe.Active && u.Status == access.UserStatusDeactivated && !changed[leaverKey(&u)] {
			p.found = append(p.found, foundLeaver{key: pe.Key, name: (&site.User{FirstName: u.FirstName, LastName: u.LastName}).FullName(), userID: u.ID, modified: pe.Modified})
		}
		creds := credentials(&u, o.SuspendTouchPasses && !o.DeleteUsers)
		if len(creds) == 0 {
			continue
		}
		p.held[leaverKey(&u)] = creds
		if !o.KeepCredentials && !o.DeleteUsers {
			name := (&site.User{FirstName: u.FirstName, LastName: u.LastName}).FullName()
			p.Revoke = append(p.Revoke, Revocation{Key: leaverKey(&u), Name: name, UserID: u.ID, Credentials: creds, user: u})
		}
	}
	var ge *site.GuardError
	if err == nil || errors.As(err, &ge) {
		if g := p.credentialGuard(sp); g != nil {
			err, p.guardErr = g, g
		}
	}
	return p, err
}

// CredentialGuardError refuses a plan that would take access from more
// users than the guard allows, counting with the users it deactivates
// those deactivated already (by hand, before the sync) whose credentials
// it would unassign: a first run against a console that keeps its old
// leavers' cards would otherwise unassign them all unguarded. It wraps
// the [*site.GuardError] whose Deactivate and Of count both kinds, so
// that errors.As finds it and errors.Is matches [site.ErrGuard].
type CredentialGuardError struct {
	*site.GuardError
	// AlreadyDeactivated counts the users deactivated already whose
	// credentials the plan would unassign.
	AlreadyDeactivated int
}

// Error names the two counts and the limits exceeded.
func (e *CredentialGuardError) Error() string {
	var over []string
	if e.OverCount {
		over = append(over, fmt.Sprintf("MaxDeactivate %d", e.MaxCount))
	}
	if e.OverShare {
		over = append(over, fmt.Sprintf("MaxDeactivateShare %g%%", e.MaxShare))
	}
	return fmt.Sprintf("dirsync: refused by a safety guard: the plan would take access from %d of %d users (%s): %d to deactivate "+
		"and %d already deactivated who still hold credentials, more than %s allows; nothing was written "+
		"(raise the guard, or set KeepCredentials)",
		e.Deactivate, e.Of, e.Percent(), e.Deactivate-e.AlreadyDeactivated, e.AlreadyDeactivated, strings.Join(over, " and "))
}

// Unwrap returns the guard error.
func (e *CredentialGuardError) Unwrap() error { return e.GuardError }

// credentialGuard is site's guard with the users deactivated already
// whose credentials the plan unassigns counted as leavers: nil when there
// are none, or when the plan stays under the limits.
func (p *Plan) credentialGuard(sp *site.Plan) *CredentialGuardError {
	extra := 0
	for i := range p.Revoke {
		if p.Revoke[i].user.Status == access.UserStatusDeactivated {
			extra++
		}
	}
	if extra == 0 {
		return nil
	}
	n := extra
	for _, u := range sp.Leavers() {
		if u.Status != access.UserStatusDeactivated {
			n++
		}
	}
	maxCount, maxShare := p.opts.MaxDeactivate, p.opts.MaxDeactivateShare
	if maxCount == 0 {
		maxCount = site.DefaultMaxDeactivate
	}
	if maxShare == 0 {
		maxShare = site.DefaultMaxDeactivateShare
	}
	g := &site.GuardError{Deactivate: n, Of: sp.Managed() + extra, MaxCount: maxCount, MaxShare: maxShare}
	g.OverCount = maxCount > 0 && n > maxCount
	g.OverShare = maxShare > 0 && maxShare < 100 && float64(n) > math.Ceil(maxShare*float64(g.Of)/100)
	if !g.OverCount && !g.OverShare {
		return nil
	}
	return &CredentialGuardError{GuardError: g, AlreadyDeactivated: extra}
}

// leaverKey is a console user's key as site knows it.
func leaverKey(u *access.User) string {
	email := u.UserEmail
	if email == "" {
		email = u.Email
	}
	return (&site.User{EmployeeNumber: u.EmployeeNumber, Email: email}).Key()
}

// Drift reports whether the console differs from the directory: a change
// to make or a credential to take back.
func (p *Plan) Drift() bool { return len(p.Site.Changes) > 0 || len(p.Revoke) > 0 }

// Unrecorded counts the leavers of the snapshot that the console holds as
// deactivated already and whose deactivation evidence log l does not
// record: the console took the sync's write but its answer was lost (the
// process killed in between), so no record was written. [Plan.Apply]
// writes each one's deactivate record, marked FoundDone; a plan with
// Unrecorded leavers is worth applying even without Drift. A change the
// source dates before the log began (a person deactivated before the sync
// kept this log) is not counted: it was not the sync's. 0 for a nil log.
func (p *Plan) Unrecorded(l *EvidenceLog) int {
	return len(p.unrecorded(l))
}

func (p *Plan) unrecorded(l *EvidenceLog) []foundLeaver {
	if p == nil || l == nil {
		return nil
	}
	var out []foundLeaver
	for _, f := range p.found {
		if l.records(f.userID, f.modified) {
			out = append(out, f)
		}
	}
	return out
}

// ApplyOptions tune [Plan.Apply].
type ApplyOptions struct {
	// Evidence, when set, receives one record per change as it is
	// acknowledged (see [EvidenceLog]).
	Evidence *EvidenceLog
	// Now is the clock of the acknowledgements; nil: time.Now.
	Now func() time.Time
	// Concurrency bounds the writes in flight (site's; 0 means 2).
	Concurrency int
}

// Report is what [Plan.Apply] did.
type Report struct {
	// Site is site's report of the user changes.
	Site *site.Report
	// Records are the evidence records written, in the order written.
	Records []Record
	// Deactivated counts the leavers deactivated (or deleted),
	// Reactivated the people given their status back, Revoked the
	// credentials unassigned; Failed the changes and unassignments that
	// failed.
	Deactivated, Reactivated, Revoked, Failed int
	// FoundDone counts the deactivations found made on the console without
	// a record (an answer lost; see [Plan.Unrecorded]), recorded by this run.
	FoundDone int
}

// Apply makes the plan: site's apply (which reads the console again and
// refuses a plan over the guard or stale), then, for every leaver
// deactivated by it or before it, the unassignment of each credential the
// console answered for them. Every change is written to the evidence log
// as it is acknowledged; a re-enabled person's record lists the
// credentials taken from them earlier, to be re-issued. A record that
// cannot be written stops the run (the changes not yet started are
// skipped) and is the error. The error is nil when everything was done.
func (p *Plan) Apply(ctx context.Context, c *access.Client, opts *ApplyOptions) (*Report, error) {
	if p == nil || p.Site == nil {
		return nil, errors.New("dirsync: no plan")
	}
	if p.guardErr != nil {
		return nil, p.guardErr
	}
	var o ApplyOptions
	if opts != nil {
		o = *opts
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	rep := &Report{}
	// A change that cannot be written to the evidence log stops the run:
	// no further change is made without its record.
	parent := ctx
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var werr error
	write := func(r Record) {
		r.Source = p.Source
		if o.Evidence != nil {
			if err := o.Evidence.Append(&r); err != nil && werr == nil {
				werr = err
				stop()
			}
		}
		rep.Records = append(rep.Records, r)
	}
	deactivated := map[string]bool{}
	srep, err := p.Site.Apply(ctx, c, &site.ApplyOptions{Concurrency: o.Concurrency, Progress: func(res site.Result) {
		ack := now()
		ch := res.Change
		if ch.Kind != site.KindUsers {
			return
		}
		r := Record{Key: ch.Key, Name: ch.Name, Action: action(&ch), Status: string(res.Status), Observed: p.Observed}
		if r.Action == ActionDeactivate || r.Action == ActionDelete {
			r.UserID = p.ids[ch.Key]
		}
		for _, f := range ch.Fields {
			r.Fields = append(r.Fields, f.Field)
		}
		if pe := p.people[ch.Key]; pe != nil && !pe.Modified.IsZero() {
			t := pe.Modified.UTC()
			r.SourceChanged = &t
		}
		switch res.Status {
		case site.StatusDone:
			t := ack.UTC()
			r.Acknowledged = &t
			r.setLatency()
			switch r.Action {
			case ActionDelete:
				// The console frees what a deleted user held.
				r.Credentials = p.held[ch.Key]
				rep.Deactivated++
			case ActionDeactivate:
				rep.Deactivated++
				deactivated[ch.Key] = true
			case ActionReactivate:
				rep.Reactivated++
				if o.Evidence != nil {
					r.Reissue = o.Evidence.Revoked(ch.Key)
				}
			}
		default:
			r.Error = res.Reason
			rep.Failed++
		}
		write(r)
	}})
	rep.Site = srep
	if srep == nil {
		return rep, err
	}
	for _, f := range p.unrecorded(o.Evidence) {
		if ctx.Err() != nil {
			break
		}
		// The console took this deactivation but its answer never came:
		// the time it is found done stands for the acknowledgement (the
		// latency is an upper bound).
		t := now().UTC()
		r := Record{Key: f.key, Name: f.name, UserID: f.userID, Action: ActionDeactivate, Fields: []string{"status"}, Status: string(site.StatusDone),
			FoundDone: true, Observed: p.Observed, Acknowledged: &t}
		if !f.modified.IsZero() {
			m := f.modified.UTC()
			r.SourceChanged = &m
		}
		r.setLatency()
		rep.FoundDone++
		write(r)
	}
	for i := range p.Revoke {
		rv := &p.Revoke[i]
		if !deactivated[rv.Key] && rv.user.Status != access.UserStatusDeactivated {
			continue // its deactivation failed or was skipped: never take credentials from an active user here
		}
		if ctx.Err() != nil {
			break
		}
		r := Record{Key: rv.Key, Name: rv.Name, UserID: rv.UserID, Action: ActionRevokeCredentials, Observed: p.Observed, Status: string(site.StatusDone)}
		if pe := p.people[rv.Key]; pe != nil && !pe.Modified.IsZero() {
			t := pe.Modified.UTC()
			r.SourceChanged = &t
		}
		var failed []string
		for _, cr := range rv.Credentials {
			if e := unassign(ctx, c, rv.UserID, cr); e != nil {
				failed = append(failed, fmt.Sprintf("%s %s: %v", cr.Type, cr.ID, e))
				continue
			}
			r.Credentials = append(r.Credentials, cr)
			rep.Revoked++
		}
		if len(r.Credentials) > 0 {
			t := now().UTC()
			r.Acknowledged = &t
			r.setLatency()
		}
		if len(failed) > 0 {
			r.Status = string(site.StatusFailed)
			r.Error = fmt.Sprint(failed)
			rep.Failed++
		}
		write(r)
	}
	switch {
	case werr != nil:
		return rep, fmt.Errorf("%w; the run was stopped", werr)
	case err != nil:
		return rep, err
	case parent.Err() != nil:
		return rep, parent.Err()
	case rep.Failed > 0:
		return rep, fmt.Errorf("dirsync: %d changes or credential revocations failed", rep.Failed)
	}
	return rep, nil
}

// unassign takes one credential back from user id.
func unassign(ctx context.Context, c *access.Client, id string, cr Credential) error {
	var err error
	switch cr.Type {
	case CredentialNFCCard:
		_, err = c.Users.UnassignNFCCard(ctx, id, cr.Token)
	case CredentialPINCode:
		_, err = c.Users.UnassignPINCode(ctx, id)
	case CredentialTouchPass:
		if cr.Suspended {
			_, _, err = c.TouchPasses.Update(ctx, cr.Token, &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassSuspended)})
			break
		}
		_, _, err = c.Users.UnassignTouchPass(ctx, id, cr.Token)
	case CredentialLicensePlate:
		_, err = c.Users.UnassignLicensePlate(ctx, id, cr.Token)
	default:
		err = fmt.Errorf("unknown credential type %q", cr.Type)
	}
	return err
}

// action names a user change of site's plan.
func action(ch *site.Change) string {
	switch ch.Op {
	case site.OpCreate:
		return ActionCreate
	case site.OpDeactivate:
		return ActionDeactivate
	case site.OpDelete:
		return ActionDelete
	}
	for _, f := range ch.Fields {
		if f.Field == "status" && f.New == string(access.UserStatusActive) && f.Old == string(access.UserStatusDeactivated) {
			return ActionReactivate
		}
	}
	return ActionUpdate
}

// Reconcile plans and applies in one call: [MakePlan], then [Plan.Apply]
// when the plan has something to do. The plan is returned with the report
// so that a refusal (a guard, a snapshot) can be shown.
func Reconcile(ctx context.Context, c *access.Client, snap *Snapshot, opts *ReconcileOptions, aopts *ApplyOptions) (*Plan, *Report, error) {
	p, err := MakePlan(ctx, c, snap, opts)
	if err != nil {
		return p, nil, err
	}
	var ev *EvidenceLog
	if aopts != nil {
		ev = aopts.Evidence
	}
	if !p.Drift() && p.Unrecorded(ev) == 0 {
		return p, &Report{Site: &site.Report{Results: []site.Result{}}}, nil
	}
	rep, err := p.Apply(ctx, c, aopts)
	return p, rep, err
}
