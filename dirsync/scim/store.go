package scim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access/internal/filelock"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/internal/atomicfile"
)

// The store's files
//
// The state file is a snapshot: a JSON document of every user and group
// and the sequence number of the last change it holds. FILE.journal is an
// append-only journal of the changes since: each change is one line
// "CRC32 JSON\n" holding its sequence number and the whole record it
// puts or the id it deletes, written and fsynced before the change is
// acknowledged. When the journal grows past compactAfter lines the state
// is compacted: a new snapshot is written atomically, then the journal
// is replaced by an empty one. A journal line whose sequence number the
// snapshot already holds (a crash came between the two) is skipped;
// loading stops at the first line that is torn or does not check (a
// change never acknowledged).

// compactAfter is the number of journal lines after which the state is
// compacted.
var compactAfter = 1000

// ErrStore reports a change that could not be made durable: it was not
// applied nor acknowledged.
var ErrStore = errors.New("scim: the change could not be saved")

// An Email is one of a user's email addresses.
type Email struct {
	// Value is the address.
	Value string `json:"value"`
	// Type is "work", "home", "other" or empty.
	Type string `json:"type,omitempty"`
	// Primary marks the preferred address.
	Primary bool `json:"primary,omitempty"`
}

// A User is a SCIM user as pushed by the identity provider.
type User struct {
	// ID is the id this service gave the user.
	ID string `json:"id"`
	// ExternalID is the identity provider's id of the user.
	ExternalID string `json:"external_id,omitempty"`
	// UserName is the unique sign-in name (compared without case).
	UserName string `json:"user_name"`
	// GivenName, FamilyName and Formatted are name's sub-attributes.
	GivenName  string `json:"given_name,omitempty"`
	FamilyName string `json:"family_name,omitempty"`
	Formatted  string `json:"formatted,omitempty"`
	// DisplayName is the name to show.
	DisplayName string `json:"display_name,omitempty"`
	// Emails are the user's addresses.
	Emails []Email `json:"emails,omitempty"`
	// Active is false for a deactivated user.
	Active bool `json:"active"`
	// EmployeeNumber and Department are the enterprise extension's.
	EmployeeNumber string `json:"employee_number,omitempty"`
	Department     string `json:"department,omitempty"`
	// Created and Modified are when the push that made or last changed
	// the user arrived.
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	// Seq orders users by creation.
	Seq uint64 `json:"seq"`
}

// A Group is a SCIM group and its members.
type Group struct {
	// ID is the id this service gave the group.
	ID string `json:"id"`
	// ExternalID is the identity provider's id of the group.
	ExternalID string `json:"external_id,omitempty"`
	// DisplayName is the group's name.
	DisplayName string `json:"display_name"`
	// Members are the ids of the member users, sorted.
	Members []string `json:"members,omitempty"`
	// Created and Modified are when the push that made or last changed
	// the group arrived.
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	// Seq orders groups by creation.
	Seq uint64 `json:"seq"`
}

// change is one journal line.
type change struct {
	Seq      uint64 `json:"seq"`
	PutUser  *User  `json:"put_user,omitempty"`
	DelUser  string `json:"del_user,omitempty"`
	PutGroup *Group `json:"put_group,omitempty"`
	DelGroup string `json:"del_group,omitempty"`
}

// snapshot is the state file's document.
type snapshot struct {
	Seq    uint64   `json:"seq"`
	Users  []*User  `json:"users"`
	Groups []*Group `json:"groups"`
}

// KeyAttribute names the user attribute that gives a person's
// [dirsync.Person.Key].
type KeyAttribute string

// The attributes a person's key may come from.
const (
	// KeyEmployeeNumber is the enterprise extension's employeeNumber.
	KeyEmployeeNumber KeyAttribute = "employeeNumber"
	// KeyExternalID is the user's externalId.
	KeyExternalID KeyAttribute = "externalId"
	// KeyUserName is the user's userName.
	KeyUserName KeyAttribute = "userName"
)

// Options are a [Store]'s settings; the zero value is the defaults.
type Options struct {
	// Name is the source's name (default "scim").
	Name string
	// Key is the attribute a person's key comes from (default
	// [KeyEmployeeNumber]). A user without it is skipped.
	Key KeyAttribute
}

// A Store holds what a SCIM client pushed, durably: a change is written
// and fsynced to the store's file before [Store] reports it made, and
// [Open] of the same file restores every change made. It is a
// [dirsync.Source]: Read answers the pushed users as people.
type Store struct {
	path string
	opts Options

	mu      sync.Mutex
	journal *os.File
	lock    *filelock.Lock // on path + ".lock", held until Close
	lines   int
	broken  bool // the journal's end may be torn: compact before the next append
	seq     uint64
	users   map[string]*User
	groups  map[string]*Group
	changed chan struct{}
	now     func() time.Time
	newID   func() string
}

