package dirsync

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/site"
)

// DefaultInterval is how often a Runner reads its sources when
// RunnerOptions.Interval is 0.
const DefaultInterval = 30 * time.Second

// The triggers of a run, as RunResult.Trigger names them.
const (
	// TriggerStart is the run of every source when Run starts.
	TriggerStart = "start"
	// TriggerInterval is a run at the interval.
	TriggerInterval = "interval"
	// TriggerPush is a run because a Notifier source signalled a change.
	TriggerPush = "push"
	// TriggerOptions is a run because Runner.SetOptions changed a
	// source's options.
	TriggerOptions = "options"
)

// ErrHeld is matched by the error of a run refused because the source's
// guard tripped earlier (*HeldError): the runner applies nothing for
// that source until an operator changes its options with
// Runner.SetOptions.
var ErrHeld = errors.New("dirsync: source held after a guard trip; waiting for an operator")

// HeldError refuses a run of a source held since a guard trip. It matches
// ErrHeld, and site.ErrGuard through Guard.
type HeldError struct {
	// Source is the source held.
	Source string
	// Guard is the guard's refusal that held it.
	Guard *site.GuardError
}

// Error says which source is held and why.
func (e *HeldError) Error() string {
	return fmt.Sprintf("dirsync: source %s held since its guard tripped (%v); change its options to resume", e.Source, e.Guard)
}

// Is makes a HeldError match ErrHeld.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Unwrap returns the guard's error.
func (e *HeldError) Unwrap() error { return e.Guard }

// A Notifier is a push source (a SCIM store): Changed receives a value
// after a change was made durable, and a Runner then reconciles the
// source at once instead of waiting for the interval.
type Notifier interface {
	Changed() <-chan struct{}
}

// RunnerSource is one source of a Runner and its reconcile options.
type RunnerSource struct {
	Source Source
	// Options tune its plans (scope, guard, group mapping, revocation);
	// nil is the zero ReconcileOptions.
	Options *ReconcileOptions
}

// RunnerOptions configure a Runner.
type RunnerOptions struct {
	// Sources are read and reconciled one at a time, in this order. Their
	// names must differ.
	Sources []RunnerSource
	// Interval is how often every source is read (DefaultInterval when
	// 0). A source that is a Notifier is read at once when it signals,
	// too.
	Interval time.Duration
	// Ticks, when set, replaces the interval's ticker (tests, or a
	// caller's own schedule): every source is read at each value. Once
	// it is closed, only pushes and SetOptions make runs.
	Ticks <-chan time.Time
	// Apply tunes Plan.Apply: the evidence log, the acknowledgement
	// clock, the concurrency.
	Apply *ApplyOptions
	// Now is the clock of the runs' times (default time.Now).
	Now func() time.Time
	// OnRun, when set, is called after each run with its result, from
	// the runner's goroutine (the next run waits for it).
	OnRun func(RunResult)
	// CheckReentries, with an evidence log in Apply, makes each run end
	// with [CheckReentries]: the console's door openings since the
	// previous check (a minute of overlap; an opening is flagged once)
	// are read and each leaver a door opened for after their revocation
	// is flagged in the log (RunResult.Reentries).
	CheckReentries bool
}

// RunResult is what one run of one source did.
type RunResult struct {
	Source  string
	Trigger string
	// Started and Finished bound the run.
	Started, Finished time.Time
	// Snapshot is the source's read; nil or incomplete when it failed.
	Snapshot *Snapshot
	// Plan is the plan made, nil when the source or the console could
	// not be read.
	Plan *Plan
	// Report is what Apply did, nil when nothing was applied.
	Report *Report
	// Err is why the run did not finish its work: the source's error
	// (matching ErrUnusableSnapshot or one of the source errors), the
	// console's, a *site.GuardError (the guard tripped in this run), a
	// *HeldError (held since an earlier trip), or Apply's. Nil when the
	// console is equal to the source.
	Err error
	// SourceFailed and ConsoleFailed say which side could not be read.
	SourceFailed, ConsoleFailed bool
	// Reentries are the re-entries the run flagged
	// (RunnerOptions.CheckReentries); ReentryErr is why the check
	// failed (the run's own result stands).
	Reentries  []Record
	ReentryErr error
}

