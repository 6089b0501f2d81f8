package dirsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access/site"
)

// DefaultCSVPoll is how often [CSVSource.Watch] looks at its file.
const DefaultCSVPoll = 2 * time.Second

// CSVOptions configure a [CSVSource].
type CSVOptions struct {
	// Name names the source (default "csv").
	Name string
	// CSV is how package site reads the file: the delimiter and the
	// column mapping of an HR export as it is ([site.CSVOptions]).
	CSV site.CSVOptions
	// AllowNoFinalNewline reads a file whose last row has no line end.
	// By default such a file is taken for one being written (a row cut
	// in its last field would pass for a complete one) and refused with
	// [ErrIncomplete]; some exporters (Google Sheets) write no final
	// newline.
	AllowNoFinalNewline bool
	// Poll is how often [CSVSource.Watch] looks at the file
	// ([DefaultCSVPoll] when 0).
	Poll time.Duration
	// Ticks, when set, replaces Watch's ticker (tests, or a caller's own
	// schedule).
	Ticks <-chan time.Time
}

// CSVSource is a [Source] over an HR file: the users_csv of package site,
// read with [site.ReadUsersCSV] (its delimiter and column mapping) at each
// Read. Each row with an employee number is a person, active unless its
// status is DEACTIVATED; a row without one is skipped; a row removed makes
// a leaver. The file's modification time is each person's Modified, the
// source's time of the change.
//
// A file that cannot be read whole is never a directory of nobody: a
// missing or unreadable file is [ErrUnavailable]; a file that changes
// while it is read, whose last row has no line end (see
// [CSVOptions].AllowNoFinalNewline), or that site's reader refuses (a row
// with too few fields, a bad status, two rows with one employee number)
// is [ErrIncomplete]; an empty file, or one with no row that has an
// employee number, is [ErrEmpty]. A file cut short at the end of a row reads as a
// file of fewer people: the guard of [ReconcileOptions] stops a plan that
// would deactivate the rest.
//
// A CSVSource is a [Notifier] once [CSVSource.Watch] runs: it polls the
// file's size, modification time and SHA-256 at an interval and signals
// when they changed and then held still for one interval, so that a file
// still being written is not read before it is done.
type CSVSource struct {
	path    string
	opts    CSVOptions
	changed chan struct{}

	mu        sync.Mutex
	signalled fingerprint // the state last signalled (or first seen)
	last      fingerprint // the state of the last poll
	polled    bool
}

// NewCSVSource returns a source over the CSV file at path. The options'
// delimiter and column mapping are checked here ([ErrConfig]); the file
// is read only by Read and Watch.
func NewCSVSource(path string, opts *CSVOptions) (*CSVSource, error) {
	var o CSVOptions
	if opts != nil {
		o = *opts
	}
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("%w: a CSV source needs a file", ErrConfig)
	}
	if o.Name == "" {
		o.Name = "csv"
	}
	if o.Poll < 0 {
		return nil, fmt.Errorf("%w: Poll must not be negative", ErrConfig)
	}
	if o.Poll == 0 {
		o.Poll = DefaultCSVPoll
	}
	// site's reader checks the options before it reads a byte: an empty
	// input tells a bad delimiter or mapping from an empty file.
	_, err := site.ReadUsersCSV(strings.NewReader(""), path, &o.CSV)
	var de *site.DocumentError
	if errors.As(err, &de) && len(de.Problems) > 0 && de.Problems[0].Path != "header" {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return &CSVSource{path: path, opts: o, changed: make(chan struct{}, 1)}, nil
}

// Name returns the source's name.
func (s *CSVSource) Name() string { return s.opts.Name }