var _ dirsync.Source = (*Store)(nil)

// ErrLocked is matched by the error of [Open] when the store is open in
// another process (or not yet closed in this one): two would compact
// over each other's acknowledged changes.
var ErrLocked = filelock.ErrLocked

// Open opens the store kept in the file at path (and path + ".journal"),
// creating it if it does not exist.
func Open(path string, opts Options) (*Store, error) {
	if opts.Name == "" {
		opts.Name = "scim"
	}
	switch opts.Key {
	case "":
		opts.Key = KeyEmployeeNumber
	case KeyEmployeeNumber, KeyExternalID, KeyUserName:
	default:
		return nil, fmt.Errorf("%w: scim key attribute %q is not employeeNumber, externalId or userName", dirsync.ErrConfig, opts.Key)
	}
	s := &Store{
		path: path, opts: opts,
		users: map[string]*User{}, groups: map[string]*Group{},
		changed: make(chan struct{}, 1),
		now:     time.Now, newID: randomID,
	}
	// One process at a time: a second one would compact over the first's
	// acknowledged changes. The error matches ErrLocked.
	lock, err := filelock.TryLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("scim: open %s: %w", path, err)
	}
	s.lock = lock
	if err := s.load(); err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("scim: open %s: %w", path, err)
	}
	// Start from a compacted state: the journal's end may be torn.
	if err := s.compact(); err != nil {
		lock.Unlock()
		return nil, fmt.Errorf("scim: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) load() error {
	b, err := os.ReadFile(s.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		var snap snapshot
		if err := json.Unmarshal(b, &snap); err != nil {
			return fmt.Errorf("state file: %w", err)
		}
		s.seq = snap.Seq
		for _, u := range snap.Users {
			s.users[u.ID] = u
		}
		for _, g := range snap.Groups {
			s.groups[g.ID] = g
		}
	}
	f, err := os.Open(s.path + ".journal")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil // the end, or a torn last line: never acknowledged
		}
		crc, body, ok := bytes.Cut(line[:len(line)-1], []byte(" "))
		if !ok || string(crc) != fmt.Sprintf("%08x", crc32.ChecksumIEEE(body)) {
			return nil
		}
		var c change
		if err := json.Unmarshal(body, &c); err != nil {
			return nil
		}
		if c.Seq <= s.seq {
			continue // the snapshot holds it
		}
		s.apply(c)
	}
}

// apply applies c to the state in memory.
func (s *Store) apply(c change) {
	s.seq = c.Seq
	switch {
	case c.PutUser != nil:
		s.users[c.PutUser.ID] = c.PutUser
	case c.DelUser != "":
		delete(s.users, c.DelUser)
	case c.PutGroup != nil:
		s.groups[c.PutGroup.ID] = c.PutGroup
	case c.DelGroup != "":
		delete(s.groups, c.DelGroup)
	}
}