// SourceStatus is a source's state, for metrics and health.
type SourceStatus struct {
	Source string
	// Runs counts the runs; LastRun is when the last one finished.
	Runs    int
	LastRun time.Time
	// LastSuccess is when the last run that left the console equal to
	// the source finished (zero: none yet).
	LastSuccess time.Time
	// LastError is the last run's error ("" when it succeeded).
	LastError string
	// SourceOK and ConsoleOK are false when the last run could not
	// read the source or the console (true before the first run).
	SourceOK, ConsoleOK bool
	// People counts the active people of the last complete snapshot: the
	// people kept on the console. OutOfScope counts the console users
	// outside the scope, left alone, at the last plan.
	People, OutOfScope int
	// PendingLeavers counts the leavers the last plan would deactivate
	// (or delete) that are not deactivated yet: those a guard or a hold
	// keeps, those whose change failed.
	PendingLeavers int
	// GuardTrips counts the times the guard refused a plan and held the
	// source; Held is the refusal holding it now (nil when not held).
	GuardTrips int
	Held       *site.GuardError
}

// Runner keeps a console equal to its sources for as long as Run runs:
// every source at the interval, a Notifier source at once when it
// signals, one reconcile at a time. A failed, incomplete or empty read is
// never taken for "everyone left": the run stops before the console. A
// guard trip holds the source: its next runs plan (for the status) but
// apply nothing until Runner.SetOptions changes its options.
type Runner struct {
	c    *access.Client
	o    RunnerOptions
	wake chan struct{}

	mu      sync.Mutex
	opts    []*ReconcileOptions
	status  []SourceStatus
	pending []string // trigger per source, "" when none
	gen     []int    // SetOptions calls per source
	running bool

	reentrySince time.Time // of the next re-entry check (the run goroutine's)
}

// NewRunner checks o and returns its runner. It reads nothing.
func NewRunner(c *access.Client, o RunnerOptions) (*Runner, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: no console client", ErrConfig)
	}
	if len(o.Sources) == 0 {
		return nil, fmt.Errorf("%w: no source", ErrConfig)
	}
	if o.Interval < 0 {
		return nil, fmt.Errorf("%w: negative interval %v", ErrConfig, o.Interval)
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.CheckReentries && (o.Apply == nil || o.Apply.Evidence == nil) {
		return nil, fmt.Errorf("%w: CheckReentries needs an evidence log (Apply.Evidence)", ErrConfig)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Runner{c: c, o: o, wake: make(chan struct{}, 1)}
	seen := map[string]bool{}
	for i, s := range o.Sources {
		if s.Source == nil {
			return nil, fmt.Errorf("%w: source %d is nil", ErrConfig, i)
		}
		n := s.Source.Name()
		if seen[n] {
			return nil, fmt.Errorf("%w: two sources named %q", ErrConfig, n)
		}
		seen[n] = true
		r.opts = append(r.opts, s.Options)
		r.status = append(r.status, SourceStatus{Source: n, SourceOK: true, ConsoleOK: true})
		r.pending = append(r.pending, "")
		r.gen = append(r.gen, 0)
	}
	return r, nil
}

// Status returns each source's status, in the order of the sources.
func (r *Runner) Status() []SourceStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]SourceStatus, len(r.status))
	copy(out, r.status)
	return out
}

// SetOptions replaces the options of the named source — the operator's
// answer to a guard trip, with a raised guard or a corrected scope —,
// releases its hold and asks for a run of it. An unknown name is an
// ErrConfig.
func (r *Runner) SetOptions(source string, opts *ReconcileOptions) error {
	r.mu.Lock()
	i := r.index(source)
	if i < 0 {
		r.mu.Unlock()
		return fmt.Errorf("%w: no source named %q", ErrConfig, source)
	}
	r.opts[i] = opts
	r.status[i].Held = nil
	r.gen[i]++
	r.pending[i] = TriggerOptions
	r.mu.Unlock()
	r.signal()
	return nil
}

func (r *Runner) index(name string) int {
	for i, s := range r.status {
		if s.Source == name {
			return i
		}
	}
	return -1
}

func (r *Runner) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// mark asks for a run of source i (of every source when i < 0).
func (r *Runner) mark(i int, trigger string) {
	r.mu.Lock()
	for j := range r.pending {
		if (i < 0 || j == i) && r.pending[j] == "" {
			r.pending[j] = trigger
		}
	}
	r.mu.Unlock()
	r.signal()
}

