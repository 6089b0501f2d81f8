package site

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/access-dev/access"
)

// The defaults of the guard on mass deactivation ([PlanOptions]
// MaxDeactivate and MaxDeactivateShare): a plan that prunes more than 10
// users, or more than 20 % (rounded up) of the console's users that the
// document manages, is refused. Directory provisioning services guard
// their accidental deletions the same way: a wrong or truncated export
// must not take doors from a whole company behind one confirmation.
const (
	DefaultMaxDeactivate      = 10
	DefaultMaxDeactivateShare = 20.0
)

// ErrGuard is matched by the error of [MakePlan] and [Plan.Apply] when a
// safety guard refused the plan ([*GuardError]).
var ErrGuard = errors.New("site: refused by a safety guard")

// GuardError refuses a plan that would deactivate (or delete) more users
// than [PlanOptions] allow; nothing was written.
type GuardError struct {
	// Deactivate is how many users the plan would deactivate or delete
	// (users the console holds as deactivated already are not counted).
	Deactivate int
	// Of is how many users the document manages on the console: those
	// inside its scope, deactivated ones left out.
	Of int
	// MaxCount and MaxShare (a percentage) are the limits in force;
	// OverCount and OverShare say which the plan exceeds.
	MaxCount             int
	MaxShare             float64
	OverCount, OverShare bool
}

// Error names the number and the limits exceeded.
func (e *GuardError) Error() string {
	var over []string
	if e.OverCount {
		over = append(over, fmt.Sprintf("MaxDeactivate %d", e.MaxCount))
	}
	if e.OverShare {
		over = append(over, fmt.Sprintf("MaxDeactivateShare %g%%", e.MaxShare))
	}
	return fmt.Sprintf("site: refused by a safety guard: the plan would deactivate %d of %d users (%s), more than %s allows; nothing was written",
		e.Deactivate, e.Of, e.Percent(), strings.Join(over, " and "))
}

// Percent is the share of the managed users the plan would deactivate,
// e.g. "98%".
func (e *GuardError) Percent() string {
	if e.Of == 0 {
		return "100%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(e.Deactivate)/float64(e.Of))
}

// Is makes a GuardError match [ErrGuard].
func (e *GuardError) Is(target error) bool { return target == ErrGuard }

// Managed is the number of console users the plan manages that are not
// deactivated: those inside the scope, the guard's [GuardError].Of. It is
// 0 for a plan that read no users.
func (p *Plan) Managed() int {
	if p == nil || p.st == nil {
		return 0
	}
	of := 0
	scope := p.scope()
	for _, u := range p.st.users {
		if scope.holds(&u.obj) && u.obj.Status != string(access.UserStatusDeactivated) {
			of++
		}
	}
	return of
}

// guard returns a *GuardError when the plan prunes more users than the
// options allow.
func (p *Plan) guard() error {
	if p.st.users == nil {
		return nil
	}
	maxCount, maxShare := p.Options.MaxDeactivate, p.Options.MaxDeactivateShare
	if maxCount == 0 {
		maxCount = DefaultMaxDeactivate
	}
	if maxShare == 0 {
		maxShare = DefaultMaxDeactivateShare
	}
	n := 0
	for _, ch := range p.Changes {
		if ch.Kind != KindUsers || (ch.Op != OpDeactivate && ch.Op != OpDelete) {
			continue
		}
		if u := p.st.users[ch.Key]; u != nil && u.obj.Status != string(access.UserStatusDeactivated) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	e := &GuardError{Deactivate: n, Of: p.Managed(), MaxCount: maxCount, MaxShare: maxShare}
	e.OverCount = maxCount > 0 && n > maxCount
	e.OverShare = maxShare > 0 && maxShare < 100 && float64(n) > math.Ceil(maxShare*float64(e.Of)/100)
	if e.OverCount || e.OverShare {
		return e
	}
	return nil
}