// compact writes the state as a new snapshot and starts an empty journal.
func (s *Store) compact() error {
	snap := snapshot{Seq: s.seq, Users: s.sortedUsers(), Groups: s.sortedGroups()}
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(s.path, append(b, '\n'), 0o600); err != nil {
		return err
	}
	if s.journal != nil {
		_ = s.journal.Close()
		s.journal = nil
	}
	if err := atomicfile.WriteFile(s.path+".journal", nil, 0o600); err != nil {
		return err
	}
	f, err := os.OpenFile(s.path+".journal", os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	s.journal, s.lines, s.broken = f, 0, false
	return nil
}

// commit makes the changes durable, then applies them: it is the only
// way the state changes. On error nothing is applied.
func (s *Store) commit(cs ...change) error {
	if s.broken || s.journal == nil {
		if err := s.compact(); err != nil {
			return fmt.Errorf("%w: %w", ErrStore, err)
		}
	}
	var buf bytes.Buffer
	for i := range cs {
		cs[i].Seq = s.seq + uint64(i) + 1
		b, err := json.Marshal(cs[i])
		if err != nil {
			return fmt.Errorf("%w: %w", ErrStore, err)
		}
		fmt.Fprintf(&buf, "%08x %s\n", crc32.ChecksumIEEE(b), b)
	}
	_, err := s.journal.Write(buf.Bytes())
	if err == nil {
		err = s.journal.Sync()
	}
	if err != nil {
		s.broken = true
		return fmt.Errorf("%w: %w", ErrStore, err)
	}
	for _, c := range cs {
		s.apply(c)
	}
	s.lines += len(cs)
	if s.lines >= compactAfter {
		if err := s.compact(); err != nil {
			s.broken = true // the changes are in the journal: they stand
		}
	}
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

// Close closes the store's journal and lets its lock go.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.lock.Unlock(); s.lock = nil }()
	if s.journal == nil {
		return nil
	}
	err := s.journal.Close()
	s.journal = nil
	return err
}

// Changed returns a channel that receives a value after a change has
// been made durable (one value for any number of changes not yet
// received): a sync loop reads the store again when it does, so a push
// is applied at once.
func (s *Store) Changed() <-chan struct{} { return s.changed }

// Name returns the source's name.
func (s *Store) Name() string { return s.opts.Name }

// Read returns the pushed users as people: the key from the configured
// attribute, the names, the work (else primary, else first) email, the
// display names of the groups they are members of, and Active false for
// a user deactivated by the push ("active": false). Users without a key
// are skipped. A store with no person answers [dirsync.ErrEmpty], two
// users with one key [dirsync.ErrDuplicateKey], as a directory would.
func (s *Store) Read(ctx context.Context) (*dirsync.Snapshot, error) {
	started := s.now()
	if err := ctx.Err(); err != nil {
		return &dirsync.Snapshot{Source: s.opts.Name, Started: started, Finished: started}, fmt.Errorf("%w: %w", dirsync.ErrIncomplete, err)
	}
	s.mu.Lock()
	users := s.sortedUsers()
	groupsOf := map[string][]string{}
	for _, g := range s.groups {
		for _, m := range g.Members {
			groupsOf[m] = append(groupsOf[m], g.DisplayName)
		}
	}
	s.mu.Unlock()
	snap := &dirsync.Snapshot{Source: s.opts.Name, Started: started, Pages: 1, Entries: len(users)}
	seen := map[string]string{}
	for _, u := range users {
		key := u.key(s.opts.Key)
		if key == "" {
			snap.Skipped = append(snap.Skipped, dirsync.Skipped{SourceID: u.ID, Reason: "no " + string(s.opts.Key)})
			continue
		}
		if other, dup := seen[key]; dup {
			snap.Finished = s.now()
			return &dirsync.Snapshot{Source: snap.Source, Started: started, Finished: snap.Finished, Pages: 1, Entries: len(users)},
				fmt.Errorf("%w: users %s and %s have %s %q", dirsync.ErrDuplicateKey, other, u.ID, s.opts.Key, key)
		}
		seen[key] = u.ID
		groups := groupsOf[u.ID]
		slices.Sort(groups)
		p := dirsync.Person{
			Key: key, FirstName: u.GivenName, LastName: u.FamilyName, Email: u.email(),
			Groups: slices.Compact(groups), Active: u.Active, SourceID: u.ID, Modified: u.Modified,
		}
		if !u.Active {
			p.InactiveReason = "scim: active is false"
		}
		snap.People = append(snap.People, p)
	}
	snap.Finished = s.now()
	if len(snap.People) == 0 {
		snap.Skipped = nil
		return snap, fmt.Errorf("%w: no SCIM user with %s was pushed", dirsync.ErrEmpty, s.opts.Key)
	}
	sort.Slice(snap.People, func(i, j int) bool { return snap.People[i].Key < snap.People[j].Key })
	snap.Complete = true
	return snap, nil
}

func (u *User) key(k KeyAttribute) string {
	switch k {
	case KeyExternalID:
		return u.ExternalID
	case KeyUserName:
		return u.UserName
	}
	return u.EmployeeNumber
}

// email is the work address, else the primary one, else the first.
func (u *User) email() string {
	for _, e := range u.Emails {
		if strings.EqualFold(e.Type, "work") {
			return e.Value
		}
	}
	for _, e := range u.Emails {
		if e.Primary {
			return e.Value
		}
	}
	if len(u.Emails) > 0 {
		return u.Emails[0].Value
	}
	return ""
}

func (s *Store) sortedUsers() []*User {
	us := make([]*User, 0, len(s.users))
	for _, u := range s.users {
		us = append(us, u)
	}
	sort.Slice(us, func(i, j int) bool { return us[i].Seq < us[j].Seq })
	return us
}

func (s *Store) sortedGroups() []*Group {
	gs := make([]*Group, 0, len(s.groups))
	for _, g := range s.groups {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool { return gs[i].Seq < gs[j].Seq })
	return gs
}

// randomID is a random UUID (version 4).
func randomID() string {
	var b [16]byte
	if _, err := io.ReadFull(rand.Reader, b[:]); err != nil {
		panic(err) // crypto/rand does not fail
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