// Run reconciles every source at once, then at each tick and each push,
// until ctx ends; it returns nil then, after the run in progress ended
// (abandoned where ctx stops it: its result says so). It returns an
// error only if it is already running.
func (r *Runner) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		return errors.New("dirsync: runner already running")
	}
	r.running = true
	r.mu.Unlock()
	defer func() { r.mu.Lock(); r.running = false; r.mu.Unlock() }()

	ticks := r.o.Ticks
	if ticks == nil {
		t := time.NewTicker(r.o.Interval)
		defer t.Stop()
		ticks = t.C
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for i, s := range r.o.Sources {
		n, ok := s.Source.(Notifier)
		if !ok {
			continue
		}
		ch := n.Changed()
		if ch == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case _, ok := <-ch:
					if !ok {
						return
					}
					r.mark(i, TriggerPush)
				}
			}
		}()
	}
	r.mark(-1, TriggerStart)
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-ticks:
			if !ok {
				ticks = nil // closed: no more interval runs
				continue
			}
			r.mark(-1, TriggerInterval)
		case <-r.wake:
		}
		for ctx.Err() == nil {
			i, trigger := r.next()
			if i < 0 {
				break
			}
			r.run(ctx, i, trigger)
		}
	}
}

// next takes the first source asked for, pushes first.
func (r *Runner) next() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	best := -1
	for i, t := range r.pending {
		if t != "" && (best < 0 || (t == TriggerPush && r.pending[best] != TriggerPush)) {
			best = i
		}
	}
	if best < 0 {
		return -1, ""
	}
	t := r.pending[best]
	r.pending[best] = ""
	return best, t
}

// run reads source i, plans and applies, and records the result.
func (r *Runner) run(ctx context.Context, i int, trigger string) {
	src := r.o.Sources[i].Source
	r.mu.Lock()
	opts, held, gen := r.opts[i], r.status[i].Held, r.gen[i]
	r.mu.Unlock()

	res := RunResult{Source: src.Name(), Trigger: trigger, Started: r.o.Now()}
	var trip *site.GuardError
	snap, err := src.Read(ctx)
	res.Snapshot = snap
	if err != nil {
		res.SourceFailed = true
	} else {
		var p *Plan
		p, err = MakePlan(ctx, r.c, snap, opts)
		res.Plan = p
		var ge *site.GuardError
		var de *site.DocumentError
		switch {
		case errors.Is(err, ErrUnusableSnapshot):
			res.SourceFailed = true
		case errors.As(err, &de):
			// site refuses the document (every person inactive: pruning
			// would deactivate every user): a refusal, nothing written.
		case held != nil && (err == nil || errors.As(err, &ge)):
			err = &HeldError{Source: res.Source, Guard: held}
		case errors.As(err, &ge):
			trip = ge
		case err != nil:
			res.ConsoleFailed = true
		case p.Drift() || r.o.Apply != nil && p.Unrecorded(r.o.Apply.Evidence) > 0:
			res.Report, err = p.Apply(ctx, r.c, r.o.Apply)
			if errors.As(err, &ge) {
				trip = ge
			}
		}
	}
	res.Err = err
	if r.o.CheckReentries && r.o.Apply != nil && r.o.Apply.Evidence != nil && ctx.Err() == nil {
		checked := r.o.Now()
		res.Reentries, res.ReentryErr = CheckReentries(ctx, r.c, r.o.Apply.Evidence, r.reentrySince)
		if res.ReentryErr == nil {
			r.reentrySince = checked.Add(-time.Minute)
		}
	}
	res.Finished = r.o.Now()
	r.record(i, &res, trip, gen)
	if r.o.OnRun != nil {
		r.o.OnRun(res)
	}
}

// record updates source i's status; a guard trip holds it unless its
// options changed during the run (gen).
func (r *Runner) record(i int, res *RunResult, trip *site.GuardError, gen int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &r.status[i]
	s.Runs++
	s.LastRun = res.Finished
	s.SourceOK = !res.SourceFailed
	s.ConsoleOK = !res.ConsoleFailed
	if res.SourceFailed {
		// The source could not be read: the console is not checked; the
		// counts of the last read stand.
		s.ConsoleOK = true
	}
	if trip != nil {
		s.GuardTrips++
		if r.gen[i] == gen {
			s.Held = trip
		}
	}
	if res.Err == nil {
		s.LastSuccess = res.Finished
		s.LastError = ""
	} else {
		s.LastError = res.Err.Error()
	}
	if res.Snapshot != nil && res.Snapshot.Complete && !res.SourceFailed {
		s.People = len(res.Snapshot.People) - res.Snapshot.Inactive()
	}
	if p := res.Plan; p != nil && p.Site != nil {
		s.OutOfScope = p.OutOfScope
		pending := p.Site.Summary.Deactivate + p.Site.Summary.Delete
		if res.Report != nil {
			pending -= res.Report.Deactivated
		}
		s.PendingLeavers = max(pending, 0)
	}
}