// Read reads the whole file (see [CSVSource] for what it refuses).
func (s *CSVSource) Read(ctx context.Context) (*Snapshot, error) {
	snap := &Snapshot{Source: s.opts.Name, Started: time.Now()}
	fail := func(kind error, err error) (*Snapshot, error) {
		snap.Finished = time.Now()
		return snap, fmt.Errorf("%w: %s: %w", kind, s.path, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(ErrIncomplete, err)
	}
	data, fi, err := readStable(s.path)
	if err != nil {
		return fail(ErrUnavailable, err)
	}
	if fi == nil {
		return fail(ErrIncomplete, errors.New("the file changed while it was read (being written?)"))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return fail(ErrEmpty, errors.New("the file is empty"))
	}
	if data[len(data)-1] != '\n' && !s.opts.AllowNoFinalNewline {
		return fail(ErrIncomplete, errors.New("the last row has no line end (being written?)"))
	}
	users, loc, err := site.ReadUsersCSVWithLocator(bytes.NewReader(data), s.path, &s.opts.CSV)
	if err != nil {
		return fail(ErrIncomplete, err)
	}
	snap.Pages, snap.Entries = 1, len(users)
	var people []Person
	for i := range users {
		u := &users[i]
		pos := loc(fmt.Sprintf("users[%d]", i))
		id := fmt.Sprintf("%s:%d", filepath.Base(s.path), pos.Line)
		if u.EmployeeNumber == "" {
			snap.Skipped = append(snap.Skipped, Skipped{SourceID: id, Reason: "no employee number"})
			continue
		}
		groups := slices.Clone(u.Groups)
		slices.Sort(groups)
		p := Person{Key: u.EmployeeNumber, FirstName: u.FirstName, LastName: u.LastName, Email: u.Email,
			Groups: slices.Compact(groups), Active: u.Status != "DEACTIVATED", SourceID: id, Modified: fi.ModTime().UTC()}
		if !p.Active {
			p.InactiveReason = "status DEACTIVATED"
		}
		people = append(people, p)
	}
	if len(people) == 0 {
		return fail(ErrEmpty, errors.New("no row with an employee number"))
	}
	slices.SortFunc(people, func(a, b Person) int { return strings.Compare(a.Key, b.Key) })
	snap.People, snap.Complete, snap.Finished = people, true, time.Now()
	return snap, nil
}

// readStable reads the file at path whole; fi is nil when the file
// changed (size or modification time, or another file put in its place)
// while it was read.
func readStable(path string) (data []byte, fi os.FileInfo, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if data, err = io.ReadAll(f); err != nil {
		return nil, nil, err
	}
	after, err := os.Stat(path)
	if err != nil || !os.SameFile(before, after) || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) ||
		int64(len(data)) != before.Size() {
		return data, nil, nil
	}
	return data, before, nil
}

// fingerprint is what a poll sees of the file.
type fingerprint struct {
	missing bool
	size    int64
	mtime   time.Time
	sum     [sha256.Size]byte
}

func (s *CSVSource) look() fingerprint {
	f, err := os.Open(s.path)
	if err != nil {
		return fingerprint{missing: true}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fingerprint{missing: true}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fingerprint{missing: true}
	}
	fp := fingerprint{size: fi.Size(), mtime: fi.ModTime()}
	h.Sum(fp.sum[:0])
	return fp
}

// Changed receives a value when a poll found the file changed and then
// unchanged for one interval (one value for any number of changes not yet
// received). Only [CSVSource.Watch] (or [CSVSource.Poll]) polls.
func (s *CSVSource) Changed() <-chan struct{} { return s.changed }

// Poll looks at the file once and reports whether it signalled Changed:
// the file's size, modification time or content differ from those last
// signalled (or first seen) and are the same as at the previous poll. The
// first poll only takes the file's state.
func (s *CSVSource) Poll() bool {
	fp := s.look()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.polled {
		s.polled, s.signalled, s.last = true, fp, fp
		return false
	}
	stable := fp == s.last
	s.last = fp
	if !stable || fp == s.signalled {
		return false
	}
	s.signalled = fp
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return true
}

// Watch polls the file at the options' interval (or ticks) until ctx
// ends, which it returns.
func (s *CSVSource) Watch(ctx context.Context) error {
	s.Poll()
	ticks := s.opts.Ticks
	if ticks == nil {
		t := time.NewTicker(s.opts.Poll)
		defer t.Stop()
		ticks = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-ticks:
			if !ok {
				<-ctx.Done()
				return ctx.Err()
			}
			s.Poll()
		}
	}
}
